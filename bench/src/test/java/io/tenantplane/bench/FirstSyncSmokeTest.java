package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The first-sync harness runs end to end with a few objects and reports every figure; timings are not asserted. */
class FirstSyncSmokeTest {

    @Test
    void firstSyncSectionMeasuresEachWriterCountAgainstItsLoopAndTheSpeedUp() {
        Report.Section s = FirstSyncSection.run(FirstSyncSection.Config.quick());
        assertEquals(5, s.figures().size(), s.figures().toString());
        for (Figure f : s.figures()) {
            assertTrue(f.ratio() != null && f.ratio() > 0 && Double.isFinite(f.ratio()), f.toString());
        }
    }
}
