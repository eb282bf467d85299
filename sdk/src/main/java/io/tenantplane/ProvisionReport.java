package io.tenantplane;

import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import java.util.List;
import java.util.Objects;

/**
 * What {@link TenantPlane#ensure} did for one tenant.
 *
 * @param tenant        the tenant
 * @param outcomes      one per host object of the isolation boundary and control plane (or, when the tenant is being
 *                      deleted, one per object removed), plus the finalizer change when there was one
 * @param status        the TenantCluster status as it is now (written or already in place); null when the
 *                      TenantCluster no longer exists
 * @param statusWritten whether this call wrote the status (false when nothing in it changed)
 * @param gone          true when the TenantCluster does not exist any more: it was not found, or it was being
 *                      deleted and this call removed what was created for it and then its finalizer
 * @param migration     the migration pass this call ran, because {@code spec.mode} differs from {@code status.mode}
 *                      or a migration is recorded in {@code status.migration}; null when the tenant is not migrating
 * @param context       what this call read to provision the tenant, as {@link TenantPlane#context} would read it now
 *                      (the TenantCluster as its status was left, with its SyncPolicy and IsolationProfile): hand it to
 *                      {@link TenantPlane#converge(TenantContext)} to sync without reading them again; null when the
 *                      tenant is gone, being deleted or invalid
 */
public record ProvisionReport(TenantKey tenant, List<Outcome> outcomes, TenantCluster.Status status,
                              boolean statusWritten, boolean gone, MigrationProgress migration, TenantContext context) {

    public ProvisionReport {
        Objects.requireNonNull(tenant, "tenant");
        outcomes = List.copyOf(outcomes);
    }

    /** A report without a context to sync from. */
    public ProvisionReport(TenantKey tenant, List<Outcome> outcomes, TenantCluster.Status status,
                           boolean statusWritten, boolean gone, MigrationProgress migration) {
        this(tenant, outcomes, status, statusWritten, gone, migration, null);
    }

    /** A report of a call that ran no migration pass, without a context to sync from. */
    public ProvisionReport(TenantKey tenant, List<Outcome> outcomes, TenantCluster.Status status,
                           boolean statusWritten, boolean gone) {
        this(tenant, outcomes, status, statusWritten, gone, null, null);
    }

    /**
     * True when a migration is under way and must be resumed by a later call: the pass waits for something outside
     * tenantplane (Pods becoming Ready, agents joining) or could not finish a write. Call {@code ensure} again after
     * a few seconds, or when host Pods or tenant Nodes change.
     */
    public boolean migrationPending() {
        return migration instanceof MigrationProgress.Waiting || migration instanceof MigrationProgress.Failed;
    }

    /** The writes that succeeded. */
    public long writes() {
        return outcomes.stream().filter(o -> o instanceof Outcome.Applied).count();
    }

    /** True when every object is in place: no conflict, no failed write, no invalid spec. */
    public boolean succeeded() {
        return outcomes.stream().noneMatch(o -> o instanceof Outcome.Failed
                || o.decision().action() == Action.CONFLICT || o.decision().action() == Action.ERROR)
                && (status == null || status.phase() != TenantCluster.Phase.PENDING);
    }
}
