package io.tenantplane.migration;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.Map;

/**
 * Whether an object as read already holds everything a rendered object asks for. The API server adds defaults and
 * bookkeeping (uid, resourceVersion, a container's terminationMessagePath, ...), so equality would never hold; a
 * rendered field that is missing or different means the object must be updated.
 */
final class Subset {

    private Subset() {
    }

    static boolean holds(JsonObject desired, JsonObject observed) {
        for (Map.Entry<String, JsonElement> e : desired.entrySet()) {
            if (e.getKey().equals("status")) {
                continue;
            }
            JsonElement o = observed.get(e.getKey());
            if (e.getKey().equals("metadata") && e.getValue().isJsonObject()) {
                if (o == null || !o.isJsonObject() || !metadata(e.getValue().getAsJsonObject(), o.getAsJsonObject())) {
                    return false;
                }
            } else if (!element(e.getValue(), o)) {
                return false;
            }
        }
        return true;
    }

    private static boolean metadata(JsonObject desired, JsonObject observed) {
        for (String f : new String[] {"name", "namespace", "labels", "annotations"}) {
            JsonElement d = desired.get(f);
            if (d != null && !element(d, observed.get(f))) {
                return false;
            }
        }
        return true;
    }

    private static boolean element(JsonElement d, JsonElement o) {
        if (d == null || d.isJsonNull()) {
            return true;
        }
        if (o == null || o.isJsonNull()) {
            return d.isJsonObject() && d.getAsJsonObject().isEmpty() || d.isJsonArray() && d.getAsJsonArray().isEmpty();
        }
        if (d.isJsonObject()) {
            if (!o.isJsonObject()) {
                return false;
            }
            for (Map.Entry<String, JsonElement> e : d.getAsJsonObject().entrySet()) {
                if (!element(e.getValue(), o.getAsJsonObject().get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        if (d.isJsonArray()) {
            if (!o.isJsonArray()) {
                return false;
            }
            JsonArray da = d.getAsJsonArray();
            JsonArray oa = o.getAsJsonArray();
            if (da.size() != oa.size()) {
                return false;
            }
            for (int i = 0; i < da.size(); i++) {
                if (!element(da.get(i), oa.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (d.isJsonPrimitive() && o.isJsonPrimitive()) {
            if (d.getAsJsonPrimitive().isNumber() && o.getAsJsonPrimitive().isNumber()) {
                return d.getAsBigDecimal().compareTo(o.getAsBigDecimal()) == 0;
            }
            return d.getAsString().equals(o.getAsString());
        }
        return d.equals(o);
    }
}
