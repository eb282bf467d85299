package io.tenantplane.migration;

import java.util.List;

/**
 * Part of a step: decisions to execute in order, then conditions to wait for before the next batch.
 *
 * @param decisions what to write
 * @param waits     what must hold afterwards
 */
public record Batch(List<StepDecision> decisions, List<Wait> waits) {

    public Batch {
        decisions = List.copyOf(decisions);
        waits = List.copyOf(waits);
    }

    /** The decisions that write. */
    public List<StepDecision> writes() {
        return decisions.stream().filter(d -> d.decision().action().writes()).toList();
    }

    /** True when every wait is satisfied. */
    public boolean ready() {
        return waits.stream().allMatch(Wait::satisfied);
    }
}
