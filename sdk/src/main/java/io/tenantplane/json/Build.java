package io.tenantplane.json;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.List;
import java.util.Map;

/**
 * Terse construction of JSON trees for the renderers; keys keep the order given, null values are left out.
 */
public final class Build {

    private Build() {
    }

    /** An object from alternating keys (strings) and values; null values are left out. */
    public static JsonObject obj(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must pair up");
        }
        JsonObject o = new JsonObject();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            Object v = keysAndValues[i + 1];
            if (v != null) {
                o.add((String) keysAndValues[i], json(v));
            }
        }
        return o;
    }

    /** An array of the given items, each converted by {@link #json(Object)}. */
    public static JsonArray arr(Object... items) {
        JsonArray a = new JsonArray();
        for (Object i : items) {
            a.add(json(i));
        }
        return a;
    }

    /** A JSON element for a string, number, boolean, map, list or JSON element; anything else is refused. */
    public static JsonElement json(Object v) {
        return switch (v) {
            case JsonElement e -> e;
            case String s -> new JsonPrimitive(s);
            case Number n -> new JsonPrimitive(n);
            case Boolean b -> new JsonPrimitive(b);
            case Map<?, ?> m -> {
                JsonObject o = new JsonObject();
                m.forEach((k, x) -> {
                    if (x != null) {
                        o.add(String.valueOf(k), json(x));
                    }
                });
                yield o;
            }
            case List<?> l -> {
                JsonArray a = new JsonArray();
                l.forEach(x -> a.add(json(x)));
                yield a;
            }
            default -> throw new IllegalArgumentException("cannot turn " + v.getClass() + " into JSON");
        };
    }
}
