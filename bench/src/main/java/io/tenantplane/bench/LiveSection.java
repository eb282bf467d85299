package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.PlanRequest;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Live convergence against in-process API servers (the testkit): a first pass over new objects through the SDK
 * against a bare client-java loop creating the same already-transformed objects, a second pass over the converged
 * set (requests counted at the servers), and the watch-driven Syncer (requests while idle, latency of one change).
 */
final class LiveSection {

    static final double TARGET = 1.15;
    static final String HOST_NS = Fixtures.HOST_NAMESPACE;
    static final String TENANT = Fixtures.TENANT;
    static final String REPRODUCE = "bench/run.sh live";
    /**
     * A wait the servers add to every request ({@code -Dbench.latencyMs}, default 0), to stand in for a real API
     * server, where each request costs milliseconds rather than the loopback's tenths.
     */
    static final Duration LATENCY = Duration.ofMillis(Long.getLong("bench.latencyMs", 0));

    /** Sizes and repetitions. */
    record Config(int objects, int rounds, int latencySamples, Duration idle) {
        static Config full() {
            return new Config(1_000, 5, 25, Duration.ofSeconds(5));
        }

        static Config quick() {
            return new Config(40, 1, 3, Duration.ofMillis(500));
        }
    }

    /** A host server with the tenant's custom resources, a tenant server holding the objects, and a plane over both. */
    static final class World implements AutoCloseable {
        final KubeApiServer host;
        final KubeApiServer tenant;
        final ApiClient hostClient;
        final ApiClient tenantClient;
        final TenantPlane plane;
        final TenantContext context;
        final List<JsonObject> stored = new ArrayList<>();

        World(List<JsonObject> objects) {
            this(objects, true);
        }

        World(List<JsonObject> objects, boolean events) {
            host = Cluster.host(List.of(HOST_NS));
            Cluster.tenantResources(TENANT, HOST_NS).forEach(o -> Cluster.create(host.url(), o));
            Cluster.syncPrerequisites(TENANT, HOST_NS).forEach(o -> Cluster.create(host.url(), o));
            tenant = Cluster.tenant();
            for (JsonObject o : objects) {
                stored.add(Cluster.create(tenant.url(), o));
            }
            hostClient = Cluster.client(host);
            tenantClient = Cluster.client(tenant);
            plane = TenantPlane.builder().hostClient(hostClient).tenantConnector(tc -> tenantClient)
                    .recordEvents(events).build();
            context = Cluster.context(TENANT, HOST_NS);
            slow(host);
            slow(tenant);
            host.requests().reset();
            tenant.requests().reset();
        }

        ConvergenceReport converge() {
            ConvergenceReport r = plane.converge(context);
            if (r.failure() != null) {
                throw new IllegalStateException("the pass failed: " + r.failure());
            }
            return r;
        }

        /** Waits until the Events of the passes so far are written (they are written off the pass, in the background). */
        void flushEvents() {
            if (!plane.observer().flush(Duration.ofSeconds(60))) {
                throw new IllegalStateException("Events still not written after 60 s");
            }
        }

        /** What the SDK would write for the stored objects: the desired host objects of a plan on an empty host. */
        List<JsonObject> desired() {
            return plane.plan(new PlanRequest(context.cluster(), context.profile(), context.policy(), stored, List.of()))
                    .decisions().stream().filter(d -> d.action() == Action.CREATE).map(Decision::desired).toList();
        }

        @Override
        public void close() {
            tenant.close();
            host.close();
        }
    }

    private LiveSection() {
    }

