package io.tenantplane.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DecisionRingTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final TenantKey DEV = new TenantKey("team-dev", "dev");
    private static final TenantKey QA = new TenantKey("team-dev", "qa");

    static Outcome created(String name) {
        return new Outcome.NotWritten(Decision.summary(Action.CREATE, "Pod",
                new Decision.SourceRef("dev", "default", name, null),
                new Decision.HostRef("team-dev", name + "-x-default-x-dev"), "NotOnHost", "created " + name));
    }

    @Test
    void keepsTheLastDecisionsOfEachTenantNewestFirst() {
        DecisionRing ring = new DecisionRing(3, CLOCK);
        for (int i = 1; i <= 5; i++) {
            ring.decision(DEV, created("p" + i));
        }
        List<RecordedDecision> recent = ring.recent(DEV, 10);
        assertEquals(List.of("p5", "p4", "p3"),
                recent.stream().map(r -> r.outcome().decision().source().name()).toList());
        assertEquals(Instant.parse("2025-01-01T00:00:00Z"), recent.get(0).at());
        assertEquals(2, ring.recent(DEV, 2).size());
    }

    @Test
    void keepsTenantsApartAndForgetsADeletedTenant() {
        DecisionRing ring = new DecisionRing(10, CLOCK);
        ring.decision(DEV, created("a"));
        ring.decision(QA, created("b"));
        assertEquals("a", ring.recent(DEV, 10).get(0).outcome().decision().source().name());
        assertEquals(1, ring.recent(QA, 10).size());
        ring.forget(QA);
        assertTrue(ring.recent(QA, 10).isEmpty());
        assertEquals(java.util.Set.of(DEV), ring.tenants());
    }

    @Test
    void staysBoundedUnderConcurrentReporting() throws Exception {
        DecisionRing ring = new DecisionRing(50, CLOCK);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        for (int t = 0; t < 8; t++) {
            pool.submit(() -> {
                for (int i = 0; i < 1000; i++) {
                    ring.decision(DEV, created("p" + i));
                    ring.recent(DEV, 5);
                }
            });
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        assertEquals(50, ring.recent(DEV, 1000).size());
    }

    @Test
    void aDecisionThatWroteNothingIsNotRecordedAgainWhileTheRingHoldsIt() {
        DecisionRing ring = new DecisionRing(10, CLOCK);
        ring.decision(DEV, created("a"));
        ring.decision(DEV, created("a"));
        ring.decision(DEV, created("b"));
        ring.decision(DEV, created("a"));
        assertEquals(List.of("b", "a"), ring.recent(DEV, 10).stream()
                .map(r -> r.outcome().decision().source().name()).toList());
        Decision write = created("a").decision();
        ring.decision(DEV, new Outcome.Applied(write, null, 1));
        ring.decision(DEV, new Outcome.Applied(write, null, 1));
        assertEquals(4, ring.recent(DEV, 10).size(), "every write is recorded");
    }

    @Test
    void rejectsACapacityBelowOneNamingTheArgument() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DecisionRing(0, CLOCK));
        assertTrue(e.getMessage().contains("capacity"));
    }
}
