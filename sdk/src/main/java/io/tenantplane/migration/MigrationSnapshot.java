package io.tenantplane.migration;

import com.google.gson.JsonObject;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import java.util.List;
import java.util.Objects;

/**
 * Everything the {@link MigrationPlanner} looks at for one tenant. Offline, build it from files; live, the
 * {@link MigrationRunner} reads it from the two API servers.
 *
 * @param cluster       the TenantCluster: {@code spec.mode} is where the tenant is going, {@code status.mode} where
 *                      it is (a tenant without {@code status.mode} has never run and needs no migration)
 * @param state         the migration recorded in {@code status.migration}, or null when none is in progress
 * @param profile       the IsolationProfile the TenantCluster references
 * @param policy        the SyncPolicy the TenantCluster references
 * @param tenantObjects the tenant API's objects: every kind the policy syncs, every Pod and every Node (a list must be
 *                      complete for its kind, as for the sync {@link io.tenantplane.plan.Planner})
 * @param hostObjects   the host objects in the TenantCluster's namespace and in the tenant's own host namespace (any
 *                      owner), and the Namespace object of the tenant's own host namespace when it exists
 */
public record MigrationSnapshot(TenantCluster cluster, MigrationState state, IsolationProfile profile,
                                SyncPolicy policy, List<JsonObject> tenantObjects, List<JsonObject> hostObjects) {

    public MigrationSnapshot {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(cluster.tenant(), "cluster.metadata.name");
        Objects.requireNonNull(cluster.namespace(), "cluster.metadata.namespace");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(policy, "policy");
        tenantObjects = List.copyOf(tenantObjects == null ? List.of() : tenantObjects);
        hostObjects = List.copyOf(hostObjects == null ? List.of() : hostObjects);
    }
}
