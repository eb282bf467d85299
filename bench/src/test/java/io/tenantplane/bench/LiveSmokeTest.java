package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The live harness runs end to end with a few objects and reports every figure; timings are not asserted. */
class LiveSmokeTest {

    @Test
    void liveSectionConvergesMeasuresTheSteadyPassAndTheWatchDrivenSyncer() throws Exception {
        Report.Section s = LiveSection.run(LiveSection.Config.quick());
        assertEquals(7, s.figures().size(), s.figures().toString());
        Figure first = s.figures().get(0);
        assertTrue(first.ratio() != null && first.ratio() > 0 && Double.isFinite(first.ratio()), first.toString());
        assertEquals("0", s.figures().get(2).value(), "a second pass over converged objects writes nothing: " + s);
        Figure latency = s.figures().get(6);
        assertTrue(latency.ratio() != null && latency.ratio() > 0, latency.toString());
    }
}
