package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A failed request, rendered as the {@code Status} object the Kubernetes API server returns. Thrown anywhere below
 * the router and turned into a response in one place.
 */
final class ApiError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** One entry of {@code details.causes}: a field error as {@code reason}, {@code field}, {@code message}. */
    record Cause(String reason, String field, String message) {
        static Cause required(String field) {
            return new Cause("FieldValueRequired", field, "Required value");
        }

        static Cause invalid(String field, String renderedValue, String detail) {
            return new Cause("FieldValueInvalid", field, "Invalid value: " + renderedValue + ": " + detail);
        }

        static Cause forbidden(String field, String detail) {
            return new Cause("FieldValueForbidden", field, "Forbidden: " + detail);
        }

        /** {@code field.Required} with a detail. */
        static Cause required(String field, String detail) {
            return new Cause("FieldValueRequired", field, detail.isEmpty() ? "Required value"
                    : "Required value: " + detail);
        }

        /** {@code field.Duplicate}. */
        static Cause duplicate(String field, String renderedValue) {
            return new Cause("FieldValueDuplicate", field, "Duplicate value: " + renderedValue);
        }

        /** {@code field.NotFound}. */
        static Cause notFound(String field, String renderedValue) {
            return new Cause("FieldValueNotFound", field, "Not found: " + renderedValue);
        }

        /** {@code field.NotSupported}: the value and the quoted values supported, in order. */
        static Cause notSupported(String field, String renderedValue, List<String> supported) {
            return new Cause("FieldValueNotSupported", field, "Unsupported value: " + renderedValue
                    + ": supported values: " + supported.stream().map(v -> "\"" + v + "\"")
                    .collect(Collectors.joining(", ")));
        }

        String line() {
            return field == null || field.isEmpty() ? message : field + ": " + message;
        }
    }

    final int code;
    final String reason;
    final transient JsonObject details;
    final int retryAfterSeconds;

    ApiError(int code, String reason, String message, JsonObject details) {
        this(code, reason, message, details, 0);
    }

    ApiError(int code, String reason, String message, JsonObject details, int retryAfterSeconds) {
        super(message, null, false, false);
        this.code = code;
        this.reason = reason;
        this.details = details;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    JsonObject toStatus() {
        JsonObject status = Json.object("kind", "Status", "apiVersion", "v1", "metadata", new JsonObject(),
                "status", "Failure", "message", getMessage());
        if (reason != null && !reason.isEmpty()) {
            status.addProperty("reason", reason);  // StatusReasonUnknown ("") is omitted, as metav1.Status does
        }
        if (details != null) {
            status.add("details", details);
        }
        status.addProperty("code", code);
        return status;
    }

    private static JsonObject details(String group, String kind, String name) {
        JsonObject d = new JsonObject();
        if (name != null && !name.isEmpty()) {
            d.addProperty("name", name);
        }
        if (group != null && !group.isEmpty()) {
            d.addProperty("group", group);
        }
        if (kind != null) {
            d.addProperty("kind", kind);
        }
        return d;
    }

    static ApiError notFound(ResourceType type, String name) {
        return notFound(type.group(), type.plural(), name);
    }

    static ApiError notFound(String group, String plural, String name) {
        return new ApiError(404, "NotFound", qualified(group, plural) + " \"" + name + "\" not found",
                details(group, plural, name));
    }

    static ApiError pathNotFound() {
        return new ApiError(404, "NotFound", "the server could not find the requested resource", new JsonObject());
    }

    static ApiError alreadyExists(ResourceType type, String name) {
        return new ApiError(409, "AlreadyExists", qualified(type.group(), type.plural()) + " \"" + name
                + "\" already exists", details(type.group(), type.plural(), name));
    }

    static ApiError conflict(ResourceType type, String name, String why) {
        return new ApiError(409, "Conflict", "Operation cannot be fulfilled on " + qualified(type.group(), type.plural())
                + " \"" + name + "\": " + why, details(type.group(), type.plural(), name));
    }

    static ApiError staleResourceVersion(ResourceType type, String name) {
        return conflict(type, name,
                "the object has been modified; please apply your changes to the latest version and try again");
    }

    static ApiError invalid(ResourceType type, String name, List<Cause> causes) {
        return invalid(type.group(), type.kind(), name, causes);
    }

    static ApiError invalid(String group, String kind, String name, List<Cause> causes) {
        String qualifiedKind = group == null || group.isEmpty() ? kind : kind + "." + group;
        String errors = causes.size() == 1 ? causes.get(0).line()
                : causes.stream().map(Cause::line).collect(Collectors.joining(", ", "[", "]"));
        JsonObject d = details(group, kind, name);
        JsonArray list = new JsonArray();
        for (Cause c : causes) {
            list.add(Json.object("reason", c.reason(), "message", c.message(), "field", c.field()));
        }
        d.add("causes", list);
        return new ApiError(422, "Invalid", qualifiedKind + " \"" + name + "\" is invalid: " + errors, d);
    }

    static ApiError badRequest(String message) {
        return new ApiError(400, "BadRequest", message, null);
    }

    static ApiError forbidden(ResourceType type, String name, String why) {
        return new ApiError(403, "Forbidden", qualified(type.group(), type.plural()) + " \"" + name
                + "\" is forbidden: " + why, details(type.group(), type.plural(), name));
    }

    static ApiError methodNotAllowed() {
        return new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
                new JsonObject());
    }

    static ApiError unsupportedMediaType(String contentType, String accepted) {
        return new ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                + "accepted media types include: " + accepted + " (got " + contentType + ")", null);
    }

    static ApiError expired(String message) {
        return new ApiError(410, "Expired", message, null);
    }

    static ApiError internal(String message) {
        return new ApiError(500, "InternalError", "Internal error occurred: " + message,
                Json.object("causes", Json.array(Json.object("message", message))));
    }

    /** The Status for an injected response code, with the reason a real server uses for that code. */
    static ApiError forCode(int code, String message) {
        String reason = switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 405 -> "MethodNotAllowed";
            case 409 -> "Conflict";
            case 410 -> "Expired";
            case 415 -> "UnsupportedMediaType";
            case 422 -> "Invalid";
            case 429 -> "TooManyRequests";
            case 500 -> "InternalError";
            case 503 -> "ServiceUnavailable";
            case 504 -> "Timeout";
            default -> "Unknown";
        };
        return new ApiError(code, reason, message, new JsonObject(), code == 429 || code == 503 ? 1 : 0);
    }

    static String qualified(String group, String plural) {
        return group == null || group.isEmpty() ? plural : plural + "." + group;
    }
}
