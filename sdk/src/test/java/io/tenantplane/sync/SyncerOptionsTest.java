package io.tenantplane.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyncerOptionsTest {

    @Test
    void defaultsWatchAllNamespacesWithFourWorkersAndAFiveMinuteResync() {
        SyncerOptions o = SyncerOptions.defaults();
        assertTrue(o.namespaces().isEmpty());
        assertEquals(4, o.workers());
        assertEquals(Duration.ofMinutes(5), o.resyncPeriod());
        assertTrue(o.provision());
        assertTrue(o.threads().newThread(() -> { }).isVirtual());
    }

    @Test
    void withersChangeOneSettingAndKeepTheRest() {
        SyncerOptions o = SyncerOptions.defaults().withNamespaces(List.of("team-dev")).withWorkers(2)
                .withProvision(false).withRetries(3, Duration.ofMillis(10), Duration.ofSeconds(1));
        assertEquals(List.of("team-dev"), o.namespaces());
        assertEquals(2, o.workers());
        assertEquals(3, o.maxRetries());
        assertEquals(Duration.ofMinutes(5), o.resyncPeriod());
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        SyncerOptions d = SyncerOptions.defaults();
        assertMessage("workers", assertThrows(IllegalArgumentException.class, () -> d.withWorkers(0)));
        assertMessage("resyncPeriod", assertThrows(IllegalArgumentException.class,
                () -> d.withResyncPeriod(Duration.ZERO)));
        assertMessage("maxRetryDelay", assertThrows(IllegalArgumentException.class,
                () -> d.withRetries(1, Duration.ofSeconds(2), Duration.ofSeconds(1))));
        assertMessage("queueCapacity", assertThrows(IllegalArgumentException.class, () -> d.withQueueCapacity(0)));
        assertMessage("namespaces", assertThrows(NullPointerException.class, () -> d.withNamespaces(null)));
    }

    private static void assertMessage(String name, Throwable t) {
        assertTrue(t.getMessage().contains(name), t.getMessage());
    }
}
