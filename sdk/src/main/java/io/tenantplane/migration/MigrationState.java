package io.tenantplane.migration;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster.Mode;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The progress of a migration, kept in the TenantCluster's {@code status.migration} so that a pass that was
 * interrupted (a crash, API errors) resumes at the same step:
 *
 * <pre>
 * status:
 *   migration:
 *     from: shared
 *     to: dedicated
 *     step: MoveWorkloads
 *     startedAt: "2025-01-31T12:00:00Z"
 * </pre>
 *
 * @param from      the mode the workloads are moving away from
 * @param to        the mode they are moving to ({@code spec.mode} when the migration started)
 * @param step      the step in progress
 * @param startedAt RFC 3339 time the migration started; null in a plan that has not run yet
 */
public record MigrationState(Mode from, Mode to, Step step, String startedAt) {

    /** The field of {@code status} that holds the state: {@value}. */
    public static final String STATUS_FIELD = "migration";

    public MigrationState {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(step, "step");
    }

    /**
     * The state recorded in a TenantCluster as JSON, or empty when none is recorded or it cannot be read (an unknown
     * mode or step: the migration is then planned afresh from the tenant's {@code status.mode}).
     */
    public static Optional<MigrationState> fromTenantCluster(JsonObject tenantCluster) {
        JsonObject m = tenantCluster == null ? null : Json.object(tenantCluster, "status", STATUS_FIELD);
        if (m == null) {
            return Optional.empty();
        }
        Optional<Mode> from = mode(Json.string(m, "from"));
        Optional<Mode> to = mode(Json.string(m, "to"));
        Optional<Step> step = Step.parse(Json.string(m, "step"));
        if (from.isEmpty() || to.isEmpty() || step.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new MigrationState(from.get(), to.get(), step.get(), Json.string(m, "startedAt")));
    }

    /** This state as the JSON of {@code status.migration}. */
    public JsonObject toJson() {
        JsonObject o = new JsonObject();
        o.addProperty("from", from.value());
        o.addProperty("to", to.value());
        o.addProperty("step", step.display());
        if (startedAt != null) {
            o.addProperty("startedAt", startedAt);
        }
        return o;
    }

    /** This state as the TenantCluster's typed {@code status.migration}. */
    public io.tenantplane.model.TenantCluster.Migration toStatus() {
        return new io.tenantplane.model.TenantCluster.Migration(from, to,
                io.tenantplane.model.TenantCluster.MigrationStep.valueOf(step.name()), startedAt);
    }

    /** This state at another step. */
    public MigrationState at(Step next) {
        return new MigrationState(from, to, next, startedAt);
    }

    /** This state with the time it started. */
    public MigrationState startedAt(String time) {
        return new MigrationState(from, to, step, time);
    }

    static Optional<Mode> mode(String value) {
        if (value == null) {
            return Optional.empty();
        }
        for (Mode m : Mode.values()) {
            if (m.value().equals(value.toLowerCase(Locale.ROOT))) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
