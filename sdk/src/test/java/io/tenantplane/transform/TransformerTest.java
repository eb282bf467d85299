package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.FixtureYaml;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class TransformerTest {

    @TestFactory
    Stream<DynamicTest> podCases() {
        return cases("transform/pods.yaml");
    }

    @TestFactory
    Stream<DynamicTest> otherKindCases() {
        return cases("transform/kinds.yaml");
    }

    private Stream<DynamicTest> cases(String resource) {
        JsonObject file = FixtureYaml.resource(resource).get(0).getAsJsonObject();
        String tenant = Json.string(file, "tenant");
        String hostNs = Json.string(file, "hostNamespace");
        return FixtureYaml.objects(file, "cases").stream().map(c -> DynamicTest.dynamicTest(Json.string(c, "name"), () -> {
            SyncPolicy policy = FixtureYaml.policy(c.has("policy") ? c : file);
            JsonObject optionsHolder = new JsonObject();
            JsonObject merged = file.has("options") ? file.getAsJsonObject("options").deepCopy() : new JsonObject();
            if (c.has("options")) {
                c.getAsJsonObject("options").entrySet().forEach(e -> merged.add(e.getKey(), e.getValue()));
            }
            optionsHolder.add("options", merged);
            Transformer t = new Transformer(tenant, hostNs, policy, FixtureYaml.options(optionsHolder));
            JsonObject input = c.getAsJsonObject("input");
            JsonObject before = input.deepCopy();
            TransformResult r = t.transform(input);
            assertEquals(before, input, "the transform must not modify its input");
            check(c.getAsJsonObject("expect"), r, tenant, hostNs);
        }));
    }

    private static void check(JsonObject expect, TransformResult r, String tenant, String hostNs) {
        String kind = Json.string(expect, "result");
        assertEquals(kind, r.getClass().getSimpleName(), "result: " + r);
        if (expect.has("reason")) {
            assertEquals(Json.string(expect, "reason"), r.reason());
        }
        switch (r) {
            case TransformResult.Transformed t -> {
                assertFullReverseMapping(t.host(), tenant, hostNs);
                if (expect.has("hostContains")) {
                    List<String> problems = FixtureYaml.containsProblems(expect.get("hostContains"), t.host(), "host");
                    if (!problems.isEmpty()) {
                        fail(String.join("\n", problems) + "\nhost: " + t.host());
                    }
                }
                if (expect.has("hostLacks")) {
                    expect.getAsJsonArray("hostLacks").forEach(p ->
                            assertNull(FixtureYaml.at(t.host(), p.getAsString()), p.getAsString() + " must be absent"));
                }
                if (expect.has("notesContain")) {
                    expect.getAsJsonArray("notesContain").forEach(n -> assertTrue(
                            t.notes().stream().anyMatch(x -> x.contains(n.getAsString())), "notes " + t.notes()));
                }
            }
            case TransformResult.Rejected rej -> checkProblem(expect, rej.fieldPath(), rej.message());
            case TransformResult.Skipped skip -> checkProblem(expect, skip.fieldPath(), skip.message());
        }
    }

    private static void checkProblem(JsonObject expect, String fieldPath, String message) {
        if (expect.has("fieldPath")) {
            assertEquals(Json.string(expect, "fieldPath"), fieldPath);
        }
        if (expect.has("messageContains")) {
            assertTrue(message.contains(Json.string(expect, "messageContains")), "message: " + message);
        }
    }

    /** Every host object carries the full reverse mapping, and is judged ours by the ownership rule. */
    static void assertFullReverseMapping(JsonObject host, String tenant, String hostNs) {
        var labels = Json.labels(host);
        var ann = Json.annotations(host);
        assertEquals("tenantplane", labels.get(ReverseMapping.MANAGED_BY));
        assertEquals(tenant, labels.get(ReverseMapping.TENANT));
        for (String a : List.of(ReverseMapping.SOURCE_KIND, ReverseMapping.SOURCE_NAME, ReverseMapping.SOURCE_HASH)) {
            assertTrue(ann.containsKey(a), "missing annotation " + a);
        }
        if (Json.string(host, "metadata", "namespace") != null) {
            assertEquals(hostNs, Json.string(host, "metadata", "namespace"));
            assertEquals(labels.get(ReverseMapping.VIRTUAL_NAMESPACE), ann.get(ReverseMapping.SOURCE_NAMESPACE));
        }
        assertInstanceOf(Ownership.Managed.class, ReverseMapping.inspect(host, tenant, hostNs));
    }

    private static Transformer transformer(String... kinds) {
        List<SyncPolicy.KindRule> rules = Stream.of(kinds).map(k -> new SyncPolicy.KindRule(k, null, true, null, null, null)).toList();
        return new Transformer("dev", "team-dev", new SyncPolicy(null, null, null, new SyncPolicy.Spec(rules)),
                TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED));
    }

    private static JsonObject configMap(String data) {
        JsonObject o = new JsonObject();
        o.addProperty("kind", "ConfigMap");
        Json.child(o, "metadata").addProperty("name", "cfg");
        Json.child(o, "metadata").addProperty("namespace", "default");
        Json.child(o, "data").addProperty("k", data);
        return o;
    }

    @Test
    void theSourceHashIsStableAndChangesWithTheSource() {
        Transformer t = transformer("ConfigMap");
        String h1 = Json.annotations(((TransformResult.Transformed) t.transform(configMap("a"))).host()).get(ReverseMapping.SOURCE_HASH);
        String h1Again = Json.annotations(((TransformResult.Transformed) t.transform(configMap("a"))).host()).get(ReverseMapping.SOURCE_HASH);
        String h2 = Json.annotations(((TransformResult.Transformed) t.transform(configMap("b"))).host()).get(ReverseMapping.SOURCE_HASH);
        assertEquals(h1, h1Again);
        assertNotEquals(h1, h2);
        assertEquals(16, h1.length());
    }

    @Test
    void theSourceHashIgnoresKeyOrderAndNumberSpelling() {
        Transformer t = transformer("Widget");
        JsonObject a = (JsonObject) FixtureYaml.resource("transform/widget-a.yaml").get(0);
        JsonObject b = Json.gson().fromJson("{\"spec\":{\"size\":3.0,\"name\":\"w\"},\"metadata\":{\"namespace\":\"default\","
                + "\"name\":\"w1\"},\"kind\":\"Widget\"}", JsonObject.class);
        assertEquals(hash(t, a), hash(t, b));
    }

    private static String hash(Transformer t, JsonObject o) {
        return Json.annotations(((TransformResult.Transformed) t.transform(o)).host()).get(ReverseMapping.SOURCE_HASH);
    }

    @Test
    void withReasonCopiesTheHostObjectAndSetsTheReasonAnnotation() {
        var t = (TransformResult.Transformed) transformer("ConfigMap").transform(configMap("a"));
        JsonObject withReason = t.withReason("NotOnHost");
        assertEquals("NotOnHost", Json.annotations(withReason).get(ReverseMapping.REASON));
        assertNull(Json.annotations(t.host()).get(ReverseMapping.REASON));
    }

    @Test
    void identifyGivesTheSourceOrNullForMalformedObjects() {
        Transformer t = transformer("ConfigMap");
        assertEquals("cfg-x-default-x-dev", t.identify(configMap("a")).hostName());
        JsonElement noName = Json.gson().fromJson("{\"kind\":\"ConfigMap\",\"metadata\":{\"namespace\":\"default\"}}", JsonObject.class);
        assertNull(t.identify(noName.getAsJsonObject()));
        JsonObject storageClass = Json.gson().fromJson("{\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"fast\"}}", JsonObject.class);
        assertNull(t.identify(storageClass).virtualNamespace());
        assertEquals("fast-x-dev", t.identify(storageClass).hostName());
    }

    @Test
    void optionsValidateTheirArguments() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> TransformOptions.defaults().withHostServiceAccount("Not Valid"));
        assertTrue(e.getMessage().contains("hostServiceAccount"));
        assertEquals(PodSecurityLevel.BASELINE, PodSecurityLevel.parse("Baseline"));
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> PodSecurityLevel.parse("strict")).getMessage().contains("privileged, baseline, restricted"));
    }

    /** The key and value checks accept exactly what the Kubernetes patterns accept. */
    @Test
    void labelKeyAndValueChecksAgreeWithKubernetesPatterns() {
        java.util.regex.Pattern name = java.util.regex.Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
        java.util.regex.Pattern value = java.util.regex.Pattern.compile("|[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
        String alphabet = "aZ9-_./ \u00e9:";
        java.util.Random r = new java.util.Random(11L);
        for (int i = 0; i < 100_000; i++) {
            int n = r.nextInt(10) == 0 ? 55 + r.nextInt(20) : r.nextInt(7);
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < n; k++) {
                sb.append(r.nextInt(3) == 0 ? alphabet.charAt(r.nextInt(alphabet.length())) : 'k');
            }
            String s = sb.toString();
            int slash = s.indexOf('/');
            String part = slash < 0 ? s : s.substring(slash + 1);
            boolean expectedKey = (slash < 0 || io.tenantplane.naming.HostNames.isDns1123Subdomain(s.substring(0, slash)))
                    && part.length() <= 63 && name.matcher(part).matches();
            assertEquals(expectedKey, Transformer.isQualifiedName(s), s);
            assertEquals(value.matcher(s).matches(), Transformer.isLabelValue(s), s);
        }
    }
}
