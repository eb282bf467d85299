package io.tenantplane.service;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/** What a test does to an API server by hand, as kubectl would: client-java dynamic calls with JSON objects. */
final class Kube {

    static final Path REPO = Path.of(System.getProperty("tenantplane.repo.root", "..")).toAbsolutePath().normalize();
    static final Path EXAMPLES = REPO.resolve("examples/yaml");

    private final ApiClient client;

    Kube(ApiClient client) {
        this.client = client;
    }

    /** A client of the server at {@code url}. */
    static Kube at(String url) {
        return new Kube(new ClientBuilder().setBasePath(url).build());
    }

    /** A client of the server at {@code url} that counts the writes it sends (any method but GET). */
    static ApiClient countingWrites(String url, AtomicLong writes, String userAgent) {
        ApiClient c = new ClientBuilder().setBasePath(url).build();
        c.setUserAgent(userAgent);
        c.setHttpClient(c.getHttpClient().newBuilder().addInterceptor(chain -> {
            if (!chain.request().method().equals("GET")) {
                writes.incrementAndGet();
            }
            return chain.proceed(chain.request());
        }).build());
        return c;
    }

    ApiClient client() {
        return client;
    }

    /** Creates the tenantplane CRDs from {@code k8s/crds}. */
    Kube installCrds() {
        for (LoadedObject lo : Manifests.read(REPO.resolve("k8s/crds"))) {
            var crds = new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", client);
            ok(crds.create(new DynamicKubernetesObject(lo.object())), "create CRD " + lo.name());
        }
        return this;
    }

    /** The objects of the YAML files, each with {@code edit} applied. */
    static List<JsonObject> read(UnaryOperator<JsonObject> edit, Path... files) {
        List<JsonObject> out = new ArrayList<>();
        for (LoadedObject lo : Manifests.read(files)) {
            out.add(edit.apply(lo.object().deepCopy()));
        }
        return out;
    }

    /** The example IsolationProfile, SyncPolicy and TenantCluster, the TenantCluster renamed, in {@code namespace}. */
    static List<JsonObject> exampleTenant(String namespace, String tenant) {
        return read(o -> {
            Json.child(o, "metadata").addProperty("namespace", namespace);
            if ("TenantCluster".equals(Json.string(o, "kind"))) {
                Json.child(o, "metadata").addProperty("name", tenant);
            }
            return o;
        }, EXAMPLES.resolve("isolationprofile.yaml"), EXAMPLES.resolve("syncpolicy.yaml"),
                EXAMPLES.resolve("tenantcluster.yaml"));
    }

    /** The example tenant workloads, without the fields an API server sets (they show objects as read back). */
    static List<JsonObject> exampleWorkloads() {
        return read(o -> {
            JsonObject meta = Json.child(o, "metadata");
            for (String field : List.of("uid", "resourceVersion", "creationTimestamp", "managedFields")) {
                meta.remove(field);
            }
            return o;
        }, EXAMPLES.resolve("workloads"), EXAMPLES.resolve("tenant-api-snapshot"));
    }

    /**
     * A token of ServiceAccount {@code namespace/name} (made when missing), as {@code kubectl create token} gives one:
     * what a REST caller presents.
     */
    String token(String namespace, String name) {
        if (get("ServiceAccount", namespace, name).isEmpty()) {
            create(parse("{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\""
                    + name + "\",\"namespace\":\"" + namespace + "\"}}"));
        }
        try {
            return new io.kubernetes.client.openapi.apis.CoreV1Api(client).createNamespacedServiceAccountToken(name,
                    namespace, new io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest().spec(
                            new io.kubernetes.client.openapi.models.V1TokenRequestSpec().audiences(List.of())))
                    .execute().getStatus().getToken();
        } catch (io.kubernetes.client.openapi.ApiException e) {
            throw new AssertionError("TokenRequest for " + namespace + "/" + name + ": " + e.getCode() + " "
                    + e.getResponseBody(), e);
        }
    }

