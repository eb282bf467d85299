package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.util.Config;
import io.tenantplane.testkit.KubeApiServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts the packaged service exactly as the container image does: {@code java -jar tenantplane-service.jar} with
 * {@code libs/} beside it, on the JDK that ran the build.
 */
class RunnableJarIT {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path workDir;

    @Test
    void packagedJarStartsReportsStartedAndAliveAndStopsOnSigterm() throws Exception {
        int port = freePort();
        Process service = start(workDir.resolve("service.log"),
                "-Dserver.port=" + port, "-Dtenantplane.host.url=http://127.0.0.1:9");
        try {
            HttpResponse<String> started = awaitHttp(service, port, "/health/started", 200);
            assertTrue(started.body().contains("\"status\":\"UP\""), started.body());

            HttpResponse<String> live = get(port, "/health/live");
            assertEquals(200, live.statusCode(), live.body());
            assertTrue(live.body().contains("shard-leases"), live.body());

            String metrics = get(port, "/metrics").body();
            for (String name : List.of(ServiceMetrics.SHARDS_HELD, ServiceMetrics.SHARDS,
                    ServiceMetrics.WORKQUEUE_DEPTH)) {
                assertTrue(metrics.contains("\n" + name + "{"), () -> name + " missing in\n" + metrics);
            }
        } finally {
            service.destroy();
        }
        assertTrue(service.waitFor(30, TimeUnit.SECONDS), "stops within 30s of SIGTERM");
        String log = Files.readString(workDir.resolve("service.log"));
        assertTrue(log.contains("tenantplane service starting"), log);
    }

    @Test
    void packagedJarTalksToTheHostApiWithItsOwnLibsTakesEveryShardAndIsReady() throws Exception {
        try (KubeApiServer host = KubeApiServer.builder().namespaces("default", "tenantplane-system").build().start()) {
            Kube.at(host.url()).installCrds();
            int port = freePort();
            Process service = start(workDir.resolve("host.log"), "-Dserver.port=" + port,
                    "-Dtenantplane.host.url=" + host.url(), "-Dtenantplane.lease.identity=packaged-replica");
            try {
                HttpResponse<String> ready = awaitHttp(service, port, "/health/ready", 200);
                assertTrue(ready.body().contains("\"identity\":\"packaged-replica\""), ready.body());
                assertTrue(ready.body().contains("\"informers\":\"ready\""), ready.body());
                assertTrue(Kube.eventually(Duration.ofSeconds(10), () -> bodyOf(port, "/metrics").contains(
                        "\ntenantplane_shards_held{mp_scope=\"application\",} 32.0")), "the replica owns all 32 shards");
                String metrics = get(port, "/metrics").body();
                assertTrue(metrics.contains("\ntenantplane_tenants{mp_scope=\"application\",phase=\"Ready\",} 0.0"),
                        metrics);
                HttpResponse<String> anonymous = get(port, "/tenants");
                assertEquals(401, anonymous.statusCode(), "REST needs a token of the cluster by default: "
                        + anonymous.body());
                HttpResponse<String> tenants = get(port, "/tenants", Kube.at(host.url()).viewerToken());
                assertEquals(200, tenants.statusCode(), tenants.body());
                assertEquals("{\"items\":[]}", tenants.body());
            } finally {
                service.destroy();
            }
            assertTrue(service.waitFor(30, TimeUnit.SECONDS), "stops within 30s of SIGTERM");
            var leases = new CoordinationV1Api(Config.fromUrl(host.url(), false));
            for (int i = 0; i < 32; i++) {
                V1Lease lease = leases.readNamespacedLease("tenantplane-service-shard-" + i, "tenantplane-system")
                        .execute();
                assertNull(lease.getSpec().getHolderIdentity(), () -> "SIGTERM released every shard for the other"
                        + " replicas; log:\n" + readLog(workDir.resolve("host.log")));
            }
            assertEquals(32, leases.listNamespacedLease("tenantplane-system").execute().getItems().size(),
                    "the member Lease is deleted on SIGTERM");
        }
    }

