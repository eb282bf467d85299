package io.tenantplane.sync;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;

/**
 * A keyed work queue in the manner of client-go's rate-limited workqueue.
 *
 * <ul>
 *   <li>Deduplicated: a key waits in the queue at most once, however often it is added.</li>
 *   <li>A key is never processed by two workers at once: added while being processed, it is queued again when the
 *       worker calls {@link #done}.</li>
 *   <li>Rate-limited retries: {@link #retry} re-adds a key after a per-key exponential backoff; {@link #forget} resets
 *       it after success. After {@code maxRetries} the key is dropped (a resync will bring it back).</li>
 *   <li>Bounded: at most {@code capacity} distinct keys wait. A new key that finds the queue full is replaced by its
 *       stand-in (the {@code overflow} function: for a Syncer, one full pass over the object's tenant), which is
 *       queued even beyond capacity, so no work is lost; the caller keeps the number of distinct stand-ins bounded
 *       (one per tenant). Without a stand-in the key is refused and counted.</li>
 * </ul>
 * Thread-safe. Delayed adds run on one virtual thread.
 */
final class WorkQueue<K> implements AutoCloseable {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<K> queue = new ArrayDeque<>();
    private final Set<K> dirty = new HashSet<>();
    private final Set<K> processing = new HashSet<>();
    private final Map<K, Integer> failures = new HashMap<>();
    private final ScheduledExecutorService delayer =
            Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("tenantplane-queue-delay").factory());
    private final int capacity;
    private final int maxRetries;
    private final Duration baseDelay;
    private final Duration maxDelay;
    private final IntConsumer depthListener;
    private final UnaryOperator<K> overflow;
    private boolean shutDown;
    private long refused;
    private long overflowed;

    /** A queue that refuses new keys once {@code capacity} keys wait. */
    WorkQueue(int capacity, int maxRetries, Duration baseDelay, Duration maxDelay, IntConsumer depthListener) {
        this(capacity, maxRetries, baseDelay, maxDelay, depthListener, k -> null);
    }

    /**
     * A queue that, once {@code capacity} keys wait, queues {@code overflow.apply(key)} instead of a new key (beyond
     * capacity: the stand-ins must be few, e.g. one per tenant); a null stand-in refuses the key.
     */
    WorkQueue(int capacity, int maxRetries, Duration baseDelay, Duration maxDelay, IntConsumer depthListener,
              UnaryOperator<K> overflow) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative, got " + maxRetries);
        }
        this.capacity = capacity;
        this.maxRetries = maxRetries;
        this.baseDelay = Objects.requireNonNull(baseDelay, "baseDelay");
        this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
        this.depthListener = Objects.requireNonNull(depthListener, "depthListener");
        this.overflow = Objects.requireNonNull(overflow, "overflow");
    }

    /**
     * Queues {@code key} unless it already waits; when the queue is full, queues its stand-in instead.
     *
     * @return false when the queue is shut down, or full and {@code key} has no stand-in
     */
    boolean add(K key) {
        Objects.requireNonNull(key, "key");
        int depth;
        lock.lock();
        try {
            if (shutDown) {
                return false;
            }
            if (dirty.contains(key)) {
                return true;
            }
            if (dirty.size() >= capacity) {
                K standIn = overflow.apply(key);
                if (standIn == null) {
                    refused++;
                    return false;
                }
                if (!standIn.equals(key)) {
                    overflowed++;
                }
                key = standIn;
                if (dirty.contains(key)) {
                    return true;
                }
            }
            dirty.add(key);
            if (processing.contains(key)) {
                return true;
            }
            queue.addLast(key);
            notEmpty.signal();
            depth = queue.size();
        } finally {
            lock.unlock();
        }
        depthListener.accept(depth);
        return true;
    }

    /** Queues {@code key} after {@code delay}. */
    void addAfter(K key, Duration delay) {
        Objects.requireNonNull(key, "key");
        if (delay.isZero() || delay.isNegative()) {
            add(key);
            return;
        }
        lock.lock();
        try {
            if (shutDown) {
                return;
            }
        } finally {
            lock.unlock();
        }
        try {
            delayer.schedule(() -> add(key), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Shut down meanwhile: nothing more will be processed anyway.
        }
    }

    /**
     * Queues {@code key} again after its backoff ({@code baseDelay * 2^failures}, at most {@code maxDelay}).
     *
     * @return false when the key failed {@code maxRetries} times and was dropped
     */
    boolean retry(K key) {
        int n;
        lock.lock();
        try {
            n = failures.merge(key, 1, Integer::sum);
            if (n > maxRetries) {
                failures.remove(key);
                return false;
            }
        } finally {
            lock.unlock();
        }
        addAfter(key, backoff(n));
        return true;
    }

    /** The delay before the {@code n}-th retry. */
    Duration backoff(int n) {
        long nanos = baseDelay.toNanos() << Math.min(Math.max(n - 1, 0), 30);
        return nanos <= 0 || nanos > maxDelay.toNanos() ? maxDelay : Duration.ofNanos(nanos);
    }

    /** Clears the failure count of {@code key} (after it was processed successfully). */
    void forget(K key) {
        lock.lock();
        try {
            failures.remove(key);
        } finally {
            lock.unlock();
        }
    }

    /** How often {@code key} failed since it was last forgotten. */
    int failures(K key) {
        lock.lock();
        try {
            return failures.getOrDefault(key, 0);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next key to process, waiting until there is one; the caller must call {@link #done} with it.
     *
     * @return null once the queue is shut down
     */
    K take() throws InterruptedException {
        K key;
        int depth;
        lock.lock();
        try {
            while (queue.isEmpty() && !shutDown) {
                notEmpty.await();
            }
            if (shutDown) {
                return null;
            }
            key = queue.removeFirst();
            dirty.remove(key);
            processing.add(key);
            depth = queue.size();
        } finally {
            lock.unlock();
        }
        depthListener.accept(depth);
        return key;
    }

    /** Marks {@code key} processed; if it was added meanwhile, it is queued again. */
    void done(K key) {
        int depth = -1;
        lock.lock();
        try {
            processing.remove(key);
            if (dirty.contains(key) && !shutDown) {
                queue.addLast(key);
                notEmpty.signal();
                depth = queue.size();
            }
        } finally {
            lock.unlock();
        }
        if (depth >= 0) {
            depthListener.accept(depth);
        }
    }

    /** Keys waiting now. */
    int depth() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Adds refused because the queue was full. */
    long refused() {
        lock.lock();
        try {
            return refused;
        } finally {
            lock.unlock();
        }
    }

    /** New keys that found the queue full and were replaced by a different stand-in. */
    long overflowed() {
        lock.lock();
        try {
            return overflowed;
        } finally {
            lock.unlock();
        }
    }

    /** Stops handing out keys; waiting {@link #take} calls return null; delayed adds are dropped. */
    @Override
    public void close() {
        lock.lock();
        try {
            shutDown = true;
            queue.clear();
            dirty.clear();
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        delayer.shutdownNow();
        try {
            delayer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
