package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.PlanRequest;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A new tenant's first pass with 1, 4 and 8 concurrent writers ({@code TenantPlane.Builder.writeConcurrency}),
 * each against a bare client-java loop creating the same transformed objects with as many threads, in the same two
 * waves (every other kind, then the Pods); with no added latency and with 5 ms per request at the servers (a real API
 * server's cost per write).
 */
final class FirstSyncSection {

    static final double TARGET = 1.15;
    static final double SPEEDUP_TARGET = 5.0;
    static final String REPRODUCE = "bench/run.sh firstsync";
    static final String HOST_NS = Fixtures.HOST_NAMESPACE;
    static final String TENANT = Fixtures.TENANT;

    /** Sizes and repetitions. */
    record Config(int objects, int rounds, List<Integer> writers, List<Integer> latenciesMs) {
        static Config full() {
            return new Config(1_000, 3, List.of(1, 4, 8), List.of(0, 5));
        }

        static Config quick() {
            return new Config(40, 1, List.of(1, 8), List.of(0, 5));
        }
    }

    private FirstSyncSection() {
    }

    private static void slow(KubeApiServer server, int latencyMs) {
        if (latencyMs > 0) {
            server.faults().add(FaultRule.on("*", "*").delay(Duration.ofMillis(latencyMs)));
        }
    }

    /** Fresh servers holding the tenant's objects; returns the first pass's wall time in nanoseconds. */
    private static long sdkPass(List<JsonObject> objects, int writers, int latencyMs, List<JsonObject> desiredOut) {
        try (KubeApiServer host = Cluster.host(List.of(HOST_NS)); KubeApiServer tenant = Cluster.tenant()) {
            Cluster.tenantResources(TENANT, HOST_NS).forEach(o -> Cluster.create(host.url(), o));
            Cluster.syncPrerequisites(TENANT, HOST_NS).forEach(o -> Cluster.create(host.url(), o));
            List<JsonObject> stored = new ArrayList<>();
            for (JsonObject o : objects) {
                stored.add(Cluster.create(tenant.url(), o));
            }
            var tenantClient = Cluster.client(tenant);
            TenantPlane plane = TenantPlane.builder().hostClient(Cluster.client(host)).tenantConnector(tc -> tenantClient)
                    .recordEvents(false).writeConcurrency(writers).build();
            TenantContext context = Cluster.context(TENANT, HOST_NS);
            if (desiredOut != null) {
                plane.plan(new PlanRequest(context.cluster(), context.profile(), context.policy(), stored, List.of()))
                        .decisions().stream().filter(d -> d.action() == Action.CREATE).map(Decision::desired)
                        .forEach(desiredOut::add);
            }
            slow(host, latencyMs);
            slow(tenant, latencyMs);
            long t0 = System.nanoTime();
            ConvergenceReport r = plane.converge(context);
            long took = System.nanoTime() - t0;
            if (r.failure() != null || !r.converged() || r.count(Action.CREATE) != objects.size()) {
                throw new IllegalStateException("expected " + objects.size() + " creates, got " + r.counts() + " "
                        + r.failures() + " " + r.failure());
            }
            return took;
        }
    }

    /** The same objects created on a fresh host by {@code writers} threads of client-java calls, in the same waves. */
    private static long bareLoop(List<Object> typed, int writers, int latencyMs) {
        try (KubeApiServer host = Cluster.host(List.of(HOST_NS))) {
            // What provisioning made before any sync (the Pods' ServiceAccount among it), as for the pass.
            Cluster.syncPrerequisites(TENANT, HOST_NS).forEach(o -> Cluster.create(host.url(), o));
            slow(host, latencyMs);
            CoreV1Api api = new CoreV1Api(Cluster.client(host));
            host.requests().reset();
            List<Object> others = typed.stream().filter(o -> !(o instanceof V1Pod)).toList();
            List<Object> pods = typed.stream().filter(o -> o instanceof V1Pod).toList();
            long t0 = System.nanoTime();
            wave(api, others, writers);
            wave(api, pods, writers);
            long took = System.nanoTime() - t0;
            if (host.requests().count("create") != typed.size()) {
                throw new IllegalStateException("the loop created " + host.requests().count("create") + " of "
                        + typed.size());
            }
            return took;
        }
    }

    private static void wave(CoreV1Api api, List<Object> objects, int writers) {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Exception> error = new AtomicReference<>();
        Runnable worker = () -> {
            int i;
            while (error.get() == null && (i = next.getAndIncrement()) < objects.size()) {
                try {
                    switch (objects.get(i)) {
                        case V1Pod p -> api.createNamespacedPod(HOST_NS, p).execute();
                        case V1Service s -> api.createNamespacedService(HOST_NS, s).execute();
                        case V1ConfigMap m -> api.createNamespacedConfigMap(HOST_NS, m).execute();
                        case V1Secret s -> api.createNamespacedSecret(HOST_NS, s).execute();
                        default -> throw new IllegalArgumentException(objects.get(i).getClass().getName());
                    }
                } catch (ApiException | RuntimeException e) {
                    error.compareAndSet(null, e);
                }
            }
        };
        List<Thread> threads = new ArrayList<>();
        for (int w = 1; w < writers; w++) {
            threads.add(Thread.ofVirtual().start(worker));
        }
        worker.run();
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (error.get() != null) {
            throw new IllegalStateException("baseline create failed: " + error.get(), error.get());
        }
    }

    static Report.Section run(Config c) {
        List<JsonObject> objects = Fixtures.tenantObjects(c.objects()).stream().map(Cluster::asUserWrites).toList();
        List<JsonObject> desired = new ArrayList<>();
        sdkPass(objects, 1, 0, desired);
        List<Object> typed = LiveSection.typed(desired);
        bareLoop(typed, 1, 0);
        List<Figure> figures = new ArrayList<>();
        Map<String, Double> sdkMs = new TreeMap<>();
        for (int latency : c.latenciesMs()) {
            for (int writers : c.writers()) {
                List<Long> sdk = new ArrayList<>();
                List<Long> bare = new ArrayList<>();
                for (int r = 0; r < c.rounds(); r++) {
                    // Alternate which goes first, so neither always runs on a warmer JVM.
                    if (r % 2 == 1) {
                        bare.add(bareLoop(typed, writers, latency));
                    }
                    sdk.add(sdkPass(objects, writers, latency, null));
                    if (r % 2 == 0) {
                        bare.add(bareLoop(typed, writers, latency));
                    }
                }
                double s = ColdStartSection.median(sdk);
                double b = ColdStartSection.median(bare);
                sdkMs.put(latency + "/" + writers, s);
                figures.add(new Figure(String.format(Locale.ROOT, "First pass, %,d objects, %d writer%s, %d ms per"
                        + " request", c.objects(), writers, writers == 1 ? "" : "s", latency),
                        Figure.number(s) + " ms", "client-java, " + writers + " thread" + (writers == 1 ? "" : "s")
                        + " " + Figure.number(b) + " ms", s / b, "≤ " + Figure.number(TARGET) + "×", s / b <= TARGET,
                        REPRODUCE));
            }
        }
        int most = c.writers().get(c.writers().size() - 1);
        int slowest = c.latenciesMs().get(c.latenciesMs().size() - 1);
        Double one = sdkMs.get(slowest + "/1");
        Double many = sdkMs.get(slowest + "/" + most);
        if (one != null && many != null && most > 1) {
            figures.add(new Figure(String.format(Locale.ROOT, "Speed-up of %d writers over 1 (%d ms per request)", most,
                    slowest), Figure.number(one / many) + "×", "1 writer " + Figure.number(one) + " ms", one / many,
                    "≥ " + Figure.number(SPEEDUP_TARGET) + "×", one / many >= SPEEDUP_TARGET, REPRODUCE));
        }
        List<String> notes = List.of("Median of " + c.rounds() + " rounds; each pass and each loop runs on fresh "
                + "in-process servers. The SDK's pass also lists the tenant's and the host's objects (the loop only "
                + "creates); Events are off on the SDK side (`recordEvents(false)`), as the loop writes none. Latency "
                + "is added by the servers to every request (a FaultRule delay), both servers for the SDK.");
        return new Report.Section(Main.TITLES.get("firstsync"), figures, notes);
    }
}