    @Test
    void packagedJarReconcilesTheExampleTenantThroughTheKubeconfigSecretItsControlPlanePublishes() throws Exception {
        try (KubeApiServer host = KubeApiServer.builder().namespaces("default", "tenantplane-system", "team-dev")
                .build().start();
             KubeApiServer tenant = KubeApiServer.builder().build().start()) {
            Kube hostKube = Kube.at(host.url()).installCrds();
            Kube.at(tenant.url()).createAll(Kube.exampleWorkloads());
            String tenantKubeconfig = Files.readString(tenant.writeKubeconfig(Files.createDirectory(
                    workDir.resolve("tenant"))));
            int port = freePort();
            // A short resync: the full pass that notices the control plane became ready comes within seconds.
            Process service = start(workDir.resolve("tenant.log"), "-Dserver.port=" + port,
                    "-Dtenantplane.host.url=" + host.url(), "-Dtenantplane.lease.identity=packaged-replica",
                    "-Dtenantplane.resync.interval=PT2S");
            Thread controlPlane = Thread.ofVirtual().start(() -> fakeControlPlane(hostKube, tenantKubeconfig));
            try {
                awaitHttp(service, port, "/health/ready", 200);
                hostKube.createAll(Kube.exampleTenant("team-dev", "dev"));

                assertTrue(Kube.eventually(Duration.ofSeconds(30), () -> hostKube.get("Pod", "team-dev",
                        "nginx-x-default-x-dev").isPresent()), () -> "the tenant's Pod reached the host; log:\n"
                        + readLog(workDir.resolve("tenant.log")));
                assertTrue(Kube.eventually(Duration.ofSeconds(30), () -> "Ready".equals(io.tenantplane.json.Json
                        .string(hostKube.require("TenantCluster", "team-dev", "dev"), "status", "phase"))),
                        () -> "the tenant became Ready: " + hostKube.require("TenantCluster", "team-dev", "dev")
                                .get("status"));
                String token = hostKube.viewerToken();
                HttpResponse<String> tenants = get(port, "/tenants", token);
                assertTrue(tenants.body().contains("\"name\":\"dev\""), tenants.body() + " "
                        + get(port, "/tenants/team-dev/dev", token).body());
                assertTrue(Kube.eventually(Duration.ofSeconds(10), () -> bodyOf(port, "/metrics").contains(
                        "\ntenantplane_tenants{mp_scope=\"application\",phase=\"Ready\",} 1.0")));
                assertTrue(get(port, "/metrics").body().contains("tenantplane_sync_decisions_total{action=\"Create\","
                        + "kind=\"Pod\",mp_scope=\"application\",namespace=\"team-dev\",tenant=\"dev\",} 1.0"));
            } finally {
                controlPlane.interrupt();
                service.destroy();
            }
            assertTrue(service.waitFor(30, TimeUnit.SECONDS), "stops within 30s of SIGTERM");
        }
    }

    /**
     * Plays k3s and the StatefulSet and Deployment controllers until interrupted: publishes the tenant server's
     * kubeconfig into the Secret the control plane renderer made, and reports the StatefulSet ready and the tenant
     * DNS available.
     */
    private static void fakeControlPlane(Kube host, String tenantKubeconfig) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                host.get("Secret", "team-dev", "dev-kubeconfig").filter(s -> !s.has("data")).ifPresent(secret -> {
                    com.google.gson.JsonObject data = new com.google.gson.JsonObject();
                    data.addProperty("config", java.util.Base64.getEncoder().encodeToString(
                            tenantKubeconfig.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                    secret.add("data", data);
                    host.update(secret);
                });
                host.get("StatefulSet", "team-dev", "dev-control-plane").filter(s -> !s.has("status")
                        || !s.getAsJsonObject("status").has("readyReplicas")).ifPresent(sts -> {
                            sts.add("status", com.google.gson.JsonParser.parseString(
                                    "{\"replicas\":1,\"readyReplicas\":1}"));
                            host.updateStatus(sts);
                        });
                host.dnsRuns("team-dev", "dev");
            } catch (AssertionError | RuntimeException e) {
                // A conflict with the reconciler's own write: try again at the next tick.
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Test
    void packagedJarRefusesToStartWithBadConfigurationAndNamesEveryBadKey() throws Exception {
        Process service = start(workDir.resolve("bad.log"), "-Dserver.port=" + freePort(),
                "-Dtenantplane.concurrency=0", "-Dtenantplane.lease.name=Bad_Name");
        if (!service.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            service.destroyForcibly();
            fail("a service with bad configuration kept running");
        }
        String log = Files.readString(workDir.resolve("bad.log"));
        assertNotEquals(0, service.exitValue(), log);
        assertTrue(log.contains("tenantplane.concurrency = '0'"), log);
        assertTrue(log.contains("tenantplane.lease.name = 'Bad_Name'"), log);
    }

    private static String readLog(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private Process start(Path log, String... systemProperties) throws IOException {
        Path jar = Path.of(System.getProperty("tenantplane.service.jar", "target/tenantplane-service.jar"));
        assertTrue(Files.isRegularFile(jar), () -> "no packaged jar at " + jar + "; run the package phase first");
        assertTrue(Files.isDirectory(jar.resolveSibling("libs")), "libs/ sits beside the jar");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.addAll(List.of(systemProperties));
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        return new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private HttpResponse<String> awaitHttp(Process service, int port, String path, int status) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!service.isAlive()) {
                fail("service exited with " + service.exitValue() + " before " + path + " answered");
            }
            try {
                HttpResponse<String> r = get(port, path);
                if (r.statusCode() == status) {
                    return r;
                }
                last = r.statusCode() + " " + r.body();
            } catch (ConnectException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        return fail(path + " did not answer " + status + " within " + START_TIMEOUT + "; last: " + last);
    }

    private String bodyOf(int port, String path) {
        try {
            return get(port, path).body();
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e.toString();
        }
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(int port, String path, String token) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
