package io.tenantplane.json;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.List;
import java.util.Map;

/**
 * Small helpers over gson's tree model, which is how the SDK holds Kubernetes objects: a field the SDK does not
 * know survives every transform unchanged.
 */
public final class Json {

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private Json() {
    }

    /** A gson instance configured for Kubernetes JSON (no HTML escaping). Stateless and thread-safe. */
    public static Gson gson() {
        return GSON;
    }

    /** Converts what SnakeYAML loads (maps, lists, scalars) to a gson tree. */
    public static JsonElement fromYamlValue(Object value) {
        if (value == null) {
            return JsonNull.INSTANCE;
        }
        if (value instanceof Map<?, ?> map) {
            JsonObject o = new JsonObject();
            map.forEach((k, v) -> o.add(String.valueOf(k), fromYamlValue(v)));
            return o;
        }
        if (value instanceof List<?> list) {
            JsonArray a = new JsonArray();
            list.forEach(v -> a.add(fromYamlValue(v)));
            return a;
        }
        if (value instanceof Boolean b) {
            return new JsonPrimitive(b);
        }
        if (value instanceof Number n) {
            return new JsonPrimitive(n);
        }
        return new JsonPrimitive(String.valueOf(value));
    }

    /** Converts a gson tree to plain maps, lists and scalars (for SnakeYAML output); integral numbers stay integral. */
    public static Object toYamlValue(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        if (e.isJsonObject()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            e.getAsJsonObject().entrySet().forEach(en -> m.put(en.getKey(), toYamlValue(en.getValue())));
            return m;
        }
        if (e.isJsonArray()) {
            List<Object> l = new java.util.ArrayList<>();
            e.getAsJsonArray().forEach(x -> l.add(toYamlValue(x)));
            return l;
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return p.getAsBoolean();
        }
        if (p.isNumber()) {
            java.math.BigDecimal d = p.getAsBigDecimal();
            if (d.stripTrailingZeros().scale() <= 0) {
                return d.toBigIntegerExact().longValueExact();
            }
            return d.doubleValue();
        }
        return p.getAsString();
    }

    /**
     * A deep copy of {@code e}, as {@link JsonElement#deepCopy()} makes it but with each array sized up front.
     * Primitives and null are immutable and shared, as gson's own copy shares them.
     */
    public static JsonElement copy(JsonElement e) {
        if (e instanceof JsonObject o) {
            return copy(o);
        }
        if (e instanceof JsonArray a) {
            JsonArray c = new JsonArray(a.size());
            for (JsonElement x : a) {
                c.add(copy(x));
            }
            return c;
        }
        return e;
    }

    /** A deep copy of {@code o}; see {@link #copy(JsonElement)}. */
    public static JsonObject copy(JsonObject o) {
        JsonObject c = new JsonObject();
        for (Map.Entry<String, JsonElement> en : o.entrySet()) {
            c.add(en.getKey(), copy(en.getValue()));
        }
        return c;
    }

    /** The object at {@code path} (creating empty objects on the way), e.g. {@code child(pod, "metadata", "labels")}. */
    public static JsonObject child(JsonObject root, String... path) {
        JsonObject cur = root;
        for (String p : path) {
            JsonElement next = cur.get(p);
            if (next == null || !next.isJsonObject()) {
                JsonObject created = new JsonObject();
                cur.add(p, created);
                cur = created;
            } else {
                cur = next.getAsJsonObject();
            }
        }
        return cur;
    }

    /** The object at {@code path}, or null when any step is missing or not an object. */
    public static JsonObject object(JsonObject root, String... path) {
        JsonElement cur = root;
        for (String p : path) {
            if (cur == null || !cur.isJsonObject()) {
                return null;
            }
            cur = cur.getAsJsonObject().get(p);
        }
        return cur != null && cur.isJsonObject() ? cur.getAsJsonObject() : null;
    }

    /** The array under {@code key} of {@code o}, or null when {@code o} is null or it is missing or not an array. */
    public static JsonArray array(JsonObject o, String key) {
        JsonElement e = o == null ? null : o.get(key);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : null;
    }

    /** The string at {@code path}, or null when missing or not a string. */
    public static String string(JsonObject root, String... path) {
        if (path.length == 0) {
            return null;
        }
        JsonElement cur = root;
        for (String p : path) {
            if (!(cur instanceof JsonObject o)) {
                return null;
            }
            cur = o.get(p);
        }
        return cur != null && cur.isJsonPrimitive() ? cur.getAsString() : null;
    }

    /**
     * The integer at {@code path} (e.g. {@code "status", "readyReplicas"}), or {@code absent} when missing or not a
     * number.
     */
    public static long number(JsonObject root, long absent, String... path) {
        JsonElement cur = root;
        for (String p : path) {
            if (!(cur instanceof JsonObject o)) {
                return absent;
            }
            cur = o.get(p);
        }
        return cur instanceof com.google.gson.JsonPrimitive v && v.isNumber() ? v.getAsLong() : absent;
    }

    /** {@code metadata.labels} as an immutable map (empty when absent). */
    public static Map<String, String> labels(JsonObject obj) {
        return stringMap(object(obj, "metadata", "labels"));
    }

    /** {@code metadata.annotations} as an immutable map (empty when absent). */
    public static Map<String, String> annotations(JsonObject obj) {
        return stringMap(object(obj, "metadata", "annotations"));
    }

    private static Map<String, String> stringMap(JsonObject o) {
        if (o == null) {
            return Map.of();
        }
        Map<String, String> m = new java.util.TreeMap<>();
        o.entrySet().forEach(en -> {
            if (en.getValue().isJsonPrimitive()) {
                m.put(en.getKey(), en.getValue().getAsString());
            }
        });
        return java.util.Collections.unmodifiableMap(m);
    }
}
