package io.tenantplane.apply.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/** Runs tasks 0..count-1 on up to a given number of threads: the caller's and virtual threads beside it. */
public final class Bounded {

    private Bounded() {
    }

    /**
     * Runs {@code task} for each index from 0 to {@code count - 1}, at most {@code workers} at once, and returns when
     * all that started have ended. The first {@link RuntimeException} stops handing out indexes and is thrown at the
     * end; so does an interrupt of the caller (e.g. its tenant's shard is handed over), which is passed on to the
     * tasks in flight (an HTTP call not yet sent then fails at once; one in flight ends at its client's timeout) and
     * whose flag is then restored.
     *
     * @param name prefix of the virtual threads' names
     */
    public static void run(int count, int workers, String name, IntConsumer task) {
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<RuntimeException> error = new AtomicReference<>();
        Thread caller = Thread.currentThread();
        Runnable worker = () -> {
            int i;
            while (!stop.get() && !caller.isInterrupted() && (i = next.getAndIncrement()) < count) {
                try {
                    task.accept(i);
                } catch (RuntimeException e) {
                    error.compareAndSet(null, e);
                    stop.set(true);
                }
            }
        };
        List<Thread> threads = new ArrayList<>();
        for (int w = 1; w < Math.min(workers, count); w++) {
            threads.add(Thread.ofVirtual().name(name + "-" + w).start(worker));
        }
        worker.run();
        boolean interrupted = caller.isInterrupted();
        if (interrupted) {
            stop.set(true);
            threads.forEach(Thread::interrupt);
        }
        for (Thread t : threads) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    stop.set(true);
                    threads.forEach(Thread::interrupt);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (error.get() != null) {
            throw error.get();
        }
    }
}
