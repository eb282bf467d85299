package io.tenantplane.service;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Leader election on one {@code coordination.k8s.io/v1} Lease, every write conflict-checked by resourceVersion.
 *
 * <p>Why two replicas never lead at once: a replica counts itself leader only until {@code renewDeadline} after it
 * <em>sent</em> its last successful renewal, and a standby takes the Lease only after it has seen the same
 * resourceVersion for a full {@code leaseDuration} on its own monotonic clock, and only with a write that fails if
 * anything changed the Lease in between. Both intervals start no later than the server accepted the renewal, and
 * {@code renewDeadline < leaseDuration}, so the old leader has stopped before the new one starts (given clocks that
 * run at about the same rate; absolute clock skew does not matter, wall-clock times in the Lease are informational).
 *
 * <p>Takeover: after {@link #close()} the Lease is released and a standby leads within one retry period; after a
 * crash a standby leads within {@code leaseDuration} plus two retry periods of the last renewal.
 *
 * <p>One daemon thread runs the rounds; listener callbacks run on it and must return quickly.
 */
final class LeaseElector implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LeaseElector.class.getName());

    /** What the elector tells its owner. Called on the elector thread. */
    interface Listener {
        /** This replica now leads. */
        default void startedLeading() {
        }

        /** This replica no longer leads: lost the Lease, missed the renew deadline, or is closing. */
        default void stoppedLeading() {
        }

        /** A round ended; the host API answered as expected. */
        default void apiAnswered() {
        }

        /** A round ended with a failed API call: HTTP status, or 0 when no answer came. */
        default void apiFailed(int code, String detail) {
        }
    }

    private final CoordinationV1Api api;
    private final ServiceSettings.Lease lease;
    private final Listener listener;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;

    // Written by the elector thread only; read by any thread.
    private volatile boolean leading;
    private volatile long lastRenewSentNanos;
    private volatile String observedHolder;
    private volatile boolean closed;

    // Elector thread only.
    private String observedResourceVersion;
    private long observedAtNanos;

    LeaseElector(CoordinationV1Api api, ServiceSettings.Lease lease, Listener listener, Clock clock,
                 LongSupplier nanoTime) {
        this.api = Objects.requireNonNull(api, "api");
        this.lease = Objects.requireNonNull(lease, "lease");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.thread = Thread.ofPlatform().daemon().name("tenantplane-lease-elector").unstarted(this::run);
    }

    LeaseElector(CoordinationV1Api api, ServiceSettings.Lease lease, Listener listener) {
        this(api, lease, listener, Clock.systemUTC(), System::nanoTime);
    }

    /** Starts competing for the Lease in the background. */
    void start() {
        thread.start();
    }

    /** True while this replica leads; turns false by itself once the renew deadline passes without a renewal. */
    boolean isLeader() {
        return leading && nanoTime.getAsLong() - lastRenewSentNanos < lease.renewDeadline().toNanos();
    }

    /** This replica's identity in the Lease. */
    String identity() {
        return lease.identity();
    }

    /** The holder seen in the Lease at the last round, if any. */
    Optional<String> holder() {
        return Optional.ofNullable(observedHolder);
    }

    /**
     * Stops competing. A leader first tells its listener it stopped, then releases the Lease so that a standby
     * takes over at its next round instead of waiting for the Lease to expire.
     */
    @Override
    public void close() {
        if (!stopLoop()) {
            return;
        }
        if (leading) {
            stopLeading();
            release();
        }
    }

    /** Stops without releasing the Lease, as a crashed process would: standbys wait for it to expire. */
    void abandon() {
        if (stopLoop() && leading) {
            stopLeading();
        }
    }

    private boolean stopLoop() {
        if (closed) {
            return false;
        }
        closed = true;
        stop.countDown();
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(lease.renewDeadline().toMillis() + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return true;
    }

    private void run() {
        while (!closed) {
            round();
            long pause = lease.retryPeriod().toMillis();
            if (!leading) {
                // Standbys spread their attempts so they do not hit the API server in lockstep.
                pause += ThreadLocalRandom.current().nextLong(pause / 5 + 1);
            }
            try {
                if (stop.await(pause, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One attempt to acquire or renew. Package-private so tests can drive rounds one at a time. */
    void round() {
        try {
            tryAcquireOrRenew();
            listener.apiAnswered();
        } catch (ApiException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                // Lost a race with another replica; the API answered and the next round re-reads.
                listener.apiAnswered();
            } else {
                LOG.log(Level.FINE, "Lease round failed", e);
                listener.apiFailed(e.getCode(), describe(e));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Lease round failed unexpectedly", e);
            listener.apiFailed(0, e.toString());
        }
        if (leading && !isLeader()) {
            LOG.warning(() -> "Lease " + describe() + " not renewed within " + lease.renewDeadline()
                    + "; stopping leadership");
            stopLeading();
        }
    }

    private void tryAcquireOrRenew() throws ApiException {
        V1Lease current;
        try {
            current = api.readNamespacedLease(lease.name(), lease.namespace()).execute();
        } catch (ApiException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
            create();
            return;
        }
        long now = nanoTime.getAsLong();
        String rv = current.getMetadata() == null ? null : current.getMetadata().getResourceVersion();
        V1LeaseSpec spec = current.getSpec() == null ? new V1LeaseSpec() : current.getSpec();
        String holder = blankToNull(spec.getHolderIdentity());
        observedHolder = holder;
        if (!Objects.equals(rv, observedResourceVersion)) {
            observedResourceVersion = rv;
            observedAtNanos = now;
        }
        if (holder != null && !holder.equals(lease.identity())) {
            if (leading) {
                LOG.warning(() -> "Lease " + describe() + " is now held by " + holder + "; stopping leadership");
                stopLeading();
            }
            long heldFor = spec.getLeaseDurationSeconds() == null || spec.getLeaseDurationSeconds() < 1
                    ? lease.duration().toNanos()
                    : TimeUnit.SECONDS.toNanos(spec.getLeaseDurationSeconds());
            if (now - observedAtNanos < heldFor) {
                return;
            }
            LOG.info(() -> "Lease " + describe() + " held by " + holder + " expired; trying to take it over");
        }
        update(current, spec, holder);
    }

    private void create() throws ApiException {
        OffsetDateTime now = wallClock();
        var body = new V1Lease()
                .apiVersion("coordination.k8s.io/v1")
                .kind("Lease")
                .metadata(new V1ObjectMeta().name(lease.name()).namespace(lease.namespace()))
                .spec(new V1LeaseSpec()
                        .holderIdentity(lease.identity())
                        .leaseDurationSeconds(leaseSeconds())
                        .acquireTime(now)
                        .renewTime(now)
                        .leaseTransitions(0));
        long sent = nanoTime.getAsLong();
        V1Lease created = api.createNamespacedLease(lease.namespace(), body).execute();
        renewed(created, sent);
    }

    private void update(V1Lease current, V1LeaseSpec spec, String holder) throws ApiException {
        OffsetDateTime now = wallClock();
        boolean ours = lease.identity().equals(holder);
        int transitions = spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions();
        var body = new V1Lease()
                .apiVersion("coordination.k8s.io/v1")
                .kind("Lease")
                .metadata(current.getMetadata())
                .spec(new V1LeaseSpec()
                        .holderIdentity(lease.identity())
                        .leaseDurationSeconds(leaseSeconds())
                        .acquireTime(ours && spec.getAcquireTime() != null ? spec.getAcquireTime() : now)
                        .renewTime(now)
                        .leaseTransitions(ours ? transitions : transitions + 1));
        long sent = nanoTime.getAsLong();
        V1Lease replaced = api.replaceNamespacedLease(lease.name(), lease.namespace(), body).execute();
        renewed(replaced, sent);
    }

    private void renewed(V1Lease written, long sentNanos) {
        lastRenewSentNanos = sentNanos;
        observedHolder = lease.identity();
        observedResourceVersion = written.getMetadata() == null ? null : written.getMetadata().getResourceVersion();
        observedAtNanos = nanoTime.getAsLong();
        // A write that took longer than the renew deadline already counts as expired; the next round renews.
        boolean inTime = nanoTime.getAsLong() - sentNanos < lease.renewDeadline().toNanos();
        if (!leading && !closed && inTime) {
            leading = true;
            LOG.info(() -> "Acquired Lease " + describe() + " as " + lease.identity() + "; now leading");
            listener.startedLeading();
        }
    }

    private void stopLeading() {
        leading = false;
        listener.stoppedLeading();
    }

    private void release() {
        try {
            V1Lease current = api.readNamespacedLease(lease.name(), lease.namespace()).execute();
            V1LeaseSpec spec = current.getSpec();
            if (spec == null || !lease.identity().equals(spec.getHolderIdentity())) {
                return;
            }
            OffsetDateTime now = wallClock();
            var body = new V1Lease()
                    .apiVersion("coordination.k8s.io/v1")
                    .kind("Lease")
                    .metadata(current.getMetadata())
                    .spec(new V1LeaseSpec()
                            .leaseDurationSeconds(1)
                            .acquireTime(now)
                            .renewTime(now)
                            .leaseTransitions(spec.getLeaseTransitions()));
            api.replaceNamespacedLease(lease.name(), lease.namespace(), body).execute();
            observedHolder = null;
            LOG.info(() -> "Released Lease " + describe());
        } catch (ApiException e) {
            // The Lease expires on its own; a standby then takes over after leaseDuration.
            LOG.log(Level.WARNING, "Could not release Lease " + describe() + ": " + describe(e), e);
        }
    }

    private int leaseSeconds() {
        return Math.toIntExact(lease.duration().toSeconds());
    }

    private OffsetDateTime wallClock() {
        return OffsetDateTime.ofInstant(clock.instant().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    private String describe() {
        return lease.namespace() + "/" + lease.name();
    }

    private static String describe(ApiException e) {
        if (e.getCode() != 0) {
            return "HTTP " + e.getCode() + " from the host API";
        }
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return "no answer from the host API: " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage().lines().findFirst().orElse(""));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
