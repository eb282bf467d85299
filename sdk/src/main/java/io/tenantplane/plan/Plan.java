package io.tenantplane.plan;

import java.util.List;

/** The immutable, deterministically ordered result of planning: one {@link Decision} per host object considered. */
public record Plan(List<Decision> decisions) {

    public Plan {
        decisions = List.copyOf(decisions);
    }

    /** True when any decision is a {@code Conflict} or an {@code Error}: a CI gate fails on it. */
    public boolean hasProblems() {
        return decisions.stream().anyMatch(d -> d.action() == Action.CONFLICT || d.action() == Action.ERROR);
    }

    /** The decisions that write to the host. */
    public List<Decision> writes() {
        return decisions.stream().filter(d -> d.action().writes()).toList();
    }
}
