package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tenantplane.model.Condition.Status;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

    private static final Clock LATER = Clock.fixed(Instant.parse("2025-02-01T08:30:15.750Z"), ZoneOffset.UTC);
    private static final String EARLIER = "2025-01-31T12:00:00Z";

    /** A clock that fails the test when read: nothing changed, so nothing may be stamped. */
    private static final Clock UNREADABLE = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            throw new AssertionError("the clock was read although no status changed");
        }
    };

    private static Condition ready(Status s, String reason, long generation, String time) {
        return new Condition(Condition.READY, s, generation, time, reason, reason + " message");
    }

    @Test
    void keepsLastTransitionTimeWhenStatusDidNotChange() {
        List<Condition> current = List.of(ready(Status.TRUE, "ControlPlaneReady", 1, EARLIER));
        List<Condition> merged = Conditions.merge(current,
                List.of(Condition.of(Condition.READY, Status.TRUE, "Synced", "all synced", 2L)), UNREADABLE);
        assertEquals(List.of(new Condition(Condition.READY, Status.TRUE, 2L, EARLIER, "Synced", "all synced")), merged);
    }

    @Test
    void recomputingTheSameConditionsYieldsAnEqualListSoTheStatusWriteCanBeSkipped() {
        List<Condition> current = List.of(
                new Condition(Condition.ACCEPTED, Status.TRUE, 3L, EARLIER, "Valid", "The spec is valid."),
                ready(Status.TRUE, "ControlPlaneReady", 3, EARLIER));
        List<Condition> merged = Conditions.merge(current, List.of(
                Condition.of(Condition.READY, Status.TRUE, "ControlPlaneReady", "ControlPlaneReady message", 3L),
                Conditions.accepted(List.of(), 3L)), UNREADABLE);
        assertEquals(current, merged);
    }

    @Test
    void stampsTheClockInWholeSecondsWhenStatusChanges() {
        List<Condition> current = List.of(ready(Status.TRUE, "ControlPlaneReady", 1, EARLIER));
        List<Condition> merged = Conditions.merge(current,
                List.of(Condition.of(Condition.READY, Status.FALSE, "ControlPlaneUnavailable", "down", 1L)), LATER);
        assertEquals("2025-02-01T08:30:15Z", merged.get(0).lastTransitionTime());
        assertEquals(Status.FALSE, merged.get(0).status());
    }

    @Test
    void stampsANewConditionAndKeepsConditionsItDoesNotMentionInTypeOrder() {
        Condition foreign = new Condition("Migrating", Status.FALSE, 1L, EARLIER, "NotMigrating", "");
        List<Condition> merged = Conditions.merge(List.of(foreign),
                List.of(Condition.of(Condition.READY, Status.UNKNOWN, "Provisioning", "starting", 1L),
                        Condition.of(Condition.ACCEPTED, Status.TRUE, "Valid", "ok", 1L)), LATER);
        assertEquals(List.of("Accepted", "Migrating", "Ready"), merged.stream().map(Condition::type).toList());
        assertEquals(foreign, merged.get(1));
        assertEquals("2025-02-01T08:30:15Z", merged.get(0).lastTransitionTime());
    }

    @Test
    void ofDuplicateCurrentConditionsTheFreshestCounts() {
        List<Condition> current = List.of(ready(Status.FALSE, "Old", 1, "2025-01-01T00:00:00Z"),
                ready(Status.TRUE, "New", 2, EARLIER));
        List<Condition> merged = Conditions.merge(current,
                List.of(Condition.of(Condition.READY, Status.TRUE, "New", "x", 2L)), UNREADABLE);
        assertEquals(EARLIER, merged.get(0).lastTransitionTime());
        assertEquals(1, merged.size());
    }

    @Test
    void refusesDesiredConditionsOfOneTypeTwice() {
        Condition c = Condition.of(Condition.READY, Status.TRUE, "A", "a", 1L);
        assertThrows(IllegalArgumentException.class, () -> Conditions.merge(List.of(), List.of(c, c), LATER));
    }

    @Test
    void theAcceptedConditionListsEveryProblem() {
        Condition c = Conditions.accepted(List.of(Problem.of("spec.mode", "unknown value"),
                new Problem("file.yaml", "spec.controlPlane.replicas", "must be at least 1, got 0")), 4L);
        assertEquals(Status.FALSE, c.status());
        assertEquals("InvalidSpec", c.reason());
        assertEquals("spec.mode: unknown value; spec.controlPlane.replicas: must be at least 1, got 0", c.message());
        assertEquals(4L, c.observedGeneration());
    }
}