    static Report.Section run(Config c) throws Exception {
        List<JsonObject> objects = Fixtures.tenantObjects(c.objects()).stream().map(Cluster::asUserWrites).toList();
        List<Object> typed;
        try (World warm = new World(objects)) {
            typed = typed(warm.desired());
            warm.converge();
            warm.flushEvents();
            timeBaseline(typed);
        }
        List<Long> sdk = new ArrayList<>();
        List<Long> quiet = new ArrayList<>();
        List<Long> bare = new ArrayList<>();
        World last = null;
        String firstPassRequests = null;
        try {
            for (int r = 0; r < c.rounds(); r++) {
                if (r % 2 == 1) {
                    bare.add(timeBaseline(typed));
                }
                World w = new World(objects);
                long t0 = System.nanoTime();
                ConvergenceReport report = w.converge();
                sdk.add(System.nanoTime() - t0);
                w.flushEvents();
                long created = report.count(Action.CREATE);
                if (created != c.objects() || !report.converged()) {
                    w.close();
                    throw new IllegalStateException("expected " + c.objects() + " creates and a converged tenant, got "
                            + report.counts() + " " + report.failures());
                }
                firstPassRequests = "Requests of one first pass: host " + breakdown(w.host.requests()) + "; tenant "
                        + breakdown(w.tenant.requests()) + ".";
                if (last != null) {
                    last.close();
                }
                last = w;
                if (r % 2 == 0) {
                    bare.add(timeBaseline(typed));
                }
                try (World noEvents = new World(objects, false)) {
                    long t1 = System.nanoTime();
                    noEvents.converge();
                    quiet.add(System.nanoTime() - t1);
                }
            }
            List<Figure> figures = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            double sdkMs = ColdStartSection.median(sdk);
            double bareMs = ColdStartSection.median(bare);
            figures.add(new Figure(String.format(Locale.ROOT, "Converge %,d new objects (first pass, median of %d)",
                    c.objects(), c.rounds()), Figure.number(sdkMs) + " ms",
                    "client-java create loop " + Figure.number(bareMs) + " ms", sdkMs / bareMs,
                    "≤ " + Figure.number(TARGET) + "×", sdkMs / bareMs <= TARGET, REPRODUCE));
            double quietMs = ColdStartSection.median(quiet);
            figures.add(new Figure("… the same with Events off (`recordEvents(false)`)", Figure.number(quietMs) + " ms",
                    "client-java create loop " + Figure.number(bareMs) + " ms", quietMs / bareMs, "—", null, REPRODUCE));
            if (!LATENCY.isZero()) {
                notes.add("Every request waited " + LATENCY.toMillis() + " ms at the server (-Dbench.latencyMs).");
            }
            notes.add("Both sides write sequentially (the SDK applies one tenant's plan in order; the loop uses one "
                    + "thread). The SDK's Events are written by a background thread: the pass's time leaves them out, "
                    + "the requests below count them (taken after the writer was flushed). " + firstPassRequests);
            steadyPass(last, c, figures, notes);
            watchDriven(last, c, figures, notes);
            return new Report.Section(Main.TITLES.get("live"), figures, notes);
        } finally {
            if (last != null) {
                last.close();
            }
        }
    }

    private static void steadyPass(World w, Config c, List<Figure> figures, List<String> notes) {
        w.flushEvents();
        w.host.requests().reset();
        w.tenant.requests().reset();
        long t0 = System.nanoTime();
        ConvergenceReport r = w.converge();
        double ms = (System.nanoTime() - t0) / 1e6;
        RequestLog host = w.host.requests();
        RequestLog tenant = w.tenant.requests();
        long writes = host.writes() + tenant.writes();
        figures.add(new Figure(String.format(Locale.ROOT, "Second pass over %,d converged objects: writes", c.objects()),
                Long.toString(writes), "—", null, "0", writes == 0, REPRODUCE));
        Map<String, Long> lists = new TreeMap<>();
        perResource(host, "list").forEach((k, v) -> lists.merge("host " + k, v, Long::sum));
        perResource(tenant, "list").forEach((k, v) -> lists.merge("tenant " + k, v, Long::sum));
        long logical = 0;
        List<String> paged = new ArrayList<>();
        for (var e : lists.entrySet()) {
            long pages = pages(e.getKey().substring(e.getKey().indexOf(' ') + 1), c.objects());
            logical = Math.max(logical, (e.getValue() + pages - 1) / pages);
            if (pages > 1) {
                paged.add(e.getKey() + " " + e.getValue() + " requests (" + pages + " pages of " + PAGE + ")");
            }
        }
        figures.add(new Figure("Second pass: lists per kind, either server", Long.toString(logical)
                + (paged.isEmpty() ? "" : " (" + String.join("; ", paged) + ")"),
                "—", null, "≤ 1", logical <= 1, REPRODUCE));
        figures.add(Figure.plain("Second pass: all requests (host + tenant) and time",
                (host.total() + tenant.total()) + " in " + Figure.number(ms) + " ms", REPRODUCE));
        notes.add("Requests of the second pass: host " + breakdown(host) + "; tenant " + breakdown(tenant)
                + ". Decisions: " + r.counts() + ".");
    }

