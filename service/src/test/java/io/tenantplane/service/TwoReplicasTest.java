package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantConnector;
import io.tenantplane.TenantPlane;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas (elector and reconciler each, wired as the service wires them) in one JVM against one host: only the
 * leader writes, the standby keeps its caches warm, and when the leader dies without releasing the Lease the standby
 * takes over within the lease duration and carries on. Writes are counted per replica by its own host client.
 */
class TwoReplicasTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration SYNC = Duration.ofSeconds(15);

    private KubeApiServer host;
    private KubeApiServer tenant;
    private Replica a;
    private Replica b;

    /** One replica: its own settings, clients, plane, status, reconciler and elector. */
    private final class Replica implements AutoCloseable {
        final String identity;
        final AtomicLong writes = new AtomicLong();
        final ServiceStatus status = new ServiceStatus(Clock.systemUTC());
        final Reconciler reconciler;
        final LeaseElector elector;

        Replica(String identity, TenantConnector connector) {
            this.identity = identity;
            Map<String, String> config = Map.of(
                    ServiceSettings.HOST_URL, host.url(),
                    ServiceSettings.LEASE_IDENTITY, identity,
                    ServiceSettings.LEASE_DURATION, "PT2S",
                    ServiceSettings.LEASE_RENEW_DEADLINE, "PT1S",
                    ServiceSettings.LEASE_RETRY_PERIOD, "PT0.2S",
                    ServiceSettings.CONCURRENCY, "2");
            ServiceSettings settings = ServiceSettings.from(k -> Optional.ofNullable(config.get(k)), () -> identity);
            var clients = new HostClients(settings, ConfigProviderResolver.instance().getBuilder().build());
            TenantPlane plane = TenantPlane.builder()
                    .hostClient(Kube.countingWrites(host.url(), writes, identity))
                    .tenantConnector(connector)
                    .reportingInstance(identity)
                    .build();
            reconciler = new Reconciler(settings, clients.newWatchClient(), plane, status);
            elector = new LeaseElector(new CoordinationV1Api(clients.newClient(settings.lease().renewDeadline())),
                    settings.lease(), new LeaseElector.Listener() {
                        @Override
                        public void startedLeading() {
                            reconciler.lead();
                        }

                        @Override
                        public void stoppedLeading() {
                            reconciler.standBy();
                        }
                    });
        }

        Replica start() {
            reconciler.start();
            elector.start();
            return this;
        }

        /** As a crashed process: no release of the Lease, no more writes. */
        void crash() {
            elector.abandon();
            reconciler.close();
        }

        @Override
        public void close() {
            reconciler.close();
            elector.close();
        }
    }

    @BeforeEach
    void start() {
        host = KubeApiServer.builder().namespaces("default", "tenantplane-system", "team-dev").build().start();
        Kube.at(host.url()).installCrds();
        tenant = KubeApiServer.builder().build().start();
    }

    @AfterEach
    void stop() {
        for (Replica r : new Replica[] {a, b}) {
            if (r != null) {
                r.close();
            }
        }
        tenant.close();
        host.close();
    }

    private static JsonObject configMap(String name) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"default"},
                 "data":{"greeting":"hello"}}""".formatted(name)).getAsJsonObject();
    }

    /** The host's log of answered writes but the Leases', as "agent verb resource", oldest first. */
    private List<String> notLeaseWrites() {
        return host.requests().entries().stream().filter(e -> e.isWrite() && !e.resource().equals("leases"))
                .map(e -> e.userAgent() + " " + e.verb() + " " + e.resource()).toList();
    }

    @Test
    void onlyTheLeaderWritesAndTheStandbyTakesOverWithinTheLeaseDurationWhenItDies() {
        ApiClient tenantClient = new ClientBuilder().setBasePath(tenant.url()).build();
        TenantConnector connector = tc -> tenantClient;
        Kube hostKube = Kube.at(host.url());
        Kube tenantKube = new Kube(tenantClient);

        a = new Replica("replica-a", connector).start();
        assertTrue(Kube.eventually(SYNC, a.reconciler::leading), "the first replica leads");
        b = new Replica("replica-b", connector).start();
        assertTrue(Kube.eventually(SYNC, b.reconciler::informersSynced), "the standby's caches are warm");

        tenantKube.create(configMap("first"));
        hostKube.createAll(Kube.exampleTenant("team-dev", "dev"));
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("ConfigMap", "team-dev", "first-x-default-x-dev")
                .isPresent()), "the leader syncs");
        assertTrue(a.writes.get() > 0);
        assertEquals(0, b.writes.get(), "the standby wrote nothing");
        assertFalse(b.reconciler.leading());
        assertTrue(b.reconciler.tenantClusters().stream().anyMatch(tc -> tc.toString().contains("\"dev\"")),
                "the standby sees the TenantCluster in its cache");

        long crashedAt = System.nanoTime();
        a.crash();
        long writesOfA = a.writes.get();
        assertTrue(Kube.eventually(LEASE.multipliedBy(3), b.reconciler::leading), "the standby takes over");
        Duration takeover = Duration.ofNanos(System.nanoTime() - crashedAt);
        // A crashed leader's Lease is taken after it has looked unchanged for a lease duration, plus at most two
        // retry periods (with jitter) and one round.
        assertTrue(takeover.compareTo(LEASE.plus(Duration.ofMillis(1500))) < 0, "took over after " + takeover);

        tenantKube.create(configMap("second"));
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("ConfigMap", "team-dev", "second-x-default-x-dev")
                .isPresent()), "the new leader syncs");
        assertTrue(b.writes.get() > 0, "the new leader wrote");
        assertEquals(writesOfA, a.writes.get(), "the dead leader wrote nothing after it died");

        assertTrue(host.requests().writes("leases") > 0);
        // Read from the host's own log, each write named by the User-Agent of the client that sent it: the test's
        // own writes (3 CRDs and the 3 example custom resources), then replica-a's, then replica-b's, never mixed.
        List<String> log = notLeaseWrites();
        List<String> others = log.stream().filter(w -> !w.startsWith("replica-")).toList();
        assertEquals(6, others.size(), () -> "only the test and the replicas wrote: " + log);
        int lastOfA = IntStream.range(0, log.size()).filter(i -> log.get(i).startsWith("replica-a ")).max()
                .orElseThrow();
        int firstOfB = IntStream.range(0, log.size()).filter(i -> log.get(i).startsWith("replica-b ")).min()
                .orElseThrow(() -> new AssertionError("the new leader's writes reach the host: " + log));
        assertTrue(lastOfA < firstOfB, () -> "no write of the dead leader after the new leader's first: " + log);
        long logged = log.stream().filter(w -> w.startsWith("replica-a ")).count();
        assertTrue(logged <= writesOfA, () -> "the host answered " + logged + " writes of replica-a; it sent "
                + writesOfA);
    }
}
