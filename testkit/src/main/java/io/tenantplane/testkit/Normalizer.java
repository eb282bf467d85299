package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Makes a built-in object look as it would after the real server decoded it into Go structs and encoded it again:
 * nulls and empty lists are dropped ({@code omitempty}), empty maps are dropped where the field is a map (labels,
 * resources, selectors of Services, ...) while empty structs such as {@code emptyDir: {}} stay, and timestamps are
 * re-rendered as {@code metav1.Time} (seconds) or {@code metav1.MicroTime} (microseconds). Without this a client
 * that round-trips an object (client-java sends every empty collection) would see spurious changes.
 * Custom resources are not normalized beyond their metadata: their shape is the schema's business.
 */
final class Normalizer {
    private static final Set<String> MAP_FIELDS = Set.of("labels", "annotations", "nodeSelector", "overhead",
            "limits", "requests", "matchLabels", "data", "binaryData", "stringData", "capacity", "allocatable",
            "hard", "used", "parameters");
    private static final Set<String> TIME_FIELDS = Set.of("creationTimestamp", "deletionTimestamp",
            "lastTransitionTime", "lastProbeTime", "lastUpdateTime", "lastHeartbeatTime", "startTime", "startedAt",
            "finishedAt", "firstTimestamp", "lastTimestamp", "completionTime", "lastScheduleTime",
            "lastSuccessfulTime");
    private static final Set<String> MICRO_TIME_FIELDS = Set.of("renewTime", "acquireTime", "eventTime");
    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

    private Normalizer() {
    }

    static void builtin(ResourceType t, JsonObject o) {
        object(o, "", t.is("", "services"));
    }

    static void metadata(JsonObject o) {
        JsonObject m = Json.obj(o, "metadata");
        if (m != null) {
            object(m, "metadata", false);
        }
    }

    private static void object(JsonObject o, String path, boolean service) {
        Iterator<Map.Entry<String, JsonElement>> it = o.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonElement> e = it.next();
            String key = e.getKey();
            JsonElement v = e.getValue();
            String childPath = path.isEmpty() ? key : path + "." + key;
            if (v.isJsonNull()) {
                it.remove();
            } else if (v.isJsonArray()) {
                JsonArray a = v.getAsJsonArray();
                for (JsonElement item : a) {
                    if (item.isJsonObject()) {
                        object(item.getAsJsonObject(), childPath, service);
                    }
                }
                if (a.isEmpty()) {
                    it.remove();
                }
            } else if (v.isJsonObject()) {
                object(v.getAsJsonObject(), childPath, service);
                boolean mapField = MAP_FIELDS.contains(key) || (service && childPath.equals("spec.selector"));
                if (mapField && v.getAsJsonObject().isEmpty()) {
                    it.remove();
                }
            } else if (v.getAsJsonPrimitive().isString()) {
                if (TIME_FIELDS.contains(key)) {
                    e.setValue(new JsonPrimitive(time(v.getAsString(), childPath, false)));
                } else if (MICRO_TIME_FIELDS.contains(key)) {
                    e.setValue(new JsonPrimitive(time(v.getAsString(), childPath, true)));
                }
            }
        }
    }

    private static String time(String value, String path, boolean micros) {
        Instant instant;
        try {
            instant = OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiError.badRequest("unable to decode " + path + ": parsing time \"" + value
                    + "\" as RFC3339 failed");
        }
        if (micros) {
            return MICROS.format(instant.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC));
        }
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }
}
