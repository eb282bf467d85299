package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The footprint harness starts its two processes, adds tenants and reports every figure; sizes are not asserted. */
class FootprintSmokeTest {

    @Test
    void footprintSectionMeasuresHeapAndThreadsAsTenantsAreAdded() throws Exception {
        Report.Section s = FootprintSection.run(FootprintSection.Config.quick());
        assertEquals(3, s.figures().size(), s.toString());
        Figure perTenant = s.figures().get(0);
        assertTrue(perTenant.value().endsWith(" MiB"), perTenant.toString());
        assertTrue(perTenant.ratio() != null && Double.isFinite(perTenant.ratio()), perTenant.toString());
        assertTrue(s.figures().get(2).value().matches("\\d+ / \\d+ / \\d+"), s.figures().get(2).toString());
    }
}
