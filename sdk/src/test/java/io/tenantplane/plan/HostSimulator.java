package io.tenantplane.plan;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * A small, honest stand-in for the host API server: applies a plan's writes to a list of host objects the way the
 * server would store them (uid, resourceVersion, creationTimestamp, status, an allocated clusterIP, a scheduled
 * nodeName, defaulted fields, tolerations admission appends). Deterministic, so fixtures can rely on it.
 */
public final class HostSimulator {

    private int counter;

    /** The host objects after executing every write of {@code plan} against {@code host}. */
    public List<JsonObject> apply(Plan plan, List<JsonObject> host) {
        List<JsonObject> out = new ArrayList<>();
        host.forEach(h -> out.add(h.deepCopy()));
        for (Decision d : plan.decisions()) {
            switch (d.action()) {
                case CREATE -> out.add(stored(d.desired().deepCopy(), null));
                case UPDATE -> {
                    int i = indexOf(out, d);
                    out.set(i, stored(d.desired().deepCopy(), out.get(i)));
                }
                case DELETE -> out.remove(indexOf(out, d));
                default -> {
                }
            }
        }
        return out;
    }

    private static int indexOf(List<JsonObject> objects, Decision d) {
        for (int i = 0; i < objects.size(); i++) {
            JsonObject o = objects.get(i);
            if (d.kind().equals(Json.string(o, "kind")) && d.host().name().equals(Json.string(o, "metadata", "name"))
                    && java.util.Objects.equals(d.host().namespace(), Json.string(o, "metadata", "namespace"))) {
                return i;
            }
        }
        throw new AssertionError("the plan writes " + d.kind() + " " + d.host() + " which is not on the host");
    }

    private JsonObject stored(JsonObject o, JsonObject previous) {
        counter++;
        JsonObject meta = Json.child(o, "metadata");
        meta.addProperty("uid", previous == null ? "host-uid-" + counter : Json.string(previous, "metadata", "uid"));
        meta.addProperty("resourceVersion", String.valueOf(1000 + counter));
        meta.addProperty("creationTimestamp", previous == null ? "2025-01-01T00:00:00Z"
                : Json.string(previous, "metadata", "creationTimestamp"));
        String kind = Json.string(o, "kind");
        if ("Service".equals(kind)) {
            JsonObject spec = Json.child(o, "spec");
            if (!"None".equals(Json.string(spec, "clusterIP"))) {
                String ip = previous == null ? "10.43.0." + counter : Json.string(previous, "spec", "clusterIP");
                spec.addProperty("clusterIP", ip);
                JsonArray ips = new JsonArray();
                ips.add(ip);
                spec.add("clusterIPs", ips);
            }
            if (!spec.has("type")) {
                spec.addProperty("type", "ClusterIP");
            }
            if (!spec.has("sessionAffinity")) {
                spec.addProperty("sessionAffinity", "None");
            }
            JsonElement ports = spec.get("ports");
            if (ports != null && ports.isJsonArray()) {
                ports.getAsJsonArray().forEach(p -> {
                    if (!p.getAsJsonObject().has("protocol")) {
                        p.getAsJsonObject().addProperty("protocol", "TCP");
                    }
                });
            }
            Json.child(o, "status", "loadBalancer");
        }
        if ("Pod".equals(kind)) {
            JsonObject spec = Json.child(o, "spec");
            if (!spec.has("nodeName")) {
                spec.addProperty("nodeName", "host-node-" + (counter % 3));
            }
            spec.addProperty("dnsPolicy", "ClusterFirst");
            spec.addProperty("restartPolicy", "Always");
            spec.addProperty("schedulerName", "default-scheduler");
            spec.addProperty("terminationGracePeriodSeconds", 30);
            spec.addProperty("priority", 0);
            JsonElement containers = spec.get("containers");
            if (containers != null && containers.isJsonArray()) {
                containers.getAsJsonArray().forEach(c -> {
                    JsonObject co = c.getAsJsonObject();
                    if (!co.has("imagePullPolicy")) {
                        co.addProperty("imagePullPolicy", "IfNotPresent");
                    }
                    co.addProperty("terminationMessagePath", "/dev/termination-log");
                    Json.child(co, "resources");
                });
            }
            JsonArray tolerations = spec.has("tolerations") ? spec.getAsJsonArray("tolerations") : new JsonArray();
            tolerations.add(Json.gson().fromJson("{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
                    + "\"effect\":\"NoExecute\",\"tolerationSeconds\":300}", JsonObject.class));
            spec.add("tolerations", tolerations);
            Json.child(o, "status").addProperty("phase", "Running");
        }
        if ("PersistentVolumeClaim".equals(kind)) {
            Json.child(o, "spec").addProperty("volumeName", "pvc-host-" + counter);
            Json.child(o, "metadata", "annotations").addProperty("pv.kubernetes.io/bind-completed", "yes");
            Json.child(o, "status").addProperty("phase", "Bound");
        }
        return o;
    }

    /** Deep-merges {@code patch} into {@code target}: objects merge by key, null removes, anything else replaces. */
    public static void merge(JsonObject target, JsonObject patch) {
        for (var e : patch.entrySet()) {
            JsonElement v = e.getValue();
            if (v.isJsonNull()) {
                target.remove(e.getKey());
            } else if (v.isJsonObject() && target.get(e.getKey()) instanceof JsonObject existing) {
                merge(existing, v.getAsJsonObject());
            } else {
                target.add(e.getKey(), v.deepCopy());
            }
        }
    }
}