    private static void watchDriven(World w, Config c, List<Figure> figures, List<String> notes) throws Exception {
        try (Syncer syncer = Syncer.create(w.plane, SyncerOptions.defaults().withProvision(false)
                .withNamespaces(List.of(HOST_NS))).start()) {
            if (!syncer.awaitStarted(Duration.ofSeconds(30))) {
                throw new IllegalStateException("the Syncer did not start in 30 s");
            }
            awaitQuiet(w, syncer);
            w.host.requests().reset();
            w.tenant.requests().reset();
            Thread.sleep(c.idle());
            long idle = w.host.requests().total() + w.tenant.requests().total();
            figures.add(new Figure("Watch-driven Syncer, idle " + c.idle().toMillis() / 1000.0 + " s: requests",
                    Long.toString(idle), "—", null, "0", idle == 0, REPRODUCE));
            if (idle > 0) {
                notes.add("Requests while idle: host " + breakdown(w.host.requests()) + "; tenant "
                        + breakdown(w.tenant.requests()) + ".");
            }
            List<Long> latencies = new ArrayList<>();
            List<Long> floors = new ArrayList<>();
            int configMaps = Math.max(1, c.objects() / 10);
            for (int i = 0; i < c.latencySamples(); i++) {
                String name = "app-" + (i % configMaps) + "-config";
                String ns = Fixtures.namespace(i % configMaps);
                String hostName = name + "-x-" + ns + "-x-" + TENANT;
                String value = "debug-" + i;
                JsonObject cm = Cluster.get(w.tenant.url(), "ConfigMap", ns, name).ok("get");
                cm.getAsJsonObject("data").addProperty("LOG_LEVEL", value);
                long t0 = System.nanoTime();
                Cluster.update(w.tenant.url(), cm);
                boolean seen = Cluster.await(Duration.ofSeconds(30), Duration.ofMillis(1), () -> value.equals(
                        Json.string(Cluster.get(w.host.url(), "ConfigMap", HOST_NS, hostName).ok("get"), "data", "LOG_LEVEL")));
                long took = System.nanoTime() - t0;
                if (!seen) {
                    throw new IllegalStateException("the change to " + ns + "/" + name + " did not reach the host in 30 s");
                }
                latencies.add(took);
                floors.add(floor(w, ns, name, hostName));
            }
            double median = ColdStartSection.median(latencies);
            double floor = ColdStartSection.median(floors);
            List<Long> sorted = latencies.stream().sorted().toList();
            double p90 = sorted.get((int) Math.ceil(0.9 * sorted.size()) - 1) / 1e6;
            figures.add(new Figure("Watch-driven: one tenant change reaches the host (median of " + c.latencySamples()
                    + ", p90 " + Figure.number(p90) + " ms)", Figure.number(median) + " ms",
                    "bare read + write of the object " + Figure.number(floor) + " ms", median / floor, "—", null, REPRODUCE));
        }
    }

