package io.tenantplane.apply.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The bounded runner behind a pass's concurrent writes: every task once, errors and interrupts stop it. */
class BoundedTest {

    @Test
    void runsEveryIndexOnceAtMostWorkersAtATime() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        int[] seen = new int[100];
        Bounded.run(100, 4, "t", i -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            seen[i]++;
            Thread.onSpinWait();
            running.decrementAndGet();
        });
        for (int n : seen) {
            assertEquals(1, n);
        }
        assertTrue(most.get() <= 4, "at most 4 at once: " + most.get());
    }

    @Test
    void anErrorStopsHandingOutAndIsThrown() {
        AtomicInteger ran = new AtomicInteger();
        var e = assertThrows(IllegalStateException.class, () -> Bounded.run(1000, 1, "t", i -> {
            ran.incrementAndGet();
            if (i == 3) {
                throw new IllegalStateException("boom");
            }
        }));
        assertEquals("boom", e.getMessage());
        assertEquals(4, ran.get());
    }

    @Test
    void anInterruptOfTheCallerStopsEveryWorkerAndIsKept() throws Exception {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger interruptedWorkers = new AtomicInteger();
        CountDownLatch allBusy = new CountDownLatch(4);
        boolean[] flagKept = new boolean[1];
        Thread caller = Thread.ofPlatform().start(() -> {
            Bounded.run(1000, 4, "t", i -> {
                started.incrementAndGet();
                allBusy.countDown();
                try {
                    Thread.sleep(10_000);
                } catch (InterruptedException e) {
                    interruptedWorkers.incrementAndGet();
                    Thread.currentThread().interrupt();
                }
            });
            flagKept[0] = Thread.currentThread().isInterrupted();
        });
        assertTrue(allBusy.await(5, TimeUnit.SECONDS));
        caller.interrupt();
        caller.join(5000);
        assertEquals(4, started.get(), "no task handed out after the interrupt");
        assertEquals(4, interruptedWorkers.get(), "the tasks in flight were interrupted too");
        assertTrue(flagKept[0], "the caller's interrupt flag is restored");
    }
}
