package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.FlowBack;
import io.tenantplane.transform.SyncRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The flow-back step of one convergence pass: what the host made of each copy the pass wrote or left goes back to the
 * tenant object it came from. A tenant Service takes its host copy's ClusterIP and node ports, a tenant Pod is bound
 * to the node mirror of its copy's node, and kinds with {@code fromHost: status} take their copy's status. What to
 * write is {@link FlowBack}'s (pure); this class executes those decisions through the pass's tenant applier and
 * reports each outcome through the pass's one {@link Execution}, under the pass's {@code status} scope.
 */
final class FlowBackTending {

    private final String tenant;
    private final SyncRules rules;
    private final Reader tenantReader;
    private final Applier tenantApplier;
    private final Execution exec;
    /** The pass's node-mirror step: a Pod is bound only to a mirror that exists. */
    private final NodeMirrorTending mirrors;

    FlowBackTending(String tenant, SyncRules rules, Reader tenantReader, Applier tenantApplier, Execution exec,
                    NodeMirrorTending mirrors) {
        this.tenant = tenant;
        this.rules = rules;
        this.tenantReader = tenantReader;
        this.tenantApplier = tenantApplier;
        this.exec = exec;
        this.mirrors = mirrors;
    }

    /**
     * Lets the host copies of what the pass has executed so far flow back into {@code tenantObjects} (the tenant
     * objects the pass planned from): a copy the pass created or updated as the host answered, an unchanged one as
     * it was read.
     */
    void flowBack(List<JsonObject> tenantObjects) {
        Map<String, JsonObject> hostCopies = new LinkedHashMap<>();
        for (Outcome o : exec.outcomes()) {
            Decision d = o.decision();
            if (d.host() == null || d.source() == null) {
                continue;
            }
            JsonObject host = switch (o) {
                case Outcome.Applied a when d.action() == Action.CREATE || d.action() == Action.UPDATE -> a.result();
                case Outcome.NotWritten n when d.action() == Action.UNCHANGED -> d.observed();
                default -> null;
            };
            if (host != null) {
                hostCopies.put(d.kind() + "/" + d.source().virtualNamespace() + "/" + d.source().name(), host);
            }
        }
        if (hostCopies.isEmpty()) {
            return;
        }
        try (Execution status = exec.kind("status")) {
            for (JsonObject t : tenantObjects) {
                String kind = Json.string(t, "kind");
                JsonObject host = kind == null ? null : hostCopies.get(kind + "/"
                        + Json.string(t, "metadata", "namespace") + "/" + Json.string(t, "metadata", "name"));
                if (host != null) {
                    flowBack(kind, t, host, status);
                }
            }
        }
    }

    private void flowBack(String kind, JsonObject tenantObject, JsonObject host, Execution status) {
        JsonObject current = tenantObject;
        if (kind.equals("Service")) {
            current = shareClusterIp(current, host, status);
            if (current == null) {
                return;
            }
            current = shareNodePorts(current, host, status);
            if (current == null) {
                return;
            }
        }
        if (!statusFlowsBack(kind)) {
            return;
        }
        if (kind.equals("Pod")) {
            current = bind(current, host, status);
            if (current == null) {
                return;
            }
        }
        FlowBack.status(tenant, kind, current, host).ifPresent(d -> status.applyStatus(tenantApplier, d));
    }

    /**
     * Gives a tenant Service the ClusterIP of its host copy ({@link FlowBack#clusterIp}). Returns the tenant Service
     * as it is afterwards, or null when it is not known.
     */
    private JsonObject shareClusterIp(JsonObject tenantService, JsonObject hostService, Execution status) {
        Optional<Decision> d = FlowBack.clusterIp(tenant, tenantService, hostService);
        if (d.isEmpty()) {
            return tenantService;
        }
        Outcome o = status.report(tenantApplier.recreate(d.get()));
        return o instanceof Outcome.Applied a ? a.result() : null;
    }

    /**
     * Gives a tenant NodePort or LoadBalancer Service the node ports of its host copy ({@link FlowBack#nodePorts});
     * returns the tenant Service as it is afterwards, or null when it is not known.
     */
    private JsonObject shareNodePorts(JsonObject tenantService, JsonObject hostService, Execution status) {
        Optional<Decision> d = FlowBack.nodePorts(tenant, tenantService, hostService);
        if (d.isEmpty()) {
            return tenantService;
        }
        Outcome o = status.report(tenantApplier.updateInPlace(d.get(),
                fresh -> FlowBack.nodePorts(tenant, fresh, hostService).map(Decision::desired).orElse(null)));
        return o instanceof Outcome.Applied a ? a.result() : tenantService;
    }

    private boolean statusFlowsBack(String kind) {
        Optional<SyncPolicy.KindRule> rule = rules.rule(kind);
        return rule.isPresent() && rule.get().toHost()
                && rule.get().effectiveFromHost() == SyncPolicy.FromHost.STATUS;
    }

    /**
     * Binds an unscheduled tenant Pod to the tenant Node that mirrors the host node its copy runs on; returns the
     * tenant Pod as it is afterwards (null when it is gone).
     */
    private JsonObject bind(JsonObject tenantPod, JsonObject hostPod, Execution status) {
        Optional<String> to = FlowBack.nodeToBind(tenantPod, hostPod);
        if (to.isEmpty() || !mirrors.mirrorNode(to.get(), status)) {
            return tenantPod;
        }
        String node = to.get();
        Outcome o = status.report(tenantApplier.bind(FlowBack.binding(tenant, tenantPod, hostPod, node), node));
        if (!(o instanceof Outcome.Applied)) {
            return tenantPod;
        }
        return tenantReader.get(ResourceKind.wellKnown("v1", "Pod").orElseThrow(),
                Json.string(tenantPod, "metadata", "namespace"), Json.string(tenantPod, "metadata", "name"))
                .orElse(null);
    }
}
