package io.tenantplane.plan;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Loads YAML test fixtures as gson trees, and reads the pieces every table-driven test shares. */
public final class FixtureYaml {

    private FixtureYaml() {
    }

    /** Every document of a classpath resource, as gson trees. */
    public static List<JsonElement> resource(String path) {
        try (InputStream in = FixtureYaml.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + path);
            }
            return documents(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every document of a file. */
    public static List<JsonElement> file(Path path) {
        try {
            return documents(Files.readString(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<JsonElement> documents(String text) {
        Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        List<JsonElement> out = new ArrayList<>();
        for (Object doc : yaml.loadAll(text)) {
            if (doc != null) {
                out.add(Json.fromYamlValue(doc));
            }
        }
        return out;
    }

    /** The objects of a list field (empty when absent). */
    public static List<JsonObject> objects(JsonObject o, String field) {
        List<JsonObject> out = new ArrayList<>();
        JsonElement e = o.get(field);
        if (e != null && e.isJsonArray()) {
            e.getAsJsonArray().forEach(x -> out.add(x.getAsJsonObject()));
        }
        return out;
    }

    /** A SyncPolicy from a fixture's {@code policy} field: either a whole SyncPolicy or just its {@code kinds}. */
    public static SyncPolicy policy(JsonObject fixture) {
        JsonElement p = fixture.get("policy");
        if (p == null) {
            throw new IllegalArgumentException("fixture has no policy");
        }
        JsonObject whole;
        if (p.isJsonArray()) {
            whole = new JsonObject();
            JsonObject spec = new JsonObject();
            spec.add("kinds", p);
            whole.add("spec", spec);
        } else {
            whole = p.getAsJsonObject();
        }
        return Json.gson().fromJson(whole, SyncPolicy.class);
    }

    /** TransformOptions from the file's {@code options} overlaid with the case's {@code field} (e.g. options, previousOptions). */
    public static TransformOptions options(JsonObject file, JsonObject c, String field) {
        JsonObject merged = file.has("options") ? file.getAsJsonObject("options").deepCopy() : new JsonObject();
        JsonObject own = c.has(field) ? c.getAsJsonObject(field) : (c.has("options") ? c.getAsJsonObject("options") : null);
        if (own != null) {
            own.entrySet().forEach(e -> merged.add(e.getKey(), e.getValue()));
        }
        JsonObject holder = new JsonObject();
        holder.add("options", merged);
        return options(holder);
    }

    private static final List<String> OPTION_FIELDS = List.of("hostServiceAccount", "allowedServiceTypes",
            "podSecurity", "nodeSelector", "tolerations", "endpointAddresses");

    /** TransformOptions from a fixture's {@code options} field (defaults for absent fields). */
    public static TransformOptions options(JsonObject fixture) {
        TransformOptions o = TransformOptions.defaults();
        JsonObject j = fixture.has("options") ? fixture.getAsJsonObject("options") : new JsonObject();
        for (String field : j.keySet()) {
            if (!OPTION_FIELDS.contains(field)) {
                throw new IllegalArgumentException("a fixture's options name " + field + ", which the loader does not "
                        + "know (known: " + OPTION_FIELDS + "); a silently ignored option would make the case test "
                        + "something else");
            }
        }
        if (j.has("hostServiceAccount")) {
            o = o.withHostServiceAccount(j.get("hostServiceAccount").getAsString());
        }
        if (j.has("allowedServiceTypes")) {
            LinkedHashSet<String> types = new LinkedHashSet<>();
            j.getAsJsonArray("allowedServiceTypes").forEach(t -> types.add(t.getAsString()));
            o = o.withAllowedServiceTypes(types);
        }
        if (j.has("podSecurity")) {
            o = o.withPodSecurity(PodSecurityLevel.parse(j.get("podSecurity").getAsString()));
        }
        if (j.has("nodeSelector") || j.has("tolerations")) {
            Map<String, String> sel = new LinkedHashMap<>();
            if (j.has("nodeSelector")) {
                j.getAsJsonObject("nodeSelector").entrySet().forEach(e -> sel.put(e.getKey(), e.getValue().getAsString()));
            }
            List<JsonObject> tol = new ArrayList<>();
            if (j.has("tolerations")) {
                j.getAsJsonArray("tolerations").forEach(t -> tol.add(t.getAsJsonObject()));
            }
            o = o.withPlacement(sel, tol);
        }
        if (j.has("endpointAddresses")) {
            JsonObject ea = j.getAsJsonObject("endpointAddresses");
            java.util.Set<String> pods = new java.util.LinkedHashSet<>();
            List<String> cidrs = new ArrayList<>();
            if (ea.has("podIps")) {
                ea.getAsJsonArray("podIps").forEach(e -> pods.add(e.getAsString()));
            }
            if (ea.has("allowedCidrs")) {
                ea.getAsJsonArray("allowedCidrs").forEach(e -> cidrs.add(e.getAsString()));
            }
            o = o.withEndpointAddresses(new TransformOptions.EndpointAddresses(pods, cidrs));
        }
        return o;
    }

    /**
     * The element at a path such as {@code spec.containers[0].image} or {@code metadata.labels[tenantplane.io/tenant]}
     * (brackets hold an index or a literal key); null when any step is missing.
     */
    public static JsonElement at(JsonElement root, String path) {
        JsonElement cur = root;
        int i = 0;
        while (i < path.length() && cur != null) {
            char c = path.charAt(i);
            if (c == '.') {
                i++;
                continue;
            }
            String seg;
            boolean bracket = c == '[';
            if (bracket) {
                int end = path.indexOf(']', i);
                seg = path.substring(i + 1, end);
                i = end + 1;
            } else {
                int end = i;
                while (end < path.length() && path.charAt(end) != '.' && path.charAt(end) != '[') {
                    end++;
                }
                seg = path.substring(i, end);
                i = end;
            }
            if (cur.isJsonArray() && bracket && seg.chars().allMatch(Character::isDigit)) {
                JsonArray a = cur.getAsJsonArray();
                int idx = Integer.parseInt(seg);
                cur = idx < a.size() ? a.get(idx) : null;
            } else if (cur.isJsonObject()) {
                cur = cur.getAsJsonObject().get(seg);
            } else {
                return null;
            }
        }
        return cur;
    }

    /**
     * Problems where {@code actual} does not contain {@code expected} (objects: every expected key, recursively;
     * arrays: same length, element-wise; scalars: equal as strings).
     */
    public static List<String> containsProblems(JsonElement expected, JsonElement actual, String path) {
        List<String> out = new ArrayList<>();
        if (expected == null || expected.isJsonNull()) {
            if (actual != null && !actual.isJsonNull()) {
                out.add(path + ": expected absent, got " + actual);
            }
            return out;
        }
        if (actual == null || actual.isJsonNull()) {
            out.add(path + ": expected " + expected + ", got nothing");
            return out;
        }
        if (expected.isJsonObject() && actual.isJsonObject()) {
            for (var e : expected.getAsJsonObject().entrySet()) {
                out.addAll(containsProblems(e.getValue(), actual.getAsJsonObject().get(e.getKey()), path + "." + e.getKey()));
            }
        } else if (expected.isJsonArray() && actual.isJsonArray()) {
            if (expected.getAsJsonArray().size() != actual.getAsJsonArray().size()) {
                out.add(path + ": expected " + expected.getAsJsonArray().size() + " items, got " + actual);
            } else {
                for (int i = 0; i < expected.getAsJsonArray().size(); i++) {
                    out.addAll(containsProblems(expected.getAsJsonArray().get(i), actual.getAsJsonArray().get(i), path + "[" + i + "]"));
                }
            }
        } else if (!(expected.isJsonPrimitive() && actual.isJsonPrimitive()
                && expected.getAsString().equals(actual.getAsString()))) {
            out.add(path + ": expected " + expected + ", got " + actual);
        }
        return out;
    }
}
