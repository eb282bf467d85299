package io.tenantplane.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EventObserverTest {

    private static Decision d(Action action, String reason, String host) {
        return new Decision(action, "Pod", new Decision.SourceRef("dev", "default", "web", null),
                new Decision.HostRef("team-dev", host), reason, "message " + System.nanoTime(), null, null);
    }

    @Test
    void repeatsOfOneDecisionShareADeterministicEventNameWhateverTheirMessage() {
        TenantKey dev = new TenantKey("team-dev", "dev");
        String a = EventObserver.eventName(dev, d(Action.CONFLICT, "ForeignObject", "web-x-default-x-dev"));
        String b = EventObserver.eventName(dev, d(Action.CONFLICT, "ForeignObject", "web-x-default-x-dev"));
        assertEquals(a, b);
        assertTrue(a.startsWith("dev."), a);
        assertTrue(a.length() <= 253);
        assertNotEquals(a, EventObserver.eventName(dev, d(Action.CONFLICT, "NameCollision", "web-x-default-x-dev")));
        assertNotEquals(a, EventObserver.eventName(dev, d(Action.CREATE, "NotOnHost", "web-x-default-x-dev")));
        assertNotEquals(a, EventObserver.eventName(dev, d(Action.CONFLICT, "ForeignObject", "other-x-default-x-dev")));
    }

    @Test
    void theBuilderNamesWhatIsMissingOrWrong() {
        assertTrue(assertThrows(IllegalStateException.class, () -> EventObserver.builder().build()).getMessage()
                .contains("client"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EventObserver.builder()
                .seriesInterval(Duration.ofSeconds(-1))).getMessage().contains("seriesInterval"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EventObserver.builder()
                .reportingInstance("")).getMessage().contains("reportingInstance"));
    }
}
