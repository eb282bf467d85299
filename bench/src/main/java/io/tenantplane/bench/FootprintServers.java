package io.tenantplane.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.KubeApiServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The API servers of the footprint measurement, in a process of their own so that they add nothing to the heap and
 * threads measured: one host server (one host namespace per tenant, with its SyncPolicy and IsolationProfile but no
 * TenantCluster yet, and the kubeconfig Secret a tenant's control plane would publish) and one tenant server per
 * tenant holding its objects. Prints one JSON line
 * {@code {"host": URL, "tenants": [URL, ...]}} and serves until its standard input closes.
 *
 * <p>Usage: {@code FootprintServers TENANTS OBJECTS_PER_TENANT}
 */
public final class FootprintServers {

    private FootprintServers() {
    }

    /** The host namespace of tenant {@code i}. */
    static String hostNamespace(int i) {
        return "team-" + i;
    }

    /** The name of tenant {@code i}. */
    static String tenant(int i) {
        return "t" + i;
    }

    /** The Secret {@code <tenant>-kubeconfig} (key {@code config}) with a kubeconfig for {@code server}. */
    static JsonObject kubeconfigSecret(String tenant, String hostNamespace, KubeApiServer server) {
        String kubeconfig = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                contexts:
                - name: %1$s
                  context:
                    cluster: %1$s
                    user: %1$s
                current-context: %1$s
                users:
                - name: %1$s
                  user: {}
                """.formatted(tenant, server.url());
        JsonObject secret = new JsonObject();
        secret.addProperty("apiVersion", "v1");
        secret.addProperty("kind", "Secret");
        JsonObject meta = Json.child(secret, "metadata");
        // the name ControlPlaneNames#kubeconfigSecret gives, where the connector looks before status names one
        meta.addProperty("name", tenant + "-kubeconfig");
        meta.addProperty("namespace", hostNamespace);
        Json.child(secret, "data").addProperty(ControlPlaneNames.KUBECONFIG_KEY,
                Base64.getEncoder().encodeToString(kubeconfig.getBytes(StandardCharsets.UTF_8)));
        return secret;
    }

    /** Entry point; see the class comment. */
    public static void main(String[] args) throws Exception {
        int tenants = Integer.parseInt(args[0]);
        int objects = Integer.parseInt(args[1]);
        List<String> namespaces = new ArrayList<>();
        for (int i = 0; i < tenants; i++) {
            namespaces.add(hostNamespace(i));
        }
        KubeApiServer host = Cluster.host(namespaces);
        List<KubeApiServer> servers = new ArrayList<>();
        List<JsonObject> workload = Fixtures.tenantObjects(objects).stream().map(Cluster::asUserWrites).toList();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<KubeApiServer>> started = new ArrayList<>();
            for (int i = 0; i < tenants; i++) {
                int t = i;
                started.add(pool.submit(() -> {
                    Cluster.tenantResources(tenant(t), hostNamespace(t)).stream()
                            .filter(o -> !"TenantCluster".equals(Json.string(o, "kind")))
                            .forEach(o -> Cluster.create(host.url(), o));
                    Cluster.syncPrerequisites(tenant(t), hostNamespace(t)).forEach(o -> Cluster.create(host.url(), o));
                    KubeApiServer s = Cluster.tenant();
                    workload.forEach(o -> Cluster.create(s.url(), o));
                    Cluster.create(host.url(), kubeconfigSecret(tenant(t), hostNamespace(t), s));
                    return s;
                }));
            }
            for (Future<KubeApiServer> f : started) {
                servers.add(f.get());
            }
        }
        JsonObject out = new JsonObject();
        out.addProperty("host", host.url());
        JsonArray urls = new JsonArray();
        servers.forEach(s -> urls.add(s.url()));
        out.add("tenants", urls);
        System.out.println(Json.gson().toJson(out));
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until the parent closes our standard input
        }
        servers.forEach(KubeApiServer::close);
        host.close();
    }
}
