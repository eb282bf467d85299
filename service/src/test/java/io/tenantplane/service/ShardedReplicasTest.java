package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantConnector;
import io.tenantplane.TenantPlane;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.ShardLeases;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three replicas, wired as the service wires them (reconciler, Syncer, shard Leases), share 300 tenants against the
 * in-process servers through three membership changes: a replica is killed (no release), one is added, one is drained
 * as on SIGTERM (reconciler closed, then its shards handed over). After each change every tenant converges a change
 * made meanwhile. The proof that each tenant is written by exactly one replica at any moment:
 *
 * <ul>
 *   <li>every host write a replica sends for a tenant (timed at its client when sent and when answered) lies inside
 *       one of that replica's terms for the tenant's shard: from the first time its ownership predicate said yes to
 *       the return of the shard's release (its passes interrupted and awaited) or its death;</li>
 *   <li>terms of different replicas for one shard never overlap;</li>
 *   <li>the host's own request log agrees: per tenant, the writers' runs never interleave within a term.</li>
 * </ul>
 *
 * Events are left out of the proof: they report decisions already taken and are written in the background, so a
 * replica's last Events may land after it handed over (they create new Event objects and change no tenant state).
 */
class ShardedReplicasTest {

    private static final int TENANTS = 300;
    private static final int SHARDS = 12;
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration CONVERGE = Duration.ofSeconds(120);
    private static final Pattern NAMESPACE = Pattern.compile("/namespaces/(t-[0-9]+)/([a-z]+)");

    private KubeApiServer host;
    private KubeApiServer tenant;
    private final List<Replica> replicas = new ArrayList<>();

    /** A replica's ownership of a shard, in System.nanoTime; end is Long.MAX_VALUE while it lasts. */
    private record Term(String replica, int shard, long start, long end) {
        boolean covers(long from, long to) {
            return from >= start && to <= end;
        }
    }

    /** One host write a replica sent: tenant namespace, resource, when sent and when answered. */
    private record Write(String namespace, String resource, long sent, long answered) {
    }

    private static int shardOf(String namespace) {
        return ShardLeases.shardOf(new TenantKey(namespace, "c"), SHARDS);
    }

    /** One replica wired as the service wires it, its terms and writes recorded. */
    private final class Replica {
        final String identity;
        final Reconciler reconciler;
        final ShardLeases leases;
        final List<Write> writes = new CopyOnWriteArrayList<>();
        final List<Term> terms = new CopyOnWriteArrayList<>();
        final List<Integer> acquired = new CopyOnWriteArrayList<>();

        Replica(String identity, TenantConnector connector) {
            this.identity = identity;
            Map<String, String> config = Map.of(
                    ServiceSettings.HOST_URL, host.url(),
                    ServiceSettings.LEASE_IDENTITY, identity,
                    ServiceSettings.SHARDS, Integer.toString(SHARDS),
                    ServiceSettings.LEASE_DURATION, "PT6S",
                    ServiceSettings.LEASE_RENEW_DEADLINE, "PT4S",
                    ServiceSettings.LEASE_RETRY_PERIOD, "PT0.5S",
                    ServiceSettings.CONCURRENCY, "8");
            ServiceSettings settings = ServiceSettings.from(k -> Optional.ofNullable(config.get(k)), () -> identity);
            var clients = new HostClients(settings, ConfigProviderResolver.instance().getBuilder().build());
            ApiClient writer = new ClientBuilder().setBasePath(host.url()).build();
            writer.setUserAgent(identity);
            writer.setHttpClient(writer.getHttpClient().newBuilder().addInterceptor(chain -> {
                String method = chain.request().method();
                long sent = System.nanoTime();
                var response = chain.proceed(chain.request());
                Matcher m = NAMESPACE.matcher(chain.request().url().encodedPath());
                if (!method.equals("GET") && m.find()) {
                    writes.add(new Write(m.group(1), m.group(2), sent, System.nanoTime()));
                }
                return response;
            }).build());
            TenantPlane plane = TenantPlane.builder().hostClient(writer).tenantConnector(connector)
                    .reportingInstance(identity).build();
            reconciler = new Reconciler(settings, clients.newWatchClient(), plane, new ServiceStatus(Clock.systemUTC()));
            leases = Sharding.leases(settings, new CoordinationV1Api(clients.newClient(
                    settings.lease().renewDeadline())), reconciler,
                    new ShardLeases.Listener() {
                        @Override
                        public void acquired(int shard) {
                            acquired.add(shard);
                        }

                        @Override
                        public boolean released(int shard, boolean lost) {
                            end(shard);
                            return true;
                        }
                    });
            replicas.add(this);
        }

