package io.tenantplane.model;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** JSON to record and back, shared by the three custom resources. */
final class Conversion {

    private Conversion() {
    }

    static <T extends Record> Parsed<T> fromJson(JsonObject json, Class<T> type, String apiVersion, String kind) {
        if (json == null) {
            return new Parsed.Invalid<>(List.of(Problem.of(null, "expected a " + kind + " object, got nothing")));
        }
        List<Problem> problems = new ArrayList<>(identity(json, apiVersion, kind));
        problems.addAll(Structure.check(json, type, Structure.Mode.TYPES));
        if (!problems.isEmpty()) {
            return new Parsed.Invalid<>(problems);
        }
        try {
            return new Parsed.Ok<>(Json.gson().fromJson(json, type));
        } catch (RuntimeException e) {
            // Structure.check mirrors gson's rules, so this is a bug; still report it as a problem, not a crash.
            return new Parsed.Invalid<>(List.of(Problem.of(null, "cannot read the object: " + e.getMessage())));
        }
    }

    /** Problems with apiVersion and kind; an absent one is accepted (the caller knows what it asked for). */
    static List<Problem> identity(JsonObject json, String apiVersion, String kind) {
        List<Problem> out = new ArrayList<>();
        JsonElement av = json.get("apiVersion");
        if (av != null && !av.isJsonNull() && !(av.isJsonPrimitive() && apiVersion.equals(av.getAsString()))) {
            out.add(Problem.of("apiVersion", "expected " + apiVersion + ", got " + Structure.describe(av)
                    + "; this SDK reads version " + apiVersion.substring(apiVersion.indexOf('/') + 1) + " only"));
        }
        JsonElement k = json.get("kind");
        if (k != null && !k.isJsonNull() && !(k.isJsonPrimitive() && kind.equals(k.getAsString()))) {
            out.add(Problem.of("kind", "expected " + kind + ", got " + Structure.describe(k)));
        }
        return out;
    }

    static JsonObject toJson(Record r) {
        JsonObject o = Json.gson().toJsonTree(r).getAsJsonObject();
        prune(o);
        return o;
    }

    /** Removes empty arrays and objects (left by records that keep absent collections as empty ones). */
    private static boolean prune(JsonElement e) {
        if (e.isJsonObject()) {
            Iterator<Map.Entry<String, JsonElement>> it = e.getAsJsonObject().entrySet().iterator();
            while (it.hasNext()) {
                if (prune(it.next().getValue())) {
                    it.remove();
                }
            }
            return e.getAsJsonObject().isEmpty();
        }
        if (e.isJsonArray()) {
            for (JsonElement x : e.getAsJsonArray()) {
                prune(x);
            }
            return e.getAsJsonArray().isEmpty();
        }
        return e.isJsonNull();
    }
}
