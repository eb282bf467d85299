package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The bad-input corpus: one YAML file per hostile or broken input under {@code src/test/resources/reliability/corpus},
 * each carrying its own expectation as the first document ({@code expect:}). The same files drive the offline test
 * ({@code BadInputCorpusTest}: validation and planning with no cluster) and the live one ({@code ReliabilityCorpusIT}:
 * through the SDK against in-process API servers, counting the writes the host server sees).
 *
 * <p>Two inputs exist. {@code custom-resources}: tenantplane objects that replace the example TenantCluster,
 * IsolationProfile or SyncPolicy of the same kind (the others stay), expected to fail validation with a problem
 * naming a field. {@code tenant-objects}: objects a tenant creates in its own API, planned for the example tenant
 * {@code dev} in host namespace {@code team-dev} (tenantplane objects among them replace the examples the same way),
 * expected to give named decisions.
 */
public final class Corpus {

    /** The repository's examples; tests run in the module directory. */
    public static final Path EXAMPLES = Path.of("..", "examples", "yaml");
    /** The kinds whose writes count as "workload writes" on the host (synced copies), by RBAC resource name. */
    public static final Set<String> WORKLOAD_RESOURCES = Set.of("pods", "services", "configmaps", "secrets",
            "persistentvolumeclaims", "ingresses.networking.k8s.io", "endpoints", "networkpolicies.networking.k8s.io",
            "serviceaccounts", "poddisruptionbudgets.policy", "endpointslices.discovery.k8s.io");

    private static final Pattern SEGMENT = Pattern.compile("\\.?(?:([^.\\[\\]']+)|\\[(\\d+)]|\\['([^']+)'])");

    private Corpus() {
    }

    /** What the input is. */
    public enum Input {
        CUSTOM_RESOURCES, TENANT_OBJECTS
    }

    /**
     * A validation problem the offline check must report.
     *
     * @param field   the exact field path
     * @param message a fragment of the message (the rule)
     */
    public record ExpectedProblem(String field, String message) {
    }

    /**
     * A decision the plan must hold for one tenant object.
     *
     * @param kind      the kind
     * @param namespace the virtual namespace (null for none)
     * @param name      the tenant name (null when the object has none)
     * @param action    the action
     * @param reason    the stable reason
     * @param message   a fragment of the decision's message (the field and the rule)
     */
    public record ExpectedDecision(String kind, String namespace, String name, Action action, String reason,
                                   String message) {

        /** True when {@code d} is about this tenant object. */
        public boolean isAbout(Decision d) {
            return d.kind().equals(kind) && d.source() != null && Objects.equals(d.source().name(), name)
                    && Objects.equals(d.source().virtualNamespace(), namespace);
        }
    }

    /**
     * What the host copy of one tenant object must (not) look like.
     *
     * @param kind           the kind
     * @param namespace      the virtual namespace
     * @param name           the tenant name
     * @param hostName       the exact host name, or null
     * @param hostNameLength the host name's length, or null
     * @param labels         labels it must carry with these values
     * @param noLabels       label keys it must not carry
     * @param annotations    annotations it must carry with these values
     * @param noAnnotations  annotation keys it must not carry
     * @param fields         dotted paths ({@code spec.volumes[0].secret.secretName}) and their values
     * @param notFields      dotted paths and values they must not have (absent is fine)
     * @param absent         dotted paths that must be absent
     */
    public record HostCheck(String kind, String namespace, String name, String hostName, Integer hostNameLength,
                            Map<String, String> labels, List<String> noLabels, Map<String, String> annotations,
                            List<String> noAnnotations, Map<String, String> fields, Map<String, String> notFields,
                            List<String> absent) {
    }

    /**
     * What the in-process host API server does with custom resources (it checks the CRD schema: types, enums,
     * patterns, sizes; it does not evaluate CEL rules, so those inputs reach tenantplane's own validation).
     *
     * @param refusedKind  the kind the host API server refuses on create, or null when all are stored
     * @param refusedField a fragment of its refusal (the field), or null
     * @param condition    a fragment of the TenantCluster's {@code Ready=False/InvalidSpec} message, or null when
     *                     the TenantCluster itself is refused
     */
    public record Live(String refusedKind, String refusedField, String condition) {
    }

