package io.tenantplane.plan.internal;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Reasons;
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
 *
 * <p>Also the one change a running Pod's spec takes besides images: ephemeral containers added to the tenant Pod
 * ({@code kubectl debug}) are added to its host copy ({@link #addedEphemeralContainers}).
 */
public final class PodLifecycle {
    private PodLifecycle() {
    }

    /**
     * The names of the ephemeral containers {@code desired} (the host Pod as the transform makes it now) has and
     * {@code observed} (the host Pod as read) lacks, in order; empty when there are none, or when {@code observed}
     * has one {@code desired} lacks (an API server never removes one, so that difference cannot be written).
     */
    public static List<String> addedEphemeralContainers(JsonObject desired, JsonObject observed) {
        List<String> want = ephemeralNames(desired);
        List<String> have = ephemeralNames(observed);
        if (!want.containsAll(have)) {
            return List.of();
        }
        List<String> added = new ArrayList<>(want);
        added.removeAll(have);
        return added;
    }

    private static List<String> ephemeralNames(JsonObject pod) {
        List<String> names = new ArrayList<>();
        JsonObject spec = Json.object(pod, "spec");
        JsonElement list = spec == null ? null : spec.get("ephemeralContainers");
        if (list != null && list.isJsonArray()) {
            for (JsonElement c : list.getAsJsonArray()) {
                if (c.isJsonObject() && Json.string(c.getAsJsonObject(), "name") != null) {
                    names.add(Json.string(c.getAsJsonObject(), "name"));
                }
            }
        }
        return names;
    }

    /**
     * Why a tenant Pod whose host copy is missing must not get a new one, or null when it may: the Pod ran on the
     * host ({@code spec.nodeName} and {@code status.hostIP} set, which only the status flow-back of a host copy
     * writes), so its host copy vanished there; a finished Pod is kept as its record.
     */
    public static String vanished(JsonObject pod) {
        String node = Json.string(pod, "spec", "nodeName");
        String hostIp = Json.string(pod, "status", "hostIP");
        if (node == null || node.isEmpty() || hostIp == null || hostIp.isEmpty()) {
            return null;
        }
        String phase = Json.string(pod, "status", "phase");
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
            return "finished (" + phase + ") on node " + node + " and its host copy is gone; it is kept as the "
                    + "record of its run and gets no new host copy";
        }
        return "ran on node " + node + " (host IP " + hostIp + ") and its host copy has disappeared from the host "
                + "(evicted, deleted there, or its node is gone); a Pod never restarts elsewhere under the same "
                + "identity, so it gets no new host copy and is deleted in the tenant, as a real cluster removes the "
                + "Pods of a lost node; its controller makes a new one";
    }

    /**
     * Tenant-side Delete decisions for the Pods the plan reported gone from the host ({@link Reasons#HOST_POD_GONE},
     * not finished): grace period 0, the uid as precondition.
     */
    public static List<Decision> vanishedDeletes(Plan plan, List<JsonObject> tenantObjects) {
        java.util.Map<String, JsonObject> pods = new java.util.HashMap<>();
        for (JsonObject o : tenantObjects) {
            if ("Pod".equals(Json.string(o, "kind"))) {
                pods.put(Json.string(o, "metadata", "namespace") + "/" + Json.string(o, "metadata", "name"), o);
            }
        }
        List<Decision> out = new ArrayList<>();
        for (Decision d : plan.decisions()) {
            if (!d.reason().equals(Reasons.HOST_POD_GONE) || d.source() == null || !d.kind().equals("Pod")) {
                continue;
            }
            JsonObject pod = pods.get(d.source().virtualNamespace() + "/" + d.source().name());
            String phase = pod == null ? null : Json.string(pod, "status", "phase");
            if (pod == null || "Succeeded".equals(phase) || "Failed".equals(phase)) {
                continue;
            }
            JsonObject options = new JsonObject();
            options.addProperty("gracePeriodSeconds", 0);
            out.add(Decision.delete("Pod", d.source(), null, Reasons.HOST_POD_GONE,
                    "Pod " + d.source().virtualNamespace() + "/" + d.source().name() + " of tenant "
                            + d.source().tenant() + " is deleted with grace period 0: its host copy "
                            + (d.host() == null ? "" : d.host().namespace() + "/" + d.host().name() + " ")
                            + "disappeared from the host", options, pod));
        }
        return List.copyOf(out);
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
            out.add(Decision.delete("Pod", Decision.SourceRef.of(tenant, pod), null, Reasons.POD_FINALIZED,
                    "Pod " + ns + "/" + name + " of tenant " + tenant + " is finalized: its host copy " + hostNamespace
                            + "/" + hostName + " is gone, so it is deleted with grace period 0, as the kubelet of node "
                            + node + " would", options, pod));
        }
        return List.copyOf(out);
    }
}
