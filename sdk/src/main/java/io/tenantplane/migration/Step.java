package io.tenantplane.migration;

import java.util.Locale;
import java.util.Optional;

/**
 * The steps of a migration, in the order they run. Each is idempotent: running a step again after an interruption
 * writes only what is still missing.
 */
public enum Step {
    /**
     * Prepares the new placement: the tenant's own host namespace and its boundary, node placement, the control
     * plane's flags for the target mode (the StatefulSet is updated in place) and, for private mode, the tenant's own
     * k3s agents, which must be Ready before the step ends.
     */
    PREPARE_TARGET("PrepareTarget"),
    /**
     * Moves the workloads: creates their copies in the new place, waits until the Pods there are Ready, then
     * collects the old place. Into and out of private mode, tenant Pods are rescheduled one per owner at a time.
     */
    MOVE_WORKLOADS("MoveWorkloads"),
    /** Retires the old placement's boundary and switches {@code status.mode} and {@code status.hostNamespace}. */
    SWITCH_BOUNDARY("SwitchBoundary"),
    /** Removes what the old placement still holds: the tenant's own namespace, or the tenant's node mirrors. */
    CLEANUP("Cleanup");

    private final String display;

    Step(String display) {
        this.display = display;
    }

    /** The CamelCase name used in status, conditions and output, e.g. {@code MoveWorkloads}. */
    public String display() {
        return display;
    }

    /** The step after this one, if any. */
    public Optional<Step> next() {
        int i = ordinal() + 1;
        return i < values().length ? Optional.of(values()[i]) : Optional.empty();
    }

    /** The step named {@code name} in its CamelCase form ({@code MoveWorkloads}), case-insensitively. */
    public static Optional<Step> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        for (Step s : values()) {
            if (s.display.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
