package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The scale harness starts the servers and one, then two replica processes, which share the shards, converge every
 * tenant between them and report every figure; sizes are not asserted.
 */
class ScaleSmokeTest {

    @Test
    void scaleSectionMeasuresEachReplicaCount() throws Exception {
        Report.Section s = ScaleSection.run(ScaleSection.Config.quick());
        assertEquals(6, s.figures().size(), s.toString());
        assertTrue(s.figures().get(0).value().endsWith(" s"), s.figures().get(0).toString());
        assertTrue(s.figures().get(3).value().endsWith(" MiB"), s.figures().get(3).toString());
        assertTrue(s.figures().get(5).name().contains("tenants owned "), s.figures().get(5).toString());
    }
}
