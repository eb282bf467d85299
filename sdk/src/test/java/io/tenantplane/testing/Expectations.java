package io.tenantplane.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Checks rendered objects against a fixture case: the list of {@code Kind/name}s in order, and field expectations
 * {@code {object, path, equals | contains | excludes}}. Paths: {@code a.b}, {@code [0]}, {@code [key.with.dots]} for
 * map keys, {@code [*]} to map over a list.
 */
public final class Expectations {

    private Expectations() {
    }

    public static List<JsonObject> cases(String resource) {
        try (InputStream in = Expectations.class.getResourceAsStream(resource)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<JsonObject> out = new ArrayList<>();
            for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text)) {
                out.add(Json.fromYamlValue(doc).getAsJsonObject());
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String id(JsonObject o) {
        return Json.string(o, "kind") + "/" + Json.string(o, "metadata", "name");
    }

    public static void check(JsonObject caseDoc, List<JsonObject> rendered) {
        List<String> expectedIds = caseDoc.getAsJsonArray("objects").asList().stream().map(JsonElement::getAsString)
                .toList();
        assertEquals(expectedIds, rendered.stream().map(Expectations::id).toList());
        for (JsonElement e : caseDoc.getAsJsonArray("expect")) {
            JsonObject x = e.getAsJsonObject();
            String id = Json.string(x, "object");
            String path = Json.string(x, "path");
            JsonObject object = rendered.stream().filter(o -> id(o).equals(id)).findFirst()
                    .orElseThrow(() -> new AssertionError("no object " + id));
            JsonElement actual = at(object, path);
            String where = id + " " + path;
            if (x.has("equals")) {
                JsonElement want = x.get("equals");
                assertEquals(normalize(want), normalize(actual), where);
            } else if (x.has("contains")) {
                assertTrue(contains(actual, x.get("contains")), where + " should contain " + x.get("contains")
                        + ", is " + actual);
            } else if (x.has("excludes")) {
                assertTrue(!contains(actual, x.get("excludes")), where + " should not contain " + x.get("excludes")
                        + ", is " + actual);
            } else {
                throw new AssertionError("expectation without equals, contains or excludes: " + x);
            }
        }
    }

    private static boolean contains(JsonElement actual, JsonElement wanted) {
        if (actual == null) {
            return false;
        }
        if (actual.isJsonArray()) {
            return actual.getAsJsonArray().asList().stream().anyMatch(a -> normalize(a).equals(normalize(wanted)));
        }
        return actual.isJsonPrimitive() && actual.getAsString().contains(wanted.getAsString());
    }

    /** Numbers compared by value (YAML gives Integer, the renderer may give Long). */
    private static JsonElement normalize(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return JsonNull.INSTANCE;
        }
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            return new com.google.gson.JsonPrimitive(e.getAsBigDecimal().stripTrailingZeros());
        }
        if (e.isJsonArray()) {
            JsonArray a = new JsonArray();
            e.getAsJsonArray().forEach(x -> a.add(normalize(x)));
            return a;
        }
        if (e.isJsonObject()) {
            JsonObject o = new JsonObject();
            e.getAsJsonObject().entrySet().forEach(en -> o.add(en.getKey(), normalize(en.getValue())));
            return o;
        }
        return e;
    }

    public static JsonElement at(JsonElement root, String path) {
        List<String> steps = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '.') {
                if (!cur.isEmpty()) {
                    steps.add(cur.toString());
                }
                cur.setLength(0);
            } else if (c == '[') {
                if (!cur.isEmpty()) {
                    steps.add(cur.toString());
                }
                cur.setLength(0);
                int end = path.indexOf(']', i);
                steps.add(path.substring(i, end + 1));
                i = end;
            } else {
                cur.append(c);
            }
        }
        if (!cur.isEmpty()) {
            steps.add(cur.toString());
        }
        return walk(root, steps, 0);
    }

    private static JsonElement walk(JsonElement e, List<String> steps, int i) {
        if (i == steps.size() || e == null || e.isJsonNull()) {
            return i == steps.size() ? e : null;
        }
        String s = steps.get(i);
        if (s.equals("[*]")) {
            JsonArray out = new JsonArray();
            e.getAsJsonArray().forEach(x -> out.add(walk(x, steps, i + 1)));
            return out;
        }
        if (s.startsWith("[")) {
            String inner = s.substring(1, s.length() - 1);
            if (e.isJsonArray()) {
                int n = Integer.parseInt(inner);
                return n < e.getAsJsonArray().size() ? walk(e.getAsJsonArray().get(n), steps, i + 1) : null;
            }
            return walk(e.getAsJsonObject().get(inner), steps, i + 1);
        }
        return e.isJsonObject() ? walk(e.getAsJsonObject().get(s), steps, i + 1) : null;
    }
}
