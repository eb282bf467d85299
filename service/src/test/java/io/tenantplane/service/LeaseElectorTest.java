package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.util.Config;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two electors against one in-process API server, as two replicas against the host. */
class LeaseElectorTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration RENEW_DEADLINE = Duration.ofMillis(1000);
    private static final Duration RETRY = Duration.ofMillis(100);

    private KubeApiServer server;
    private final List<LeaseElector> electors = new ArrayList<>();
    private final AtomicBoolean bothLed = new AtomicBoolean();
    private final AtomicBoolean watching = new AtomicBoolean(true);
    private Thread watcher;

    @BeforeEach
    void startServer() {
        server = KubeApiServer.builder().namespaces("default", "tenantplane-system").build().start();
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        watching.set(false);
        if (watcher != null) {
            watcher.join();
        }
        electors.forEach(LeaseElector::close);
        server.close();
    }

    private LeaseElector elector(String identity, RecordingListener listener) {
        ApiClient client = Config.fromUrl(server.url(), false);
        client.setHttpClient(client.getHttpClient().newBuilder().callTimeout(RENEW_DEADLINE).build());
        var lease = new ServiceSettings.Lease("tenantplane-service-leader", "tenantplane-system", identity, LEASE,
                RENEW_DEADLINE, RETRY);
        var elector = new LeaseElector(new CoordinationV1Api(client), lease, listener);
        electors.add(elector);
        return elector;
    }

    /** Samples both electors every millisecond and remembers if they ever led at the same instant. */
    private void watchForTwoLeaders(LeaseElector a, LeaseElector b) {
        watcher = Thread.ofPlatform().daemon().start(() -> {
            while (watching.get()) {
                if (a.isLeader() && b.isLeader()) {
                    bothLed.set(true);
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private V1Lease lease() throws ApiException {
        return new CoordinationV1Api(Config.fromUrl(server.url(), false))
                .readNamespacedLease("tenantplane-service-leader", "tenantplane-system").execute();
    }

    private static long awaitMillis(BooleanSupplier condition, Duration timeout, String what)
            throws InterruptedException {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - start > timeout.toNanos()) {
                fail(what + " did not happen within " + timeout);
            }
            Thread.sleep(5);
        }
        return Duration.ofNanos(System.nanoTime() - start).toMillis();
    }

    private record Pair(LeaseElector leader, LeaseElector standby, RecordingListener leaderEvents,
                        RecordingListener standbyEvents) {
    }

    private Pair electOne() throws Exception {
        var aEvents = new RecordingListener();
        var bEvents = new RecordingListener();
        LeaseElector a = elector("replica-a", aEvents);
        LeaseElector b = elector("replica-b", bEvents);
        watchForTwoLeaders(a, b);
        a.start();
        b.start();
        awaitMillis(() -> a.isLeader() || b.isLeader(), Duration.ofSeconds(5), "an election");
        // Give the standby several rounds to try (and fail) to take the Lease as well.
        Thread.sleep(RETRY.toMillis() * 8);
        return a.isLeader() ? new Pair(a, b, aEvents, bEvents) : new Pair(b, a, bEvents, aEvents);
    }

    @Test
    void ofTwoReplicasExactlyOneLeadsAndTheLeaseNamesIt() throws Exception {
        Pair p = electOne();

        assertTrue(p.leader().isLeader());
        assertFalse(p.standby().isLeader());
        assertFalse(bothLed.get(), "two replicas led at the same instant");
        V1Lease lease = lease();
        assertEquals(p.leader().identity(), lease.getSpec().getHolderIdentity());
        assertEquals(2, lease.getSpec().getLeaseDurationSeconds());
        assertEquals(p.leader().identity(), p.standby().holder().orElseThrow(), "the standby sees who leads");
        assertEquals(1, p.leaderEvents().started.get());
        assertEquals(0, p.standbyEvents().started.get());
        assertTrue(p.leaderEvents().answered.get() > 0);
    }

    @Test
    void closingTheLeaderReleasesTheLeaseAndTheStandbyLeadsWithoutWaitingForExpiry() throws Exception {
        Pair p = electOne();

        p.leader().close();
        assertEquals(1, p.leaderEvents().stopped.get(), "the leader stopped its work before releasing");
        long tookMs = awaitMillis(() -> p.standby().isLeader(), LEASE, "the standby taking over");

        // Well under the lease duration: the standby did not wait for expiry (a few retry periods plus slack for a
        // loaded machine).
        assertTrue(tookMs < LEASE.toMillis() / 2, "took " + tookMs + " ms after a release");
        assertEquals(p.standby().identity(), lease().getSpec().getHolderIdentity());
        assertEquals(1, lease().getSpec().getLeaseTransitions());
        assertFalse(bothLed.get(), "two replicas led at the same instant");
    }

    @Test
    void whenTheLeaderStopsRenewingTheStandbyLeadsWithinTheLeaseDurationButNeverBeforeTheOldLeaderStopped()
            throws Exception {
        Pair p = electOne();

        p.leader().abandon();
        long tookMs = awaitMillis(() -> p.standby().isLeader(), LEASE.multipliedBy(2), "the standby taking over");

        // The standby must wait out the lease it last saw renewed: at least duration minus one retry period, at
        // most duration plus two retry periods (with jitter) after the crash.
        assertTrue(tookMs >= LEASE.minus(RETRY.multipliedBy(2)).toMillis(), "took only " + tookMs + " ms");
        assertTrue(tookMs <= LEASE.plus(RETRY.multipliedBy(3)).toMillis() + 500, "took " + tookMs + " ms");
        assertFalse(bothLed.get(), "two replicas led at the same instant");
        assertEquals(p.standby().identity(), lease().getSpec().getHolderIdentity());
    }

    @Test
    void aLeaderThatCannotRenewStepsDownWithinTheRenewDeadlineAndLeadsAgainWhenTheApiReturns() throws Exception {
        var events = new RecordingListener();
        LeaseElector only = elector("replica-a", events);
        only.start();
        awaitMillis(only::isLeader, Duration.ofSeconds(5), "the election");

        server.pause();
        long stepDownMs = awaitMillis(() -> !only.isLeader(), RENEW_DEADLINE.multipliedBy(3), "stepping down");
        awaitMillis(() -> events.stopped.get() == 1, RENEW_DEADLINE.multipliedBy(3), "the stop callback");
        assertTrue(stepDownMs <= RENEW_DEADLINE.toMillis() + RETRY.toMillis() + 100, "took " + stepDownMs + " ms");
        assertTrue(events.failed.get() > 0, "failed rounds are reported");

        server.resume();
        awaitMillis(only::isLeader, LEASE.multipliedBy(2), "leading again");
        assertEquals(2, events.started.get());
        assertEquals(0, lease().getSpec().getLeaseTransitions(), "the same holder kept the Lease");
    }

    @Test
    void closingAStandbyLeavesTheLeaderAlone() throws Exception {
        Pair p = electOne();

        p.standby().close();
        Thread.sleep(RETRY.toMillis() * 5);

        assertTrue(p.leader().isLeader());
        assertEquals(p.leader().identity(), lease().getSpec().getHolderIdentity());
        assertEquals(0, p.standbyEvents().stopped.get());
    }

    @Test
    void aReleasedLeaseHasNoHolder() throws Exception {
        var events = new RecordingListener();
        LeaseElector only = elector("replica-a", events);
        only.start();
        awaitMillis(only::isLeader, Duration.ofSeconds(5), "the election");

        only.close();

        assertNull(lease().getSpec().getHolderIdentity());
        assertFalse(only.isLeader());
    }

    private static final class RecordingListener implements LeaseElector.Listener {
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger stopped = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        @Override
        public void startedLeading() {
            started.incrementAndGet();
        }

        @Override
        public void stoppedLeading() {
            stopped.incrementAndGet();
        }

        @Override
        public void apiAnswered() {
            answered.incrementAndGet();
        }

        @Override
        public void apiFailed(int code, String detail) {
            failed.incrementAndGet();
        }
    }
}
