package io.tenantplane.it;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.tenantplane.TenantConnector;
import io.tenantplane.TenantPlane;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.errors.TenantPlaneException;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.TestCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The world of one integration test: a host API server (in process, or the real cluster that {@code KUBECONFIG}
 * points to with {@code -Dtenantplane.it.realCluster=true}) with the tenantplane CRDs, a host namespace, and one
 * in-process API server per tenant, reached through a {@link TenantConnector} that maps each tenant to its server.
 */
final class Live implements AutoCloseable {

    static final Path REPO = Path.of("..");
    static final Path EXAMPLES = REPO.resolve("examples/yaml");

    private final TestCluster realCluster;
    private final KubeApiServer hostServer;
    private final Path tempDir;
    final ApiClient host;
    final Kube hostKube;
    final String namespace;
    private final Map<String, KubeApiServer> tenantServers = new LinkedHashMap<>();
    private final Map<String, ApiClient> tenantClients = new LinkedHashMap<>();

    private Live(TestCluster realCluster, KubeApiServer hostServer, Path kubeconfig, Path tempDir, String namespace) {
        this.realCluster = realCluster;
        this.hostServer = hostServer;
        this.tempDir = tempDir;
        this.namespace = namespace;
        this.host = client(kubeconfig);
        this.hostKube = new Kube(host);
    }

    /** Tag of tests that need the in-process server's hooks (request log, faults, playing a kubelet). */
    static final String HOOKS = "hooks";

    /** A host with the CRDs and a host namespace ({@code team-dev} in process, a unique one on a real cluster). */
    static Live start() {
        return start(false);
    }

