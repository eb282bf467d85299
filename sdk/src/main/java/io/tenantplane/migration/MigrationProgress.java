package io.tenantplane.migration;

import io.tenantplane.observe.Outcome;
import java.util.List;

/** What one {@link MigrationRunner#resume} pass achieved. Every variant lists the outcomes of the writes it made. */
public sealed interface MigrationProgress {

    /** The outcomes of the decisions executed in this pass, in order. */
    List<Outcome> outcomes();

    /** The tenant runs in the mode its spec asks for; nothing was migrating. */
    record NotNeeded(List<Outcome> outcomes) implements MigrationProgress {
        public NotNeeded {
            outcomes = List.copyOf(outcomes);
        }
    }

    /** The migration finished in this pass: {@code status.mode} is the target and {@code status.migration} is gone. */
    record Completed(MigrationPlan lastPlan, List<Outcome> outcomes) implements MigrationProgress {
        public Completed {
            outcomes = List.copyOf(outcomes);
        }
    }

    /**
     * The migration waits for something outside tenantplane (Pods becoming Ready, agents joining, controllers
     * recreating Pods); call {@link MigrationRunner#resume} again later, e.g. on the next watch event or resync.
     */
    record Waiting(Step step, List<Wait> waits, List<Outcome> outcomes) implements MigrationProgress {
        public Waiting {
            waits = List.copyOf(waits);
            outcomes = List.copyOf(outcomes);
        }
    }

    /** The migration was refused before any step ran, or stopped because its target became invalid. */
    record Rejected(Rejection rejection, List<Outcome> outcomes) implements MigrationProgress {
        public Rejected {
            outcomes = List.copyOf(outcomes);
        }
    }

    /**
     * A write failed, a read failed, or a name in the target is held by a foreign object ({@code Conflict}); the
     * step stays recorded and the next pass resumes it.
     *
     * @param reason  {@code WriteFailed}, {@code ReadFailed}, {@code Conflict} or {@code TooManyRounds}
     * @param message a sentence
     */
    record Failed(Step step, String reason, String message, List<Outcome> outcomes) implements MigrationProgress {
        public Failed {
            outcomes = List.copyOf(outcomes);
        }
    }
}
