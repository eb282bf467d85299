package io.tenantplane.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shared client-side limit: its bounds, the turns it gives waiting tenants, and interruption. */
class WriteRateTest {

    @Test
    void badLimitsAreRefusedNamingBothValues() {
        var e = assertThrows(IllegalArgumentException.class, () -> WriteRate.of(0, 10));
        assertTrue(e.getMessage().contains("qps 0.0, burst 10"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> WriteRate.of(5, 0));
        assertThrows(IllegalArgumentException.class, () -> WriteRate.of(Double.NaN, 1));
        assertFalse(WriteRate.unlimited().limited());
    }

    @Test
    void theBurstGoesAtOnceAndTheRestNoFasterThanTheRate() throws InterruptedException {
        WriteRate rate = WriteRate.of(50, 5);
        long t0 = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            rate.acquire("a");
        }
        for (int i = 0; i < 10; i++) {
            rate.acquire("a");
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        // 10 tokens beyond the burst at 50 per second cannot come sooner than 200 ms (a lower bound, not a timing).
        assertTrue(tookMs >= 190, "took " + tookMs + " ms");
    }

    @Test
    void aTenantThatStartsWaitingBehindThirtyTwoWaitersOfAnotherGetsTheNextTurnButOne() throws Exception {
        WriteRate rate = WriteRate.of(200, 1);
        List<String> grants = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch started = new CountDownLatch(20);
        List<Thread> large = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            large.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 5; i++) {
                    try {
                        rate.acquire("large");
                    } catch (InterruptedException e) {
                        return;
                    }
                    grants.add("large");
                    started.countDown();
                }
            }));
        }
        assertTrue(started.await(10, TimeUnit.SECONDS));
        int before = grants.size();
        rate.acquire("small");
        grants.add("small");
        for (Thread t : large) {
            t.join();
        }
        int at = grants.indexOf("small");
        assertTrue(at - before <= 2, "the small tenant waited " + (at - before) + " grants of the large one: "
                + grants);
        assertEquals(161, grants.size());
    }

    @Test
    void anInterruptedWaiterTakesNoTokenAndLeavesNoTurnBehind() throws Exception {
        WriteRate rate = WriteRate.of(1, 1);
        rate.acquire("a");
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                rate.acquire("b");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread.sleep(50);
        waiter.interrupt();
        waiter.join();
        // The next token (after about a second) goes to "a", not to the gone "b".
        Thread second = Thread.ofVirtual().start(() -> {
            try {
                rate.acquire("a");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        second.join(5_000);
        assertFalse(second.isAlive(), "a still gets its turn");
    }
}
