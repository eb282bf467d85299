package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.NodeMirror;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The node-mirror step of one convergence pass: the tenant Node that stands for each host node its Pods run on is
 * made, kept and retired here. What to write is {@link NodeMirror}'s (pure); this class reads what it needs, executes
 * those decisions through the pass's tenant applier and reports each outcome through the pass's one
 * {@link Execution}. One instance per pass: it remembers which mirrors the pass has made or refreshed.
 */
final class NodeMirrorTending {

    private final String tenant;
    private final TenantCluster.Mode mode;
    private final Reader tenantReader;
    private final Applier tenantApplier;
    private final Reader hostReader;
    /** Where node mirrors send the tenant API's kubelet calls; null: to their host node's addresses. */
    private final KubeletEndpoint kubelet;
    private final Execution exec;
    /** The mirrors this pass made or refreshed, and whether that worked. */
    private final Map<String, Boolean> mirroredNodes = new HashMap<>();

    NodeMirrorTending(String tenant, TenantCluster.Mode mode, Reader tenantReader, Applier tenantApplier,
                      Reader hostReader, KubeletEndpoint kubelet, Execution exec) {
        this.tenant = tenant;
        this.mode = mode;
        this.tenantReader = tenantReader;
        this.tenantApplier = tenantApplier;
        this.hostReader = hostReader;
        this.kubelet = kubelet;
        this.exec = exec;
    }

    /**
     * After pods are converged: deletes the tenant's node mirrors that no tenant Pod is bound to any more, and
     * refreshes the labels and status of the others from their host nodes (the binding path only refreshes a
     * mirror when it binds a new Pod to it).
     *
     * <p>A Pod counts as bound when its {@code spec.nodeName} names the mirror, whatever its phase, including Pods
     * being deleted and Pods the tenant bound itself. Only Nodes with both mirror markers are candidates (see
     * {@link NodeMirror}). A mirror cordoned by a migration, and every mirror in private mode, are the migration's to
     * retire. Before deleting, the tenant's Pods are listed once more, so a Pod bound since the pass read them keeps
     * its Node; each delete carries the mirror's {@code uid} and {@code resourceVersion} as preconditions.
     *
     * @param tenantPods the tenant objects the pass read, when they include every tenant Pod; null to list them
     */
    void tend(List<JsonObject> tenantPods) {
        if (mode == TenantCluster.Mode.PRIVATE) {
            return;
        }
        ResourceKind nodes = ResourceKind.wellKnown("v1", "Node").orElseThrow();
        List<JsonObject> mirrors;
        Set<String> used;
        try {
            mirrors = tenantReader.list(nodes, null, NodeMirror.selector()).stream()
                    .filter(NodeMirror::isMirror).toList();
            if (mirrors.isEmpty()) {
                return;
            }
            boolean fresh = tenantPods == null;
            used = boundNodes(fresh ? listTenantPods() : tenantPods);
            // Binds made by this pass happened after the Pods were read.
            used.addAll(mirroredNodes.keySet());
            if (!fresh && mirrors.stream().anyMatch(m -> NodeMirror.unused(tenant, m, used).isPresent())) {
                used.addAll(boundNodes(listTenantPods()));
            }
        } catch (ReadFailedException e) {
            // The sync itself succeeded; mirrors are tended by the next pass that can read them.
            return;
        }
        try (Execution inNodes = exec.kind("Node")) {
            for (JsonObject mirror : mirrors) {
                String name = Json.string(mirror, "metadata", "name");
                Optional<Decision> delete = NodeMirror.unused(tenant, mirror, used);
                if (delete.isPresent()) {
                    inNodes.apply(tenantApplier, delete.get(), this::replanMirrorDelete);
                } else if (!mirroredNodes.containsKey(name)) {
                    mirrorNode(name, inNodes, mirror);
                }
            }
        }
    }

    /** A refused mirror delete is retried only for the same Node, still a mirror, still not cordoned. */
    private Decision replanMirrorDelete(Decision stale, JsonObject current) {
        if (current == null || !NodeMirror.isMirror(current)
                || NodeMirror.isCordoned(current)
                || !Objects.equals(Json.string(current, "metadata", "uid"),
                        Json.string(stale.observed(), "metadata", "uid"))) {
            return null;
        }
        return stale.withObjects(null, current);
    }

    private List<JsonObject> listTenantPods() {
        return tenantReader.list(ResourceKind.wellKnown("v1", "Pod").orElseThrow(), null, null);
    }

    private static Set<String> boundNodes(List<JsonObject> objects) {
        Set<String> nodes = new java.util.HashSet<>();
        for (JsonObject o : objects) {
            String node = Json.string(o, "spec", "nodeName");
            if ("Pod".equals(Json.string(o, "kind")) && node != null && !node.isEmpty()) {
                nodes.add(node);
            }
        }
        return nodes;
    }

    /**
     * Makes sure the tenant has a Node mirroring host node {@code name}, reporting through {@code in} (the execution
     * of the step that asks, in its kind's scope); false when it could not.
     */
    boolean mirrorNode(String name, Execution in) {
        return mirrorNode(name, in, null);
    }

    /** As {@link #mirrorNode(String, Execution)}, with the mirror as already read (null: read it). */
    private boolean mirrorNode(String name, Execution in, JsonObject read) {
        Boolean done = mirroredNodes.get(name);
        if (done != null) {
            return done;
        }
        ResourceKind nodes = ResourceKind.wellKnown("v1", "Node").orElseThrow();
        JsonObject hostNode;
        try {
            hostNode = hostReader.get(nodes, null, name).orElse(null);
        } catch (ReadFailedException e) {
            // Without read access to host nodes the mirror carries the name alone.
            hostNode = null;
        }
        JsonObject desired = kubelet == null ? NodeMirror.desired(name, hostNode)
                : NodeMirror.desired(name, hostNode, kubelet.host(), kubelet.port());
        Optional<JsonObject> current = read != null ? Optional.of(read) : tenantReader.get(nodes, null, name);
        boolean ok = true;
        JsonObject node;
        if (current.isEmpty()) {
            Outcome o = tenantApplier.apply(NodeMirror.create(tenant, name, desired), Applier.Replanner.NONE);
            in.report(o);
            ok = o instanceof Outcome.Applied;
            node = o instanceof Outcome.Applied a ? a.result() : null;
        } else {
            node = current.get();
            Optional<Decision> labels = NodeMirror.labels(name, desired, node);
            if (labels.isPresent()) {
                Outcome o = tenantApplier.apply(labels.get(), Applier.Replanner.NONE);
                in.report(o);
                if (o instanceof Outcome.Applied a) {
                    node = a.result();
                }
            }
        }
        if (node != null) {
            NodeMirror.status(name, desired, node).ifPresent(d -> in.applyStatus(tenantApplier, d));
        }
        mirroredNodes.put(name, ok);
        return ok;
    }
}
