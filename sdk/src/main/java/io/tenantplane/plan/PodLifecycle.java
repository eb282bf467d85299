package io.tenantplane.plan;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The kubelet's last duty for tenant Pods, as a pure planner: a tenant Pod that is being deleted, is bound to a node
 * (so its API server waits for that node's kubelet) and whose host copy is gone gets a tenant-side {@code Delete}
 * with grace period 0 and its uid as precondition, as {@code pkg/kubelet/status/status_manager.go} confirms a
 * terminated pod. The node mirrors of a shared or dedicated tenant have no kubelet, so without this a deleted pod,
 * a rollout or a namespace deletion would wait for ever.
 *
 * <p>A Pod already deleted with grace 0 (it waits only for its finalizers) gets nothing: finalizers are their
 * owners' business.
 */
public final class PodLifecycle {
    private PodLifecycle() {
    }

    /**
     * Tenant-side Delete decisions (host identity null, {@code observed} the tenant Pod, {@code desired} the delete
     * options) for the tenant's terminating Pods whose host copy is not among {@code hostObjects}.
     *
     * @param tenant        the tenant
     * @param hostNamespace the host namespace the tenant's Pods are synced to
     * @param tenantObjects tenant objects as read (any kinds; Pods are picked)
     * @param hostObjects   host objects as read in the same pass (any kinds; this tenant's managed Pods count)
     */
    public static List<Decision> finalizations(String tenant, String hostNamespace, List<JsonObject> tenantObjects,
                                               List<JsonObject> hostObjects) {
        Set<String> hostCopies = new HashSet<>();
        for (JsonObject h : hostObjects) {
            if ("Pod".equals(Json.string(h, "kind"))
                    && ReverseMapping.inspect(h, tenant, hostNamespace) instanceof Ownership.Managed m) {
                hostCopies.add(m.source().virtualNamespace() + "/" + m.source().name());
            }
        }
        List<Decision> out = new ArrayList<>();
        for (JsonObject pod : tenantObjects) {
            if (!"Pod".equals(Json.string(pod, "kind")) || Json.string(pod, "metadata", "deletionTimestamp") == null) {
                continue;
            }
            String node = Json.string(pod, "spec", "nodeName");
            JsonElement grace = Json.object(pod, "metadata").get("deletionGracePeriodSeconds");
            boolean confirmed = grace != null && !grace.isJsonNull() && grace.getAsLong() == 0;
            String ns = Json.string(pod, "metadata", "namespace");
            String name = Json.string(pod, "metadata", "name");
            if (node == null || node.isEmpty() || confirmed || hostCopies.contains(ns + "/" + name)) {
                continue;
            }
            JsonObject options = new JsonObject();
            options.addProperty("gracePeriodSeconds", 0);
            String hostName = HostNames.hostName(name, ns, tenant);
            out.add(new Decision(Action.DELETE, "Pod", new Decision.SourceRef(tenant, ns, name,
                    Json.string(pod, "metadata", "uid")), null, Reasons.POD_FINALIZED,
                    "Pod " + ns + "/" + name + " of tenant " + tenant + " is finalized: its host copy " + hostNamespace
                            + "/" + hostName + " is gone, so it is deleted with grace period 0, as the kubelet of node "
                            + node + " would", options, pod));
        }
        return List.copyOf(out);
    }
}
