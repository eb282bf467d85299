package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.controlplane.internal.Agents;
import io.tenantplane.controlplane.internal.TenantDns;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.TenantCluster;
import java.util.ArrayList;
import java.util.List;

/**
 * What a TenantCluster renders on the host, pure: its isolation boundary, then its control plane and the tenant's DNS
 * (or, in private mode, its agents), in apply order. Provisioning writes it, {@code TenantPlane.render} shows it, and
 * the read step of a TenantCluster checks that the boundary admits the rest ({@link BoundaryFit}).
 */
final class TenantRendering {

    private TenantRendering() {
    }

    /** The isolation boundary, then the control plane and the tenant's DNS (or its agents), in apply order. */
    static List<JsonObject> of(TenantCluster tc, IsolationProfile profile) {
        List<JsonObject> out = new ArrayList<>(new IsolationRenderer().render(tc, profile));
        ControlPlaneRenderer controlPlane = new ControlPlaneRenderer();
        out.addAll(controlPlane.render(tc));
        if (tc.mode() != TenantCluster.Mode.PRIVATE) {
            // Synced pods resolve the tenant's Services through the tenant's own DNS.
            out.addAll(TenantDns.render(tc));
        }
        if (tc.mode() == TenantCluster.Mode.PRIVATE) {
            // A tenant created in private mode runs its workloads on its own agents from the start, as one that
            // migrated there does.
            out.addAll(new Agents(controlPlane).render(tc, tc.hostNamespace()));
        }
        return List.copyOf(out);
    }
}
