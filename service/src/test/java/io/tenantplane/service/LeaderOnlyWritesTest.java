package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas of the service through three changes of leader while tenant objects keep changing: the leader crashes,
 * the next one steps down cleanly, the third crashes. Every host write a replica's plane sends (timed at the client)
 * falls inside that replica's own leadership, from its elector's {@code startedLeading} to the return of its
 * {@code stoppedLeading} (which closes the Syncer); leaderships never overlap; a crashed leader is replaced within the
 * lease duration plus the election's retry, a leader that steps down within a few retry periods; after each change the
 * new leader syncs what changed meanwhile. Prints the takeover times.
 */
class LeaderOnlyWritesTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration RETRY = Duration.ofMillis(200);
    private static final Duration SYNC = Duration.ofSeconds(15);

    private KubeApiServer host;
    private KubeApiServer tenant;
    private final List<Replica> replicas = new ArrayList<>();

    /** When a replica led: from start to end, in System.nanoTime; end is Long.MAX_VALUE while it leads. */
    private record Term(long start, long end) {
    }

    /** One replica wired as the service wires it, timing every write its plane sends. */
    private final class Replica implements AutoCloseable {
        final String identity;
        final List<Long> writes = new CopyOnWriteArrayList<>();
        final List<Term> terms = new CopyOnWriteArrayList<>();
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
            ApiClient writer = new ClientBuilder().setBasePath(host.url()).build();
            writer.setHttpClient(writer.getHttpClient().newBuilder().addInterceptor(chain -> {
                if (!chain.request().method().equals("GET")) {
                    writes.add(System.nanoTime());
                }
                return chain.proceed(chain.request());
            }).build());
            TenantPlane plane = TenantPlane.builder().hostClient(writer).tenantConnector(connector)
                    .reportingInstance(identity).build();
            reconciler = new Reconciler(settings, clients.newWatchClient(), plane, new ServiceStatus(Clock.systemUTC()));
            elector = new LeaseElector(new CoordinationV1Api(clients.newClient(settings.lease().renewDeadline())),
                    settings.lease(), new LeaseElector.Listener() {
                        @Override
                        public void startedLeading() {
                            terms.add(new Term(System.nanoTime(), Long.MAX_VALUE));
                            reconciler.lead();
                        }

                        @Override
                        public void stoppedLeading() {
                            reconciler.standBy();
                            Term t = terms.remove(terms.size() - 1);
                            terms.add(new Term(t.start(), System.nanoTime()));
                        }
                    });
            replicas.add(this);
        }

        Replica start() {
            reconciler.start();
            elector.start();
            return this;
        }

        boolean leads() {
            return reconciler.leading();
        }

        /** As a killed process: the Lease is not released, nothing more is written. */
        void crash() {
            elector.abandon();
            reconciler.close();
        }

        @Override
        public void close() {
            elector.close();
            reconciler.close();
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
        replicas.forEach(Replica::close);
        tenant.close();
        host.close();
    }

    private static JsonObject configMap(String name) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"default"},
                 "data":{"greeting":"hello"}}""".formatted(name)).getAsJsonObject();
    }

    private static long awaitMillis(java.util.function.BooleanSupplier condition, Duration timeout, String what) {
        long start = System.nanoTime();
        assertTrue(Kube.eventually(timeout, condition), what);
        return Duration.ofNanos(System.nanoTime() - start).toMillis();
    }

    @Test
    void onlyTheLeaderEverWritesThroughCrashesAndHandOvers() {
        ApiClient tenantClient = new ClientBuilder().setBasePath(tenant.url()).build();
        TenantConnector connector = tc -> tenantClient;
        Kube hostKube = Kube.at(host.url());
        Kube tenantKube = new Kube(tenantClient);

        Replica a = new Replica("replica-a", connector).start();
        awaitMillis(a::leads, SYNC, "the first replica leads");
        Replica b = new Replica("replica-b", connector).start();
        awaitMillis(b.reconciler::informersSynced, SYNC, "the standby's caches are warm");
        hostKube.createAll(Kube.exampleTenant("team-dev", "dev"));
        List<String> takeovers = new ArrayList<>();
        int n = 0;
        for (String step : List.of("crash", "step-down", "crash")) {
            String name = "cm-" + n++;
            tenantKube.create(configMap(name));
            awaitMillis(() -> hostKube.get("ConfigMap", "team-dev", name + "-x-default-x-dev").isPresent(), SYNC,
                    "the leader syncs " + name);
            Replica leader = a.leads() ? a : b;
            Replica standby = leader == a ? b : a;
            long stopped = System.nanoTime();
            if (step.equals("crash")) {
                leader.crash();
            } else {
                leader.close();
            }
            String gap = "cm-" + n++;
            tenantKube.create(configMap(gap));
            awaitMillis(standby::leads, LEASE.multipliedBy(3), "the standby takes over after a " + step);
            long took = Duration.ofNanos(System.nanoTime() - stopped).toMillis();
            String during = "cm-" + n++;
            tenantKube.create(configMap(during));
            awaitMillis(() -> hostKube.get("ConfigMap", "team-dev", gap + "-x-default-x-dev").isPresent(), SYNC,
                    "the new leader syncs what changed while nobody led");
            takeovers.add(step + " " + took + " ms");
            if (step.equals("crash")) {
                assertTrue(took < LEASE.plus(RETRY.multipliedBy(2)).plus(Duration.ofMillis(1000)).toMillis(),
                        "took over " + took + " ms after a crash");
            } else {
                assertTrue(took < LEASE.toMillis() / 2, "took over " + took + " ms after a release");
            }
            awaitMillis(() -> hostKube.get("ConfigMap", "team-dev", during + "-x-default-x-dev").isPresent(), SYNC,
                    "the new leader syncs what changed since the hand-over");
            Replica fresh = new Replica("replica-" + (char) ('c' + takeovers.size() - 1), connector).start();
            awaitMillis(fresh.reconciler::informersSynced, SYNC, "a new standby is warm");
            if (leader == a) {
                a = fresh;
            } else {
                b = fresh;
            }
        }

        List<Term> all = new ArrayList<>();
        long writes = 0;
        for (Replica r : replicas) {
            for (long at : r.writes) {
                writes++;
                assertTrue(r.terms.stream().anyMatch(t -> at >= t.start() && at <= t.end()),
                        () -> r.identity + " wrote while it did not lead");
            }
            all.addAll(r.terms);
        }
        all.sort(java.util.Comparator.comparingLong(Term::start));
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i).start() >= all.get(i - 1).end(), "two replicas led at once");
        }
        assertEquals(4, all.size(), "four terms of leadership");
        System.out.println("failover: " + replicas.size() + " replicas, " + all.size() + " terms, " + writes
                + " host writes, each inside its replica's term; takeover after " + String.join(", ", takeovers)
                + " (lease " + LEASE.toMillis() + " ms, retry " + RETRY.toMillis() + " ms)");
    }
}
