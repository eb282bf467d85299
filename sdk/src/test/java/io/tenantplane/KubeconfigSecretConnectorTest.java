package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.testkit.KubeApiServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubeconfig-Secret connector: one client per tenant, all over one OkHttp pool and dispatcher. */
class KubeconfigSecretConnectorTest {

    private final List<KubeApiServer> servers = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        servers.forEach(KubeApiServer::close);
    }

    private KubeApiServer started(String... namespaces) {
        KubeApiServer s = KubeApiServer.builder().namespaces(namespaces).build().start();
        servers.add(s);
        return s;
    }

    private static TenantCluster tenantCluster(String tenant) {
        JsonObject json = JsonParser.parseString("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster","metadata":{"name":"%s",
                 "namespace":"team-dev"},"spec":{"mode":"shared"}}""".formatted(tenant)).getAsJsonObject();
        return TenantCluster.fromJson(json).orElseThrow().withDefaults();
    }

    private void kubeconfigSecret(ApiClient host, String tenant, KubeApiServer tenantServer) throws Exception {
        String kubeconfig = Files.readString(tenantServer.writeKubeconfig(dir.resolve(tenant)));
        String json = """
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s-kubeconfig","namespace":"team-dev"},
                 "data":{"config":"%s"}}""".formatted(tenant, Base64.getEncoder().encodeToString(
                kubeconfig.getBytes(StandardCharsets.UTF_8)));
        new CoreV1Api(host).createNamespacedSecret("team-dev", io.kubernetes.client.openapi.JSON.deserialize(json,
                io.kubernetes.client.openapi.models.V1Secret.class)).execute();
    }

    @Test
    void everyTenantClientReachesItsOwnApiOverOneSharedPoolAndDispatcher() throws Exception {
        KubeApiServer host = started("default", "team-dev");
        ApiClient hostClient = new ClientBuilder().setBasePath(host.url()).build();
        KubeApiServer dev = started("default", "only-in-dev");
        KubeApiServer prod = started("default", "only-in-prod");
        kubeconfigSecret(hostClient, "dev", dev);
        kubeconfigSecret(hostClient, "prod", prod);
        KubeconfigSecretConnector connector = new KubeconfigSecretConnector(hostClient);

        ApiClient devClient = connector.connect(tenantCluster("dev"));
        ApiClient prodClient = connector.connect(tenantCluster("prod"));

        assertNotSame(devClient, prodClient);
        assertEquals(dev.url(), devClient.getBasePath());
        assertEquals(prod.url(), prodClient.getBasePath());
        assertSame(connector.base().connectionPool(), devClient.getHttpClient().connectionPool());
        assertSame(connector.base().connectionPool(), prodClient.getHttpClient().connectionPool());
        assertSame(connector.base().dispatcher(), devClient.getHttpClient().dispatcher());
        assertSame(connector.base().dispatcher(), prodClient.getHttpClient().dispatcher());
        assertNotSame(hostClient.getHttpClient().connectionPool(), devClient.getHttpClient().connectionPool(),
                "the host client is left as the caller built it");
        assertTrue(namespaces(devClient).contains("only-in-dev"), "dev's client talks to dev's API");
        assertTrue(namespaces(prodClient).contains("only-in-prod"), "prod's client talks to prod's API");
        assertSame(devClient, connector.connect(tenantCluster("dev")), "cached until the Secret changes");
    }

    @Test
    void sharingKeepsTheTenantsOwnInterceptorsAndTimeoutsAndTakesThePoolAndDispatcherAndHttp11() {
        Interceptor credentials = chain -> chain.proceed(chain.request().newBuilder()
                .header("Authorization", "Bearer tenant").build());
        OkHttpClient own = new OkHttpClient.Builder().addInterceptor(credentials)
                .readTimeout(Duration.ofSeconds(42)).build();
        OkHttpClient base = new OkHttpClient();

        OkHttpClient shared = KubeconfigSecretConnector.sharing(own, base);

        assertEquals(List.of(credentials), shared.interceptors());
        assertEquals(42_000, shared.readTimeoutMillis());
        assertSame(own.sslSocketFactory(), shared.sslSocketFactory());
        assertSame(own.hostnameVerifier(), shared.hostnameVerifier());
        assertSame(base.connectionPool(), shared.connectionPool());
        assertSame(base.dispatcher(), shared.dispatcher());
        assertEquals(List.of(okhttp3.Protocol.HTTP_1_1), shared.protocols(),
                "no HTTP/2: OkHttp would read each tenant's connection on a platform thread of its own");
    }

    private static List<String> namespaces(ApiClient client) throws Exception {
        return new CoreV1Api(client).listNamespace().execute().getItems().stream()
                .map(n -> n.getMetadata().getName()).toList();
    }
}
