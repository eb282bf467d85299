package io.tenantplane.it;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantConnector;
import io.tenantplane.TenantPlane;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.SyncerOptions;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The world of the reliability ITs: an in-process host with tenants in {@code team-dev}, each with its own API server
 * and a seeded set of workloads, foreign objects in the host namespace (platform ConfigMaps and one that holds a name a
 * tenant object wants), and an oracle that says whether the host matches the tenants: every source of a synced kind
 * has exactly one host copy with its data, no managed object lacks a live source, and every foreign object is exactly
 * as created. The SDK reaches the servers through clients of its own that count requests, so the test's own reads do
 * not blur the figures.
 */
final class ReliabilityWorld implements AutoCloseable {

    static final List<String> KINDS = List.of("ConfigMap", "Secret", "Service", "Pod");
    static final String CLASH = "clash";

    final Live live;
    final KubeApiServer host;
    final List<String> tenants;
    /** The SDK's requests to the host (every attempt, watches included) and the writes among them. */
    final AtomicLong sdkHostRequests = new AtomicLong();
    final AtomicLong sdkHostWrites = new AtomicLong();
    /** Convergence passes started (full and per object), over all tenants. */
    final AtomicLong passes = new AtomicLong();
    /** The largest work-queue depth any observer saw. */
    final AtomicLong maxQueueDepth = new AtomicLong();
    private final Map<String, JsonObject> foreign = new LinkedHashMap<>();
    private final Map<String, ApiClient> sdkTenantClients = new ConcurrentHashMap<>();
    private final Random random;
    private int created;

    private ReliabilityWorld(Live live, List<String> tenants, long seed) {
        this.live = live;
        this.host = live.requireHostServer();
        this.tenants = List.copyOf(tenants);
        this.random = new Random(seed);
    }