    /**
     * Lets ServiceAccount {@code saNamespace/sa} get, list and watch every resource: in {@code namespace} through a
     * RoleBinding, or everywhere through a ClusterRoleBinding when {@code namespace} is null. The ClusterRole is
     * {@code tenantplane-test-viewer}, made on first use (the in-process server has no bootstrap roles).
     */
    void grantView(String saNamespace, String sa, String namespace) {
        if (get("ClusterRole", null, "tenantplane-test-viewer").isEmpty()) {
            create(parse("""
                    {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
                     "metadata":{"name":"tenantplane-test-viewer"},
                     "rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["get","list","watch"]}]}"""));
        }
        String binding = "view-" + saNamespace + "-" + sa;
        String subjects = "\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"" + sa + "\",\"namespace\":\""
                + saNamespace + "\"}],\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
                + "\"name\":\"tenantplane-test-viewer\"}";
        create(parse(namespace == null
                ? "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":"
                        + "{\"name\":\"" + binding + "\"}," + subjects + "}"
                : "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":"
                        + "{\"name\":\"" + binding + "\",\"namespace\":\"" + namespace + "\"}," + subjects + "}"));
    }

    /** A token that may read everything on this server: ServiceAccount {@code default/rest-admin} with view rights. */
    String viewerToken() {
        if (get("ClusterRoleBinding", null, "view-default-rest-admin").isEmpty()) {
            grantView("default", "rest-admin", null);
        }
        return token("default", "rest-admin");
    }

    private static JsonObject parse(String json) {
        return com.google.gson.JsonParser.parseString(json).getAsJsonObject();
    }

    static JsonObject namespace(String name) {
        JsonObject ns = new JsonObject();
        ns.addProperty("apiVersion", "v1");
        ns.addProperty("kind", "Namespace");
        Json.child(ns, "metadata").addProperty("name", name);
        return ns;
    }

    JsonObject create(JsonObject o) {
        ResourceKind k = kind(Json.string(o, "apiVersion"), Json.string(o, "kind"));
        String ns = Json.string(o, "metadata", "namespace");
        DynamicKubernetesApi api = api(k);
        var obj = new DynamicKubernetesObject(o);
        return ok(k.namespaced() ? api.create(ns, obj, new io.kubernetes.client.util.generic.options.CreateOptions())
                : api.create(obj), "create " + k.kind() + " " + Json.string(o, "metadata", "name")).getRaw();
    }

    void createAll(List<JsonObject> objects) {
        objects.forEach(this::create);
    }

    JsonObject update(JsonObject o) {
        ResourceKind k = kind(Json.string(o, "apiVersion"), Json.string(o, "kind"));
        return ok(api(k).update(new DynamicKubernetesObject(o)), "update " + Json.string(o, "metadata", "name"))
                .getRaw();
    }

    /**
     * Changes the object named like {@code o} as a user's edit does: reads it, applies {@code change}, writes it
     * conflict-checked, and on a 409 (a controller wrote it meanwhile, e.g. its status) reads it again and retries.
     */
    JsonObject edit(JsonObject o, java.util.function.Consumer<JsonObject> change) {
        String kind = Json.string(o, "kind");
        String ns = Json.string(o, "metadata", "namespace");
        String name = Json.string(o, "metadata", "name");
        for (int attempt = 1; ; attempt++) {
            JsonObject current = require(kind, ns, name);
            change.accept(current);
            ResourceKind k = kind(Json.string(current, "apiVersion"), kind);
            KubernetesApiResponse<DynamicKubernetesObject> r = api(k).update(new DynamicKubernetesObject(current));
            if (r.getHttpStatusCode() != 409 || attempt == 5) {
                return ok(r, "update " + name).getRaw();
            }
        }
    }

    /** Writes {@code o}'s status; a Pod keeps the QoS class the server computed, as a kubelet does. */
    JsonObject updateStatus(JsonObject o) {
        ResourceKind k = kind(Json.string(o, "apiVersion"), Json.string(o, "kind"));
        if ("Pod".equals(Json.string(o, "kind")) && Json.string(o, "status", "qosClass") == null) {
            get("Pod", Json.string(o, "metadata", "namespace"), Json.string(o, "metadata", "name"))
                    .map(current -> Json.string(current, "status", "qosClass"))
                    .ifPresent(q -> Json.child(o, "status").addProperty("qosClass", q));
        }
        return ok(api(k).updateStatus(new DynamicKubernetesObject(o), x -> x.getRaw().get("status")),
                "update status " + Json.string(o, "metadata", "name")).getRaw();
    }

