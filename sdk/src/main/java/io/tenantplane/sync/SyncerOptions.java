package io.tenantplane.sync;

import io.tenantplane.observe.TenantKey;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.Predicate;

/**
 * How a {@link Syncer} runs. Start from {@link #defaults()} and change what you need with the {@code with...} methods;
 * each checks its argument and names it when it is wrong.
 *
 * @param namespaces    host namespaces whose TenantClusters are synced; empty means all namespaces
 * @param workers       how many passes run at once (default 4)
 * @param resyncPeriod  how often every tenant gets a full pass even without changes (default 5 minutes); watches
 *                      bring changes in seconds, the resync repairs anything a watch missed
 * @param provision     whether the Syncer also provisions tenants ({@code ensure}) before syncing them (default true)
 * @param queueCapacity most distinct object keys waiting at once (default 10000); a change that finds the queue full
 *                      is folded into one full pass over its tenant, which is queued regardless (one per tenant)
 * @param maxRetries    retries of a failing key before it waits for the next resync (default 10)
 * @param retryDelay    the first retry's delay, doubled per retry up to {@code maxRetryDelay} (default 200 ms)
 * @param maxRetryDelay the longest retry delay (default 1 minute)
 * @param threads       creates every thread the Syncer runs (watches, workers, timers); default virtual threads
 * @param migrationRecheck how soon a tenant whose migration waits (for Pods becoming Ready, agents joining) or failed
 *                      a write gets its next pass, besides the watch events that bring one sooner (default 5 s)
 * @param owns          which tenants this Syncer may write for now (default all); asked before every pass and again
 *                      after it, so it must be cheap. When it stops answering true for some tenants, call
 *                      {@link Syncer#release} for them; when it starts, {@link Syncer#adopt} (see {@link ShardLeases})
 */
public record SyncerOptions(List<String> namespaces, int workers, Duration resyncPeriod, boolean provision,
                            int queueCapacity, int maxRetries, Duration retryDelay, Duration maxRetryDelay,
                            ThreadFactory threads, Duration migrationRecheck, Predicate<TenantKey> owns) {

    public SyncerOptions {
        namespaces = List.copyOf(Objects.requireNonNull(namespaces, "namespaces"));
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, got " + workers);
        }
        positive(resyncPeriod, "resyncPeriod");
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1, got " + queueCapacity);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative, got " + maxRetries);
        }
        positive(retryDelay, "retryDelay");
        positive(maxRetryDelay, "maxRetryDelay");
        if (maxRetryDelay.compareTo(retryDelay) < 0) {
            throw new IllegalArgumentException("maxRetryDelay " + maxRetryDelay + " is less than retryDelay "
                    + retryDelay);
        }
        Objects.requireNonNull(threads, "threads");
        positive(migrationRecheck, "migrationRecheck");
        Objects.requireNonNull(owns, "owns");
    }

    /**
     * All namespaces, 4 workers, resync every 5 minutes, provisioning on, virtual threads, a waiting migration
     * rechecked every 5 seconds.
     */
    public static SyncerOptions defaults() {
        return new SyncerOptions(List.of(), 4, Duration.ofMinutes(5), true, 10_000, 10, Duration.ofMillis(200),
                Duration.ofMinutes(1), Thread.ofVirtual().name("tenantplane-sync-", 0).factory(),
                Duration.ofSeconds(5), tenant -> true);
    }

    /** These options for the TenantClusters of {@code namespaces} only. */
    public SyncerOptions withNamespaces(List<String> namespaces) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options with {@code workers} passes at once. */
    public SyncerOptions withWorkers(int workers) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options with another resync period. */
    public SyncerOptions withResyncPeriod(Duration resyncPeriod) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options with provisioning on or off. */
    public SyncerOptions withProvision(boolean provision) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options with another retry policy. */
    public SyncerOptions withRetries(int maxRetries, Duration retryDelay, Duration maxRetryDelay) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options with another queue capacity. */
    public SyncerOptions withQueueCapacity(int queueCapacity) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options creating threads with {@code threads} (e.g. to name or count them). */
    public SyncerOptions withThreads(ThreadFactory threads) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /** These options with another delay before a waiting migration's next pass. */
    public SyncerOptions withMigrationRecheck(Duration migrationRecheck) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    /**
     * These options writing only for the tenants {@code owns} accepts at the time of each pass, e.g.
     * {@link ShardLeases#owns}.
     */
    public SyncerOptions withOwnership(Predicate<TenantKey> owns) {
        return new SyncerOptions(namespaces, workers, resyncPeriod, provision, queueCapacity, maxRetries,
                retryDelay, maxRetryDelay, threads, migrationRecheck, owns);
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
    }
}