    /**
     * Tenants with {@code perKind} objects of each of {@link #KINDS}, spread over two virtual namespaces, plus 10
     * platform ConfigMaps and one object holding the host name of ConfigMap {@code default/clash} of the first tenant.
     */
    static ReliabilityWorld start(List<String> tenants, int perKind, long seed) {
        Live live = Live.start(true);
        ReliabilityWorld w = new ReliabilityWorld(live, tenants, seed);
        for (String t : tenants) {
            // All tenants share the host namespace, so each profile's quota makes room for the whole world.
            live.createTenant(t, Live.quotaTimes(tenants.size() * (1 + perKind / 10)));
            live.syncPrerequisites(t);
            Kube k = live.tenant(t);
            k.create(Kube.json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"shop\"}}"));
            for (int i = 0; i < perKind; i++) {
                for (String kind : KINDS) {
                    k.create(w.object(kind, i % 2 == 0 ? "default" : "shop", kind.toLowerCase() + "-" + i, "v0"));
                }
            }
        }
        for (int i = 0; i < 10; i++) {
            w.foreign(Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"platform-%d","namespace":"%s",
                     "labels":{"owner":"platform"}},"data":{"mine":"yes"}}""".formatted(i, live.namespace)));
        }
        String first = tenants.get(0);
        w.foreign(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"%s"},"data":{"mine":"yes"}}"""
                .formatted(HostNames.hostName(CLASH, "default", first), live.namespace)));
        live.tenant(first).create(w.object("ConfigMap", "default", CLASH, "v0"));
        return w;
    }

    /** Creates {@code o} on the host as an object no tenant owns, to be checked untouched by {@link #problem()}. */
    void addForeign(JsonObject o) {
        foreign(o);
    }

    private void foreign(JsonObject o) {
        JsonObject stored = live.hostKube.create(o);
        foreign.put(Json.string(stored, "kind") + "/" + Json.string(stored, "metadata", "name"), stored);
    }

    /** A restricted-compliant object of {@code kind} with payload {@code version}. */
    JsonObject object(String kind, String ns, String name, String version) {
        JsonObject o = switch (kind) {
            case "Pod" -> SyncIT.pod(ns, name, Map.of("app", name));
            case "Service" -> Kube.json("""
                    {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","namespace":"%s"},
                     "spec":{"selector":{"app":"%s"},"ports":[{"port":80}]}}""".formatted(name, ns, name));
            case "Secret" -> Kube.json("""
                    {"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s","namespace":"%s"},"data":{}}"""
                    .formatted(name, ns));
            default -> Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"%s"},"data":{}}"""
                    .formatted(name, ns));
        };
        version(o, version);
        return o;
    }

    private static void version(JsonObject o, String version) {
        switch (Json.string(o, "kind")) {
            case "Secret" -> Json.child(o, "data").addProperty("v", java.util.Base64.getEncoder()
                    .encodeToString(version.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            case "ConfigMap" -> Json.child(o, "data").addProperty("v", version);
            default -> Json.child(o, "metadata", "labels").addProperty("version", version);
        }
    }

    // ---------------------------------------------------------------- the SDK's view

    /**
     * A plane over counting clients of its own, quick write retries (as {@link Live#plane()}), and an observer that
     * counts passes and the queue depth; {@code more} adjusts the builder.
     */
    TenantPlane plane(Duration readTimeout, Consumer<TenantPlane.Builder> more) {
        ApiClient hostClient = counting(host.url(), readTimeout, sdkHostRequests, sdkHostWrites);
        TenantPlane.Builder b = TenantPlane.builder().hostClient(hostClient).tenantConnector(connector(readTimeout))
                .retries(5, Duration.ofMillis(10), Duration.ofMillis(100)).observer(new Observer() {
                    @Override
                    public PassScope passStarted(TenantKey tenant) {
                        passes.incrementAndGet();
                        return PassScope.NOOP;
                    }

                    @Override
                    public void queueDepth(int depth) {
                        maxQueueDepth.accumulateAndGet(depth, Math::max);
                    }
                });
        more.accept(b);
        return b.build();
    }

    TenantPlane plane() {
        return plane(Duration.ofSeconds(10), b -> { });
    }

    private TenantConnector connector(Duration readTimeout) {
        return tc -> {
            KubeApiServer server = live.tenantServer(tc.tenant());
            if (server == null) {
                throw new TenantApiUnavailableException("no API server for tenant " + tc.tenant());
            }
            return sdkTenantClients.computeIfAbsent(tc.tenant(), t -> counting(server.url(), readTimeout,
                    new AtomicLong(), new AtomicLong()));
        };
    }

    /** A client of {@code url} whose every request (and every write) is counted. */
    static ApiClient counting(String url, Duration readTimeout, AtomicLong requests, AtomicLong writes) {
        ApiClient c = new ClientBuilder().setBasePath(url).build();
        c.setHttpClient(c.getHttpClient().newBuilder().readTimeout(readTimeout).addInterceptor(chain -> {
            requests.incrementAndGet();
            if (!chain.request().method().equals("GET")) {
                writes.incrementAndGet();
            }
            return chain.proceed(chain.request());
        }).build());
        return c;
    }

    /** Drops the SDK's tenant clients, so that a heap measurement counts them with the plane that used them. */
    void forgetSdkClients() {
        sdkTenantClients.clear();
    }

    SyncerOptions syncerOptions() {
        return SyncerOptions.defaults().withNamespaces(List.of(live.namespace)).withWorkers(4)
                .withResyncPeriod(Duration.ofMinutes(10));
    }

    // ---------------------------------------------------------------- changes

    /** {@code n} random changes to tenant {@code t}: creates, updates of the payload, deletes. */
    void changeTenant(String t, int n) {
        Kube k = live.tenant(t);
        List<JsonObject> objects = tenantObjects(t);
        for (int i = 0; i < n; i++) {
            int roll = random.nextInt(3);
            if (roll == 0 || objects.isEmpty()) {
                String kind = KINDS.get(random.nextInt(KINDS.size()));
                k.create(object(kind, random.nextBoolean() ? "default" : "shop", "new-" + (++created), "v0"));
                continue;
            }
            JsonObject o = objects.remove(random.nextInt(objects.size()));
            String kind = Json.string(o, "kind");
            String ns = Json.string(o, "metadata", "namespace");
            String name = Json.string(o, "metadata", "name");
            if (name.equals(CLASH)) {
                continue;
            }
            if (roll == 1 && !kind.equals("Pod")) {
                JsonObject now = k.require(kind, ns, name);
                version(now, "v" + random.nextInt(1_000_000));
                k.update(now);
            } else {
                k.delete(kind, ns, name);
            }
        }
    }

    /** The tenant's objects of the synced kinds, outside its system namespaces. */
    List<JsonObject> tenantObjects(String t) {
        Kube k = live.tenant(t);
        List<JsonObject> out = new ArrayList<>();
        for (String kind : KINDS) {
            for (JsonObject o : k.list(kind, null, null)) {
                String ns = Json.string(o, "metadata", "namespace");
                if (!Set.of("kube-system", "kube-public", "kube-node-lease").contains(ns)
                        && !(kind.equals("Service") && "kubernetes".equals(Json.string(o, "metadata", "name")))) {
                    o.addProperty("kind", kind);
                    out.add(o);
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- the oracle

    /** Null when the host matches the tenants and the foreign objects are as created; otherwise what differs. */
    String problem() {
        Map<String, JsonObject> hostObjects = new HashMap<>();
        for (String kind : KINDS) {
            for (JsonObject h : live.hostKube.list(kind, live.namespace, null)) {
                h.addProperty("kind", kind);
                hostObjects.put(kind + "/" + Json.string(h, "metadata", "name"), h);
            }
        }
        for (var e : foreign.entrySet()) {
            JsonObject now = hostObjects.get(e.getKey());
            if (now == null || !Json.string(now, "metadata", "resourceVersion")
                    .equals(Json.string(e.getValue(), "metadata", "resourceVersion"))) {
                return "foreign " + e.getKey() + " was changed or deleted: " + now;
            }
        }
        Map<String, String> expected = new HashMap<>();
        for (String t : tenants) {
            for (JsonObject o : tenantObjects(t)) {
                String kind = Json.string(o, "kind");
                String name = HostNames.hostName(Json.string(o, "metadata", "name"),
                        Json.string(o, "metadata", "namespace"), t);
                if (foreign.containsKey(kind + "/" + name)) {
                    continue;
                }
                expected.put(kind + "/" + name, t);
                JsonObject copy = hostObjects.get(kind + "/" + name);
                if (copy == null) {
                    return t + "'s " + kind + " " + Json.string(o, "metadata", "namespace") + "/"
                            + Json.string(o, "metadata", "name") + " has no host copy";
                }
                if (!t.equals(Json.labels(copy).get(ReverseMapping.TENANT))) {
                    return kind + " " + name + " is labelled for " + Json.labels(copy).get(ReverseMapping.TENANT);
                }
                String want = payload(o);
                if (!java.util.Objects.equals(want, payload(copy))) {
                    return kind + " " + name + " has " + payload(copy) + ", its source " + want;
                }
            }
        }
        for (var e : hostObjects.entrySet()) {
            String t = Json.labels(e.getValue()).get(ReverseMapping.TENANT);
            boolean synced = Json.annotations(e.getValue()).containsKey(ReverseMapping.SOURCE_KIND);
            if (t != null && synced && tenants.contains(t) && !expected.containsKey(e.getKey())
                    && !foreign.containsKey(e.getKey())) {
                return "host copy " + e.getKey() + " of " + t + " has no live source (an orphan or a duplicate)";
            }
        }
        return null;
    }

    private static String payload(JsonObject o) {
        return switch (Json.string(o, "kind")) {
            case "ConfigMap", "Secret" -> Json.string(o, "data", "v");
            default -> Json.labels(o).get("version");
        };
    }

    /** Waits until {@link #problem()} is null; returns how long it took, or throws with the last problem. */
    long awaitConverged(Duration timeout) {
        long start = System.nanoTime();
        String last = null;
        while (System.nanoTime() - start < timeout.toNanos()) {
            last = problem();
            if (last == null) {
                return Duration.ofNanos(System.nanoTime() - start).toMillis();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError("not converged within " + timeout + ": " + last);
    }

    /** Writes the host server saw to foreign objects; must stay empty. */
    List<RequestLog.Entry> writesToForeignObjects() {
        return host.requests().entries().stream().filter(RequestLog.Entry::isWrite)
                .filter(e -> e.name() != null && foreign.keySet().stream()
                        .anyMatch(k -> k.endsWith("/" + e.name()))).toList();
    }

    Set<String> foreignKeys() {
        return foreign.keySet();
    }

    @Override
    public void close() {
        live.close();
    }
}
