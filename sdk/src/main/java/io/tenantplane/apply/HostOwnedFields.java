package io.tenantplane.apply;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
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
                    spec.add(f, desired.get(f).deepCopy());
                }
            }
        }
        body.add("spec", spec);
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
                if (samePort(port, op) && op.has("nodePort")) {
                    port.add("nodePort", op.get("nodePort").deepCopy());
                }
            }
        }
    }

    private static boolean samePort(JsonObject a, JsonObject b) {
        String an = Json.string(a, "name");
        String bn = Json.string(b, "name");
        if (an != null || bn != null) {
            return java.util.Objects.equals(an, bn);
        }
        return java.util.Objects.equals(a.get("port"), b.get("port"));
    }
}