    /**
     * One corpus file.
     *
     * @param file          the file name
     * @param about         one line: what is tried
     * @param input         what the objects are
     * @param problems      custom resources: problems validation must report
     * @param live          custom resources: what happens against the live host
     * @param decisions     tenant objects: decisions the plan must hold
     * @param hostChecks    tenant objects: what the host copies must look like
     * @param tenantRefuses tenant objects: the tenant's own API server refuses them, so they can never reach tenantplane
     *                      from a live tenant (only from files, e.g. {@code tenantplane plan})
     * @param objects       the objects of the file, after {@code fill} directives
     */
    public record Case(String file, String about, Input input, List<ExpectedProblem> problems, Live live,
                       List<ExpectedDecision> decisions, List<HostCheck> hostChecks, boolean tenantRefuses,
                       List<JsonObject> objects) {

        /** The writes the plan must make on the host: one per expected Create, Update or Delete. */
        public long expectedWrites() {
            return decisions.stream().filter(d -> d.action().writes()).count();
        }

        /** The tenant objects of the file (tenantplane objects left out). */
        public List<JsonObject> tenantObjects() {
            return objects.stream().filter(o -> !isCustomResource(o)).map(JsonObject::deepCopy).toList();
        }

        /** The example TenantCluster, IsolationProfile and SyncPolicy with the file's of the same kind in their place. */
        public List<JsonObject> customResources() {
            List<JsonObject> out = new ArrayList<>();
            for (JsonObject example : examples()) {
                JsonObject replacement = objects.stream().filter(Corpus::isCustomResource)
                        .filter(o -> Objects.equals(Json.string(o, "kind"), Json.string(example, "kind")))
                        .findFirst().orElse(example);
                out.add(replacement.deepCopy());
            }
            return out;
        }

        /** {@link #customResources()} as loaded objects, for {@code TenantPlane.validate}. */
        public List<LoadedObject> loadedCustomResources() {
            List<LoadedObject> out = new ArrayList<>();
            int i = 0;
            for (JsonObject o : customResources()) {
                out.add(new LoadedObject(Path.of(file), i++, o));
            }
            return out;
        }

        /** The TenantCluster among {@link #customResources()}. */
        public JsonObject tenantCluster() {
            return customResources().stream().filter(o -> TenantCluster.KIND.equals(Json.string(o, "kind")))
                    .findFirst().orElseThrow();
        }

        /** The parsed TenantCluster, IsolationProfile and SyncPolicy; for tenant-object cases, whose CRs are valid. */
        public TenantCluster parsedTenantCluster() {
            return TenantCluster.fromJson(tenantCluster()).orElseThrow();
        }

        public IsolationProfile parsedProfile() {
            return IsolationProfile.fromJson(byKind(IsolationProfile.KIND)).orElseThrow();
        }

        public SyncPolicy parsedPolicy() {
            return SyncPolicy.fromJson(byKind(SyncPolicy.KIND)).orElseThrow();
        }

        private JsonObject byKind(String kind) {
            return customResources().stream().filter(o -> kind.equals(Json.string(o, "kind"))).findFirst()
                    .orElseThrow();
        }

        @Override
        public String toString() {
            return file + ": " + about;
        }
    }

    static boolean isCustomResource(JsonObject o) {
        String av = Json.string(o, "apiVersion");
        return av != null && av.startsWith(TenantCluster.GROUP + "/");
    }

    /** The example TenantCluster, IsolationProfile and SyncPolicy (tenant {@code dev} in {@code team-dev}). */
    public static List<JsonObject> examples() {
        List<JsonObject> out = new ArrayList<>();
        for (LoadedObject lo : Manifests.read(EXAMPLES.resolve("isolationprofile.yaml"),
                EXAMPLES.resolve("syncpolicy.yaml"), EXAMPLES.resolve("tenantcluster.yaml"))) {
            out.add(lo.object().deepCopy());
        }
        return out;
    }

