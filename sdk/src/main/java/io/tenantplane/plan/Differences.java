package io.tenantplane.plan;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Where an observed host object differs from the desired one, on the fields tenantplane owns.
 *
 * <p>The comparison walks the desired object: every field it sets must have the same value on the host. Fields only
 * the host has are the server's (uid, status, a Service's clusterIP, a scheduled Pod's nodeName, defaults such as
 * {@code imagePullPolicy}, items admission appends to a list) and are ignored; a desired zero value ({@code false},
 * {@code 0}, {@code ""}, empty object or list) matches an absent field, because the API server drops them.
 * {@link ReverseMapping#REASON} and {@link ReverseMapping#SOURCE_HASH} are not compared. Removals from the tenant
 * object are caught by the source hash instead (see {@link Planner}).
 */
public final class Differences {

    private Differences() {
    }

    /**
     * One differing field.
     *
     * @param path    e.g. {@code spec.containers[0].image} or {@code metadata.labels.app}
     * @param host    the host's value; null when the host lacks the field
     * @param desired the desired value
     */
    public record Difference(String path, JsonElement host, JsonElement desired) {
        /** {@code metadata.labels.app: host had 'x', tenant has 'y'}. */
        public String describe() {
            return path + ": host had " + show(host) + ", tenant has " + show(desired);
        }
    }

    /** The differences of {@code observed} from {@code desired}, in document order of the desired object. */
    public static List<Difference> of(JsonObject desired, JsonObject observed) {
        List<Difference> out = new ArrayList<>();
        walk(desired, observed, new ArrayList<>(), out);
        return out;
    }

    /** The first {@code max} differences as one clause, e.g. "a: host had 'x', tenant has 'y' (and 2 more)". */
    public static String summary(List<Difference> diffs, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(max, diffs.size()); i++) {
            if (i > 0) {
                sb.append("; ");
            }
            sb.append(diffs.get(i).describe());
        }
        if (diffs.size() > max) {
            sb.append(" (and ").append(diffs.size() - max).append(" more)");
        }
        return sb.toString();
    }

    /**
     * Compares {@code d} with {@code o}; {@code path} holds the keys ({@code String}) and indices ({@code Integer})
     * leading to them, rendered only when a difference is found (most fields match).
     */
    private static void walk(JsonElement d, JsonElement o, List<Object> path, List<Difference> out) {
        if (d == null || d.isJsonNull()) {
            return;
        }
        if (o == null || o.isJsonNull()) {
            if (!isZero(d)) {
                out.add(new Difference(render(path), null, d));
            }
            return;
        }
        if (d instanceof JsonObject dobj) {
            if (!(o instanceof JsonObject oobj)) {
                out.add(new Difference(render(path), o, d));
                return;
            }
            boolean annotations = path.size() == 2 && "metadata".equals(path.get(0)) && "annotations".equals(path.get(1));
            // Host copies mostly keep the desired key order: take the observed entries in step and look a key up
            // only where the orders part.
            Iterator<Map.Entry<String, JsonElement>> observedEntries = oobj.entrySet().iterator();
            Map.Entry<String, JsonElement> next = observedEntries.hasNext() ? observedEntries.next() : null;
            for (var e : dobj.entrySet()) {
                String key = e.getKey();
                JsonElement observedValue;
                if (next != null && next.getKey().equals(key)) {
                    observedValue = next.getValue();
                    next = observedEntries.hasNext() ? observedEntries.next() : null;
                } else {
                    observedValue = oobj.get(key);
                }
                if (annotations && (key.equals(ReverseMapping.REASON) || key.equals(ReverseMapping.SOURCE_HASH))) {
                    continue;
                }
                path.add(key);
                walk(e.getValue(), observedValue, path, out);
                path.remove(path.size() - 1);
            }
            return;
        }
        if (d instanceof JsonArray da) {
            if (!(o instanceof JsonArray oa)) {
                out.add(new Difference(render(path), o, d));
                return;
            }
            for (int i = 0; i < da.size(); i++) {
                path.add(i);
                walk(da.get(i), i < oa.size() ? oa.get(i) : null, path, out);
                path.remove(path.size() - 1);
            }
            return;
        }
        if (!equal(d, o) && !(isZero(d) && isZero(o))) {
            out.add(new Difference(render(path), o, d));
        }
    }

    private static boolean equal(JsonElement a, JsonElement b) {
        if (a instanceof JsonPrimitive pa && b instanceof JsonPrimitive pb && pa.isNumber() && pb.isNumber()) {
            Number na = pa.getAsNumber();
            Number nb = pb.getAsNumber();
            if (isIntegral(na) && isIntegral(nb)) {
                return na.longValue() == nb.longValue();
            }
            return pa.getAsBigDecimal().compareTo(pb.getAsBigDecimal()) == 0;
        }
        return a != null && a.equals(b);
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte;
    }

    private static boolean isZero(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return true;
        }
        if (e.isJsonObject()) {
            return e.getAsJsonObject().isEmpty();
        }
        if (e.isJsonArray()) {
            return e.getAsJsonArray().isEmpty();
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return !p.getAsBoolean();
        }
        if (p.isNumber()) {
            Number n = p.getAsNumber();
            return isIntegral(n) ? n.longValue() == 0 : p.getAsBigDecimal().signum() == 0;
        }
        return p.getAsString().isEmpty();
    }

    /** {@code spec.containers[0].image}; a key that is not plain letters, digits, {@code _} and {@code -} in {@code ["..."]}. */
    private static String render(List<Object> path) {
        StringBuilder sb = new StringBuilder();
        for (Object step : path) {
            if (step instanceof Integer i) {
                sb.append('[').append(i).append(']');
            } else {
                String key = (String) step;
                if (isSimpleKey(key)) {
                    if (!sb.isEmpty()) {
                        sb.append('.');
                    }
                    sb.append(key);
                } else {
                    sb.append("[\"").append(key).append("\"]");
                }
            }
        }
        return sb.toString();
    }

    private static boolean isSimpleKey(String key) {
        if (key.isEmpty()) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static String show(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "nothing";
        }
        String s = e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? "'" + e.getAsString() + "'" : e.toString();
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }
}
