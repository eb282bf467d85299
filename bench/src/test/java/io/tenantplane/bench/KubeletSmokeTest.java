package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The kubelet harness sets up a host with managed pods (its API over TLS), opens the endpoint, reads a log through it
 * and directly (over TLS, and over the testkit's plain HTTP), measures one loopback TLS hop alone, opens follow
 * streams, answers kubectl top's calls for every tenant's aggregator, and reports every figure; sizes are not asserted.
 */
class KubeletSmokeTest {

    @Test
    void kubeletSectionMeasuresIdleTenantsALogReadAndOpenStreams() throws Exception {
        Report.Section s = KubeletSection.run(KubeletSection.Config.quick());
        assertEquals(11, s.figures().size(), s.toString());
        assertTrue(s.figures().get(0).value().endsWith(" KiB"), s.figures().get(0).toString());
        assertTrue(s.figures().get(2).value().endsWith(" ms"), s.figures().get(2).toString());
        assertTrue(s.figures().get(2).ratio() > 0, s.figures().get(2).toString());
        assertTrue(s.figures().get(2).baseline().contains("over TLS"), s.figures().get(2).toString());
        assertTrue(s.figures().get(3).value().endsWith(" ms"), s.figures().get(3).toString());
        assertTrue(s.figures().get(4).value().matches("[0-9.,]+ ms vs [0-9.,]+ ms"), s.figures().get(4).toString());
        assertTrue(s.figures().get(5).value().matches("[0-9.,]+ ms vs [0-9.,]+ ms"), s.figures().get(5).toString());
        assertTrue(s.figures().get(6).value().endsWith(" KiB"), "kubectl top's heap: " + s.figures().get(6));
        assertTrue(s.figures().get(7).ratio() > 0 && s.figures().get(7).baseline().contains("PodMetrics"),
                "kubectl top's call against the host's own list: " + s.figures().get(7));
        assertEquals(Integer.toString(KubeletSection.Config.quick().streams()), s.figures().get(10).value(),
                "every follow stream is open at once");
    }
}
