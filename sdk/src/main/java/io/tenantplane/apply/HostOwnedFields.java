package io.tenantplane.apply;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.transform.internal.ServicePorts;
import java.util.List;
import java.util.Objects;

/**
 * Fields the host's API server and controllers own on objects tenantplane writes. An update is a full replace, so
 * these are carried from the object as read into the body sent: dropping them would either be rejected (a Pod's
 * {@code nodeName}, a bound claim's {@code volumeName}) or undo the host's work (finalizers such as PVC protection,
 * allocated Service IPs and node ports).
 */
final class HostOwnedFields {

    private HostOwnedFields() {
    }

    /** Copies the host-owned fields of {@code observed} into {@code body} where {@code body} does not set them. */
    static void carry(String kind, JsonObject observed, JsonObject body) {
        if (observed == null) {
            return;
        }
        JsonObject obsMeta = Json.object(observed, "metadata");
        JsonObject bodyMeta = Json.child(body, "metadata");
        if (obsMeta != null) {
            for (String f : new String[] {"finalizers", "ownerReferences"}) {
                if (!bodyMeta.has(f) && obsMeta.has(f)) {
                    bodyMeta.add(f, obsMeta.get(f).deepCopy());
                }
            }
        }
        JsonObject obsSpec = Json.object(observed, "spec");
        if (obsSpec == null) {
            return;
        }
        switch (kind) {
            // A Pod's spec is immutable but for a few fields, and the host's admission fills parts of it that the
            // desired spec does not name and an update may not drop: LimitRanger the containers' requests and limits,
            // Priority admission priority and preemptionPolicy, RuntimeClass admission overhead, ServiceAccount
            // admission its volume. So the update sends the spec as the host has it, with the fields an update may
            // change (ValidatePodUpdate) taken from the desired one. Ephemeral containers are written only through
            // their subresource and never removed, so the host's are kept too.
            case "Pod" -> podSpec(obsSpec, body);
            case "Service" -> {
                carryFields(obsSpec, body, "clusterIP", "clusterIPs", "healthCheckNodePort", "ipFamilies",
                        "ipFamilyPolicy");
                carryNodePorts(obsSpec, Json.object(body, "spec"));
            }
            case "PersistentVolumeClaim" -> carryFields(obsSpec, body, "volumeName", "storageClassName", "volumeMode");
            default -> {
            }
        }
    }

    /** The fields of a Pod spec an update may change ({@code ValidatePodUpdate}); the rest is the host's. */
    private static final List<String> MUTABLE_POD_FIELDS = List.of("activeDeadlineSeconds", "tolerations",
            "schedulingGates");

    private static void podSpec(JsonObject obsSpec, JsonObject body) {
        JsonObject desired = Json.object(body, "spec");
        JsonObject spec = obsSpec.deepCopy();
        if (desired != null) {
            for (String list : List.of("containers", "initContainers")) {
                JsonArray want = desired.has(list) && desired.get(list).isJsonArray()
                        ? desired.getAsJsonArray(list) : new JsonArray();
                JsonArray have = spec.has(list) && spec.get(list).isJsonArray()
                        ? spec.getAsJsonArray(list) : new JsonArray();
                for (JsonElement h : have) {
                    for (JsonElement w : want) {
                        if (Objects.equals(Json.string(h.getAsJsonObject(), "name"),
                                Json.string(w.getAsJsonObject(), "name")) && w.getAsJsonObject().has("image")) {
                            h.getAsJsonObject().add("image", w.getAsJsonObject().get("image").deepCopy());
                        }
                    }
                }
            }
            for (String f : MUTABLE_POD_FIELDS) {
                if (desired.has(f) && !desired.get(f).isJsonNull()) {
                    spec.add(f, f.equals("tolerations") ? tolerations(spec, desired) : desired.get(f).deepCopy());
                }
            }
        }
        body.add("spec", spec);
    }

    /**
     * The tolerations an update may send: every one the host Pod has (an update may not remove one:
     * {@code validateOnlyAddedTolerations}; the host's admission adds some, e.g. DefaultTolerationSeconds), each with
     * the {@code tolerationSeconds} the desired one gives it, and then the desired ones it lacks. A toleration the
     * transform no longer wants stays on the running Pod until it is replaced.
     */
    private static JsonArray tolerations(JsonObject obsSpec, JsonObject desired) {
        JsonArray have = obsSpec.has("tolerations") && obsSpec.get("tolerations").isJsonArray()
                ? obsSpec.getAsJsonArray("tolerations") : new JsonArray();
        JsonArray want = desired.get("tolerations").isJsonArray() ? desired.getAsJsonArray("tolerations")
                : new JsonArray();
        JsonArray out = new JsonArray();
        List<JsonElement> placed = new java.util.ArrayList<>();
        for (JsonElement h : have) {
            JsonElement keep = h.deepCopy();
            for (JsonElement w : want) {
                if (!placed.contains(w) && sameIgnoringSeconds(h, w)) {
                    keep = w.deepCopy();
                    placed.add(w);
                    break;
                }
            }
            out.add(keep);
        }
        for (JsonElement w : want) {
            if (!placed.contains(w) && !out.contains(w)) {
                out.add(w.deepCopy());
            }
        }
        return out;
    }

    private static boolean sameIgnoringSeconds(JsonElement a, JsonElement b) {
        if (!a.isJsonObject() || !b.isJsonObject()) {
            return a.equals(b);
        }
        JsonObject x = a.getAsJsonObject().deepCopy();
        JsonObject y = b.getAsJsonObject().deepCopy();
        x.remove("tolerationSeconds");
        y.remove("tolerationSeconds");
        return x.equals(y);
    }

    private static void carryFields(JsonObject obsSpec, JsonObject body, String... fields) {
        JsonObject spec = Json.child(body, "spec");
        for (String f : fields) {
            JsonElement v = obsSpec.get(f);
            if (v != null && !v.isJsonNull() && (!spec.has(f) || spec.get(f).isJsonNull())) {
                spec.add(f, v.deepCopy());
            }
        }
    }

    private static void carryNodePorts(JsonObject obsSpec, JsonObject spec) {
        if (spec == null || !obsSpec.has("ports") || !spec.has("ports")) {
            return;
        }
        JsonArray observedPorts = obsSpec.getAsJsonArray("ports");
        for (JsonElement p : spec.getAsJsonArray("ports")) {
            JsonObject port = p.getAsJsonObject();
            if (port.has("nodePort")) {
                continue;
            }
            for (JsonElement o : observedPorts) {
                JsonObject op = o.getAsJsonObject();
                if (ServicePorts.same(port, op) && op.has("nodePort")) {
                    port.add("nodePort", op.get("nodePort").deepCopy());
                }
            }
        }
    }
}
