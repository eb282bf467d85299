package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One SDK {@link Syncer} in a process of its own, measured as tenants are added: heap used after full GCs and live
 * platform threads, once the Syncer has converged every tenant and gone idle. Then, for comparison, the heap that
 * the tenants' objects take as bare gson trees. Reads the servers' JSON line on standard input; prints one JSON line
 * per measurement.
 *
 * <p>Usage: {@code FootprintProbe OBJECTS_PER_TENANT STEP...} (e.g. {@code 200 1 10 100}). The plane reaches each
 * tenant as a deployment does: through the default kubeconfig-Secret connector, reading the Secret
 * {@link FootprintServers} wrote for the tenant. With {@code -Dbench.settleSeconds=N} the threads are counted once
 * more, N seconds after the last step.
 */
public final class FootprintProbe {

    private static final String MANAGED = "tenantplane.io/managed-by=tenantplane";

    private FootprintProbe() {
    }

    /** Entry point; see the class comment. */
    public static void main(String[] args) throws Exception {
        int objects = Integer.parseInt(args[0]);
        List<Integer> steps = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            steps.add(Integer.parseInt(args[i]));
        }
        JsonObject servers = Cluster.parse(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                .readLine());
        String host = Json.string(servers, "host");
        ApiClient hostClient = Cluster.client(host);
        TenantPlane plane = TenantPlane.builder().hostClient(hostClient).build();
        try (Syncer syncer = Syncer.create(plane, SyncerOptions.defaults().withProvision(false)).start()) {
            if (!syncer.awaitStarted(Duration.ofSeconds(60))) {
                throw new IllegalStateException("the Syncer did not start");
            }
            Thread.sleep(1000);
            emit(0, Double.NaN);
            int added = 0;
            for (int step : steps) {
                long t0 = System.nanoTime();
                for (; added < step; added++) {
                    JsonObject tc = Cluster.tenantResources(FootprintServers.tenant(added),
                            FootprintServers.hostNamespace(added)).get(2);
                    Cluster.create(host, tc);
                }
                int expected = step * objects;
                boolean done = Cluster.await(Duration.ofMinutes(10), Duration.ofMillis(250),
                        () -> syncer.tenants().size() == step && syncer.queueDepth() == 0 && managed(host) == expected);
                if (!done) {
                    throw new IllegalStateException("the Syncer did not converge " + step + " tenants: "
                            + syncer.tenants().size() + " known, " + managed(host) + " of " + expected
                            + " host objects, queue " + syncer.queueDepth());
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                Thread.sleep(2000);
                emit(step, seconds);
            }
            // OkHttp keeps an idle task thread for 60 s: what is left after that is what idle tenants cost.
            int settle = Integer.getInteger("bench.settleSeconds", 0);
            if (settle > 0) {
                Thread.sleep(settle * 1000L);
                emitSettled(steps.get(steps.size() - 1));
            }
            JsonObject histogram = new JsonObject();
            histogram.addProperty("histogram", histogram(25));
            System.out.println(Json.gson().toJson(histogram));
        }
        List<List<JsonObject>> retained = new ArrayList<>();
        long before = heapAfterGc();
        int last = steps.get(steps.size() - 1);
        for (int i = 0; i < last; i++) {
            retained.add(Fixtures.tenantObjects(objects));
        }
        long after = heapAfterGc();
        JsonObject bare = new JsonObject();
        bare.addProperty("bareObjectsPerTenant", (after - before) / (double) last);
        bare.addProperty("retained", retained.size());
        System.out.println(Json.gson().toJson(bare));
    }

    /**
     * The host copies of tenant objects: managed objects that name their tenant source (a Pod's token Secret and the
     * control plane's Services are managed too, but copies of nothing).
     */
    static int managed(String host) {
        int n = 0;
        for (String kind : List.of("Pod", "Service", "ConfigMap", "Secret")) {
            n += (int) Cluster.list(host, kind, null, MANAGED).stream()
                    .filter(o -> Json.string(o, "metadata", "annotations", ReverseMapping.SOURCE_KIND) != null)
                    .count();
        }
        return n;
    }

    private static void emitSettled(int tenants) {
        JsonObject o = new JsonObject();
        o.addProperty("settledTenants", tenants);
        Map<String, Integer> names = new TreeMap<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.merge(t.getName().replaceAll("\\d+", "N"), 1, Integer::sum));
        o.addProperty("threads", Thread.getAllStackTraces().size());
        o.add("threadNames", Json.gson().toJsonTree(names));
        System.out.println(Json.gson().toJson(o));
        System.out.flush();
    }

    private static void emit(int tenants, double seconds) throws InterruptedException {
        JsonObject o = new JsonObject();
        o.addProperty("tenants", tenants);
        o.addProperty("heap", heapAfterGc());
        Map<String, Integer> names = new TreeMap<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.merge(t.getName().replaceAll("\\d+", "N"), 1, Integer::sum));
        o.addProperty("threads", Thread.getAllStackTraces().size());
        o.add("threadNames", Json.gson().toJsonTree(names));
        o.addProperty("jvmThreads", ManagementFactory.getThreadMXBean().getThreadCount());
        if (!Double.isNaN(seconds)) {
            o.addProperty("convergeSeconds", seconds);
        }
        System.out.println(Json.gson().toJson(o));
        System.out.flush();
    }

    /** The top of {@code jcmd PID GC.class_histogram} for this JVM (it runs a full GC first). */
    static String histogram(int lines) throws Exception {
        Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        return String.join("\n", String.valueOf(out).lines().limit(lines + 3).toList());
    }

    /** Heap in use after full collections, once it stops shrinking. */
    static long heapAfterGc() throws InterruptedException {
        var mem = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 6; i++) {
            System.gc();
            Thread.sleep(200);
            long now = mem.getHeapMemoryUsage().getUsed();
            if (i >= 2 && now >= used) {
                return Math.min(now, used);
            }
            used = Math.min(used, now);
        }
        return used;
    }
}
