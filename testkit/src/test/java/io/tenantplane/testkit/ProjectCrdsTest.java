package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The project's own CRDs ({@code k8s/crds}) pass the checks a real API server makes and are served. */
class ProjectCrdsTest {
    private static final Path CRDS = Path.of("..", "k8s", "crds");
    private static final Path EXAMPLES = Path.of("..", "examples", "yaml");
    /** The SyncPolicy of docs/sync.md: custom kinds with references and patches, and mirrors from the host. */
    private static final Path SYNC_EXAMPLES = Path.of("..", "examples", "sync");

    /** The YAML documents directly in {@code dir} (not its subdirectories). */
    private static List<JsonObject> documents(Path dir) throws IOException {
        List<JsonObject> docs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .sorted().toList()) {
                try (Reader in = Files.newBufferedReader(f)) {
                    for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(in)) {
                        if (doc != null) {
                            docs.add(Json.GSON.toJsonTree(doc).getAsJsonObject());
                        }
                    }
                }
            }
        }
        return docs;
    }

    private static List<JsonObject> crds() throws IOException {
        return documents(CRDS).stream().filter(o -> "CustomResourceDefinition".equals(Json.str(o, "kind"))).toList();
    }

    private static void install(ApiClient client, List<JsonObject> crds) {
        DynamicKubernetesApi api = new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                client);
        for (JsonObject crd : crds) {
            KubernetesApiResponse<DynamicKubernetesObject> response = api.create(new DynamicKubernetesObject(crd));
            assertTrue(response.isSuccess(), () -> Json.str(Json.obj(crd, "metadata"), "name") + ": "
                    + response.getStatus());
        }
    }

    @Test
    void theExampleTenantObjectsAreValidAgainstTheProjectCrds() throws Exception {
        List<JsonObject> examples = java.util.stream.Stream.concat(documents(EXAMPLES).stream(),
                        documents(SYNC_EXAMPLES).stream())
                .filter(o -> String.valueOf(Json.str(o, "apiVersion")).startsWith("tenantplane.io/")).toList();
        assertFalse(examples.isEmpty(), "no tenantplane.io objects in " + EXAMPLES.toAbsolutePath());
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            ApiClient client = Clients.client(server);
            install(client, crds());
            for (JsonObject example : examples) {
                String apiVersion = Json.str(example, "apiVersion");
                String kind = Json.str(example, "kind");
                JsonObject crd = crds().stream().filter(c -> kind.equals(Json.str(Json.obj(Json.obj(c, "spec"),
                        "names"), "kind"))).findFirst().orElseThrow(() -> new AssertionError("no CRD for " + kind));
                JsonObject spec = Json.obj(crd, "spec");
                String ns = Json.str(Json.obj(example, "metadata"), "namespace");
                boolean namespaced = "Namespaced".equals(Json.str(spec, "scope"));
                if (namespaced && ns == null) {
                    ns = "default";
                }
                if (namespaced) {
                    new DynamicKubernetesApi("", "v1", "namespaces", client).create(new DynamicKubernetesObject(
                            Json.object("apiVersion", "v1", "kind", "Namespace", "metadata", Json.object("name", ns))));
                }
                DynamicKubernetesApi api = new DynamicKubernetesApi(Json.str(spec, "group"),
                        apiVersion.substring(apiVersion.indexOf('/') + 1),
                        Json.str(Json.obj(spec, "names"), "plural"), client);
                JsonObject body = example.deepCopy();
                if (namespaced) {
                    Json.meta(body).addProperty("namespace", ns);
                }
                KubernetesApiResponse<DynamicKubernetesObject> created = api.create(new DynamicKubernetesObject(body));
                assertTrue(created.isSuccess(), () -> kind + " " + Json.str(Json.obj(example, "metadata"), "name")
                        + ": " + created.getStatus());
            }
        }
    }

    @Test
    void everyProjectCrdIsAcceptedAndServed() throws Exception {
        List<JsonObject> crds = crds();
        assertFalse(crds.isEmpty(), "no CRDs found in " + CRDS.toAbsolutePath());
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            ApiClient client = Clients.client(server);
            install(client, crds);
            for (JsonObject crd : crds) {
                JsonObject spec = Json.obj(crd, "spec");
                String group = Json.str(spec, "group");
                String plural = Json.str(Json.obj(spec, "names"), "plural");
                for (var version : Json.arr(spec, "versions")) {
                    if (!Json.bool(version.getAsJsonObject(), "served")) {
                        continue;
                    }
                    var list = new DynamicKubernetesApi(group, Json.str(version.getAsJsonObject(), "name"), plural,
                            client).list();
                    assertEquals(200, list.getHttpStatusCode(), () -> plural + "." + group + " is not served");
                }
            }
        }
    }

    /**
     * Each CEL rule of the project CRDs refuses what it is written to refuse, with its message at its path, as a real
     * API server runs them (the testkit runs them with cel-java).
     */
    @Test
    void theCelRulesOfTheProjectCrdsRefuseWhatTheySay() throws Exception {
        try (KubeApiServer server = KubeApiServer.builder().namespaces("team-dev").build().start()) {
            ApiClient client = Clients.client(server);
            install(client, crds());
            DynamicKubernetesApi tenantClusters = new DynamicKubernetesApi("tenantplane.io", "v1alpha1",
                    "tenantclusters", client);
            DynamicKubernetesApi policies = new DynamicKubernetesApi("tenantplane.io", "v1alpha1", "syncpolicies",
                    client);
            record Case(DynamicKubernetesApi api, String json, String field, String message) {
            }
            String tc = """
                    {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster","metadata":{"name":"%s",
                     "namespace":"team-dev"},"spec":{%s"isolationProfileRef":{"name":"p"},"syncPolicyRef":{"name":"s"}}}""";
            String sp = """
                    {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy","metadata":{"name":"s",
                     "namespace":"team-dev"},"spec":{"kinds":[%s]}}""";
            List<Case> cases = List.of(
                    new Case(tenantClusters, tc.formatted("a".repeat(33), ""), "<nil>", "at most 32 characters"),
                    new Case(tenantClusters, tc.formatted("9lives", ""), "<nil>", "a DNS-1035 label"),
                    new Case(tenantClusters, tc.formatted("dev", "\"hostNamespace\":\"x\","), "spec",
                            "only for dedicated and private modes"),
                    new Case(tenantClusters, tc.formatted("dev", "\"controlPlane\":{\"replicas\":3,"
                            + "\"datastore\":{\"type\":\"sqlite\"}},"), "spec.controlPlane", "sqlite requires replicas = 1"),
                    new Case(tenantClusters, tc.formatted("dev", "\"controlPlane\":{\"replicas\":4,"
                            + "\"datastore\":{\"type\":\"etcd\"}},"), "spec.controlPlane", "odd number of replicas"),
                    new Case(tenantClusters, tc.formatted("dev", "\"controlPlane\":{\"serviceNodePortRange\":"
                            + "\"32767-30000\"},"), "spec.controlPlane.serviceNodePortRange", "1 <= first <= last <= 65535"),
                    new Case(tenantClusters, tc.formatted("dev", "\"controlPlane\":{\"serviceNodePortRange\":"
                            + "\"0-100\"},"), "spec.controlPlane.serviceNodePortRange", "1 <= first <= last <= 65535"),
                    new Case(tenantClusters, tc.formatted("dev", "\"controlPlane\":{\"serviceNodePortRange\":"
                            + "\"30000-99999\"},"), "spec.controlPlane.serviceNodePortRange", "1 <= first <= last <= 65535"),
                    new Case(policies, sp.formatted("{\"kind\":\"ConfigMap\",\"toHost\":true,\"fromHost\":\"status\"}"),
                            "spec.kinds[0]", "fromHost: status applies only to kinds with a status"),
                    new Case(policies, sp.formatted("{\"kind\":\"PriorityClass\",\"toHost\":false,"
                            + "\"namespaces\":{\"include\":[\"a\"]}}"), "spec.kinds[0]", "a cluster-scoped kind has no namespace filter"),
                    new Case(policies, sp.formatted("{\"kind\":\"Backup\",\"apiVersion\":\"example.com/v1\",\"toHost\":true,"
                            + "\"patches\":[{\"op\":\"remove\",\"path\":\"spec.x\",\"valueFrom\":\"tenant\"}]}"),
                            "spec.kinds[0].patches[0]", "op remove takes no value"));
            for (Case c : cases) {
                KubernetesApiResponse<DynamicKubernetesObject> r = c.api().create(new DynamicKubernetesObject(
                        Json.GSON.fromJson(c.json(), JsonObject.class)));
                assertEquals(422, r.getHttpStatusCode(), () -> c.json() + " was accepted");
                var causes = r.getStatus().getDetails().getCauses();
                assertTrue(causes.stream().anyMatch(cause -> c.field().equals(cause.getField())
                        && cause.getMessage().contains(c.message())), () -> c.json() + ": " + causes);
            }
            KubernetesApiResponse<DynamicKubernetesObject> ok = tenantClusters.create(new DynamicKubernetesObject(
                    Json.GSON.fromJson(tc.formatted("dev", "\"mode\":\"dedicated\",\"hostNamespace\":\"x\","
                            + "\"controlPlane\":{\"replicas\":3,\"datastore\":{\"type\":\"etcd\"},"
                            + "\"serviceNodePortRange\":\"30000-32767\"},"),
                            JsonObject.class)));
            assertTrue(ok.isSuccess(), () -> "a TenantCluster every rule accepts: " + ok.getStatus());
        }
    }
}
