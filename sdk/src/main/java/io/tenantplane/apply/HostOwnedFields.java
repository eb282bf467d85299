package io.tenantplane.apply;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;

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
            // The host's Priority admission sets priority and preemptionPolicy, the RuntimeClass admission overhead;
            // an update may not change them. Ephemeral containers are written only through their subresource and
            // never removed, so an update carries those the Pod has.
            case "Pod" -> carryFields(obsSpec, body, "nodeName", "priority", "preemptionPolicy", "overhead",
                    "ephemeralContainers");
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
