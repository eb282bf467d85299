package io.tenantplane.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.TenantContext;
import io.tenantplane.testkit.KubeApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * Setting up API servers for the live measurements, over plain HTTP (JDK {@link HttpClient}) so that nothing the
 * harness does runs through the code it measures.
 */
final class Cluster {

    static final List<String> SYSTEM_NAMESPACES = List.of("default", "kube-system", "kube-public", "kube-node-lease");
    static final List<String> CRDS = List.of("isolationprofiles.tenantplane.io.yaml", "syncpolicies.tenantplane.io.yaml",
            "tenantclusters.tenantplane.io.yaml");
    /** Virtual threads, so the harness adds no platform threads to the counts it takes. */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .executor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor())
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final Map<String, String[]> PATHS = Map.ofEntries(
            Map.entry("Namespace", new String[] {"/api/v1", "namespaces", ""}),
            Map.entry("ConfigMap", new String[] {"/api/v1", "configmaps", "ns"}),
            Map.entry("Secret", new String[] {"/api/v1", "secrets", "ns"}),
            Map.entry("Service", new String[] {"/api/v1", "services", "ns"}),
            Map.entry("ServiceAccount", new String[] {"/api/v1", "serviceaccounts", "ns"}),
            Map.entry("Pod", new String[] {"/api/v1", "pods", "ns"}),
            Map.entry("TenantCluster", new String[] {"/apis/tenantplane.io/v1alpha1", "tenantclusters", "ns"}),
            Map.entry("SyncPolicy", new String[] {"/apis/tenantplane.io/v1alpha1", "syncpolicies", "ns"}),
            Map.entry("IsolationProfile", new String[] {"/apis/tenantplane.io/v1alpha1", "isolationprofiles", "ns"}),
            Map.entry("CustomResourceDefinition", new String[] {"/apis/apiextensions.k8s.io/v1",
                    "customresourcedefinitions", ""}),
            Map.entry("Lease", new String[] {"/apis/coordination.k8s.io/v1", "leases", "ns"}));

    private Cluster() {
    }

    /** One HTTP answer. */
    record Reply(int code, JsonObject body) {
        JsonObject ok(String what) {
            if (code < 200 || code >= 300) {
                throw new IllegalStateException(what + " answered " + code + ": " + body);
            }
            return body;
        }
    }

    /** A started host API server with the system namespaces, {@code hostNamespaces} and the tenantplane CRDs. */
    static KubeApiServer host(List<String> hostNamespaces) {
        List<String> ns = new ArrayList<>(SYSTEM_NAMESPACES);
        ns.addAll(hostNamespaces);
        KubeApiServer server = KubeApiServer.builder().namespaces(ns.toArray(String[]::new)).build().start();
        for (String crd : CRDS) {
            try (InputStream in = Cluster.class.getResourceAsStream("/crds/" + crd)) {
                if (in == null) {
                    throw new IllegalStateException("CRD " + crd + " is not on the class path (bench/pom.xml copies k8s/crds)");
                }
                for (LoadedObject lo : Manifests.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), Path.of(crd))) {
                    create(server.url(), lo.object());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return server;
    }

    /** A started tenant API server whose virtual namespaces are those of {@link Fixtures}. */
    static KubeApiServer tenant() {
        List<String> ns = new ArrayList<>(SYSTEM_NAMESPACES);
        IntStream.range(0, Fixtures.NAMESPACES).forEach(i -> ns.add(Fixtures.namespace(i)));
        return KubeApiServer.builder().namespaces(ns.toArray(String[]::new)).build().start();
    }

    /** A client-java client for {@code server}, as a platform would build one. */
    static ApiClient client(KubeApiServer server) {
        return client(server.url());
    }

    static ApiClient client(String url) {
        ApiClient c = new ClientBuilder().setBasePath(url).build();
        c.setReadTimeout(0);
        return c;
    }

    /** The SyncPolicy, IsolationProfile and TenantCluster of {@code tenant} in {@code hostNamespace}. */
    static List<JsonObject> tenantResources(String tenant, String hostNamespace) {
        JsonObject policy = parse("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy","metadata":{"name":"bench","namespace":"%s"},
                 "spec":{"kinds":[{"kind":"Pod","toHost":true,"fromHost":"status"},
                   {"kind":"Service","toHost":true,"fromHost":"status"},
                   {"kind":"ConfigMap","toHost":true},{"kind":"Secret","toHost":true}]}}""".formatted(hostNamespace));
        JsonObject profile = parse("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"IsolationProfile","metadata":{"name":"bench","namespace":"%s"},
                 "spec":{"podSecurity":{"level":"restricted","version":"latest"},
                   "services":{"allowedTypes":["ClusterIP"]}}}""".formatted(hostNamespace));
        JsonObject cluster = parse("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster","metadata":{"name":"%s","namespace":"%s"},
                 "spec":{"mode":"shared","isolationProfileRef":{"name":"bench"},"syncPolicyRef":{"name":"bench"},
                   "controlPlane":{"replicas":1,"datastore":{"type":"sqlite","storage":"1Gi"}}}}""".formatted(tenant, hostNamespace));
        return List.of(policy, profile, cluster);
    }

    /**
     * The tenant's API and DNS Services and its workload ServiceAccount as its provisioning renders them, for
     * benchmarks that run the Syncer without provisioning: created on the host (which allocates the ClusterIPs), they
     * let its pods sync, as on a cluster where provisioning ran first (without the Services a pass leaves every Pod
     * waiting, {@code TenantApiPending}; without the ServiceAccount the host refuses its Pods, 403).
     */
    static List<JsonObject> syncPrerequisites(String tenant, String hostNamespace) {
        TenantContext c = context(tenant, hostNamespace);
        io.tenantplane.controlplane.ControlPlaneNames names = io.tenantplane.controlplane.ControlPlaneNames.of(c.cluster());
        String api = names.apiService();
        String dns = names.dnsService();
        String workload = c.profile().workloadServiceAccountName(tenant);
        return io.tenantplane.TenantPlane.builder().build().render(c.cluster(), c.profile()).stream()
                .filter(o -> "Service".equals(Json.string(o, "kind"))
                        && List.of(api, dns).contains(Json.string(o, "metadata", "name"))
                        || "ServiceAccount".equals(Json.string(o, "kind"))
                        && workload.equals(Json.string(o, "metadata", "name")))
                .toList();
    }

    /** The tenant's resources as the SDK's records, for a pass without reading them back. */
    static TenantContext context(String tenant, String hostNamespace) {
        List<JsonObject> r = tenantResources(tenant, hostNamespace);
        return new TenantContext(TenantCluster.fromJson(r.get(2)).orElseThrow(),
                SyncPolicy.fromJson(r.get(0)).orElseThrow(), IsolationProfile.fromJson(r.get(1)).orElseThrow());
    }

    /** {@code o} without the fields the server sets, as a user would write it. */
    static JsonObject asUserWrites(JsonObject o) {
        JsonObject c = o.deepCopy();
        JsonObject meta = c.getAsJsonObject("metadata");
        for (String f : List.of("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation")) {
            meta.remove(f);
        }
        c.remove("status");
        JsonObject spec = c.getAsJsonObject("spec");
        if ("Service".equals(Json.string(c, "kind")) && spec != null && !"None".equals(Json.string(spec, "clusterIP"))) {
            // A user leaves the ClusterIP to the API server, which allocates it from its own range.
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
        return c;
    }

    /** The collection of {@code kind} in {@code namespace}; across all namespaces when it is null. */
    static String collectionPath(String kind, String namespace) {
        String[] p = PATHS.get(kind);
        if (p == null) {
            throw new IllegalArgumentException("no path for kind " + kind);
        }
        return p[0] + (p[2].isEmpty() || namespace == null ? "" : "/namespaces/" + namespace) + "/" + p[1];
    }

    static String objectPath(String kind, String namespace, String name) {
        return collectionPath(kind, namespace) + "/" + name;
    }

    /**
     * Creates {@code o}. When the connection breaks before an answer (the client can reuse a kept-alive connection
     * the loaded server has just closed), looks whether it was created, and creates it once more if not.
     */
    static JsonObject create(String base, JsonObject o) {
        String kind = Json.string(o, "kind");
        String ns = Json.string(o, "metadata", "namespace");
        String name = Json.string(o, "metadata", "name");
        for (int attempt = 1; ; attempt++) {
            try {
                return call(base, "POST", collectionPath(kind, ns), o).ok("create " + kind + " " + name);
            } catch (UncheckedIOException e) {
                if (attempt == STALE_CONNECTION_ATTEMPTS) {
                    throw e;
                }
                Reply there = name == null ? new Reply(404, null) : get(base, kind, ns, name);
                if (there.code() == 200) {
                    return there.body();
                }
            }
        }
    }

    /**
     * How often a request is sent again when its connection broke before an answer: the JDK server closes idle
     * connections beyond its limit while the client's pool still holds them, and each try drops one of them.
     */
    private static final int STALE_CONNECTION_ATTEMPTS = 10;

    static Reply get(String base, String kind, String namespace, String name) {
        return call(base, "GET", objectPath(kind, namespace, name), null);
    }

    static JsonObject update(String base, JsonObject o) {
        return call(base, "PUT", objectPath(Json.string(o, "kind"), Json.string(o, "metadata", "namespace"),
                Json.string(o, "metadata", "name")), o).ok("update " + Json.string(o, "metadata", "name"));
    }

    /** The items of a list, optionally filtered by a label selector. */
    static List<JsonObject> list(String base, String kind, String namespace, String labelSelector) {
        String path = collectionPath(kind, namespace) + (labelSelector == null ? ""
                : "?labelSelector=" + java.net.URLEncoder.encode(labelSelector, StandardCharsets.UTF_8));
        JsonArray items = call(base, "GET", path, null).ok("list " + kind).getAsJsonArray("items");
        List<JsonObject> out = new ArrayList<>();
        items.forEach(e -> out.add(e.getAsJsonObject()));
        return out;
    }

    static Reply call(String base, String method, String path, JsonObject body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json");
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(Json.gson().toJson(body)));
        try {
            HttpResponse<String> r = sendRetryingReads(b.build());
            String text = r.body();
            return new Reply(r.statusCode(), text == null || text.isBlank() ? null : parse(text));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + base + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static HttpResponse<String> sendRetryingReads(HttpRequest request)
            throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                if (!request.method().equals("GET") || attempt == STALE_CONNECTION_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    static JsonObject parse(String json) {
        return JsonParser.parseString(json).getAsJsonObject();
    }

    /** Waits up to {@code timeout} for {@code condition}, checking every {@code every}. */
    static boolean await(Duration timeout, Duration every, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(every);
        }
        return condition.getAsBoolean();
    }
}