    /** Every case of the corpus, by file name. */
    public static List<Case> cases() {
        Path dir;
        try {
            dir = Path.of(Objects.requireNonNull(Corpus.class.getResource("/reliability/corpus"),
                    "no reliability/corpus on the test class path").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted()
                    .map(Corpus::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Case read(Path file) {
        String name = file.getFileName().toString();
        List<JsonObject> docs = new ArrayList<>();
        try {
            for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions()))
                    .loadAll(Files.readString(file, StandardCharsets.UTF_8))) {
                if (doc != null) {
                    docs.add(Json.fromYamlValue(doc).getAsJsonObject());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (docs.isEmpty() || !docs.get(0).has("expect")) {
            throw new IllegalStateException(name + ": the first document must be the expectation (expect:)");
        }
        JsonObject head = docs.get(0);
        JsonObject e = head.getAsJsonObject("expect");
        List<JsonObject> objects = new ArrayList<>(docs.subList(1, docs.size()));
        for (JsonElement f : array(head, "fill")) {
            JsonObject fill = f.getAsJsonObject();
            int doc = fill.get("doc").getAsInt();
            put(objects.get(doc), fill.get("path").getAsString(), new JsonPrimitive(
                    fill.has("text") ? fill.get("text").getAsString().repeat(fill.get("times").getAsInt())
                            : "x".repeat(fill.get("bytes").getAsInt())));
        }
        Input input = switch (string(e, "input")) {
            case "custom-resources" -> Input.CUSTOM_RESOURCES;
            case "tenant-objects" -> Input.TENANT_OBJECTS;
            default -> throw new IllegalStateException(name + ": input must be custom-resources or tenant-objects");
        };
        List<ExpectedProblem> problems = new ArrayList<>();
        for (JsonElement p : array(e, "problems")) {
            problems.add(new ExpectedProblem(string(p.getAsJsonObject(), "field"), string(p.getAsJsonObject(),
                    "message")));
        }
        Live live = null;
        if (e.has("live")) {
            JsonObject l = e.getAsJsonObject("live");
            live = new Live(string(l, "refusedKind"), string(l, "refusedField"), string(l, "condition"));
        }
        List<ExpectedDecision> decisions = new ArrayList<>();
        for (JsonElement d : array(e, "decisions")) {
            JsonObject o = d.getAsJsonObject();
            decisions.add(new ExpectedDecision(string(o, "kind"), string(o, "namespace"), string(o, "name"),
                    Action.valueOf(string(o, "action").toUpperCase(java.util.Locale.ROOT)), string(o, "reason"),
                    string(o, "message")));
        }
        List<HostCheck> checks = new ArrayList<>();
        for (JsonElement h : array(e, "host")) {
            JsonObject o = h.getAsJsonObject();
            checks.add(new HostCheck(string(o, "kind"), string(o, "namespace"), string(o, "name"),
                    string(o, "hostName"), o.has("hostNameLength") ? o.get("hostNameLength").getAsInt() : null,
                    stringMap(o, "labels"), strings(o, "noLabels"), stringMap(o, "annotations"),
                    strings(o, "noAnnotations"), stringMap(o, "fields"), stringMap(o, "notFields"),
                    strings(o, "absent")));
        }
        boolean refuses = e.has("tenantRefuses") && e.get("tenantRefuses").getAsBoolean();
        Case c = new Case(name, string(e, "about"), input, List.copyOf(problems), live, List.copyOf(decisions),
                List.copyOf(checks), refuses, List.copyOf(objects));
        check(c);
        return c;
    }

    private static void check(Case c) {
        if (c.about() == null || c.about().isBlank()) {
            throw new IllegalStateException(c.file() + ": expect.about is required");
        }
        if (c.input() == Input.CUSTOM_RESOURCES && (c.problems().isEmpty() || c.live() == null)) {
            throw new IllegalStateException(c.file() + ": custom-resources cases need expect.problems and expect.live");
        }
        if (c.input() == Input.TENANT_OBJECTS && c.decisions().isEmpty()) {
            throw new IllegalStateException(c.file() + ": tenant-objects cases need expect.decisions");
        }
        for (ExpectedProblem p : c.problems()) {
            if (p.field() == null || p.message() == null) {
                throw new IllegalStateException(c.file() + ": each problem names a field and a message fragment");
            }
        }
        for (ExpectedDecision d : c.decisions()) {
            if (d.reason() == null || d.message() == null) {
                throw new IllegalStateException(c.file() + ": each decision names a reason and a message fragment");
            }
        }
    }

    /** Asserts the checks of {@code h} on one host object (a planned desired object, or one read from the host). */
    public static void assertHost(Case c, HostCheck h, JsonObject host) {
        String name = Json.string(host, "metadata", "name");
        if (h.hostName() != null) {
            assertEquals(h.hostName(), name, c.file());
        }
        if (h.hostNameLength() != null) {
            assertEquals(h.hostNameLength().intValue(), name.length(), () -> c.file() + ": " + name);
        }
        Map<String, String> labels = Json.labels(host);
        Map<String, String> annotations = Json.annotations(host);
        h.labels().forEach((k, v) -> assertEquals(v, labels.get(k), () -> c.file() + ": label " + k + " of " + labels));
        h.noLabels().forEach(k -> assertFalse(labels.containsKey(k), () -> c.file() + ": label " + k + " in " + labels));
        h.annotations().forEach((k, v) -> assertEquals(v, annotations.get(k), () -> c.file() + ": annotation " + k));
        h.noAnnotations().forEach(k -> assertFalse(annotations.containsKey(k), () -> c.file() + ": annotation " + k
                + " in " + annotations));
        h.fields().forEach((p, v) -> assertEquals(v, text(host, p), () -> c.file() + ": " + p));
        h.notFields().forEach((p, v) -> assertFalse(v.equals(text(host, p)), () -> c.file() + ": " + p + " is " + v));
        h.absent().forEach(p -> assertNull(text(host, p), () -> c.file() + ": " + p + " is absent"));
    }

    // ---------------------------------------------------------------- paths

    /**
     * The value at a path such as {@code spec.volumes[0].secret.secretName} or
     * {@code spec.selector['tenantplane.io/tenant']} (quoted keys may hold dots), or null.
     */
    public static JsonElement at(JsonObject root, String path) {
        JsonElement cur = root;
        Matcher m = SEGMENT.matcher(path);
        int end = 0;
        while (m.find() && m.start() == end) {
            end = m.end();
            if (cur == null) {
                return null;
            }
            if (m.group(2) != null) {
                int i = Integer.parseInt(m.group(2));
                cur = cur.isJsonArray() && cur.getAsJsonArray().size() > i ? cur.getAsJsonArray().get(i) : null;
            } else {
                String key = m.group(1) != null ? m.group(1) : m.group(3);
                cur = cur.isJsonObject() ? cur.getAsJsonObject().get(key) : null;
            }
        }
        if (end != path.length()) {
            throw new IllegalArgumentException("not a path: " + path);
        }
        return cur;
    }

    /** The value at {@code path} as text (strings plain, anything else as JSON), or null. */
    public static String text(JsonObject root, String path) {
        JsonElement e = at(root, path);
        if (e == null || e.isJsonNull()) {
            return null;
        }
        return e.isJsonPrimitive() ? e.getAsString() : e.toString();
    }

    private static void put(JsonObject root, String path, JsonElement value) {
        String[] parts = path.split("\\.");
        JsonObject cur = root;
        for (int i = 0; i < parts.length - 1; i++) {
            cur = Json.child(cur, parts[i]);
        }
        cur.add(parts[parts.length - 1], value);
    }

    private static JsonArray array(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : new JsonArray();
    }

    private static String string(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }

    private static List<String> strings(JsonObject o, String key) {
        List<String> out = new ArrayList<>();
        array(o, key).forEach(e -> out.add(e.getAsString()));
        return List.copyOf(out);
    }

    private static Map<String, String> stringMap(JsonObject o, String key) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        JsonObject m = o.has(key) ? o.getAsJsonObject(key) : new JsonObject();
        m.entrySet().forEach(en -> out.put(en.getKey(), en.getValue().getAsString()));
        return java.util.Collections.unmodifiableMap(out);
    }
}
