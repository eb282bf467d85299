package io.tenantplane;

import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one convergence pass over a tenant (or over one of its objects) did.
 *
 * @param tenant   the tenant
 * @param outcomes one outcome per decision, in plan order: the host writes first, then what flowed back to the tenant
 *                 (status, node bindings)
 * @param took     how long the pass took
 * @param failure  why the pass stopped before planning (e.g. the tenant API was unreachable); null when it ran through
 */
public record ConvergenceReport(TenantKey tenant, List<Outcome> outcomes, Duration took, PassFailure failure) {

    /**
     * {@value}: the {@linkplain PassFailure#reason() reason} of a pass that did not run because a migration is
     * recorded in the TenantCluster's {@code status.migration}; {@link TenantPlane#ensure} moves the tenant on, and
     * convergence resumes when the migration has completed.
     */
    public static final String MIGRATION_IN_PROGRESS = "MigrationInProgress";

    public ConvergenceReport {
        Objects.requireNonNull(tenant, "tenant");
        outcomes = List.copyOf(outcomes);
        Objects.requireNonNull(took, "took");
    }

    /**
     * Why a pass could not run.
     *
     * @param reason  a stable CamelCase reason, e.g. {@code TenantApiUnavailable}, {@code ReadFailed}
     * @param message a human sentence
     */
    public record PassFailure(String reason, String message) {
        public PassFailure {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    /** The decisions as finally executed (after any re-planning on conflict). */
    public List<Decision> decisions() {
        return outcomes.stream().map(Outcome::decision).toList();
    }

    /** The number of decisions per action. */
    public Map<Action, Long> counts() {
        Map<Action, Long> m = new EnumMap<>(Action.class);
        for (Outcome o : outcomes) {
            m.merge(o.decision().action(), 1L, Long::sum);
        }
        return m;
    }

    /** How many decisions of {@code action}. */
    public long count(Action action) {
        return outcomes.stream().filter(o -> o.decision().action() == action).count();
    }

    /** The writes that succeeded. */
    public long writes() {
        return outcomes.stream().filter(o -> o instanceof Outcome.Applied).count();
    }

    /** The writes the API server refused after all retries. */
    public List<Outcome.Failed> failures() {
        return outcomes.stream().filter(o -> o instanceof Outcome.Failed).map(o -> (Outcome.Failed) o).toList();
    }

    /**
     * True when the pass ran through, every write succeeded and no decision is a {@code Conflict} or an
     * {@code Error}: the host matches the tenant.
     */
    public boolean converged() {
        return failure == null && outcomes.stream().noneMatch(o -> o instanceof Outcome.Failed
                || o.decision().action() == Action.CONFLICT || o.decision().action() == Action.ERROR);
    }
}