    /**
     * Plays the host's Deployment controller for a tenant's DNS in {@code namespace}, which a host without a
     * simulator does not run: once it exists, every replica is reported available.
     */
    void dnsRuns(String namespace, String tenant) {
        get("Deployment", namespace, tenant + "-dns").filter(d -> Json.number(d, 0, "status", "availableReplicas") < 1)
                .ifPresent(d -> {
                    long want = Json.number(d, 1, "spec", "replicas");
                    d.add("status", com.google.gson.JsonParser.parseString("{\"replicas\":" + want
                            + ",\"updatedReplicas\":" + want + ",\"readyReplicas\":" + want
                            + ",\"availableReplicas\":" + want + "}"));
                    updateStatus(d);
                });
    }

    Optional<JsonObject> get(String kind, String namespace, String name) {
        ResourceKind k = kind(null, kind);
        KubernetesApiResponse<DynamicKubernetesObject> r = k.namespaced() ? api(k).get(namespace, name)
                : api(k).get(name);
        if (r.getHttpStatusCode() == 404) {
            return Optional.empty();
        }
        return Optional.of(typed(ok(r, "get " + kind + " " + name).getRaw(), k));
    }

    JsonObject require(String kind, String namespace, String name) {
        return get(kind, namespace, name).orElseThrow(() -> new AssertionError(kind + " " + namespace + "/" + name
                + " not found"));
    }

    List<JsonObject> list(String kind, String namespace) {
        ResourceKind k = kind(null, kind);
        KubernetesApiResponse<DynamicKubernetesListObject> r = namespace == null ? api(k).list()
                : api(k).list(namespace, new ListOptions());
        List<JsonObject> out = new ArrayList<>();
        for (DynamicKubernetesObject o : ok(r, "list " + kind).getItems()) {
            out.add(typed(o.getRaw(), k));
        }
        return out;
    }

    void delete(String kind, String namespace, String name) {
        ResourceKind k = kind(null, kind);
        ok(k.namespaced() ? api(k).delete(namespace, name) : api(k).delete(name), "delete " + kind + " " + name);
    }

    private DynamicKubernetesApi api(ResourceKind k) {
        return new DynamicKubernetesApi(k.group(), k.version(), k.plural(), client);
    }

    static ResourceKind kind(String apiVersion, String kind) {
        return ResourceKind.wellKnown(apiVersion, kind).or(() -> Optional.ofNullable(TEST_KINDS.get(kind)))
                .orElseThrow(() -> new IllegalArgumentException(kind));
    }

    /** Kinds the tests create that tenantplane's table does not know: CRDs, and a team's own custom kind. */
    private static final Map<String, ResourceKind> TEST_KINDS = Map.of(
            "CustomResourceDefinition", new ResourceKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                    "customresourcedefinitions", false),
            "Backup", new ResourceKind("example.com", "v1", "Backup", "backups", true));

    void createCrd(JsonObject crd) {
        create(crd);
    }

    private static JsonObject typed(JsonObject raw, ResourceKind k) {
        JsonObject o = raw.deepCopy();
        if (!o.has("apiVersion")) {
            o.addProperty("apiVersion", k.apiVersion());
        }
        if (!o.has("kind")) {
            o.addProperty("kind", k.kind());
        }
        return o;
    }

    private static <T extends io.kubernetes.client.common.KubernetesType> T ok(KubernetesApiResponse<T> r,
                                                                             String what) {
        if (!r.isSuccess()) {
            throw new AssertionError(what + ": HTTP " + r.getHttpStatusCode() + " "
                    + (r.getStatus() == null ? "" : r.getStatus().getMessage()));
        }
        return r.getObject();
    }

    /** Waits up to {@code timeout} for {@code condition}, checking every 50 ms. */
    static boolean eventually(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return true;
                }
            } catch (AssertionError | RuntimeException e) {
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
}