    /** The least a sync of one change needs: read the tenant object and write the host copy, with client-java. */
    private static long floor(World w, String ns, String name, String hostName) {
        CoreV1Api tenantApi = new CoreV1Api(w.tenantClient);
        CoreV1Api hostApi = new CoreV1Api(w.hostClient);
        try {
            long t0 = System.nanoTime();
            V1ConfigMap source = tenantApi.readNamespacedConfigMap(name, ns).execute();
            V1ConfigMap copy = hostApi.readNamespacedConfigMap(hostName, HOST_NS).execute();
            copy.setData(source.getData());
            hostApi.replaceNamespacedConfigMap(hostName, HOST_NS, copy).execute();
            return System.nanoTime() - t0;
        } catch (ApiException e) {
            throw new IllegalStateException("floor measurement: " + e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    /** Waits until the Syncer's queue is empty and neither server saw a request for two seconds. */
    private static void awaitQuiet(World w, Syncer syncer) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long last = -1;
        int quietFor = 0;
        while (System.nanoTime() < deadline) {
            long now = w.host.requests().total() + w.tenant.requests().total();
            quietFor = now == last && syncer.queueDepth() == 0 ? quietFor + 1 : 0;
            if (quietFor >= 40) {
                return;
            }
            last = now;
            Thread.sleep(50);
        }
        throw new IllegalStateException("the Syncer did not settle in 120 s (queue " + syncer.queueDepth() + ")");
    }

    /** Client-java typed objects for the desired host objects, converted before any timing. */
    static List<Object> typed(List<JsonObject> desired) {
        List<Object> out = new ArrayList<>();
        for (JsonObject o : desired) {
            Class<?> type = switch (Json.string(o, "kind")) {
                case "Pod" -> V1Pod.class;
                case "Service" -> V1Service.class;
                case "ConfigMap" -> V1ConfigMap.class;
                case "Secret" -> V1Secret.class;
                default -> throw new IllegalArgumentException("no typed baseline for " + Json.string(o, "kind"));
            };
            out.add(JSON.deserialize(Json.gson().toJson(o), type));
        }
        return out;
    }

    /** Creates {@code typed} on a fresh host with a bare client-java loop; returns the loop's wall time. */
    static long timeBaseline(List<Object> typed) {
        try (KubeApiServer host = Cluster.host(List.of(HOST_NS))) {
            // What provisioning made before any sync (the Pods' ServiceAccount among it), as for the pass.
            Cluster.syncPrerequisites(TENANT, HOST_NS).forEach(o -> Cluster.create(host.url(), o));
            slow(host);
            CoreV1Api api = new CoreV1Api(Cluster.client(host));
            host.requests().reset();
            long t0 = System.nanoTime();
            for (Object o : typed) {
                switch (o) {
                    case V1Pod p -> api.createNamespacedPod(HOST_NS, p).execute();
                    case V1Service s -> api.createNamespacedService(HOST_NS, s).execute();
                    case V1ConfigMap m -> api.createNamespacedConfigMap(HOST_NS, m).execute();
                    case V1Secret s -> api.createNamespacedSecret(HOST_NS, s).execute();
                    default -> throw new IllegalArgumentException(o.getClass().getName());
                }
            }
            long took = System.nanoTime() - t0;
            long created = host.requests().count("create");
            if (created != typed.size()) {
                throw new IllegalStateException("the baseline created " + created + " of " + typed.size());
            }
            return took;
        } catch (ApiException e) {
            throw new IllegalStateException("baseline create failed: " + e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    /** Adds {@link #LATENCY} to every request {@code server} answers from now on. */
    static void slow(KubeApiServer server) {
        if (!LATENCY.isZero()) {
            server.faults().add(io.tenantplane.testkit.FaultRule.on("*", "*").delay(LATENCY));
        }
    }

    /** The SDK lists in pages of this many objects, as client-go does. */
    static final int PAGE = 500;

    /** Pages one list of {@code resource} takes with the fixtures' mix of {@code objects}. */
    static long pages(String resource, int objects) {
        int count = switch (resource) {
            case "pods" -> objects * 6 / 10;
            case "services" -> objects * 2 / 10;
            case "configmaps", "secrets" -> objects / 10;
            default -> 0;
        };
        return Math.max(1, (count + PAGE - 1) / PAGE);
    }

    static Map<String, Long> perResource(RequestLog log, String verb) {
        return log.entries().stream().filter(e -> e.verb().equals(verb))
                .collect(Collectors.groupingBy(e -> e.resource() + (e.group().isEmpty() ? "" : "." + e.group()),
                        TreeMap::new, Collectors.counting()));
    }

    /** "create pods 600, get pods 600, ..." */
    static String breakdown(RequestLog log) {
        Map<String, Long> m = log.entries().stream().collect(Collectors.groupingBy(
                e -> e.verb() + " " + (e.resource().isEmpty() ? e.path() : e.resource()
                        + (e.group().isEmpty() ? "" : "." + e.group())), TreeMap::new, Collectors.counting()));
        return m.isEmpty() ? "none" : m.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
