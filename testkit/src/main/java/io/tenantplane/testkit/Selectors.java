package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** Label and field selectors in their query-string form, as {@code labels.Parse} and {@code fields.Parse} read them. */
final class Selectors {
    private Selectors() {
    }

    /**
     * A {@code metav1.LabelSelector} in its query-string form, as {@code LabelSelectorAsSelector(s).String()} writes
     * it: the requirements sorted by key, values sorted, {@code k=v}, {@code k in (a,b)}, {@code k notin (a,b)},
     * {@code k}, {@code !k}; empty for an empty or absent selector.
     */
    static String format(JsonObject selector) {
        if (selector == null) {
            return "";
        }
        List<String[]> requirements = new ArrayList<>();
        JsonObject matchLabels = Json.obj(selector, "matchLabels");
        if (matchLabels != null) {
            matchLabels.entrySet().forEach(e -> requirements.add(new String[] {e.getKey(),
                    e.getKey() + "=" + e.getValue().getAsString()}));
        }
        com.google.gson.JsonArray expressions = Json.arr(selector, "matchExpressions");
        for (JsonElement e : expressions == null ? new com.google.gson.JsonArray() : expressions) {
            JsonObject x = e.getAsJsonObject();
            String key = Json.str(x, "key");
            List<String> values = new ArrayList<>();
            com.google.gson.JsonArray vs = Json.arr(x, "values");
            for (JsonElement v : vs == null ? new com.google.gson.JsonArray() : vs) {
                values.add(v.getAsString());
            }
            values.sort(null);
            requirements.add(new String[] {key, switch (String.valueOf(Json.str(x, "operator"))) {
                case "In" -> key + " in (" + String.join(",", values) + ")";
                case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
                case "DoesNotExist" -> "!" + key;
                default -> key;
            }});
        }
        requirements.sort(java.util.Comparator.comparing(r -> r[0]));
        return String.join(",", requirements.stream().map(r -> r[1]).toList());
    }

    /**
     * Parses {@code a=b,c!=d,e in (x,y),f notin (z),g,!h}; {@code ==} means {@code =}.
     *
     * @return a predicate over an object's {@code metadata.labels} (null means no labels)
     */
    static Predicate<JsonObject> labels(String selector) {
        if (selector == null || selector.isBlank()) {
            return labels -> true;
        }
        List<Predicate<JsonObject>> terms = new ArrayList<>();
        for (String term : splitTopLevel(selector)) {
            terms.add(labelTerm(term.trim(), selector));
        }
        return labels -> terms.stream().allMatch(t -> t.test(labels));
    }

    private static Predicate<JsonObject> labelTerm(String term, String whole) {
        if (term.isEmpty()) {
            throw ApiError.badRequest("unable to parse requirement: empty term in label selector \"" + whole + "\"");
        }
        String lower = term.toLowerCase(java.util.Locale.ROOT);
        int in = lower.indexOf(" in ");
        int notin = lower.indexOf(" notin ");
        if (notin > 0 || in > 0) {
            boolean negate = notin > 0;
            int at = negate ? notin : in;
            String key = term.substring(0, at).trim();
            String rest = term.substring(at + (negate ? 7 : 4)).trim();
            if (!rest.startsWith("(") || !rest.endsWith(")")) {
                throw ApiError.badRequest("unable to parse requirement: expected a parenthesised set in \"" + term + "\"");
            }
            Set<String> values = new java.util.HashSet<>();
            for (String v : rest.substring(1, rest.length() - 1).split(",")) {
                values.add(v.trim());
            }
            checkKey(key, whole);
            return labels -> {
                String actual = label(labels, key);
                return negate ? actual == null || !values.contains(actual) : actual != null && values.contains(actual);
            };
        }
        if (term.startsWith("!")) {
            String key = term.substring(1).trim();
            checkKey(key, whole);
            return labels -> label(labels, key) == null;
        }
        int ne = term.indexOf("!=");
        if (ne > 0) {
            String key = term.substring(0, ne).trim();
            String value = term.substring(ne + 2).trim();
            checkKey(key, whole);
            return labels -> !value.equals(label(labels, key));
        }
        int eq = term.indexOf('=');
        if (eq > 0) {
            String key = term.substring(0, eq).trim();
            String value = term.substring(term.startsWith("==", eq) ? eq + 2 : eq + 1).trim();
            checkKey(key, whole);
            return labels -> value.equals(label(labels, key));
        }
        if (term.contains("<") || term.contains(">") || term.contains(" ")) {
            throw ApiError.badRequest("unable to parse requirement: unsupported label selector term \"" + term + "\"");
        }
        checkKey(term, whole);
        return labels -> label(labels, term) != null;
    }

    private static void checkKey(String key, String whole) {
        if (key.isEmpty() || !Validation.isQualifiedName(key)) {
            throw ApiError.badRequest("unable to parse requirement: invalid label key \"" + key + "\" in selector \""
                    + whole + "\"");
        }
    }

    private static String label(JsonObject labels, String key) {
        return Json.str(labels, key);
    }

    /** Splits on commas that are not inside parentheses. */
    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(s.substring(start));
        return parts;
    }

    /**
     * Parses {@code metadata.name=x,metadata.namespace!=y}; each field must be {@code metadata.name},
     * {@code metadata.namespace} or one of the type's selectable fields, as a real server insists.
     */
    static Predicate<JsonObject> fields(String selector, ResourceType type) {
        return fieldTerms(selector, field -> {
            if (!field.equals("metadata.name") && !field.equals("metadata.namespace")
                    && !type.selectableFields().contains(field)) {
                if (!type.custom()) {
                    // Built-in kinds: the field label conversion func of the kind (pkg/apis/*/v1/conversion.go).
                    throw ApiError.badRequest("field label not supported: " + field);
                }
                throw ApiError.badRequest("\"" + field + "\" is not a known field selector: only \"metadata.name\", "
                        + "\"metadata.namespace\"" + (type.selectableFields().isEmpty() ? ""
                                : ", \"" + String.join("\", \"", type.selectableFields()) + "\""));
            }
        }, (o, field) -> {
            JsonElement e = Json.at(o, field);
            return e == null || e.isJsonNull() ? "" : e.isJsonPrimitive() ? e.getAsString() : Json.text(e);
        });
    }

    /**
     * A field selector's terms ({@code a=x}, {@code a==x}, {@code a!=x}, comma-separated, as {@code fields.ParseSelector}
     * reads them), each field passed to {@code check} (which throws to refuse it), matched against the value
     * {@code read} gives for the field (the empty string when the object has none).
     */
    static Predicate<JsonObject> fieldTerms(String selector, java.util.function.Consumer<String> check,
                                            java.util.function.BiFunction<JsonObject, String, String> read) {
        if (selector == null || selector.isBlank()) {
            return o -> true;
        }
        List<Predicate<JsonObject>> terms = new ArrayList<>();
        for (String raw : selector.split(",")) {
            String term = raw.trim();
            boolean negate;
            int at;
            int len;
            if ((at = term.indexOf("!=")) > 0) {
                negate = true;
                len = 2;
            } else if ((at = term.indexOf("==")) > 0) {
                negate = false;
                len = 2;
            } else if ((at = term.indexOf('=')) > 0) {
                negate = false;
                len = 1;
            } else {
                throw ApiError.badRequest("invalid selector: '" + selector + "'; can't understand '" + term + "'");
            }
            String field = term.substring(0, at).trim();
            String value = term.substring(at + len).trim();
            check.accept(field);
            terms.add(o -> negate != value.equals(read.apply(o, field)));
        }
        return o -> terms.stream().allMatch(t -> t.test(o));
    }
}
