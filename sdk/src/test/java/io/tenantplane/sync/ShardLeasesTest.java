package io.tenantplane.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shard Leases against the in-process API server, rounds driven one at a time on a shared fake monotonic clock, so
 * every timing rule is checked exactly: fair shares, hand-over on join, take-over after expiry only, renew deadline.
 */
class ShardLeasesTest {

    private static final int SHARDS = 12;
    private static final Duration DURATION = Duration.ofSeconds(15);
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final Duration RETRY = Duration.ofSeconds(2);

    private KubeApiServer server;
    private CoordinationV1Api api;
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<ShardLeases> all = new ArrayList<>();

    /** A replica's listener: which shards it was told it acquired and released. */
    private static final class Recorder implements ShardLeases.Listener {
        final Set<Integer> acquired = ConcurrentHashMap.newKeySet();
        final List<Integer> released = new CopyOnWriteArrayList<>();
        final List<Integer> lost = new CopyOnWriteArrayList<>();
        volatile boolean drained = true;

        @Override
        public void acquired(int shard) {
            acquired.add(shard);
        }

        @Override
        public boolean released(int shard, boolean wasLost) {
            if (!drained) {
                return false;
            }
            acquired.remove(shard);
            (wasLost ? lost : released).add(shard);
            return true;
        }
    }

    @BeforeEach
    void start() {
        server = KubeApiServer.builder().namespaces("tenantplane-system").build().start();
        ApiClient client = new ClientBuilder().setBasePath(server.url()).build();
        api = new CoordinationV1Api(client);
    }

    @AfterEach
    void stop() {
        all.forEach(ShardLeases::abandon);
        server.close();
    }