        /** The ownership predicate the Syncer asks, opening a term the first time it answers yes for a shard. */
        boolean owns(TenantKey t) {
            boolean owns = leases.owns(t);
            if (owns) {
                int shard = ShardLeases.shardOf(t, SHARDS);
                synchronized (terms) {
                    if (terms.stream().noneMatch(x -> x.shard() == shard && x.end() == Long.MAX_VALUE)) {
                        terms.add(new Term(identity, shard, System.nanoTime(), Long.MAX_VALUE));
                    }
                }
            }
            return owns;
        }

        void end(int shard) {
            synchronized (terms) {
                for (int i = 0; i < terms.size(); i++) {
                    Term x = terms.get(i);
                    if (x.shard() == shard && x.end() == Long.MAX_VALUE) {
                        terms.set(i, new Term(identity, shard, x.start(), System.nanoTime()));
                    }
                }
            }
        }

        Replica start() {
            reconciler.start(this::owns);
            leases.start();
            return this;
        }

        int owned() {
            return leases.view().owned();
        }

        /** As a killed process: nothing released, nothing more written. */
        void kill() {
            leases.abandon();
            reconciler.close();
            IntStream.range(0, SHARDS).forEach(this::end);
        }

        /** As on SIGTERM: the reconciler stops first, then the shards are handed over (Lifecycle's order). */
        void drain() {
            reconciler.close();
            leases.close();
            IntStream.range(0, SHARDS).forEach(this::end);
        }
    }

    @BeforeEach
    void start() {
        List<String> namespaces = new ArrayList<>(List.of("default", "tenantplane-system"));
        IntStream.range(0, TENANTS).forEach(i -> namespaces.add("t-" + i));
        host = KubeApiServer.builder().namespaces(namespaces.toArray(String[]::new)).build().start();
        Kube.at(host.url()).installCrds();
        tenant = KubeApiServer.builder().build().start();
    }

    @AfterEach
    void stop() {
        for (Replica r : replicas) {
            r.leases.abandon();
            r.reconciler.close();
        }
        tenant.close();
        host.close();
    }

