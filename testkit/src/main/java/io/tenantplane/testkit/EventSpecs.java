package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An {@code events.k8s.io/v1} Event checked as the API server checks it ({@code pkg/apis/core/validation/events.go}):
 * on create and update {@code legacyValidateEvent} (the regarding object's namespace, {@code reportingController} a
 * qualified name, {@code reportingInstance}, {@code action} and {@code reason} present and at most 128 bytes, the note
 * at most 1024 bytes), on create the strict checks of {@code ValidateEventCreate} ({@code eventTime} set, type
 * {@code Normal} or {@code Warning}, a series of at least 2 with a last observed time, the deprecated fields unset),
 * and on update {@code ValidateEventUpdate}'s immutable fields (all but the series and metadata). Field paths are
 * those of the internal Event the server validates ({@code message} for the note, {@code involvedObject} for
 * {@code regarding}), as a real server reports them.
 */
final class EventSpecs {

    private static final int SHORT_LIMIT = 128;
    private static final int NOTE_LIMIT = 1024;
    /** events.k8s.io/v1 field, the internal Event's name for it in messages. */
    private static final List<String[]> IMMUTABLE = List.of(new String[] {"regarding", "involvedObject"},
            new String[] {"reason", "reason"}, new String[] {"note", "message"},
            new String[] {"deprecatedSource", "source"},
            new String[] {"deprecatedFirstTimestamp", "firstTimestamp"},
            new String[] {"deprecatedLastTimestamp", "lastTimestamp"}, new String[] {"deprecatedCount", "count"},
            new String[] {"type", "type"}, new String[] {"eventTime", "eventTime"}, new String[] {"action", "action"},
            new String[] {"related", "related"}, new String[] {"reportingController", "reportingController"},
            new String[] {"reportingInstance", "reportingInstance"});

    private EventSpecs() {
    }

    static void validate(JsonObject e, JsonObject old, List<ApiError.Cause> causes) {
        legacy(e, causes);
        if (old == null) {
            strict(e, causes);
            return;
        }
        if (!Json.same(e.get("series"), old.get("series"))) {
            series(e, causes);
        }
        for (String[] f : IMMUTABLE) {
            if (!Json.same(e.get(f[0]), old.get(f[0]))) {
                causes.add(ApiError.Cause.invalid(f[1], Json.render(e.get(f[0])), "field is immutable"));
            }
        }
    }

    /** {@code legacyValidateEvent} for an Event with {@code eventTime} (every events.k8s.io/v1 Event should have one). */
    private static void legacy(JsonObject e, List<ApiError.Cause> causes) {
        String namespace = Json.str(Json.obj(e, "metadata"), "namespace");
        String regardingNamespace = Json.str(Json.obj(e, "regarding"), "namespace");
        if ((regardingNamespace == null || regardingNamespace.isEmpty()) && !"default".equals(namespace)
                && !"kube-system".equals(namespace)) {
            causes.add(ApiError.Cause.invalid("involvedObject.namespace", "\"\"", "does not match event.namespace"));
        }
        String controller = Json.str(e, "reportingController");
        if (controller == null || controller.isEmpty()) {
            causes.add(ApiError.Cause.required("reportingController"));
        }
        Validation.qualifiedName(controller == null ? "" : controller, "reportingController", causes);
        bounded(e, "reportingInstance", "reportingInstance", SHORT_LIMIT, true, causes);
        bounded(e, "action", "action", SHORT_LIMIT, true, causes);
        bounded(e, "reason", "reason", SHORT_LIMIT, true, causes);
        bounded(e, "note", "message", NOTE_LIMIT, false, causes);
    }

    private static void bounded(JsonObject e, String field, String path, int limit, boolean required,
                                List<ApiError.Cause> causes) {
        String v = Json.str(e, field);
        int bytes = v == null ? 0 : v.getBytes(StandardCharsets.UTF_8).length;
        if (required && bytes == 0) {
            causes.add(ApiError.Cause.required(path));
        }
        if (bytes > limit) {
            causes.add(ApiError.Cause.invalid(path, "\"\"", "can have at most " + limit + " characters"));
        }
    }

    /** {@code ValidateEventCreate}'s checks for events.k8s.io/v1. */
    private static void strict(JsonObject e, List<ApiError.Cause> causes) {
        series(e, causes);
        String time = Json.str(e, "eventTime");
        if (time == null || time.isEmpty()) {
            causes.add(ApiError.Cause.required("eventTime"));
        }
        String type = Json.str(e, "type");
        if (!"Normal".equals(type) && !"Warning".equals(type)) {
            causes.add(ApiError.Cause.invalid("type", "\"\"", "has invalid value: " + (type == null ? "" : type)));
        }
        for (String[] f : List.of(new String[] {"deprecatedFirstTimestamp", "firstTimestamp"},
                new String[] {"deprecatedLastTimestamp", "lastTimestamp"}, new String[] {"deprecatedCount", "count"},
                new String[] {"deprecatedSource", "source"})) {
            JsonElement v = e.get(f[0]);
            boolean set = v != null && !v.isJsonNull() && !(v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber()
                    && v.getAsLong() == 0) && !(v.isJsonObject() && v.getAsJsonObject().isEmpty());
            if (set) {
                causes.add(ApiError.Cause.invalid(f[1], "\"\"", "needs to be unset"));
            }
        }
    }

    /** {@code validateV1EventSeries}. */
    private static void series(JsonObject e, List<ApiError.Cause> causes) {
        JsonObject series = Json.obj(e, "series");
        if (series == null) {
            return;
        }
        JsonElement count = series.get("count");
        if (count == null || !count.isJsonPrimitive() || count.getAsLong() < 2) {
            causes.add(ApiError.Cause.invalid("series.count", "\"\"", "should be at least 2"));
        }
        String last = Json.str(series, "lastObservedTime");
        if (last == null || last.isEmpty()) {
            causes.add(ApiError.Cause.required("series.lastObservedTime"));
        }
    }
}
