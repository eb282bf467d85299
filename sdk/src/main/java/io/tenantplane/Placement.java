package io.tenantplane;

import io.tenantplane.model.TenantCluster;
import io.tenantplane.model.TenantCluster.Mode;
import java.util.Objects;

/**
 * Where a pass keeps a tenant's workloads, decided from its TenantCluster alone (a pure function):
 *
 * <ul>
 *   <li>No {@code status.mode} yet (never provisioned), or {@code status.mode} equal to {@code spec.mode}: where the
 *       spec says.</li>
 *   <li>A migration recorded in {@code status.migration}: {@link Moving}. The migration runner moves the workloads
 *       and syncs what the move needs; a convergence pass into either place would fight its step order.</li>
 *   <li>{@code spec.mode} differs from {@code status.mode} but no migration is recorded (it has not started yet, was
 *       rejected, or could not start): where the tenant runs now, {@code status.mode} and
 *       {@code status.hostNamespace}. Nothing of the new place has been written then, so the old place is complete.</li>
 * </ul>
 */
sealed interface Placement {

    /**
     * Converge the tenant as {@code cluster} says: the stored TenantCluster, or, while {@code spec.mode} is not in
     * effect, a view of it whose {@code spec.mode} and {@code spec.hostNamespace} are those of {@code status}.
     */
    record InPlace(TenantCluster cluster) implements Placement {
        public InPlace {
            Objects.requireNonNull(cluster, "cluster");
        }
    }

    /** A migration is under way; the stored TenantCluster's spec is where it goes. */
    record Moving(TenantCluster cluster, TenantCluster.Migration migration) implements Placement {
        public Moving {
            Objects.requireNonNull(cluster, "cluster");
            Objects.requireNonNull(migration, "migration");
        }
    }

    /** The placement of {@code tc}. */
    static Placement of(TenantCluster tc) {
        TenantCluster.Status s = tc.status();
        if (s != null && s.migration() != null) {
            return new Moving(tc, s.migration());
        }
        if (s == null || s.mode() == null || s.mode() == tc.mode()) {
            return new InPlace(tc);
        }
        return new InPlace(current(tc));
    }

    /**
     * True when {@code ensure} runs a migration pass: a migration is recorded, or {@code spec.mode} differs from the
     * mode in effect.
     */
    static boolean migrationWanted(TenantCluster tc) {
        TenantCluster.Status s = tc.status();
        return s != null && (s.migration() != null || s.mode() != null && s.mode() != tc.mode());
    }

    /** The cluster a pass provisions: the view in place, or the stored one (the target) while moving. */
    TenantCluster cluster();

    /** {@code tc} as it runs now: {@code spec.mode} and {@code spec.hostNamespace} taken from its status. */
    private static TenantCluster current(TenantCluster tc) {
        TenantCluster.Status s = tc.status();
        TenantCluster.Spec spec = tc.spec() == null ? new TenantCluster.Spec(null, null, null, null, null) : tc.spec();
        String hostNamespace = s.mode() == Mode.SHARED ? null
                : s.hostNamespace() != null ? s.hostNamespace() : spec.hostNamespace();
        TenantCluster.Spec now = new TenantCluster.Spec(s.mode(), spec.isolationProfileRef(), spec.syncPolicyRef(),
                hostNamespace, spec.controlPlane());
        return new TenantCluster(tc.apiVersion(), tc.kind(), tc.metadata(), now, s);
    }
}
