package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.util.List;
import java.util.Objects;

/**
 * A tenant as a pass sees it: its TenantCluster with the SyncPolicy and IsolationProfile it references, read together
 * so one pass works from one consistent view. Get one from {@link TenantPlane#context(TenantKey)}, or build one
 * (e.g. from informer caches) to converge without reading them again.
 *
 * @param cluster              the TenantCluster
 * @param policy               the SyncPolicy it references
 * @param profile              the IsolationProfile it references
 * @param controlPlaneServices the control plane's Services (the tenant API's and the tenant DNS's) as the
 *                             provisioning that made this context left them on the host, so that a pass learns their
 *                             ClusterIPs without reading them again; empty when not known, and the pass reads them.
 *                             Read-only.
 */
public record TenantContext(TenantCluster cluster, SyncPolicy policy, IsolationProfile profile,
                            List<JsonObject> controlPlaneServices) {

    /** A context whose pass reads the control plane's Services itself. */
    public TenantContext(TenantCluster cluster, SyncPolicy policy, IsolationProfile profile) {
        this(cluster, policy, profile, List.of());
    }

    public TenantContext {
        controlPlaneServices = controlPlaneServices == null ? List.of() : List.copyOf(controlPlaneServices);
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(cluster.metadata(), "cluster.metadata");
        Objects.requireNonNull(cluster.namespace(), "cluster.metadata.namespace");
        Objects.requireNonNull(cluster.tenant(), "cluster.metadata.name");
    }

    /**
     * This context for {@code other}, a placement of the same tenant (a pass takes only the Services that are the
     * ones its placement names).
     */
    TenantContext withCluster(TenantCluster other) {
        return other == cluster ? this : new TenantContext(other, policy, profile, controlPlaneServices);
    }

    /** The tenant's key: the TenantCluster's namespace and name. */
    public TenantKey key() {
        return new TenantKey(cluster.namespace(), cluster.tenant());
    }

    /** The tenant's name. */
    public String tenant() {
        return cluster.tenant();
    }

    /** Where the tenant's workloads run on the host. */
    public String hostNamespace() {
        return cluster.hostNamespace();
    }
}
