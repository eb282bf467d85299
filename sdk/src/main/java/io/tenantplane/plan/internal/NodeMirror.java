package io.tenantplane.plan.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tenant Node that stands for a host node. The tenant control plane runs no kubelets in shared and dedicated
 * mode; tenant Pods are bound to these mirrors so that {@code kubectl get pods -o wide} shows where they run. The
 * mirror copies the host node's labels, capacity, allocatable, addresses, node info and Ready condition. Heartbeat
 * times are not compared: a mirror is written only when something a user would see changed.
 *
 * <p>A mirror carries two markers: {@link #MIRROR_LABEL}{@code =true} and
 * {@link ReverseMapping#MANAGED_BY}{@code =}{@link ReverseMapping#MANAGED_BY_VALUE}. Only a Node with both is ever
 * updated or deleted as a mirror. The tenant owns its API and can write these labels on any Node it creates, so the
 * markers do not prove authorship; what they do guarantee is that tenantplane never removes a Node that nobody marked
 * as a mirror (a tenant's own Node, or an agent's in private mode).
 */
public final class NodeMirror {

    /** Label on every mirror, so a tenant can tell mirrors from real nodes. */
    public static final String MIRROR_LABEL = "tenantplane.io/host-node";
    /** Annotation on a mirror a migration to private mode cordoned (its value: who did). */
    public static final String CORDONED_BY = "tenantplane.io/cordoned-by";

    private NodeMirror() {
    }

    /** The mirror of host node {@code name}; {@code hostNode} null when it cannot be read. */
    public static JsonObject desired(String name, JsonObject hostNode) {
        return desired(name, hostNode, null, 0);
    }

    /**
     * The mirror of host node {@code name}, its kubelet at tenantplane's kubelet endpoint {@code kubeletHost}:{@code
     * kubeletPort} when given (the host null: none): then its addresses are only the
     * endpoint's ({@code Hostname}, and {@code InternalIP} when the endpoint is an IP address) and its
     * {@code daemonEndpoints.kubeletEndpoint.Port} the endpoint's port, so the tenant API server, which dials the first
     * address of its preferred types ({@code --kubelet-preferred-address-types}, default Hostname, InternalDNS,
     * InternalIP, ExternalDNS, ExternalIP; k3s does not set it) at that port, reaches tenantplane and never the host
     * node's kubelet.
     */
    public static JsonObject desired(String name, JsonObject hostNode, String kubeletHost, int kubeletPort) {
        JsonObject n = new JsonObject();
        n.addProperty("apiVersion", "v1");
        n.addProperty("kind", "Node");
        JsonObject meta = Json.child(n, "metadata");
        meta.addProperty("name", name);
        JsonObject labels = new JsonObject();
        if (hostNode != null && Json.object(hostNode, "metadata", "labels") != null) {
            labels = Json.object(hostNode, "metadata", "labels").deepCopy();
        } else {
            labels.addProperty("kubernetes.io/hostname", name);
        }
        labels.addProperty(MIRROR_LABEL, "true");
        labels.addProperty(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE);
        meta.add("labels", labels);
        JsonObject status = Json.child(n, "status");
        JsonObject hostStatus = hostNode == null ? null : Json.object(hostNode, "status");
        if (hostStatus != null) {
            for (String f : new String[] {"capacity", "allocatable", "addresses", "nodeInfo"}) {
                if (hostStatus.has(f)) {
                    status.add(f, hostStatus.get(f).deepCopy());
                }
            }
        }
        if (kubeletHost != null) {
            JsonArray addresses = new JsonArray();
            addresses.add(address("Hostname", kubeletHost));
            if (HostNames.isIpAddress(kubeletHost)) {
                addresses.add(address("InternalIP", kubeletHost));
            }
            status.add("addresses", addresses);
            JsonObject port = new JsonObject();
            port.addProperty("Port", kubeletPort);
            JsonObject endpoint = new JsonObject();
            endpoint.add("kubeletEndpoint", port);
            status.add("daemonEndpoints", endpoint);
        }
        JsonObject ready = ready(hostStatus);
        JsonArray conditions = new JsonArray();
        if (ready != null) {
            conditions.add(ready);
        } else {
            JsonObject unknown = new JsonObject();
            unknown.addProperty("type", "Ready");
            unknown.addProperty("status", "Unknown");
            unknown.addProperty("reason", "HostNodeNotReadable");
            unknown.addProperty("message", "tenantplane cannot read host node " + name);
            conditions.add(unknown);
        }
        status.add("conditions", conditions);
        return n;
    }

    private static JsonObject address(String type, String value) {
        JsonObject a = new JsonObject();
        a.addProperty("type", type);
        a.addProperty("address", value);
        return a;
    }

    /** Label selector of the mirrors. */
    public static String selector() {
        return MIRROR_LABEL + "=true," + ReverseMapping.MANAGED_BY + "=" + ReverseMapping.MANAGED_BY_VALUE;
    }

    /** Whether {@code node} carries both mirror markers. */
    public static boolean isMirror(JsonObject node) {
        Map<String, String> labels = Json.labels(node);
        return "true".equals(labels.get(MIRROR_LABEL))
                && ReverseMapping.MANAGED_BY_VALUE.equals(labels.get(ReverseMapping.MANAGED_BY));
    }

    /** Whether a migration cordoned {@code node}: then the migration, not the full pass, retires it. */
    public static boolean isCordoned(JsonObject node) {
        return Json.annotations(node).containsKey(CORDONED_BY);
    }

    private static JsonObject ready(JsonObject hostStatus) {
        if (hostStatus == null || !hostStatus.has("conditions") || !hostStatus.get("conditions").isJsonArray()) {
            return null;
        }
        for (JsonElement c : hostStatus.getAsJsonArray("conditions")) {
            if (c.isJsonObject() && "Ready".equals(Json.string(c.getAsJsonObject(), "type"))) {
                return c.getAsJsonObject().deepCopy();
            }
        }
        return null;
    }

    /** The mirror to create for host node {@code name}, which the tenant has not got ({@code desired} from there). */
    public static Decision create(String tenant, String name, JsonObject desired) {
        return Decision.create("Node", null, new Decision.HostRef(null, name), Reasons.NODE_MIRRORED,
                "tenant " + tenant + " gets Node " + name + ", mirroring the host node its pods run on", desired);
    }

    /** The mirror {@code current} with the labels of its host node; empty when it has them. */
    public static Optional<Decision> labels(String name, JsonObject desired, JsonObject current) {
        if (!labelsDiffer(desired, current)) {
            return Optional.empty();
        }
        JsonObject update = current.deepCopy();
        Json.child(update, "metadata").add("labels", Json.object(desired, "metadata", "labels").deepCopy());
        return Optional.of(Decision.update("Node", null, new Decision.HostRef(null, name), Reasons.NODE_MIRRORED,
                "tenant Node " + name + " takes the labels of the host node", update, current));
    }

    /**
     * The mirror {@code current} with the capacity, addresses and readiness of its host node, written through the
     * status subresource; empty when what a user sees of it is the same ({@link #statusDiffers}).
     */
    public static Optional<Decision> status(String name, JsonObject desired, JsonObject current) {
        if (!statusDiffers(desired, current)) {
            return Optional.empty();
        }
        return Optional.of(Decision.update("Node", null, new Decision.HostRef(null, name), Reasons.NODE_MIRRORED,
                "tenant Node " + name + " takes the capacity and readiness of the host node", desired, current));
    }

    /**
     * The delete of {@code mirror} when no tenant Pod is bound to it ({@code bound}: the nodes tenant Pods name) and
     * no migration has cordoned it; empty otherwise, and for a Node without both mirror markers.
     */
    public static Optional<Decision> unused(String tenant, JsonObject mirror, java.util.Set<String> bound) {
        String name = Json.string(mirror, "metadata", "name");
        if (!isMirror(mirror) || bound.contains(name) || isCordoned(mirror)) {
            return Optional.empty();
        }
        return Optional.of(Decision.delete("Node", null, new Decision.HostRef(null, name), Reasons.NODE_MIRROR_UNUSED,
                "tenant Node " + name + " of tenant " + tenant + " mirrors a host node, but no tenant Pod is bound to "
                        + "it any more; the mirror is deleted", null, mirror));
    }

    /** Whether the mirror's labels differ from the desired ones. */
    public static boolean labelsDiffer(JsonObject desired, JsonObject current) {
        return !Json.labels(desired).equals(Json.labels(current));
    }

    /** Whether what a user sees of the status differs (heartbeat times aside). */
    public static boolean statusDiffers(JsonObject desired, JsonObject current) {
        JsonObject d = visible(Json.object(desired, "status"));
        JsonObject c = visible(current == null ? null : Json.object(current, "status"));
        return !Objects.equals(d, c);
    }

    private static JsonObject visible(JsonObject status) {
        JsonObject v = new JsonObject();
        if (status == null) {
            return v;
        }
        for (String f : new String[] {"capacity", "allocatable", "addresses", "nodeInfo"}) {
            if (status.has(f)) {
                v.add(f, status.get(f));
            }
        }
        // A real API server answers daemonEndpoints with Port 0 for a Node that was given none (the struct field
        // has no omitempty effect): only a port that is set counts.
        JsonObject endpoint = Json.object(status, "daemonEndpoints", "kubeletEndpoint");
        if (endpoint != null && endpoint.has("Port") && endpoint.get("Port").isJsonPrimitive()
                && endpoint.get("Port").getAsInt() > 0) {
            v.addProperty("kubeletPort", endpoint.get("Port").getAsInt());
        }
        JsonObject ready = ready(status);
        if (ready != null) {
            ready.remove("lastHeartbeatTime");
            v.add("ready", ready);
        }
        return v;
    }
}
