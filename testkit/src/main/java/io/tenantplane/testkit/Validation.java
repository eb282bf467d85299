package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** The object-meta checks every Kubernetes kind shares: names, label and annotation syntax. */
final class Validation {
    private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME_PART = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

    private Validation() {
    }

    /** Which naming rule a kind's {@code metadata.name} follows in the real API server. */
    enum NameRule { DNS1123_LABEL, DNS1035_LABEL, DNS1123_SUBDOMAIN, PATH_SEGMENT }

    static NameRule nameRule(ResourceType type) {
        if (type.custom()) {
            return NameRule.DNS1123_SUBDOMAIN;
        }
        if (type.is("", "namespaces")) {
            return NameRule.DNS1123_LABEL;
        }
        if (type.is("", "services")) {
            return NameRule.DNS1035_LABEL;
        }
        if (type.group().equals("rbac.authorization.k8s.io") || type.is("apiregistration.k8s.io", "apiservices")) {
            return NameRule.PATH_SEGMENT;
        }
        return NameRule.DNS1123_SUBDOMAIN;
    }

    /** Returns the problems with a name, empty when valid. */
    static String nameProblem(String name, NameRule rule) {
        return switch (rule) {
            case DNS1123_LABEL -> name.length() > 63 ? "must be no more than 63 characters"
                    : DNS1123_LABEL.matcher(name).matches() ? null
                    : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                            + "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
                            + "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
            case DNS1035_LABEL -> name.length() > 63 ? "must be no more than 63 characters"
                    : DNS1035_LABEL.matcher(name).matches() ? null
                    : "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                            + "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
                            + "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
            case DNS1123_SUBDOMAIN -> name.length() > 253 ? "must be no more than 253 characters"
                    : DNS1123_SUBDOMAIN.matcher(name).matches() ? null
                    : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                            + "and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                            + "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
            case PATH_SEGMENT -> name.equals(".") || name.equals("..") ? "may not be '" + name + "'"
                    : name.contains("/") || name.contains("%") ? "may not contain '/' or '%'" : null;
        };
    }

    static boolean isDns1123Label(String s) {
        return s.length() <= 63 && DNS1123_LABEL.matcher(s).matches();
    }

    static boolean isDns1123Subdomain(String s) {
        return s.length() <= 253 && DNS1123_SUBDOMAIN.matcher(s).matches();
    }

    /** A label or annotation key: an optional DNS-subdomain prefix and {@code /}, then a name of at most 63. */
    static boolean isQualifiedName(String key) {
        int slash = key.indexOf('/');
        String name = key;
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty() || !isDns1123Subdomain(prefix)) {
                return false;
            }
        }
        return !name.isEmpty() && name.length() <= 63 && QUALIFIED_NAME_PART.matcher(name).matches();
    }

    /** Adds causes for malformed labels and annotations in {@code metadata}. */
    static void checkMeta(JsonObject metadata, List<ApiError.Cause> causes) {
        JsonObject labels = Json.obj(metadata, "labels");
        if (labels != null) {
            for (Map.Entry<String, JsonElement> e : labels.entrySet()) {
                String field = "metadata.labels";
                if (!isQualifiedName(e.getKey())) {
                    causes.add(ApiError.Cause.invalid(field, quote(e.getKey()), "name part must consist of "
                            + "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
                            + "character, with an optional DNS subdomain prefix and '/'; at most 63 characters"));
                }
                String value = e.getValue().isJsonPrimitive() ? e.getValue().getAsString() : null;
                if (value == null) {
                    throw ApiError.badRequest("metadata.labels." + e.getKey() + " must be a string");
                }
                if (value.length() > 63) {
                    causes.add(ApiError.Cause.invalid(field, quote(value), "must be no more than 63 characters"));
                } else if (!LABEL_VALUE.matcher(value).matches()) {
                    causes.add(ApiError.Cause.invalid(field, quote(value), "a valid label must be an empty string or "
                            + "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                            + "alphanumeric character"));
                }
            }
        } else if (metadata.has("labels") && !metadata.get("labels").isJsonNull()) {
            throw ApiError.badRequest("metadata.labels must be an object of strings");
        }
        JsonObject annotations = Json.obj(metadata, "annotations");
        if (annotations != null) {
            long size = 0;
            for (Map.Entry<String, JsonElement> e : annotations.entrySet()) {
                if (!isQualifiedName(e.getKey())) {
                    causes.add(ApiError.Cause.invalid("metadata.annotations", quote(e.getKey()),
                            "name part must consist of alphanumeric characters, '-', '_' or '.', with an optional "
                                    + "DNS subdomain prefix and '/'"));
                }
                if (!e.getValue().isJsonPrimitive()) {
                    throw ApiError.badRequest("metadata.annotations." + e.getKey() + " must be a string");
                }
                size += e.getKey().length() + e.getValue().getAsString().length();
            }
            if (size > 256 * 1024) {
                causes.add(new ApiError.Cause("FieldValueTooLong", "metadata.annotations",
                        "Too long: must have at most 262144 bytes"));
            }
        } else if (metadata.has("annotations") && !metadata.get("annotations").isJsonNull()) {
            throw ApiError.badRequest("metadata.annotations must be an object of strings");
        }
    }

    /**
     * A cause at {@code field} for each message of {@code IsQualifiedName} ({@link NamedFormat#qualifiedName}), as
     * the validators that call it report them ({@code field.Invalid} per message).
     */
    static void qualifiedName(String value, String field, List<ApiError.Cause> causes) {
        NamedFormat.qualifiedName(value).forEach(m -> causes.add(ApiError.Cause.invalid(field, quote(value), m)));
    }

    /** The same for {@code IsValidLabelValue} ({@link NamedFormat#labelValue}). */
    static void labelValue(String value, String field, List<ApiError.Cause> causes) {
        NamedFormat.labelValue(value).forEach(m -> causes.add(ApiError.Cause.invalid(field, quote(value), m)));
    }

    static String quote(String s) {
        return Json.text(new com.google.gson.JsonPrimitive(s));
    }
}
