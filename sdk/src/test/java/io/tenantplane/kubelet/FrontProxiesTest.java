package io.tenantplane.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.apply.Reader;
import io.tenantplane.json.Json;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which tenant's aggregator a client certificate is, against an in-process host holding TenantClusters and the
 * request-header CAs their control planes published.
 */
class FrontProxiesTest {

    private KubeApiServer host;
    private Reader reader;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        host = KubeApiServer.builder().namespaces("default", "team-dev", "team-ops").build().start();
        for (LoadedObject crd : Manifests.read(Path.of("..", "k8s", "crds"))) {
            post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.object());
        }
        reader = new Reader(new ClientBuilder().setBasePath(host.url()).build());
    }

    @AfterEach
    void stop() {
        host.close();
    }

    private JsonObject post(String path, JsonObject body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(host.url() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() / 100 == 2, path + ": " + r.statusCode() + " " + r.body());
        return JsonParser.parseString(r.body()).getAsJsonObject();
    }

    /** A TenantCluster {@code name} in {@code namespace} whose control plane published {@code ca} (null: nothing). */
    private String tenant(String namespace, String name, String mode, KubeletCa ca) throws Exception {
        JsonObject tc = JsonParser.parseString("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                 "metadata":{"name":"%s","namespace":"%s"},
                 "spec":{"mode":"%s","isolationProfileRef":{"name":"restricted"},"syncPolicyRef":{"name":"default"},
                  "controlPlane":{"replicas":1,"datastore":{"type":"sqlite","storage":"5Gi"}}}}"""
                .formatted(name, namespace, mode)).getAsJsonObject();
        String uid = Json.string(post("/apis/tenantplane.io/v1alpha1/namespaces/" + namespace + "/tenantclusters", tc),
                "metadata", "uid");
        JsonObject secret = JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s-kubeconfig","namespace":"%s"},"data":{}}"""
                .formatted(name, namespace)).getAsJsonObject();
        if (ca != null) {
            Json.child(secret, "data").addProperty("request-header-ca.crt", Base64.getEncoder().encodeToString(
                    ca.certificatePem().getBytes(StandardCharsets.US_ASCII)));
        }
        post("/api/v1/namespaces/" + namespace + "/secrets", secret);
        return uid;
    }

    private FrontProxies proxies(List<String> namespaces) {
        return new FrontProxies(reader, namespaces, nanos::get);
    }

    private static KubeletCa requestHeaderCa() {
        return KubeletCa.generate("k3s-request-header-ca@" + System.nanoTime(), Clock.systemUTC());
    }

    private static java.security.cert.X509Certificate aggregator(KubeletCa ca) {
        return ca.issueClient(FrontProxies.ALLOWED_NAME, Duration.ofHours(1)).certificate();
    }

    @Test
    void aCertificateIsTheAggregatorOfTheTenantWhoseCaSignedIt() throws Exception {
        KubeletCa dev = requestHeaderCa();
        KubeletCa ops = requestHeaderCa();
        String devUid = tenant("team-dev", "dev", "shared", dev);
        tenant("team-ops", "ops", "dedicated", ops);
        FrontProxies proxies = proxies(List.of());

        Optional<FrontProxies.Tenant> found = proxies.identify(aggregator(dev));
        assertEquals(new TenantKey("team-dev", "dev"), found.orElseThrow().key());
        assertEquals(devUid, found.get().uid());
        assertEquals(new TenantKey("team-ops", "ops"), proxies.identify(aggregator(ops)).orElseThrow().key());
        assertEquals(Optional.empty(), proxies.identify(aggregator(requestHeaderCa())), "a CA no tenant published");
        KubeletCa impostor = KubeletCa.generate(dev.certificate().getSubjectX500Principal().getName().substring(3),
                Clock.systemUTC());
        assertEquals(Optional.empty(), proxies.identify(aggregator(impostor)),
                "a CA of the same name but another key signs no tenant's aggregator");
        assertEquals(Optional.empty(), proxies.identify(dev.issueServing(List.of("x"), Duration.ofHours(1))
                .certificate()), "a certificate without client-auth usage is no request-header client");
    }

    @Test
    void privateTenantsAndNamespacesNotServedAreNotRead() throws Exception {
        KubeletCa priv = requestHeaderCa();
        KubeletCa ops = requestHeaderCa();
        tenant("team-dev", "agents", "private", priv);
        tenant("team-ops", "ops", "shared", ops);
        FrontProxies onlyDev = proxies(List.of("team-dev"));
        assertEquals(Optional.empty(), onlyDev.identify(aggregator(priv)),
                "a private tenant's aggregator proxies nothing to this endpoint: its Pods have real kubelets");
        assertEquals(Optional.empty(), onlyDev.identify(aggregator(ops)), "team-ops is not served by this endpoint");
        assertEquals(0, host.requests().count("list", "tenantclusters") - countIn("team-dev"),
                "TenantClusters are listed in the served namespace only");
    }

    private long countIn(String namespace) {
        return host.requests().entries().stream().filter(e -> e.verb().equals("list")
                && e.resource().equals("tenantclusters") && namespace.equals(e.namespace())).count();
    }

    @Test
    void unknownIssuersReadTheHostAtMostOncePerInterval() throws Exception {
        FrontProxies proxies = proxies(List.of());
        KubeletCa late = requestHeaderCa();
        assertEquals(Optional.empty(), proxies.identify(aggregator(late)));
        long reads = host.requests().count("list", "tenantclusters");
        assertEquals(1, reads);
        tenant("team-dev", "dev", "shared", late);
        assertEquals(Optional.empty(), proxies.identify(aggregator(late)),
                "published after the last read, within the interval: not read again yet");
        assertEquals(reads, host.requests().count("list", "tenantclusters"), "no second read within the interval");
        nanos.addAndGet(FrontProxies.REFRESH_INTERVAL_NANOS);
        assertEquals(new TenantKey("team-dev", "dev"), proxies.identify(aggregator(late)).orElseThrow().key());
        assertEquals(reads + 1, host.requests().count("list", "tenantclusters"));
        assertTrue(proxies.identify(aggregator(late)).isPresent());
        assertEquals(reads + 1, host.requests().count("list", "tenantclusters"), "a known issuer reads nothing");
    }

    @Test
    void aCertificateTwoTenantsCasWouldAcceptIsRefused() throws Exception {
        KubeletCa shared = requestHeaderCa();
        tenant("team-dev", "dev", "shared", shared);
        tenant("team-ops", "ops", "shared", shared);
        assertEquals(Optional.empty(), proxies(List.of()).identify(aggregator(shared)),
                "which tenant it speaks for cannot be told, so it speaks for none");
    }
}