    /**
     * As {@link #start()}; with {@code inProcess} the host is an in-process server even when the run targets a real
     * cluster ({@code -Dtenantplane.it.realCluster=true}), for tests that count requests or inject faults.
     */
    static Live start(boolean inProcess) {
        Live live;
        if (!inProcess && Boolean.getBoolean(TestCluster.REAL_CLUSTER_PROPERTY)) {
            TestCluster cluster = TestCluster.start();
            live = new Live(cluster, null, cluster.kubeconfig(), null, cluster.uniqueName("team-dev"));
            live.installCrds();
            live.hostKube.create(Kube.json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":"
                    + "{\"name\":\"" + live.namespace + "\"}}"));
            return live;
        }
        return inProcess(KubeApiServer.builder());
    }

    /** An in-process host whose nodes, scheduler and kubelets are simulated as {@code simulation} says. */
    static Live simulated(io.tenantplane.testkit.Simulation simulation) {
        return inProcess(KubeApiServer.builder().simulate(simulation).streams());
    }

    /** An in-process host built by {@code builder} (another Service range, ...), with the usual namespaces. */
    static Live inProcess(KubeApiServer.Builder builder) {
        Live live;
        KubeApiServer server = builder
                .namespaces("default", "kube-system", "kube-public", "kube-node-lease", "team-dev").build().start();
        try {
            Path dir = Files.createTempDirectory("live-it-");
            live = new Live(null, server, server.writeKubeconfig(dir), dir, "team-dev");
        } catch (IOException e) {
            server.close();
            throw new UncheckedIOException(e);
        }
        live.installCrds();
        return live;
    }

    /**
     * Runs {@code create} while the CRD {@code crdName} has no CEL rules, then puts them back: objects stored that
     * way are what a cluster holds after its CRD gained rules the objects break (an upgrade). The API server keeps
     * such objects and, by ratcheting, lets their status be written while the offending fields stay unchanged.
     */
    void storedBeforeCelRules(String crdName, Runnable create) {
        String path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crdName;
        JsonObject original = hostKube.call("GET", path, Map.of(), null).body();
        JsonObject relaxed = original.deepCopy();
        stripCelRules(relaxed);
        Kube.Reply put = hostKube.call("PUT", path, Map.of(), relaxed);
        if (put.code() != 200) {
            throw new IllegalStateException("CRD without rules: " + put.code() + " " + put.body());
        }
        try {
            create.run();
        } finally {
            JsonObject current = hostKube.call("GET", path, Map.of(), null).body();
            JsonObject restored = original.deepCopy();
            Json.child(restored, "metadata").add("resourceVersion", current.getAsJsonObject("metadata")
                    .get("resourceVersion"));
            Kube.Reply back = hostKube.call("PUT", path, Map.of(), restored);
            if (back.code() != 200) {
                throw new IllegalStateException("CRD rules back: " + back.code() + " " + back.body());
            }
        }
    }

    private static void stripCelRules(com.google.gson.JsonElement e) {
        if (e.isJsonObject()) {
            e.getAsJsonObject().remove("x-kubernetes-validations");
            e.getAsJsonObject().entrySet().forEach(c -> stripCelRules(c.getValue()));
        } else if (e.isJsonArray()) {
            e.getAsJsonArray().forEach(Live::stripCelRules);
        }
    }

    /** The in-process server, for request counts and faults (absent on a real cluster). */
    Optional<KubeApiServer> hostServer() {
        return Optional.ofNullable(hostServer);
    }

    KubeApiServer requireHostServer() {
        return hostServer().orElseThrow(() -> new IllegalStateException("needs the in-process host server"));
    }

    private void installCrds() {
        for (LoadedObject lo : Manifests.read(REPO.resolve("k8s/crds"))) {
            String name = Json.string(lo.object(), "metadata", "name");
            Kube.Reply existing = hostKube.call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                    + name, Map.of(), null);
            if (existing.code() == 404) {
                hostKube.createCrd(lo.object());
            }
        }
    }

    /** Starts the API server of tenant {@code name}. */
    Kube tenant(String name) {
        return tenant(name, KubeApiServer.builder());
    }

    /** Starts the API server of tenant {@code name} from {@code server} (unless it runs already). */
    Kube tenant(String name, KubeApiServer.Builder builder) {
        KubeApiServer server = tenantServers.computeIfAbsent(name, n -> builder.build().start());
        ApiClient client = tenantClients.computeIfAbsent(name, n -> {
            try {
                return new ClientBuilder().setBasePath(server.url()).build();
            } catch (RuntimeException e) {
                throw new IllegalStateException(e);
            }
        });
        return new Kube(client);
    }

    KubeApiServer tenantServer(String name) {
        return tenantServers.get(name);
    }

    /** Maps each tenant to its in-process server, as a platform with its own gateway would. */
    TenantConnector connector() {
        return tc -> {
            ApiClient c = tenantClients.get(tc.tenant());
            if (c == null) {
                throw new io.tenantplane.errors.TenantApiUnavailableException("no API server for tenant " + tc.tenant());
            }
            return c;
        };
    }

    /** A plane on this host with quick retries; {@code more} adjusts the builder. */
    TenantPlane plane(Consumer<TenantPlane.Builder> more) {
        TenantPlane.Builder b = TenantPlane.builder().hostClient(host).tenantConnector(connector())
                .retries(5, Duration.ofMillis(10), Duration.ofMillis(100));
        more.accept(b);
        return b.build();
    }

    TenantPlane plane() {
        return plane(b -> { });
    }

    TenantKey key(String tenant) {
        return new TenantKey(namespace, tenant);
    }

    /** Creates the example TenantCluster, IsolationProfile and SyncPolicy for {@code tenant} in the host namespace. */
    void createTenant(String tenant) {
        createTenant(tenant, o -> { });
    }

    /**
     * An edit for {@link #createTenant(String, Consumer)} that multiplies each hard limit of the IsolationProfile's
     * quota by {@code factor}. The example profile's quota is sized for one tenant, and a ResourceQuota counts
     * everything in its namespace: tests that put many tenants (and their control planes) in one shared host
     * namespace need room for all of them, or the host refuses their objects (exceeded quota), as a real cluster
     * would.
     */
    static Consumer<JsonObject> quotaTimes(int factor) {
        return o -> {
            if (!"IsolationProfile".equals(Json.string(o, "kind"))) {
                return;
            }
            JsonObject hard = Json.child(o, "spec", "quota", "hard");
            for (String key : List.copyOf(hard.keySet())) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(.*)")
                        .matcher(Json.string(hard, key));
                if (m.matches()) {
                    hard.addProperty(key, Long.parseLong(m.group(1)) * factor + m.group(2));
                }
            }
        };
    }

    /** As {@link #createTenant(String)}, letting {@code edit} change each custom resource before it is created. */
    void createTenant(String tenant, Consumer<JsonObject> edit) {
        for (JsonObject o : customResources(tenant)) {
            edit.accept(o);
            Kube.Reply existing = hostKube.call("GET", Kube.kindOf(o).objectPath(namespace,
                    Json.string(o, "metadata", "name")), Map.of(), null);
            if (existing.code() == 404) {
                hostKube.create(o);
            }
        }
    }

    /**
     * Creates on the host what a Syncer's provisioning makes before anything is synced and what tenant Pods need, as
     * the provisioning renders it, for tests that run passes without provisioning: the tenant's API and DNS Services
     * (the host allocates their ClusterIPs; without them every tenant Pod waits, {@code TenantApiPending}) and the
     * workload ServiceAccount its host Pods run as (without it a real API server refuses them, 403).
     *
     * @return the API Service's ClusterIP
     */
    String syncPrerequisites(String tenant) {
        TenantCluster tc = TenantCluster.fromJson(hostKube.require("TenantCluster", namespace, tenant)).orElseThrow();
        IsolationProfile profile = IsolationProfile.fromJson(hostKube.require("IsolationProfile", namespace,
                tc.spec().isolationProfileRef().name())).orElseThrow();
        ControlPlaneNames names = ControlPlaneNames.of(tc);
        String workload = profile.workloadServiceAccountName(tenant);
        String apiIp = null;
        for (JsonObject o : plane().render(tc, profile)) {
            String name = Json.string(o, "metadata", "name");
            String kind = Json.string(o, "kind");
            if ("Service".equals(kind) && (names.apiService().equals(name) || names.dnsService().equals(name))) {
                JsonObject created = hostKube.create(o);
                if (names.apiService().equals(name)) {
                    apiIp = Json.string(created, "spec", "clusterIP");
                }
            } else if ("ServiceAccount".equals(kind) && workload.equals(name)) {
                hostKube.create(o);
            }
        }
        if (apiIp == null) {
            throw new IllegalStateException("tenant " + tenant + " renders no API Service " + names.apiService());
        }
        return apiIp;
    }

    /** The example custom resources, renamed for {@code tenant} and moved to the host namespace. */
    List<JsonObject> customResources(String tenant) {
        List<JsonObject> out = new ArrayList<>();
        for (LoadedObject lo : Manifests.read(EXAMPLES.resolve("tenantcluster.yaml"),
                EXAMPLES.resolve("isolationprofile.yaml"), EXAMPLES.resolve("syncpolicy.yaml"))) {
            JsonObject o = lo.object().deepCopy();
            Json.child(o, "metadata").addProperty("namespace", namespace);
            if ("TenantCluster".equals(lo.kind())) {
                Json.child(o, "metadata").addProperty("name", tenant);
            }
            out.add(o);
        }
        return out;
    }

    /**
     * The tenant objects of the examples, as a tenant API holds them: what the tenant applied
     * ({@code examples/yaml/workloads}, a Deployment among them) and the Pod its controllers made
     * ({@code examples/yaml/tenant-api-snapshot}; the in-process tenant API runs no controllers).
     */
    static List<JsonObject> exampleWorkloads() {
        List<JsonObject> out = new ArrayList<>();
        for (LoadedObject lo : Manifests.read(EXAMPLES.resolve("workloads"), EXAMPLES.resolve("tenant-api-snapshot"))) {
            out.add(lo.object().deepCopy());
        }
        return out;
    }

    static ApiClient client(Path kubeconfig) {
        try (var reader = Files.newBufferedReader(kubeconfig)) {
            return ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits up to {@code timeout} for {@code condition}, checking every 50 ms. */
    static boolean eventually(Duration timeout, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return true;
                }
            } catch (AssertionError | TenantPlaneException e) {
                // not there yet
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }

    @Override
    public void close() {
        tenantServers.values().forEach(KubeApiServer::close);
        if (realCluster != null) {
            hostKube.delete("Namespace", null, namespace);
            realCluster.close();
            return;
        }
        hostServer.close();
        try {
            Files.walk(tempDir).sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
