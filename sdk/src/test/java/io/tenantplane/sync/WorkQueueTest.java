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
    void aNewKeyThatFindsTheQueueFullIsReplacedByItsStandInSoNoWorkIsLost() throws Exception {
        // Object keys "tenant/object" stand in as their tenant's key "tenant"; tenant keys stand for themselves.
        try (WorkQueue<String> q = new WorkQueue<>(2, 3, Duration.ofMillis(10), Duration.ofMillis(80), d -> { },
                k -> k.contains("/") ? k.substring(0, k.indexOf('/')) : k)) {
            assertTrue(q.add("t1/a"));
            assertTrue(q.add("t1/b"));
            assertTrue(q.add("t1/c"), "full: queued as a full pass over t1");
            assertTrue(q.add("t2/d"));
            assertTrue(q.add("t1/e"), "t1's full pass already waits");
            assertTrue(q.add("t3"), "a tenant key is queued beyond capacity");
            assertTrue(q.add("t1/a"), "a key that already waits is accepted as it is");
            assertEquals(0, q.refused());
            assertEquals(3, q.overflowed());
            List<String> taken = new ArrayList<>();
            while (q.depth() > 0) {
                String k = q.take();
                taken.add(k);
                q.done(k);
            }
            assertEquals(List.of("t1/a", "t1/b", "t1", "t2", "t3"), taken);
        }
    }

    @Test
    void aRetryThatFindsTheQueueFullIsReplacedByItsStandIn() throws Exception {
        try (WorkQueue<String> q = new WorkQueue<>(1, 3, Duration.ofMillis(1), Duration.ofMillis(1), d -> { },
                k -> k.contains("/") ? k.substring(0, k.indexOf('/')) : k)) {
            assertTrue(q.add("t1/a"));
            assertEquals("t1/a", q.take());
            q.add("t2/b");
            assertTrue(q.retry("t1/a"));
            q.done("t1/a");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (q.depth() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(2, q.depth(), "the retry is queued after its backoff");
            assertEquals("t2/b", q.take());
            assertEquals("t1", q.take(), "the retry, refused by the full queue, came back as t1's full pass");
        }
    }

    @Test
    void closeReleasesWorkersWaitingForKeys() throws Exception {
        WorkQueue<String> q = queue(10, 3);
        CompletableFuture<String> taken = new CompletableFuture<>();
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                taken.complete(q.take());
            } catch (InterruptedException e) {
                taken.completeExceptionally(e);
            }
        });
        // Close only once the worker waits inside take(), not before it got there.
        while (worker.getState() != Thread.State.WAITING && worker.getState() != Thread.State.TIMED_WAITING) {
            assertFalse(taken.isDone(), "take() returned on an empty queue");
            Thread.onSpinWait();
        }
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
