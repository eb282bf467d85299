package io.tenantplane.plan.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.transform.internal.ServicePorts;
import java.util.Objects;
import java.util.Optional;

/**
 * What flows from a host copy back to its tenant object, decided from the two objects alone: the ClusterIP of a
 * Service, the node a Pod is bound to, and the status of kinds whose rule says {@code fromHost: status}. Each is a
 * decision on the tenant API; the pass applies them one after another, each from the tenant object as the one before
 * left it (a Service recreated with its ClusterIP, a Pod bound to its node).
 */
public final class FlowBack {

    private FlowBack() {
    }

    /**
     * The tenant Service recreated with the ClusterIP of its host copy, so that what the tenant's DNS answers is
     * routable on the host: a ClusterIP never changes while a Service exists, so the executor deletes the tenant
     * Service (uid and resourceVersion as preconditions) and creates it again with the host's IP, as vcluster's service
     * syncer does. Empty when the two already agree, when either has none to share (headless, ExternalName, not yet
     * allocated) or when the tenant Service is being deleted.
     */
    public static Optional<Decision> clusterIp(String tenant, JsonObject tenantService, JsonObject hostService) {
        String hostIp = Json.string(hostService, "spec", "clusterIP");
        String own = Json.string(tenantService, "spec", "clusterIP");
        if (hostIp == null || hostIp.isEmpty() || hostIp.equals("None") || own == null || own.equals("None")
                || hostIp.equals(own) || Json.string(tenantService, "metadata", "deletionTimestamp") != null) {
            return Optional.empty();
        }
        JsonObject desired = tenantService.deepCopy();
        JsonObject spec = Json.child(desired, "spec");
        spec.addProperty("clusterIP", hostIp);
        JsonElement hostIps = Json.object(hostService, "spec").get("clusterIPs");
        JsonArray ips = new JsonArray();
        ips.add(hostIp);
        spec.add("clusterIPs", hostIps != null && hostIps.isJsonArray() ? hostIps.deepCopy() : ips);
        // Created again anyway: with the node ports of the host copy too, so that nothing is left to take after it.
        takeNodePorts(desired, hostService);
        return Optional.of(Decision.update("Service", Decision.SourceRef.of(tenant, tenantService),
                Decision.HostRef.of(hostService),
                Reasons.CLUSTER_IP_FROM_HOST, describe(tenant, tenantService) + " takes the ClusterIP " + hostIp
                + " of its host copy " + where(hostService) + " (it had " + own + ", which the host does not route): "
                + "the tenant Service is created again with it, a ClusterIP never changes in place", desired,
                tenantService));
    }

    /**
     * The tenant Service updated with the node ports of its host copy, so that the port a tenant user reads on the
     * Service is the one the host's nodes listen on: the host copy asks for the tenant's node ports, and when the host
     * had one of them taken it allocated another. A node port changes in place. Empty when the two agree, when the
     * tenant Service has no node ports to take (another type), when the host has not allocated them (or allocates
     * none, a LoadBalancer with {@code allocateLoadBalancerNodePorts: false}), or when the tenant Service is being
     * deleted. Ports are matched by name, else by number and protocol.
     */
    public static Optional<Decision> nodePorts(String tenant, JsonObject tenantService, JsonObject hostService) {
        String type = Json.string(tenantService, "spec", "type");
        if (!"NodePort".equals(type) && !"LoadBalancer".equals(type)
                || Json.string(tenantService, "metadata", "deletionTimestamp") != null) {
            return Optional.empty();
        }
        JsonObject desired = tenantService.deepCopy();
        java.util.List<String> moved = takeNodePorts(desired, hostService);
        if (moved.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Decision.update("Service", Decision.SourceRef.of(tenant, tenantService),
                Decision.HostRef.of(hostService), Reasons.NODE_PORTS_FROM_HOST, describe(tenant, tenantService)
                        + " takes the node " + (moved.size() == 1 ? "port " : "ports ") + String.join(", ", moved)
                        + " of its host copy " + where(hostService) + ", the ones the host's nodes listen on",
                desired, tenantService));
    }

