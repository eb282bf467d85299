package io.tenantplane.apply;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A client-side limit on the requests tenantplane sends the host API server, shared by every tenant, and fair between
 * them: a token bucket as client-go's {@code flowcontrol.NewTokenBucketRateLimiter(qps, burst)} (up to {@code burst}
 * requests at once, then {@code qps} per second), whose tokens go to the waiting tenants in turn, so that a tenant
 * with a thousand writes queued cannot hold back another tenant's one write for more than one round of the tenants
 * waiting.
 *
 * <p>Each request a writer sends (a write, or the re-read after a conflict) takes one token. Thread-safe.
 */
public final class WriteRate {

    private static final WriteRate UNLIMITED = new WriteRate(0, 0);

    private final double qps;
    private final int burst;
    private double tokens;
    private long refilledAt;
    /** Tenants with waiters, in the order their turn comes. */
    private final ArrayDeque<Object> turns = new ArrayDeque<>();
    private final Map<Object, Integer> waiting = new HashMap<>();

    private WriteRate(double qps, int burst) {
        this.qps = qps;
        this.burst = burst;
        this.tokens = burst;
        this.refilledAt = System.nanoTime();
    }

    /** No limit: every request goes at once (what the SDK does unless told otherwise). */
    public static WriteRate unlimited() {
        return UNLIMITED;
    }

    /**
     * A limit of {@code qps} requests per second with bursts of up to {@code burst}.
     *
     * @throws IllegalArgumentException unless {@code qps > 0} and {@code burst >= 1}
     */
    public static WriteRate of(double qps, int burst) {
        if (!(qps > 0) || Double.isInfinite(qps) || burst < 1) {
            throw new IllegalArgumentException("need qps > 0 and burst >= 1, got qps " + qps + ", burst " + burst);
        }
        return new WriteRate(qps, burst);
    }

    /** Whether this limits anything. */
    public boolean limited() {
        return burst > 0;
    }

    /** Requests per second once the burst is spent; 0 when unlimited. */
    public double qps() {
        return qps;
    }

    /** Requests that may go at once; 0 when unlimited. */
    public int burst() {
        return burst;
    }

    /**
     * Waits for a token for a request of {@code tenant} (any key with equals/hashCode, e.g. a TenantKey).
     *
     * @throws InterruptedException when interrupted while waiting; no token is taken
     */
    public void acquire(Object tenant) throws InterruptedException {
        if (!limited()) {
            return;
        }
        Objects.requireNonNull(tenant, "tenant");
        synchronized (this) {
            if (waiting.merge(tenant, 1, Integer::sum) == 1) {
                turns.addLast(tenant);
            }
            try {
                while (true) {
                    refill();
                    if (tokens >= 1 && tenant.equals(turns.peekFirst())) {
                        tokens -= 1;
                        turns.pollFirst();
                        if (waiting.merge(tenant, -1, Integer::sum) > 0) {
                            turns.addLast(tenant);
                        } else {
                            waiting.remove(tenant);
                        }
                        notifyAll();
                        return;
                    }
                    if (tokens >= 1) {
                        wait();
                    } else {
                        long nanos = (long) Math.ceil((1 - tokens) / qps * 1e9);
                        wait(Math.max(1, nanos / 1_000_000));
                    }
                }
            } catch (InterruptedException e) {
                if (waiting.merge(tenant, -1, Integer::sum) <= 0) {
                    waiting.remove(tenant);
                    turns.remove(tenant);
                }
                notifyAll();
                throw e;
            }
        }
    }

    private void refill() {
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (now - refilledAt) / 1e9 * qps);
        refilledAt = now;
    }

    @Override
    public String toString() {
        return limited() ? "WriteRate[qps=" + qps + ", burst=" + burst + "]" : "WriteRate[unlimited]";
    }

}
