package io.tenantplane.plan;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

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

    private static final Pattern SIMPLE_KEY = Pattern.compile("[A-Za-z0-9_-]+");

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
        walk(desired, observed, "", out);
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

    private static void walk(JsonElement d, JsonElement o, String path, List<Difference> out) {
        if (d == null || d.isJsonNull()) {
            return;
        }
        if (o == null || o.isJsonNull()) {
            if (!isZero(d)) {
                out.add(new Difference(path, null, d));
            }
            return;
        }
        if (d.isJsonObject()) {
            if (!o.isJsonObject()) {
                out.add(new Difference(path, o, d));
                return;
            }
            JsonObject oobj = o.getAsJsonObject();
            boolean annotations = path.equals("metadata.annotations");
            for (var e : d.getAsJsonObject().entrySet()) {
                if (annotations && (e.getKey().equals(ReverseMapping.REASON) || e.getKey().equals(ReverseMapping.SOURCE_HASH))) {
                    continue;
                }
                walk(e.getValue(), oobj.get(e.getKey()), child(path, e.getKey()), out);
            }
            return;
        }
        if (d.isJsonArray()) {
            if (!o.isJsonArray()) {
                out.add(new Difference(path, o, d));
                return;
            }
            JsonArray da = d.getAsJsonArray();
            JsonArray oa = o.getAsJsonArray();
            for (int i = 0; i < da.size(); i++) {
                walk(da.get(i), i < oa.size() ? oa.get(i) : null, path + "[" + i + "]", out);
            }
            return;
        }
        if (!equal(d, o) && !(isZero(d) && isZero(o))) {
            out.add(new Difference(path, o, d));
        }
    }

    private static boolean equal(JsonElement a, JsonElement b) {
        if (a instanceof JsonPrimitive pa && b instanceof JsonPrimitive pb && pa.isNumber() && pb.isNumber()) {
            return pa.getAsBigDecimal().compareTo(pb.getAsBigDecimal()) == 0;
        }
        return a != null && a.equals(b);
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
            return p.getAsBigDecimal().signum() == 0;
        }
        return p.getAsString().isEmpty();
    }

    private static String child(String path, String key) {
        if (SIMPLE_KEY.matcher(key).matches()) {
            return path.isEmpty() ? key : path + "." + key;
        }
        return path + "[\"" + key + "\"]";
    }

    private static String show(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "nothing";
        }
        String s = e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? "'" + e.getAsString() + "'" : e.toString();
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }
}