    /**
     * Sets each port of {@code tenantService} that has a matching port with a node port in {@code hostService} to
     * that node port; returns what changed ({@code port: before -> after}).
     */
    private static java.util.List<String> takeNodePorts(JsonObject tenantService, JsonObject hostService) {
        java.util.List<String> moved = new java.util.ArrayList<>();
        JsonArray mine = Json.array(Json.object(tenantService, "spec"), "ports");
        JsonArray theirs = Json.array(Json.object(hostService, "spec"), "ports");
        for (int i = 0; mine != null && theirs != null && i < mine.size(); i++) {
            if (!mine.get(i).isJsonObject()) {
                continue;
            }
            JsonObject port = mine.get(i).getAsJsonObject();
            for (JsonElement e : theirs) {
                JsonObject other = e.isJsonObject() ? e.getAsJsonObject() : null;
                JsonElement hostPort = other == null ? null : other.get("nodePort");
                if (hostPort == null || !hostPort.isJsonPrimitive() || hostPort.getAsInt() == 0
                        || !ServicePorts.same(port, other)) {
                    continue;
                }
                JsonElement own = port.get("nodePort");
                if (own == null || !own.isJsonPrimitive() || own.getAsInt() != hostPort.getAsInt()) {
                    moved.add(portName(port) + " " + (own == null || own.isJsonNull() ? "none" : own.getAsString())
                            + " -> " + hostPort.getAsInt());
                    port.addProperty("nodePort", hostPort.getAsInt());
                }
                break;
            }
        }
        return moved;
    }

    private static String portName(JsonObject port) {
        String name = Json.string(port, "name");
        return name != null && !name.isEmpty() ? name : String.valueOf(port.get("port"));
    }

    /**
     * The node a tenant Pod is to be bound to: the host node its copy was scheduled on, while the tenant Pod is
     * unscheduled. Empty when the copy is not scheduled yet or the tenant Pod already names a node.
     */
    public static Optional<String> nodeToBind(JsonObject tenantPod, JsonObject hostPod) {
        String node = Json.string(hostPod, "spec", "nodeName");
        String bound = Json.string(tenantPod, "spec", "nodeName");
        if (node == null || node.isEmpty() || (bound != null && !bound.isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(node);
    }

    /**
     * The binding of an unscheduled tenant Pod to {@code node}, the tenant Node that mirrors the host node its copy
     * runs on ({@link #nodeToBind}). The decision's observed object is the tenant Pod; it has no desired object, the
     * executor posts a {@code Binding}.
     */
    public static Decision binding(String tenant, JsonObject tenantPod, JsonObject hostPod, String node) {
        return Decision.binding(Decision.SourceRef.of(tenant, tenantPod), Decision.HostRef.of(hostPod),
                Reasons.BOUND_TO_NODE,
                describe(tenant, tenantPod) + " is bound to node " + node + ", where the host scheduled its copy "
                        + where(hostPod), tenantPod);
    }

    /**
     * The tenant object with the status of its host copy, written through the status subresource. A Pod keeps its
     * own {@code qosClass}: the tenant API computed it from the tenant's spec and, from Kubernetes 1.32, refuses a
     * status write that changes it (the host's class, of the transformed spec, stays on the host). Empty when the
     * host copy has no status yet or the tenant object already has it.
     */
    public static Optional<Decision> status(String tenant, String kind, JsonObject tenantObject, JsonObject host) {
        JsonElement fromHost = host.get("status");
        if (fromHost == null || !fromHost.isJsonObject()) {
            return Optional.empty();
        }
        JsonObject hostStatus = fromHost.getAsJsonObject().deepCopy();
        if (kind.equals("Pod")) {
            JsonElement own = Json.object(tenantObject, "status") == null ? null
                    : Json.object(tenantObject, "status").get("qosClass");
            hostStatus.remove("qosClass");
            if (own != null) {
                hostStatus.add("qosClass", own.deepCopy());
            }
        }
        if (Objects.equals(hostStatus, tenantObject.get("status"))) {
            return Optional.empty();
        }
        JsonObject desired = tenantObject.deepCopy();
        desired.add("status", hostStatus);
        String phase = Json.string(hostStatus, "phase");
        return Optional.of(Decision.update(kind, Decision.SourceRef.of(tenant, tenantObject), Decision.HostRef.of(host),
                Reasons.STATUS_FROM_HOST, describe(tenant, tenantObject) + " takes the status of its host copy "
                + where(host) + (phase == null ? "" : " (phase " + phase + ")"), desired, tenantObject));
    }

    private static String describe(String tenant, JsonObject tenantObject) {
        String ns = Json.string(tenantObject, "metadata", "namespace");
        return Json.string(tenantObject, "kind") + " " + (ns == null ? "" : ns + "/")
                + Json.string(tenantObject, "metadata", "name") + " of tenant " + tenant;
    }

    private static String where(JsonObject host) {
        String ns = Json.string(host, "metadata", "namespace");
        return (ns == null ? "" : ns + "/") + Json.string(host, "metadata", "name");
    }
}
