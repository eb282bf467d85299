package io.tenantplane.model;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.annotations.SerializedName;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a JSON tree against the shape of a record class before gson converts it, so that a wrong type becomes a
 * {@link Problem} with its field path instead of an exception (or, worse, a silent null for an unknown enum value).
 * The same reflection gives the JSON names of record components, which the CRD schema test uses too.
 */
final class Structure {

    /** How much to check. */
    enum Mode {
        /** Types and enum values only: unknown fields are ignored (a newer CRD may add some). */
        TYPES,
        /** Also unknown fields and missing {@link Required} fields: what {@code validate} reports for user input. */
        STRICT
    }

    private Structure() {
    }

    /** Problems with {@code json} read as {@code recordType}; paths start at the object's root. */
    static List<Problem> check(JsonObject json, Class<? extends Record> recordType, Mode mode) {
        List<Problem> out = new ArrayList<>();
        checkValue(json, recordType, null, "", mode, out);
        return out;
    }

    /**
     * A deep copy of {@code json} without the values that do not fit {@code recordType} (a list or map with one bad
     * item is dropped whole, so the paths of the rest stay true), so that the rest can still be converted and
     * validated; the paths dropped are added to {@code dropped}.
     */
    static JsonObject sanitize(JsonObject json, Class<? extends Record> recordType, List<String> dropped) {
        JsonObject copy = json.deepCopy();
        sanitizeRecord(copy, recordType, "", dropped);
        return copy;
    }

    private static void sanitizeRecord(JsonObject o, Class<?> raw, String path, List<String> dropped) {
        for (var en : components(raw).entrySet()) {
            JsonElement child = o.get(en.getKey());
            if (child == null || child.isJsonNull()) {
                continue;
            }
            String p = join(path, en.getKey());
            List<Problem> problems = new ArrayList<>();
            Type t = en.getValue().getGenericType();
            if (raw(t).isRecord() && child.isJsonObject()) {
                sanitizeRecord(child.getAsJsonObject(), raw(t), p, dropped);
                continue;
            }
            if (List.class.isAssignableFrom(raw(t)) && raw(typeArgument(t, 0)).isRecord() && child.isJsonArray()) {
                boolean allObjects = true;
                for (JsonElement item : child.getAsJsonArray()) {
                    allObjects &= item.isJsonObject();
                }
                if (allObjects) {
                    for (int i = 0; i < child.getAsJsonArray().size(); i++) {
                        sanitizeRecord(child.getAsJsonArray().get(i).getAsJsonObject(), raw(typeArgument(t, 0)),
                                p + "[" + i + "]", dropped);
                    }
                    continue;
                }
            }
            checkValue(child, t, en.getValue(), p, Mode.TYPES, problems);
            if (!problems.isEmpty()) {
                o.remove(en.getKey());
                dropped.add(p);
            }
        }
    }

    /** True when {@code field} is {@code path} or lies inside it. */
    static boolean isUnder(String field, String path) {
        return field != null && (field.equals(path) || field.startsWith(path + ".") || field.startsWith(path + "["));
    }

    /** Missing {@link Required} components in a record built in Java (or converted with {@link Mode#TYPES}). */
    static List<Problem> missingRequired(Record record) {
        List<Problem> out = new ArrayList<>();
        requiredIn(record, "", out);
        return out;
    }

    /** Component JSON names of a record, in declaration order, mapped to their components. */
    static Map<String, RecordComponent> components(Class<?> recordType) {
        Map<String, RecordComponent> m = new LinkedHashMap<>();
        for (RecordComponent rc : recordType.getRecordComponents()) {
            m.put(jsonName(rc), rc);
        }
        return m;
    }

    static String jsonName(RecordComponent rc) {
        try {
            SerializedName n = rc.getDeclaringRecord().getDeclaredField(rc.getName()).getAnnotation(SerializedName.class);
            return n == null ? rc.getName() : n.value();
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(e);
        }
    }