    private static JsonObject configMap(String name) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"default"},
                 "data":{"greeting":"hello"}}""".formatted(name)).getAsJsonObject();
    }

    /** The tenant namespaces whose host copy of {@code name} exists. */
    private Set<String> synced(String name) {
        Set<String> out = new HashSet<>();
        try {
            for (V1ConfigMap cm : new CoreV1Api(new ClientBuilder().setBasePath(host.url()).build())
                    .listConfigMapForAllNamespaces().execute().getItems()) {
                if (cm.getMetadata().getName().equals(name + "-x-default-x-c")) {
                    out.add(cm.getMetadata().getNamespace());
                }
            }
        } catch (io.kubernetes.client.openapi.ApiException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private long convergeMillis(String name) {
        long start = System.nanoTime();
        assertTrue(Kube.eventually(CONVERGE, () -> synced(name).size() == TENANTS),
                () -> name + " reached " + synced(name).size() + " of " + TENANTS + " tenants");
        return Duration.ofNanos(System.nanoTime() - start).toMillis();
    }

    private boolean settled(List<Replica> live) {
        int fair = (SHARDS + live.size() - 1) / live.size();
        return live.stream().mapToInt(Replica::owned).sum() == SHARDS
                && live.stream().allMatch(r -> r.owned() <= fair);
    }

    @Test
    void everyTenantIsWrittenByExactlyOneReplicaThroughAKillAnAdditionAndADrain() {
        ApiClient tenantClient = new ClientBuilder().setBasePath(tenant.url()).build();
        TenantConnector connector = tc -> tenantClient;
        Kube hostKube = Kube.at(host.url());
        Kube tenantKube = new Kube(tenantClient);
        tenantKube.create(configMap("cm-0"));

        Replica a = new Replica("replica-a", connector).start();
        Replica b = new Replica("replica-b", connector).start();
        Replica c = new Replica("replica-c", connector).start();
        assertTrue(Kube.eventually(Duration.ofSeconds(20), () -> settled(List.of(a, b, c))),
                "three replicas share the shards");
        for (int i = 0; i < TENANTS; i++) {
            hostKube.createAll(Kube.exampleTenant("t-" + i, "c"));
        }
        long first = convergeMillis("cm-0");
        List<String> figures = new ArrayList<>();
        figures.add(TENANTS + " tenants converged on 3 replicas in " + first + " ms");

        // 1. A replica is killed: its shards are taken after the lease duration, its tenants converge again.
        long killed = System.nanoTime();
        a.kill();
        tenantKube.create(configMap("cm-1"));
        assertTrue(Kube.eventually(LEASE.multipliedBy(3), () -> settled(List.of(b, c))),
                "the killed replica's shards are taken over");
        convergeMillis("cm-1");
        long reconverged = Duration.ofNanos(System.nanoTime() - killed).toMillis();
        figures.add("a killed replica's tenants re-converged " + reconverged + " ms after the kill (lease "
                + LEASE.toMillis() + " ms)");
        assertTrue(reconverged < LEASE.toMillis() + 30_000, "re-converged after " + reconverged + " ms");

        // 2. A replica is added: it takes its fair share, and no more than that moves.
        int acquiredBefore = b.acquired.size() + c.acquired.size();
        Replica d = new Replica("replica-d", connector).start();
        assertTrue(Kube.eventually(LEASE.multipliedBy(3), () -> settled(List.of(b, c, d))),
                "the added replica gets its share");
        int fair = (SHARDS + 2) / 3;
        assertTrue(d.acquired.size() <= fair, "moved " + d.acquired.size() + " shards; fair share " + fair);
        assertEquals(acquiredBefore, b.acquired.size() + c.acquired.size(), "the others took nothing on a join");
        tenantKube.create(configMap("cm-2"));
        figures.add("after a join (moved " + d.acquired.size() + " of " + SHARDS + " shards) converged in "
                + convergeMillis("cm-2") + " ms");

        // 3. A replica is drained as on SIGTERM: its shards are handed over at once, without waiting for expiry.
        long drained = System.nanoTime();
        b.drain();
        assertTrue(Kube.eventually(LEASE, () -> settled(List.of(c, d))),
                "a drained replica's shards are taken within the lease duration");
        long handOver = Duration.ofNanos(System.nanoTime() - drained).toMillis();
        tenantKube.create(configMap("cm-3"));
        figures.add("after a drain (hand-over " + handOver + " ms) converged in " + convergeMillis("cm-3") + " ms");

        assertOneWriterAtATime();
        assertNoTenantProvisionedTwice();
        System.out.println("sharding: " + String.join("; ", figures));
    }

    private void assertOneWriterAtATime() {
        Map<Integer, List<Term>> byShard = new HashMap<>();
        long writes = 0;
        for (Replica r : replicas) {
            for (Write w : r.writes) {
                if (w.resource().equals("events")) {
                    continue;
                }
                writes++;
                int shard = shardOf(w.namespace());
                assertTrue(r.terms.stream().anyMatch(t -> t.shard() == shard && t.covers(w.sent(), w.answered())),
                        () -> r.identity + " wrote " + w + " outside its terms for shard " + shard + ": " + r.terms);
            }
            r.terms.forEach(t -> byShard.computeIfAbsent(t.shard(), k -> new ArrayList<>()).add(t));
        }
        for (List<Term> terms : byShard.values()) {
            terms.sort(java.util.Comparator.comparingLong(Term::start));
            for (int i = 1; i < terms.size(); i++) {
                Term before = terms.get(i - 1);
                Term after = terms.get(i);
                assertTrue(after.start() >= before.end(), () -> "two replicas owned a shard at once: " + before
                        + " and " + after);
            }
        }
        assertTrue(writes > TENANTS * 4, "the replicas wrote for every tenant: " + writes);
        // The host's own log: per tenant namespace, the writers (by User-Agent) in the order the host answered.
        Map<String, List<String>> writers = new HashMap<>();
        for (RequestLog.Entry e : host.requests().entries()) {
            if (e.isWrite() && e.namespace() != null && e.namespace().startsWith("t-") && e.userAgent() != null
                    && e.userAgent().startsWith("replica-") && !e.resource().equals("events")) {
                List<String> w = writers.computeIfAbsent(e.namespace(), k -> new ArrayList<>());
                if (w.isEmpty() || !w.get(w.size() - 1).equals(e.userAgent())) {
                    w.add(e.userAgent());
                }
            }
        }
        assertEquals(TENANTS, writers.size(), "the host saw writes for every tenant");
        for (var e : writers.entrySet()) {
            // One run of writes per owner: the first owner, then at most one hand-over per membership change.
            assertTrue(e.getValue().size() <= 1 + 3, () -> "at most one hand-over per membership change: " + e);
        }
    }

    private void assertNoTenantProvisionedTwice() {
        Map<String, Long> created = new HashMap<>();
        for (RequestLog.Entry e : host.requests().entries()) {
            if (e.verb().equals("create") && e.resource().equals("statefulsets") && e.code() == 201) {
                created.merge(e.namespace(), 1L, Long::sum);
            }
        }
        assertEquals(TENANTS, created.size(), "every tenant's control plane was created");
        created.forEach((ns, n) -> assertEquals(1L, n, ns + "'s control plane was created once"));
    }
}
