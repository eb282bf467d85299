package com.example.platform;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the example as the build's proof that it works: against an in-process host API server with the tenantplane
 * CRDs, and a second in-process server that stands in for the tenant's k3s control plane. A small fake of the control
 * plane publishes that server's kubeconfig into the tenant's Secret and reports the StatefulSet ready, as k3s and the
 * StatefulSet controller would.
 */
class ProvisionTenantTest {

    private static final Path REPO = Path.of("..", "..");

    @Test
    void provisionsATenantSyncsItsWorkloadsAndPrintsTheDecisions(@TempDir Path dir) throws Exception {
        try (KubeApiServer host = KubeApiServer.builder()
                .namespaces("default", "kube-system", "kube-public", "kube-node-lease", "team-dev").build().start();
             // The tenant's k3s runs the Deployment controller; in shared mode it has no nodes of its own.
             KubeApiServer tenant = KubeApiServer.builder().simulate(Simulation.builder().nodes(0).build()).build()
                     .start()) {
            ApiClient hostClient = new ClientBuilder().setBasePath(host.url()).build();
            for (var crd : Manifests.read(REPO.resolve("k8s/crds"))) {
                new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", hostClient)
                        .create(new DynamicKubernetesObject(crd.object()));
            }
            Path kubeconfig = host.writeKubeconfig(dir);
            String tenantKubeconfig = Files.readString(tenant.writeKubeconfig(Files.createTempDirectory(dir, "t")));
            Thread controlPlane = Thread.ofVirtual().start(() -> fakeControlPlane(hostClient, tenantKubeconfig));
            ByteArrayOutputStream printed = new ByteArrayOutputStream();

            boolean converged;
            try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
                converged = new ProvisionTenant(hostClient, out).run(REPO.resolve("examples/yaml"),
                        Duration.ofSeconds(30));
            } finally {
                controlPlane.interrupt();
            }

            String text = printed.toString(StandardCharsets.UTF_8);
            System.out.print(text);
            assertTrue(converged, text);
            assertTrue(text.contains("tenant team-dev/dev is ready"), text);
            assertTrue(text.matches("(?s).*Create\\s+Pod\\s+nginx-[a-z0-9]+-[a-z0-9]+-x-default-x-dev\\s+NotOnHost"
                    + "\\s+written.*"), text);
            assertTrue(host.requests().count("create", "pods") == 1, host.requests().toString());
            assertTrue(tenant.requests().count("create", "deployments.apps") == 1, "the Deployment is applied");
        }
    }

    /** Plays k3s and the StatefulSet and Deployment controllers (the tenant's DNS) until interrupted. */
    private static void fakeControlPlane(ApiClient host, String tenantKubeconfig) {
        DynamicKubernetesApi secrets = new DynamicKubernetesApi("", "v1", "secrets", host);
        DynamicKubernetesApi statefulSets = new DynamicKubernetesApi("apps", "v1", "statefulsets", host);
        DynamicKubernetesApi deployments = new DynamicKubernetesApi("apps", "v1", "deployments", host);
        while (!Thread.currentThread().isInterrupted()) {
            var secret = secrets.get("team-dev", "dev-kubeconfig");
            if (secret.isSuccess() && !secret.getObject().getRaw().has("data")) {
                JsonObject raw = secret.getObject().getRaw();
                JsonObject data = new JsonObject();
                data.addProperty("config", Base64.getEncoder().encodeToString(
                        tenantKubeconfig.getBytes(StandardCharsets.UTF_8)));
                raw.add("data", data);
                secrets.update(new DynamicKubernetesObject(raw));
            }
            var sts = statefulSets.get("team-dev", "dev-control-plane");
            if (sts.isSuccess() && !sts.getObject().getRaw().has("status")
                    || sts.isSuccess() && !sts.getObject().getRaw().getAsJsonObject("status").has("readyReplicas")) {
                JsonObject raw = sts.getObject().getRaw();
                raw.add("status", JsonParser.parseString("{\"replicas\":1,\"readyReplicas\":1}"));
                statefulSets.updateStatus(new DynamicKubernetesObject(raw), o -> o.getRaw().get("status"));
            }
            var dns = deployments.get("team-dev", "dev-dns");
            if (dns.isSuccess() && (!dns.getObject().getRaw().has("status")
                    || !dns.getObject().getRaw().getAsJsonObject("status").has("availableReplicas"))) {
                JsonObject raw = dns.getObject().getRaw();
                raw.add("status", JsonParser.parseString("{\"replicas\":2,\"readyReplicas\":2,"
                        + "\"availableReplicas\":2}"));
                deployments.updateStatus(new DynamicKubernetesObject(raw), o -> o.getRaw().get("status"));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
