package io.tenantplane.migration;

import java.util.List;
import java.util.Objects;

/**
 * One step of a migration plan.
 *
 * @param step    which step
 * @param summary a sentence saying what the step does for this tenant
 * @param batches decisions and waits, in order
 */
public record MigrationStep(Step step, String summary, List<Batch> batches) {

    public MigrationStep {
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(summary, "summary");
        batches = List.copyOf(batches);
    }

    /** Every decision of the step, in order. */
    public List<StepDecision> decisions() {
        return batches.stream().flatMap(b -> b.decisions().stream()).toList();
    }

    /** Every wait of the step, in order. */
    public List<Wait> waits() {
        return batches.stream().flatMap(b -> b.waits().stream()).toList();
    }
}
