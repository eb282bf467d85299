package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The JFR summary names where planning spends its time. */
class ProfilerTest {

    @Test
    void profileOfPlanningAttributesSamplesToThePlanner() throws Exception {
        Snapshot s = Fixtures.convergedHost(Fixtures.tenantObjects(500));
        Planner planner = new Planner();
        Profiler.Summary summary = Profiler.profile("planning", Duration.ofMillis(1500), () -> planner.plan(s));
        assertTrue(summary.samples() > 0, "JFR took samples");
        assertTrue(summary.inclusive().keySet().stream().anyMatch(m -> m.startsWith("io.tenantplane.plan.Planner")),
                summary.markdown(5));
        assertTrue(summary.markdown(5).contains("| Inclusive | tenantplane method |"));
    }
}
