package io.tenantplane.transform;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Canonical JSON (sorted keys, normalised numbers) and the source hash built on it. */
final class Canonical {

    private Canonical() {
    }

    /** The value of {@link ReverseMapping#SOURCE_HASH} for a desired host object. */
    static String sourceHash(JsonObject host) {
        JsonObject copy = host.deepCopy();
        JsonObject ann = Json.object(copy, "metadata", "annotations");
        if (ann != null) {
            ann.remove(ReverseMapping.REASON);
            ann.remove(ReverseMapping.SOURCE_HASH);
        }
        return HostNames.sha256Hex(json(copy)).substring(0, 16);
    }

    static String json(JsonElement e) {
        StringBuilder sb = new StringBuilder();
        write(e, sb);
        return sb.toString();
    }

    private static void write(JsonElement e, StringBuilder sb) {
        if (e == null || e.isJsonNull()) {
            sb.append("null");
        } else if (e.isJsonObject()) {
            List<String> keys = new ArrayList<>(e.getAsJsonObject().keySet());
            Collections.sort(keys);
            sb.append('{');
            for (int i = 0; i < keys.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(Json.gson().toJson(keys.get(i))).append(':');
                write(e.getAsJsonObject().get(keys.get(i)), sb);
            }
            sb.append('}');
        } else if (e.isJsonArray()) {
            sb.append('[');
            for (int i = 0; i < e.getAsJsonArray().size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(e.getAsJsonArray().get(i), sb);
            }
            sb.append(']');
        } else {
            JsonPrimitive p = e.getAsJsonPrimitive();
            if (p.isNumber()) {
                sb.append(p.getAsBigDecimal().stripTrailingZeros().toPlainString());
            } else {
                sb.append(Json.gson().toJson(p));
            }
        }
    }
}