    static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static void checkValue(JsonElement e, Type type, AnnotatedElement component, String path, Mode mode,
                                   List<Problem> out) {
        Class<?> raw = raw(type);
        boolean intOrString = component != null && component.isAnnotationPresent(IntOrString.class);
        if (raw == String.class) {
            // An x-kubernetes-int-or-string field takes integers and strings only: the API server refuses 0.1
            // ("must be of type integer,string"), so a fractional number is refused here too.
            if (!isString(e) && !(intOrString && isIntegral(e, false))) {
                out.add(Problem.of(path, intOrString
                        ? "expected a quantity such as 500m, 2 or 4Gi, got " + describe(e)
                                + (isNumber(e) ? "; an int-or-string field takes whole numbers or strings: quote it "
                                + "(\"" + e.getAsString() + "\") or write it in milli-units" : "")
                        : "expected a string, got " + describe(e) + (e.isJsonPrimitive() ? "; quote the value" : "")));
            }
        } else if (raw == Integer.class || raw == int.class || raw == Long.class || raw == long.class) {
            if (!isIntegral(e, raw == Integer.class || raw == int.class)) {
                out.add(Problem.of(path, "expected a whole number, got " + describe(e)));
            }
        } else if (raw == Boolean.class || raw == boolean.class) {
            if (!(e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean())) {
                out.add(Problem.of(path, "expected true or false, got " + describe(e)));
            }
        } else if (raw.isEnum()) {
            List<String> allowed = Enums.jsonValues(raw);
            if (!isString(e) || !allowed.contains(e.getAsString())) {
                out.add(Problem.of(path, (isString(e) ? "unknown value \"" + e.getAsString() + "\"" : "expected one of "
                        + "the allowed values, got " + describe(e)) + "; allowed values: " + String.join(", ", allowed)));
            }
        } else if (List.class.isAssignableFrom(raw)) {
            if (!e.isJsonArray()) {
                out.add(Problem.of(path, "expected a list, got " + describe(e)));
                return;
            }
            Type element = typeArgument(type, 0);
            for (int i = 0; i < e.getAsJsonArray().size(); i++) {
                JsonElement item = e.getAsJsonArray().get(i);
                String p = path + "[" + i + "]";
                if (item.isJsonNull()) {
                    out.add(Problem.of(p, "a list item is empty (null); remove it"));
                } else {
                    checkValue(item, element, component, p, mode, out);
                }
            }
        } else if (Map.class.isAssignableFrom(raw)) {
            if (!e.isJsonObject()) {
                out.add(Problem.of(path, "expected a map of names to values, got " + describe(e)));
                return;
            }
            Type value = typeArgument(type, 1);
            for (var en : e.getAsJsonObject().entrySet()) {
                String p = path + "[" + en.getKey() + "]";
                if (en.getValue().isJsonNull()) {
                    out.add(Problem.of(p, "the value is empty (null); give a value or remove the key"));
                } else {
                    checkValue(en.getValue(), value, component, p, mode, out);
                }
            }
        } else if (raw.isRecord()) {
            if (!e.isJsonObject()) {
                out.add(Problem.of(path, "expected an object with fields " + String.join(", ", components(raw).keySet())
                        + ", got " + describe(e)));
                return;
            }
            checkRecord(e.getAsJsonObject(), raw, path, mode, out);
        }
    }

    private static void checkRecord(JsonObject o, Class<?> raw, String path, Mode mode, List<Problem> out) {
        Map<String, RecordComponent> comps = components(raw);
        for (var en : comps.entrySet()) {
            JsonElement child = o.get(en.getKey());
            String p = join(path, en.getKey());
            if (child == null || child.isJsonNull()) {
                Required r = en.getValue().getAnnotation(Required.class);
                if (mode == Mode.STRICT && r != null) {
                    out.add(Problem.of(p, requiredMessage(r)));
                }
                continue;
            }
            checkValue(child, en.getValue().getGenericType(), en.getValue(), p, mode, out);
        }
        if (mode == Mode.STRICT && raw != ObjectMeta.class) {
            for (String key : o.keySet()) {
                if (!comps.containsKey(key)) {
                    out.add(Problem.of(join(path, key), "unknown field" + suggestion(key, comps.keySet())
                            + "; known fields here: " + String.join(", ", comps.keySet())));
                }
            }
        }
    }

    static String requiredMessage(Required r) {
        return "required field is missing" + (r.value().isEmpty() ? "" : "; " + r.value());
    }

    private static void requiredIn(Object value, String path, List<Problem> out) {
        if (value instanceof Record r) {
            for (RecordComponent rc : r.getClass().getRecordComponents()) {
                Object child;
                try {
                    child = rc.getAccessor().invoke(r);
                } catch (IllegalAccessException | InvocationTargetException ex) {
                    throw new IllegalStateException("cannot read " + rc, ex);
                }
                String p = join(path, jsonName(rc));
                Required req = rc.getAnnotation(Required.class);
                if (child == null && req != null) {
                    out.add(Problem.of(p, requiredMessage(req)));
                }
                requiredIn(child, p, out);
            }
        } else if (value instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                requiredIn(l.get(i), path + "[" + i + "]", out);
            }
        } else if (value instanceof Map<?, ?> m) {
            for (var en : m.entrySet()) {
                requiredIn(en.getValue(), path + "[" + en.getKey() + "]", out);
            }
        }
    }

    private static String suggestion(String key, Iterable<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = k.equalsIgnoreCase(key) ? 0 : distance(k.toLowerCase(Locale.ROOT), key.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        return best != null && bestDistance <= 2 ? " (did you mean " + best + "?)" : "";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    static Class<?> raw(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        throw new IllegalArgumentException("unsupported type " + t);
    }

    static Type typeArgument(Type t, int index) {
        if (t instanceof ParameterizedType p) {
            return p.getActualTypeArguments()[index];
        }
        return Object.class;
    }

    private static boolean isString(JsonElement e) {
        return e.isJsonPrimitive() && e.getAsJsonPrimitive().isString();
    }

    private static boolean isNumber(JsonElement e) {
        return e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber();
    }

    private static boolean isIntegral(JsonElement e, boolean intRange) {
        if (!isNumber(e)) {
            return false;
        }
        BigDecimal d = e.getAsBigDecimal();
        if (d.stripTrailingZeros().scale() > 0) {
            return false;
        }
        BigDecimal min = BigDecimal.valueOf(intRange ? Integer.MIN_VALUE : Long.MIN_VALUE);
        BigDecimal max = BigDecimal.valueOf(intRange ? Integer.MAX_VALUE : Long.MAX_VALUE);
        return d.compareTo(min) >= 0 && d.compareTo(max) <= 0;
    }

    static String describe(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "nothing (null)";
        }
        if (e.isJsonArray()) {
            return "a list";
        }
        if (e.isJsonObject()) {
            return "an object";
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return "the boolean " + p.getAsBoolean();
        }
        if (p.isNumber()) {
            return "the number " + p.getAsString();
        }
        return "the string \"" + p.getAsString() + "\"";
    }
}
