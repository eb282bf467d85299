package io.tenantplane;

import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.util.Objects;

/**
 * A tenant as a pass sees it: its TenantCluster with the SyncPolicy and IsolationProfile it references, read together
 * so one pass works from one consistent view. Get one from {@link TenantPlane#context(TenantKey)}, or build one
 * (e.g. from informer caches) to converge without reading them again.
 *
 * @param cluster the TenantCluster
 * @param policy  the SyncPolicy it references
 * @param profile the IsolationProfile it references
 */
public record TenantContext(TenantCluster cluster, SyncPolicy policy, IsolationProfile profile) {

    public TenantContext {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(cluster.metadata(), "cluster.metadata");
        Objects.requireNonNull(cluster.namespace(), "cluster.metadata.namespace");
        Objects.requireNonNull(cluster.tenant(), "cluster.metadata.name");
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