    private ShardLeases replica(String identity, Recorder recorder) {
        ShardLeases l = ShardLeases.builder().api(api).namespace("tenantplane-system").name("tp").identity(identity)
                .count(SHARDS).timing(DURATION, DEADLINE, RETRY).nanoTime(now::get).listener(recorder).build();
        all.add(l);
        return l;
    }

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    /** Rounds of every replica, {@code RETRY} apart, until drains (virtual threads) have settled. */
    private void rounds(int n, ShardLeases... replicas) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            for (ShardLeases r : replicas) {
                r.round();
            }
            // Drains run on virtual threads; they end before the next round, as retryPeriod lets them for real.
            for (ShardLeases r : replicas) {
                r.awaitDrains();
            }
            advance(RETRY);
        }
    }

    private static Set<Integer> owned(ShardLeases l) {
        Set<Integer> s = new HashSet<>();
        l.view().shards().stream().filter(ShardLeases.ShardView::owned).forEach(v -> s.add(v.shard()));
        return s;
    }

    private static void disjointAndComplete(ShardLeases... replicas) {
        Set<Integer> union = new HashSet<>();
        int total = 0;
        for (ShardLeases r : replicas) {
            union.addAll(owned(r));
            total += owned(r).size();
        }
        assertEquals(total, union.size(), "no shard owned twice");
        assertEquals(SHARDS, union.size(), "every shard owned");
    }

    @Test
    void oneReplicaTakesEveryShardAndOwnsExactlyTheirTenants() throws Exception {
        Recorder ra = new Recorder();
        ShardLeases a = replica("replica-a", ra);
        a.round();
        assertEquals(SHARDS, owned(a).size());
        assertEquals(SHARDS, ra.acquired.size());
        assertTrue(a.owns(new TenantKey("team-dev", "dev")));
        V1Lease lease = api.readNamespacedLease("tp-shard-3", "tenantplane-system").execute();
        assertEquals("replica-a", lease.getSpec().getHolderIdentity());
        assertEquals(15, lease.getSpec().getLeaseDurationSeconds());
        assertEquals("tp", lease.getMetadata().getLabels().get(ShardLeases.LABEL));
        assertEquals("replica-a", api.readNamespacedLease("tp-member-replica-a", "tenantplane-system").execute()
                .getSpec().getHolderIdentity());
    }

    @Test
    void shardsOfATenantAreStableAndSpread() {
        assertEquals(ShardLeases.shardOf(new TenantKey("team-dev", "dev"), 32),
                ShardLeases.shardOf(new TenantKey("team-dev", "dev"), 32));
        int[] perShard = new int[32];
        for (int i = 0; i < 3200; i++) {
            perShard[ShardLeases.shardOf(new TenantKey("ns-" + i % 7, "tenant-" + i), 32)]++;
        }
        for (int n : perShard) {
            assertTrue(n > 50 && n < 150, "tenants spread over the shards: " + java.util.Arrays.toString(perShard));
        }
        // Names that differ only in digits, namespace and name alike (FNV-1a alone put 60 of these 300 in one shard).
        int[] similar = new int[32];
        for (int i = 0; i < 300; i++) {
            similar[ShardLeases.shardOf(new TenantKey("team-" + i, "t" + i), 32)]++;
        }
        for (int n : similar) {
            assertTrue(n >= 2 && n <= 19, "similar names spread too: " + java.util.Arrays.toString(similar));
        }
        // Namespace and name are separated: "a/bc" and "ab/c" are different tenants.
        assertEquals(ShardLeases.shardOf(new TenantKey("a", "bc"), 1 << 30) == ShardLeases.shardOf(
                new TenantKey("ab", "c"), 1 << 30), false);
    }

    @Test
    void aJoiningReplicaGetsItsFairShareAndTheHandOverMovesNoMoreThanThat() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        Recorder rc = new Recorder();
        ShardLeases a = replica("replica-a", ra);
        rounds(1, a);
        ShardLeases b = replica("replica-b", rb);
        rounds(6, a, b);
        assertEquals(6, owned(a).size());
        assertEquals(6, owned(b).size());
        disjointAndComplete(a, b);
        assertEquals(6, ra.released.size(), "a handed over exactly the extras");
        assertEquals(List.of(), ra.lost, "nothing was lost");

        ShardLeases c = replica("replica-c", rc);
        rounds(6, a, b, c);
        assertEquals(4, owned(a).size());
        assertEquals(4, owned(b).size());
        assertEquals(4, owned(c).size());
        disjointAndComplete(a, b, c);
        assertEquals(4, ra.released.size() + rb.released.size() - 6, "the third replica's join moved 4 shards");
        assertEquals(List.of("replica-a", "replica-b", "replica-c"), a.view().members());
        assertEquals(4, a.view().fairShare());
    }

    @Test
    void aCrashedReplicasShardsAreTakenOnlyAfterTheLeaseDuration() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        ShardLeases a = replica("replica-a", ra);
        ShardLeases b = replica("replica-b", rb);
        rounds(4, a, b);
        disjointAndComplete(a, b);
        Set<Integer> ofA = owned(a);
        a.abandon();
        // b sees a's Leases unchanged; until a full lease duration has passed on b's clock it takes none of them.
        for (long waited = 0; waited + RETRY.toNanos() < DURATION.toNanos(); waited += RETRY.toNanos()) {
            b.round();
            for (int s : ofA) {
                assertFalse(owned(b).contains(s), "shard " + s + " taken before its Lease expired");
            }
            advance(RETRY);
        }
        rounds(2, b);
        assertEquals(SHARDS, owned(b).size(), "b took every shard of the crashed replica");
        assertEquals(List.of("replica-b"), b.view().members());
    }

    @Test
    void closingHandsEveryShardOverAtOnceAndDeletesTheMemberLease() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        ShardLeases a = replica("replica-a", ra);
        ShardLeases b = replica("replica-b", rb);
        rounds(4, a, b);
        Set<Integer> ofA = owned(a);
        ra.released.clear();
        a.close();
        assertEquals(ofA, new HashSet<>(ra.released), "every shard of a drained before its Lease was released");
        for (int s : ofA) {
            V1Lease l = api.readNamespacedLease("tp-shard-" + s, "tenantplane-system").execute();
            assertEquals(null, l.getSpec().getHolderIdentity(), "released without holder");
        }
        rounds(1, b);
        assertEquals(SHARDS, owned(b).size(), "b takes the released shards at its next round");
        assertThrows(io.kubernetes.client.openapi.ApiException.class,
                () -> api.readNamespacedLease("tp-member-replica-a", "tenantplane-system").execute());
    }

    @Test
    void aShardIsNotOwnedPastItsRenewDeadlineAndItsWorkIsStopped() throws Exception {
        Recorder ra = new Recorder();
        ShardLeases a = replica("replica-a", ra);
        a.round();
        TenantKey t = new TenantKey("team-dev", "dev");
        assertTrue(a.owns(t));
        advance(DEADLINE);
        assertFalse(a.owns(t), "no longer owned once the renew deadline passed, before any round");
        server.faults().add(io.tenantplane.testkit.FaultRule.on("*", "leases").respond(503));
        a.round();
        a.awaitDrains();
        assertEquals(SHARDS, ra.lost.size(), "every shard's work was stopped as lost");
        server.faults().clear();
        rounds(2, a);
        assertEquals(SHARDS, owned(a).size(), "owned again once the Leases are renewed");
    }

    @Test
    void aShardWhoseWorkHasNotDrainedStaysHeldAndIsNotTakenByAnother() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        ShardLeases a = replica("replica-a", ra);
        rounds(1, a);
        ra.drained = false;
        ShardLeases b = replica("replica-b", rb);
        rounds(12, a, b);
        assertEquals(0, owned(b).size(), "b takes nothing while a's extras have not drained");
        assertTrue(owned(a).size() <= SHARDS / 2, "a no longer writes for the shards it hands over");
        ra.drained = true;
        rounds(5, a, b);
        disjointAndComplete(a, b);
        assertEquals(6, owned(b).size());
    }

    @Test
    void badTimingIsRefusedNamingTheRule() {
        var e = assertThrows(IllegalArgumentException.class, () -> ShardLeases.builder().api(api).namespace("n")
                .name("tp").identity("x").timing(Duration.ofSeconds(10), Duration.ofSeconds(10), RETRY).build());
        assertTrue(e.getMessage().contains("retryPeriod < renewDeadline < leaseDuration"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ShardLeases.builder().api(api).namespace("n").name("tp")
                .identity("x").count(0).build());
    }
}
