package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.kubelet.KubeletServer;
import io.tenantplane.observe.KubeletRequest;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl top} inside a tenant, end to end against in-process servers: a simulated host running
 * metrics-server, one in-process API server per tenant whose aggregator proxies {@code metrics.k8s.io} to the
 * APIService tenantplane registered (its front-proxy client certificate signed by the tenant's own request-header CA,
 * which the control plane publishes into the kubeconfig Secret), and tenantplane's kubelet endpoint answering from the
 * host's PodMetrics. Also: who is refused, and that one tenant never sees another's usage.
 */
@Tag(Live.HOOKS)
class KubectlTopIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path work;

    private Live live;
    private KubeletCa ca;
    private KubeletServer kubelet;
    private TenantPlane plane;
    private final List<KubeletRequest> calls = new CopyOnWriteArrayList<>();
    private final java.util.Map<String, KubeletCa> frontProxyCas = new java.util.HashMap<>();

    @BeforeEach
    void start() throws IOException {
        // One host node: every tenant's Pods run on it, so a mirror's usage shows whether other tenants' load leaks.
        live = Live.inProcess(KubeApiServer.builder().simulate(Simulation.builder().nodes(1).build()).streams()
                .metricsServer());
        ca = KubeletCa.generate("tenantplane-kubelet-ca", Clock.systemUTC());
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Observer recording = new Observer() {
            @Override
            public void kubeletRequest(TenantKey tenant, KubeletRequest request) {
                calls.add(request);
            }
        };
        plane = live.plane(b -> b.kubeletEndpoint(new KubeletEndpoint("localhost", port, ca)).observer(recording));
        kubelet = plane.kubeletServer().serving(ca.issueServing(List.of("localhost"), Duration.ofDays(1)))
                .bindAddress(InetAddress.getLoopbackAddress()).port(port).start();
    }

    @AfterEach
    void stop() {
        if (kubelet != null) {
            kubelet.close();
        }
        live.close();
    }

    /**
     * Provisions {@code tenant}, publishes its request-header CA as its control plane's publisher does, and starts its
     * API server with the aggregator client certificate of that CA.
     */
    private Kube tenant(String tenant) {
        live.createTenant(tenant, Live.quotaTimes(3));
        plane.ensure(live.key(tenant));
        KubeletCa frontProxy = requestHeaderCa();
        frontProxyCas.put(tenant, frontProxy);
        publish(tenant, frontProxy);
        KubeletCa.Credential aggregator = aggregator(frontProxy);
        return live.tenant(tenant, KubeApiServer.builder().proxyClient(aggregator.privateKey(),
                aggregator.certificate()));
    }

    /** A stand-in for k3s's request-header CA ({@code pkg/daemons/control/deps/deps.go}). */
    private static KubeletCa requestHeaderCa() {
        return KubeletCa.generate("k3s-request-header-ca@" + System.nanoTime(), Clock.systemUTC());
    }

    /** What k3s's aggregator presents ({@code client-auth-proxy.crt}): common name system:auth-proxy. */
    private static KubeletCa.Credential aggregator(KubeletCa requestHeaderCa) {
        return requestHeaderCa.issueClient("system:auth-proxy", Duration.ofDays(1));
    }

    /** What the kubeconfig-publisher container does with k3s's request-header-ca.crt. */
    private static void publish(Live live, String tenant, KubeletCa frontProxy) {
        JsonObject secret = live.hostKube.require("Secret", live.namespace, tenant + "-kubeconfig");
        Json.child(secret, "data").addProperty("request-header-ca.crt",
                Base64.getEncoder().encodeToString(frontProxy.certificatePem().getBytes(StandardCharsets.US_ASCII)));
        live.hostKube.update(secret);
    }

    private void publish(String tenant, KubeletCa frontProxy) {
        publish(live, tenant, frontProxy);
    }

    private void runningPod(Kube api, String tenant, String name, String cpu, String memory) {
        api.create(SyncIT.pod("default", name, Map.of("app", name)));
        assertTrue(eventually(() -> {
            plane.converge(live.key(tenant));
            JsonObject pod = api.require("Pod", "default", name);
            return "Running".equals(Json.string(pod, "status", "phase"))
                    && Json.string(pod, "spec", "nodeName") != null;
        }), () -> "tenant Pod " + name + " runs: " + api.require("Pod", "default", name));
        JsonObject pod = api.require("Pod", "default", name);
        for (com.google.gson.JsonElement c : Json.object(pod, "spec").getAsJsonArray("containers")) {
            live.requireHostServer().setContainerUsage(live.namespace, name + "-x-default-x-" + tenant,
                    Json.string(c.getAsJsonObject(), "name"), cpu, memory);
        }
    }

    @Test
    void kubectlTopInsideATenantShowsItsPodsUsageOnTheHostAndNoOtherTenants() throws Exception {
        Kube dev = tenant("dev");
        Kube ops = tenant("ops");
        runningPod(dev, "dev", "web", "250m", "64Mi");
        runningPod(ops, "ops", "api", "750m", "128Mi");
        // The passes that ran the pods registered metrics.k8s.io in each tenant (MetricsApiRegistered).
        assertTrue(calls.isEmpty(), "nothing called the endpoint yet: " + calls);

        JsonObject apiService = dev.require("APIService", null, "v1beta1.metrics.k8s.io");
        assertEquals("tenantplane-metrics", Json.string(apiService, "spec", "service", "name"));
        assertEquals(kubelet.port(), Json.object(apiService, "spec", "service").get("port").getAsInt());
        JsonObject service = dev.require("Service", "kube-system", "tenantplane-metrics");
        assertEquals("ExternalName", Json.string(service, "spec", "type"));
        assertEquals("localhost", Json.string(service, "spec", "externalName"));
        assertTrue(plane.converge(live.key("dev")).outcomes().stream()
                        .noneMatch(o -> o.decision().reason().equals(Reasons.METRICS_API_REGISTERED)),
                "a second pass finds the registration as it should be and writes nothing");
        // As the Syncer runs it (provisioning, then the pass on its context): the kubeconfig Secret, whose published
        // CA decides the registration, comes from provisioning's list and is not read again.
        io.tenantplane.ProvisionReport ensured = plane.ensure(live.key("dev"));
        long gets = kubeconfigGets("dev");
        plane.converge(ensured.context());
        assertEquals(gets, kubeconfigGets("dev"), "the pass read dev's kubeconfig Secret on its own");

        Path devConfig = live.tenantServer("dev").writeKubeconfig(work.resolve("dev"));
        Run top = kubectl(devConfig, "top", "pod");
        assertEquals(0, top.code(), top.err());
        List<String> lines = top.out().lines().toList();
        assertEquals(2, lines.size(), top.out());
        assertTrue(lines.get(0).matches("NAME\\s+CPU\\(cores\\)\\s+MEMORY\\(bytes\\)\\s*"), top.out());
        assertTrue(lines.get(1).matches("web\\s+250m\\s+64Mi\\s*"), top.out());

        Run byLabel = kubectl(devConfig, "top", "pod", "-l", "app=web", "--containers");
        assertEquals(0, byLabel.code(), byLabel.err());
        assertTrue(byLabel.out().contains("web") && byLabel.out().contains("250m"), byLabel.out());
        Run none = kubectl(devConfig, "top", "pod", "-l", "app=api");
        assertFalse(none.out().contains("750m"), "ops's pod carries app=api, and dev does not see it: " + none.out());

        String node = Json.string(dev.require("Pod", "default", "web"), "spec", "nodeName");
        assertEquals(node, Json.string(ops.require("Pod", "default", "api"), "spec", "nodeName"),
                "both tenants' Pods share the host node");
        Run nodes = kubectl(devConfig, "top", "node", node);
        assertEquals(0, nodes.code(), nodes.err());
        assertTrue(nodes.out().lines().skip(1).findFirst().orElse("").matches(node + "\\s+250m\\s+.*64Mi\\s+.*"),
                "the mirror's usage is dev's pods' usage on that host node only, not ops's 750m: " + nodes.out());

        Path opsConfig = live.tenantServer("ops").writeKubeconfig(work.resolve("ops"));
        Run opsTop = kubectl(opsConfig, "top", "pod", "-A");
        assertEquals(0, opsTop.code(), opsTop.err());
        assertTrue(opsTop.out().contains("api") && opsTop.out().contains("750m"), opsTop.out());
        assertFalse(opsTop.out().contains("web"), "ops sees none of dev's pods: " + opsTop.out());

        assertTrue(calls.stream().anyMatch(c -> c.verb().equals("metricsApi") && c.code() == 200
                && c.user().equals("system:admin")), () -> "counted with the user the tenant API forwarded: " + calls);
    }

    @Test
    void onlyTheTenantsOwnAggregatorIsAdmitted() throws Exception {
        Kube dev = tenant("dev");
        runningPod(dev, "dev", "web", "100m", "32Mi");
        KubeletCa devCa = frontProxyCas.get("dev");

        HttpResponse<String> own = get(tls(aggregator(devCa)), "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods");
        assertEquals(200, own.statusCode(), own.body());
        JsonArray items = com.google.gson.JsonParser.parseString(own.body()).getAsJsonObject().getAsJsonArray("items");
        assertEquals(1, items.size(), own.body());
        assertEquals("web", Json.string(items.get(0).getAsJsonObject(), "metadata", "name"));
        assertEquals("app", items.get(0).getAsJsonObject().getAsJsonArray("containers").get(0).getAsJsonObject()
                .get("name").getAsString());

        HttpResponse<String> discovery = get(tls(aggregator(devCa)), "/apis/metrics.k8s.io/v1beta1");
        assertEquals(200, discovery.statusCode(), "the aggregator's availability check reads discovery");
        assertTrue(discovery.body().contains("PodMetrics"), discovery.body());

        HttpResponse<String> missing = get(tls(aggregator(devCa)),
                "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope");
        assertEquals(404, missing.statusCode(), missing.body());

        HttpResponse<String> otherName = get(tls(devCa.issueClient("someone-else", Duration.ofDays(1))),
                "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods");
        assertEquals(403, otherName.statusCode(), "dev's request-header CA, but not its aggregator's name");

        assertEquals(404, get(tls(aggregator(devCa)), "/apis").statusCode(), "no aggregated discovery: the "
                + "aggregator's discovery manager falls back to /apis/metrics.k8s.io/v1beta1 on anything but 200 or 503");
        assertEquals(404, get(tls(aggregator(devCa)), "/openapi/v2").statusCode(),
                "no OpenAPI document: the aggregator's OpenAPI controller skips a 404 quietly");
        HttpResponse<String> logs = get(tls(aggregator(devCa)), "/containerLogs/default/web/app");
        assertEquals(403, logs.statusCode(), "an aggregator is no kubelet client: " + logs.body());

        KubeletCa unpublished = requestHeaderCa();
        assertThrows(IOException.class, () -> get(tls(aggregator(unpublished)),
                "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"), "a CA no tenant published fails the handshake");

        JsonObject kubeletSecret = live.hostKube.require("Secret", live.namespace, "dev-kubelet-client");
        JsonObject data = Json.object(kubeletSecret, "data");
        SSLContext kubeletClient = KubeletCa.context(KubeletCa.Credential.fromPem(decode(data, "tls.crt"),
                decode(data, "tls.key")), decode(data, "ca.crt"));
        HttpResponse<String> asKubeletClient = HttpClient.newBuilder().sslContext(kubeletClient).build()
                .send(request("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(403, asKubeletClient.statusCode(), "the kubelet client certificate forwards no user: "
                + asKubeletClient.body());
    }

    @Test
    void aTenantsOwnMetricsServerRegistrationIsLeftAlone() {
        Kube dev = tenant("dev");
        dev.create(Kube.json("""
                {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService",
                 "metadata":{"name":"v1beta1.metrics.k8s.io","labels":{"k8s-app":"metrics-server"}},
                 "spec":{"group":"metrics.k8s.io","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":100,
                  "insecureSkipTLSVerify":true,"service":{"namespace":"kube-system","name":"metrics-server"}}}"""));
        ConvergenceReport pass = plane.converge(live.key("dev"));
        assertTrue(pass.outcomes().stream().anyMatch(o -> o.decision().reason()
                .equals(Reasons.METRICS_API_OWNED_BY_TENANT)), pass::toString);
        JsonObject apiService = dev.require("APIService", null, "v1beta1.metrics.k8s.io");
        assertEquals("metrics-server", Json.string(apiService, "spec", "service", "name"),
                "the tenant's own metrics-server keeps its registration");
    }

    @Test
    void aHostWithoutMetricsServerIsSaidPlainly() throws Exception {
        try (Live bare = Live.simulated(Simulation.builder().nodes(1).build())) {
            TenantPlane barePlane = bare.plane(b -> b.kubeletEndpoint(new KubeletEndpoint("localhost", 1, ca)));
            try (KubeletServer server = barePlane.kubeletServer().serving(ca.issueServing(List.of("localhost"),
                    Duration.ofDays(1))).bindAddress(InetAddress.getLoopbackAddress()).port(0).start()) {
                bare.createTenant("dev", Live.quotaTimes(1));
                barePlane.ensure(bare.key("dev"));
                KubeletCa frontProxy = requestHeaderCa();
                publish(bare, "dev", frontProxy);
                HttpResponse<String> r = HttpClient.newBuilder().sslContext(tls(aggregator(frontProxy))).build()
                        .send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port()
                                        + "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods")).GET().build(),
                                HttpResponse.BodyHandlers.ofString());
                assertEquals(503, r.statusCode(), r.body());
                assertTrue(r.body().contains("install metrics-server on the host"), r.body());
            }
        }
    }

    // ------------------------------------------------------------ helpers

    private long kubeconfigGets(String tenant) {
        return live.requireHostServer().requests().entries().stream().filter(e -> e.verb().equals("get")
                && e.resource().equals("secrets") && (tenant + "-kubeconfig").equals(e.name())).count();
    }

    /**
     * TLS as a tenant aggregator has it: its client certificate, the endpoint trusted through the installation's CA.
     * The endpoint names no acceptable issuers, so the JDK presents the certificate as client-go does.
     */
    private SSLContext tls(KubeletCa.Credential client) {
        return KubeletCa.context(client, ca.certificatePem());
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("https://localhost:" + kubelet.port() + path)).GET()
                .header("X-Remote-User", "alice").header("X-Remote-Group", "dev-team")
                .timeout(Duration.ofSeconds(20)).build();
    }

    private HttpResponse<String> get(SSLContext tls, String path) throws IOException, InterruptedException {
        return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build()
                .send(request(path), HttpResponse.BodyHandlers.ofString());
    }

    private static String decode(JsonObject data, String key) {
        return new String(Base64.getDecoder().decode(data.get(key).getAsString()), StandardCharsets.UTF_8);
    }

    private record Run(int code, String out, String err) {
    }

    private Run kubectl(Path kubeconfig, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", work.resolve("kube-cache").toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "kubectl", ".out");
        Path err = Files.createTempFile(work, "kubectl", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl " + String.join(" ", args) + " finished");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static boolean eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
