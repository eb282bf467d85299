package io.tenantplane.testkit;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Small helpers over gson trees; objects are kept as {@link JsonObject} from request to store to response. */
final class Json {
    /**
     * Immutable and thread-safe; HTML escaping off so that selectors and patches read as they were sent, and nulls
     * kept so that a nullable field of a custom resource reads back as null.
     */
    static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    private Json() {
    }

    static JsonElement parse(byte[] body) {
        if (body.length == 0) {
            throw ApiError.badRequest("the request body is empty");
        }
        try {
            return JsonParser.parseString(new String(body, StandardCharsets.UTF_8));
        } catch (JsonParseException e) {
            throw ApiError.badRequest("the request body is not valid JSON: " + e.getMessage());
        }
    }

    static JsonObject parseObject(byte[] body) {
        JsonElement element = parse(body);
        if (!element.isJsonObject()) {
            throw ApiError.badRequest("the request body must be a JSON object");
        }
        return element.getAsJsonObject();
    }

    static byte[] bytes(JsonElement element) {
        return GSON.toJson(element).getBytes(StandardCharsets.UTF_8);
    }

    static String text(JsonElement element) {
        return GSON.toJson(element);
    }

    /** The string at {@code key}, or null when it is absent, null or not a string. */
    static String str(JsonObject o, String key) {
        if (o == null) {
            return null;
        }
        JsonElement e = o.get(key);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? e.getAsString() : null;
    }

    /** {@code e} when it is an object, else an empty object: a list item of the wrong type checked as an empty one. */
    static JsonObject asObject(JsonElement e) {
        return e != null && e.isJsonObject() ? e.getAsJsonObject() : new JsonObject();
    }

    static JsonObject obj(JsonObject o, String key) {
        if (o == null) {
            return null;
        }
        JsonElement e = o.get(key);
        return e != null && e.isJsonObject() ? e.getAsJsonObject() : null;
    }

    static JsonArray arr(JsonObject o, String key) {
        if (o == null) {
            return null;
        }
        JsonElement e = o.get(key);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : null;
    }

    /** The object at {@code key}, created when absent or not an object. */
    static JsonObject child(JsonObject o, String key) {
        JsonObject c = obj(o, key);
        if (c == null) {
            c = new JsonObject();
            o.add(key, c);
        }
        return c;
    }

    static JsonObject meta(JsonObject o) {
        return child(o, "metadata");
    }

    static boolean bool(JsonObject o, String key) {
        JsonElement e = o == null ? null : o.get(key);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() && e.getAsBoolean();
    }

    /** Follows a dotted path ({@code spec.nodeName}); null when any step is missing. */
    static JsonElement at(JsonObject o, String dottedPath) {
        JsonElement current = o;
        for (String part : dottedPath.split("\\.")) {
            if (current == null || !current.isJsonObject()) {
                return null;
            }
            current = current.getAsJsonObject().get(part);
        }
        return current;
    }

    /** An object of key/value pairs; a Java null value leaves the key out (pass {@code JsonNull} to keep it). */
    static JsonObject object(Object... keyValues) {
        JsonObject o = new JsonObject();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                o.add((String) keyValues[i], toElement(keyValues[i + 1]));
            }
        }
        return o;
    }

    static JsonArray array(Object... values) {
        JsonArray a = new JsonArray();
        for (Object v : values) {
            a.add(toElement(v));
        }
        return a;
    }

    static JsonArray strings(Iterable<String> values) {
        JsonArray a = new JsonArray();
        for (String v : values) {
            a.add(v);
        }
        return a;
    }

    static JsonElement toElement(Object v) {
        if (v == null) {
            return JsonNull.INSTANCE;
        }
        if (v instanceof JsonElement e) {
            return e;
        }
        if (v instanceof String s) {
            return new JsonPrimitive(s);
        }
        if (v instanceof Number n) {
            return new JsonPrimitive(n);
        }
        if (v instanceof Boolean b) {
            return new JsonPrimitive(b);
        }
        throw new IllegalArgumentException("not a JSON value: " + v.getClass());
    }

    /** Structural equality that treats 1 and 1.0 as the same number, like a decoded Kubernetes object would. */
    static boolean same(JsonElement a, JsonElement b) {
        if (a == null || a.isJsonNull()) {
            return b == null || b.isJsonNull();
        }
        if (b == null || b.isJsonNull()) {
            return false;
        }
        if (a.isJsonPrimitive() && b.isJsonPrimitive()) {
            JsonPrimitive pa = a.getAsJsonPrimitive();
            JsonPrimitive pb = b.getAsJsonPrimitive();
            if (pa.isNumber() && pb.isNumber()) {
                return new BigDecimal(pa.getAsString()).compareTo(new BigDecimal(pb.getAsString())) == 0;
            }
            return pa.equals(pb);
        }
        if (a.isJsonArray() && b.isJsonArray()) {
            JsonArray x = a.getAsJsonArray();
            JsonArray y = b.getAsJsonArray();
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isJsonObject() && b.isJsonObject()) {
            JsonObject x = a.getAsJsonObject();
            JsonObject y = b.getAsJsonObject();
            if (x.size() != y.size()) {
                return false;
            }
            for (Map.Entry<String, JsonElement> e : x.entrySet()) {
                if (!y.has(e.getKey()) || !same(e.getValue(), y.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /** Renders a value the way Kubernetes field errors quote it: strings quoted, everything else as JSON. */
    static String render(JsonElement value) {
        if (value == null || value.isJsonNull()) {
            return "null";
        }
        return text(value);
    }
}
