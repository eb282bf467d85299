package io.tenantplane.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

    private static WorkQueue<String> queue(int capacity, int maxRetries) {
        return new WorkQueue<>(capacity, maxRetries, Duration.ofMillis(10), Duration.ofMillis(80), d -> { });
    }

    @Test
    void aKeyAddedManyTimesWaitsOnce() throws Exception {
        try (WorkQueue<String> q = queue(10, 3)) {
            q.add("a");
            q.add("b");
            q.add("a");
            q.add("a");
            assertEquals(2, q.depth());
            assertEquals("a", q.take());
            assertEquals("b", q.take());
        }
    }

    @Test
    void aKeyAddedWhileBeingProcessedIsQueuedAgainWhenDoneAndNeverHandedOutTwiceAtOnce() throws Exception {
        try (WorkQueue<String> q = queue(10, 3)) {
            q.add("a");
            assertEquals("a", q.take());
            q.add("a");
            assertEquals(0, q.depth(), "a key being processed is not handed to a second worker");
            q.done("a");
            assertEquals(1, q.depth());
            assertEquals("a", q.take());
            q.done("a");
            assertEquals(0, q.depth());
        }
    }

    @Test
    void retriesBackOffExponentiallyUpToTheMaximumAndDropTheKeyAfterMaxRetries() throws Exception {
        try (WorkQueue<String> q = queue(10, 2)) {
            assertEquals(Duration.ofMillis(10), q.backoff(1));
            assertEquals(Duration.ofMillis(20), q.backoff(2));
            assertEquals(Duration.ofMillis(80), q.backoff(4));
            assertEquals(Duration.ofMillis(80), q.backoff(40));

            assertTrue(q.retry("a"));
            assertEquals(0, q.depth(), "a retry waits for its backoff");
            assertEquals("a", q.take());
            q.done("a");
            assertTrue(q.retry("a"));
            assertEquals("a", q.take());
            q.done("a");
            assertFalse(q.retry("a"), "the third failure exceeds maxRetries = 2");
            assertEquals(0, q.failures("a"));
        }
    }

    @Test
    void forgetResetsTheBackoffOfAKey() {
        try (WorkQueue<String> q = queue(10, 5)) {
            q.retry("a");
            q.retry("a");
            assertEquals(2, q.failures("a"));
            q.forget("a");
            assertEquals(0, q.failures("a"));
        }
    }

    @Test
    void refusesNewKeysBeyondCapacityAndCountsThem() {
        try (WorkQueue<String> q = queue(2, 3)) {
            assertTrue(q.add("a"));
            assertTrue(q.add("b"));
            assertFalse(q.add("c"));
            assertTrue(q.add("a"), "a key that already waits is accepted");
            assertEquals(1, q.refused());
        }
    }

    @Test
    void closeReleasesWorkersWaitingForKeys() throws Exception {
        WorkQueue<String> q = queue(10, 3);
        CompletableFuture<String> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return q.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(50);
        q.close();
        assertNull(taken.get(2, TimeUnit.SECONDS));
        assertFalse(q.add("a"));
    }

    @Test
    void reportsTheDepthWhenItChanges() throws Exception {
        List<Integer> depths = new ArrayList<>();
        try (WorkQueue<String> q = new WorkQueue<>(10, 1, Duration.ofMillis(1), Duration.ofMillis(1),
                d -> { synchronized (depths) { depths.add(d); } })) {
            q.add("a");
            q.add("b");
            q.take();
        }
        assertEquals(List.of(1, 2, 1), depths);
    }
}
