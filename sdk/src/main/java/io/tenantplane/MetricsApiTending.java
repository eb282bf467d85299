package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.MetricsRegistration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code metrics.k8s.io} step of one convergence pass: with a kubelet endpoint (and its CA loaded), the tenant's
 * registration of {@code metrics.k8s.io} points at it once the tenant's control plane has published its
 * request-header CA; a tenant's own registration is left alone; in private mode, what shared or dedicated mode
 * registered goes. What to write is {@link MetricsRegistration}'s (pure); this class reads what it needs, executes
 * those decisions through the pass's tenant applier and reports each outcome through the pass's one
 * {@link Execution}. A read that fails leaves the step to the next pass.
 */
final class MetricsApiTending {

    private final TenantContext ctx;
    private final Reader tenantReader;
    private final Applier tenantApplier;
    private final Reader hostReader;
    private final KubeletEndpoint kubelet;
    private final Execution exec;
    /**
     * Private tenants whose shared- or dedicated-mode registration has been looked at (and retired): shared by the
     * passes of one {@code TenantPlane}, so it is looked at once per private stretch of a tenant, not on every pass.
     */
    private final Set<TenantKey> retired;

    MetricsApiTending(TenantContext ctx, Reader tenantReader, Applier tenantApplier, Reader hostReader,
                      KubeletEndpoint kubelet, Execution exec, Set<TenantKey> retired) {
        this.ctx = ctx;
        this.tenantReader = tenantReader;
        this.tenantApplier = tenantApplier;
        this.hostReader = hostReader;
        this.kubelet = kubelet;
        this.exec = exec;
        this.retired = retired;
    }

    /** Registers, keeps or retires the tenant's {@code metrics.k8s.io} registration; nothing without an endpoint. */
    void tend() {
        if (kubelet == null) {
            return;
        }
        if (ctx.cluster().mode() == TenantCluster.Mode.PRIVATE) {
            retire();
            return;
        }
        retired.remove(ctx.key());
        Optional<KubeletCa> ca = kubelet.ca();
        // Registered once the endpoint can admit the tenant's aggregator (its control plane published its
        // request-header CA): an APIService the aggregator cannot reach would make every kubectl in the tenant
        // report metrics.k8s.io as unavailable.
        if (ca.isEmpty() || !published()) {
            return;
        }
        List<Decision> writes = new ArrayList<>();
        for (JsonObject desired : MetricsRegistration.desired(kubelet.host(), kubelet.port(),
                ca.get().certificatePem())) {
            ResourceKind kind = ResourceKind.wellKnown(Json.string(desired, "apiVersion"),
                    Json.string(desired, "kind")).orElseThrow();
            JsonObject current;
            try {
                current = tenantReader.get(kind, Json.string(desired, "metadata", "namespace"),
                        Json.string(desired, "metadata", "name")).orElse(null);
            } catch (ReadFailedException e) {
                return;
            }
            MetricsRegistration.decide(ctx.tenant(), desired, current).ifPresent(writes::add);
        }
        exec.each(writes, d -> tenantApplier.apply(d, Applier.Replanner.NONE));
    }

    /**
     * Deletes what shared or dedicated mode registered while it still points at the endpoint
     * ({@link MetricsRegistration#retire}); remembered once nothing is left, and looked at again next pass otherwise
     * (which finds it gone, or deletes it then).
     */
    private void retire() {
        if (retired.contains(ctx.key())) {
            return;
        }
        List<Decision> retire = new ArrayList<>();
        for (String[] at : List.of(new String[] {"v1", "Service", MetricsRegistration.NAMESPACE,
                MetricsRegistration.SERVICE}, new String[] {"apiregistration.k8s.io/v1", "APIService", null,
                MetricsRegistration.API_SERVICE})) {
            ResourceKind kind = ResourceKind.wellKnown(at[0], at[1]).orElseThrow();
            try {
                tenantReader.get(kind, at[2], at[3]).flatMap(current -> MetricsRegistration.retire(ctx.tenant(),
                        current)).ifPresent(retire::add);
            } catch (ReadFailedException e) {
                return;
            }
        }
        if (retire.isEmpty()) {
            retired.add(ctx.key());
        }
        exec.each(retire, d -> tenantApplier.apply(d, Applier.Replanner.NONE));
    }

    /**
     * True when the tenant's control plane has published its request-header CA in {@code <tenant>-kubeconfig}. The
     * Secret is rendered with the tenant's label: the provisioning before this pass has usually listed it already
     * ({@link TenantContext#listed}); read on its own only when it has not.
     */
    private boolean published() {
        ControlPlaneNames n = ControlPlaneNames.of(ctx.cluster());
        try {
            Optional<JsonObject> secret = ctx.listed("v1", "Secret", n.namespace(),
                    ReverseMapping.TENANT + "=" + ctx.tenant()).flatMap(listed -> listed.stream()
                    .filter(o -> n.kubeconfigSecret().equals(Json.string(o, "metadata", "name"))).findFirst());
            if (secret.isEmpty()) {
                secret = hostReader.get(ResourceKind.wellKnown("v1", "Secret").orElseThrow(), n.namespace(),
                        n.kubeconfigSecret());
            }
            return secret.map(o -> Json.string(o, "data", ControlPlaneNames.REQUEST_HEADER_CA_KEY) != null)
                    .orElse(false);
        } catch (ReadFailedException e) {
            return false;
        }
    }
}
