package io.tenantplane.testkit;

import static io.tenantplane.testkit.Clients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated nodes, kubelets, scheduler, controllers and garbage collector, driven as a user drives a cluster. */
class SimulatorTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private static KubeApiServer server(Simulation simulation) {
        return KubeApiServer.builder().simulate(simulation).build().start();
    }

    private static V1Pod pod(String name, Map<String, String> annotations) {
        return new V1Pod().apiVersion("v1").kind("Pod")
                .metadata(new V1ObjectMeta().name(name).annotations(annotations))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("app").image("nginx:1.27"))));
    }

    private static V1Deployment deployment(String name, String image, int replicas) {
        Map<String, String> labels = Map.of("app", name);
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment").metadata(new V1ObjectMeta().name(name))
                .spec(new V1DeploymentSpec().replicas(replicas).selector(new V1LabelSelector().matchLabels(labels))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels))
                                .spec(new V1PodSpec().containers(List.of(new V1Container().name("app").image(image))))));
    }

    @Test
    void aPodIsScheduledAndRunsWithAnIpAndReadyContainers() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            core.createNamespacedPod("default", pod("web", null)).execute();
            await("web Running", WAIT, () -> "Running".equals(phase(core, "web")));
            V1Pod web = core.readNamespacedPod("web", "default").execute();
            assertTrue(web.getSpec().getNodeName().startsWith("sim-node-"), web.getSpec().getNodeName());
            assertTrue(web.getStatus().getPodIP().startsWith("10.244."), web.getStatus().getPodIP());
            assertTrue(web.getStatus().getHostIP().startsWith("172.18.0."), web.getStatus().getHostIP());
            assertEquals("BestEffort", web.getStatus().getQosClass());
            assertTrue(web.getStatus().getContainerStatuses().get(0).getReady());
            assertEquals(2, core.listNode().execute().getItems().size());
        }
    }

    @Test
    void aDeletedPodIsConfirmedByItsKubeletAfterTheStopDelay() throws Exception {
        try (KubeApiServer server = server(Simulation.builder().stopDelay(Duration.ofMillis(300)).build())) {
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            core.createNamespacedPod("default", pod("web", null)).execute();
            await("web Running", WAIT, () -> "Running".equals(phase(core, "web")));
            V1Pod deleting = core.deleteNamespacedPod("web", "default").execute();
            assertNotNull(deleting.getMetadata().getDeletionTimestamp(), "a bound pod is deleted gracefully");
            assertEquals(200, Clients.raw(Clients.client(server), "GET", "/api/v1/namespaces/default/pods/web", null,
                    null).code(), "the pod waits for its kubelet");
            await("web gone", WAIT, () -> phase(core, "web") == null);
        }
    }

    @Test
    void podsEndFailedOrSucceededAsTheirAnnotationsSay() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            core.createNamespacedPod("default", pod("bad", Map.of(Simulation.FAIL_ANNOTATION, "3"))).execute();
            core.createNamespacedPod("default", pod("job", Map.of(Simulation.COMPLETE_ANNOTATION, "true"))).execute();
            await("bad Failed", WAIT, () -> "Failed".equals(phase(core, "bad")));
            await("job Succeeded", WAIT, () -> "Succeeded".equals(phase(core, "job")));
            V1Pod bad = core.readNamespacedPod("bad", "default").execute();
            assertEquals(3, bad.getStatus().getContainerStatuses().get(0).getState().getTerminated().getExitCode());
        }
    }

    @Test
    void aDeploymentRollsOutWithKubectlAndLeavesNoTerminatingPods() throws Exception {
        try (KubeApiServer server = server(Simulation.builder().stopDelay(Duration.ofMillis(100)).build())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            Path file = dir.resolve("web.yaml");
            Files.writeString(file, deploymentYaml("nginx:1.26"));
            kubectl.run("apply", "-f", file.toString()).ok();
            kubectl.run("rollout", "status", "deployment/web", "--timeout=30s").ok();
            Files.writeString(file, deploymentYaml("nginx:1.27"));
            kubectl.run("apply", "-f", file.toString()).ok();
            String status = kubectl.run("rollout", "status", "deployment/web", "--timeout=30s").ok().out();
            assertTrue(status.contains("successfully rolled out"), status);
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            await("old pods gone", WAIT, () -> pods(core).size() == 3);
            for (V1Pod p : pods(core)) {
                assertEquals("nginx:1.27", p.getSpec().getContainers().get(0).getImage());
                assertNull(p.getMetadata().getDeletionTimestamp(), p.getMetadata().getName() + " is Terminating");
                assertEquals("Running", p.getStatus().getPhase());
            }
            String sets = kubectl.run("get", "replicasets", "-o",
                    "jsonpath={range .items[*]}{.spec.replicas} {end}").ok().out().trim();
            assertEquals(List.of("0", "3"), List.of(sets.split(" ")).stream().sorted().toList(), sets);
        }
    }

    @Test
    void aDeploymentWhosePodsTheNamespaceForbidsIsWarnedAboutAndItsReplicaSetReportsTheRefusal() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            kubectl.run("create", "namespace", "locked").ok();
            kubectl.run("label", "namespace", "locked", "pod-security.kubernetes.io/enforce=restricted",
                    "pod-security.kubernetes.io/warn=restricted").ok();
            Path file = dir.resolve("web.yaml");
            Files.writeString(file, deploymentYaml("nginx:1.27"));
            Kubectl.Run applied = kubectl.run("apply", "-n", "locked", "-f", file.toString()).ok();
            assertTrue(applied.err().contains("Warning: would violate PodSecurity \"restricted:latest\""),
                    applied.err());
            AppsV1Api apps = new AppsV1Api(Clients.client(server));
            await("ReplicaFailure", WAIT, () -> replicaSets(apps, "locked").stream()
                    .anyMatch(rs -> rs.getStatus() != null && rs.getStatus().getConditions() != null
                            && rs.getStatus().getConditions().stream().anyMatch(c -> "ReplicaFailure".equals(
                                    c.getType()) && "FailedCreate".equals(c.getReason())
                                    && c.getMessage().contains("violates PodSecurity"))));
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            assertEquals(List.of(), core.listNamespacedPod("locked").execute().getItems(), "no pod was admitted");

            Files.writeString(file, deploymentYaml("nginx:1.27").replace("""
                        spec:
                          containers:
                          - name: app
                    """, """
                        spec:
                          securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
                          containers:
                          - name: app
                            securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
                    """));
            Kubectl.Run fixed = kubectl.run("apply", "-n", "locked", "-f", file.toString()).ok();
            assertTrue(!fixed.err().contains("PodSecurity"), fixed.err());
            kubectl.run("rollout", "status", "-n", "locked", "deployment/web", "--timeout=30s").ok();
            await("the new ReplicaSet ready, no ReplicaFailure left", WAIT, () -> replicaSets(apps, "locked").stream()
                    .allMatch(rs -> rs.getStatus() != null && (rs.getStatus().getConditions() == null
                            || rs.getStatus().getConditions().isEmpty()))
                    && replicaSets(apps, "locked").stream().anyMatch(rs -> Integer.valueOf(3).equals(
                            rs.getStatus().getReadyReplicas())));
            assertEquals(3, core.listNamespacedPod("locked").execute().getItems().size());
        }
    }

    /** What {@code kubectl describe quota} shows: the quota controller keeps status.hard and status.used. */
    @Test
    void theQuotaControllerKeepsEachQuotasUsageAsKubectlDescribeShowsIt() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            Path file = dir.resolve("quota.yaml");
            Files.writeString(file, """
                    apiVersion: v1
                    kind: ResourceQuota
                    metadata:
                      name: q
                    spec:
                      hard:
                        pods: "5"
                        requests.cpu: "2"
                        requests.memory: 1Gi
                        services: "3"
                        count/deployments.apps: "2"
                    ---
                    apiVersion: v1
                    kind: ResourceQuota
                    metadata:
                      name: besteffort
                      namespace: batch
                    spec:
                      hard:
                        pods: "10"
                      scopes: [BestEffort]
                    """);
            kubectl.run("create", "namespace", "batch").ok();
            kubectl.run("apply", "-f", file.toString()).ok();
            // In default, quota q counts requests: a pod that names none is refused there (must specify), so the
            // BestEffort pod runs in a namespace of its own, beside a Burstable one its quota does not count.
            core.createNamespacedPod("batch", pod("solo", null)).execute();
            V1Pod burstable = pod("sized", null);
            burstable.getSpec().getContainers().get(0).resources(new io.kubernetes.client.openapi.models
                    .V1ResourceRequirements().requests(Map.of("cpu", io.kubernetes.client.custom.Quantity
                    .fromString("10m"))));
            core.createNamespacedPod("batch", burstable).execute();
            Files.writeString(file, deploymentYaml("nginx:1.27").replace("""
                          - name: app
                            image: nginx:1.27
                    """, """
                          - name: app
                            image: nginx:1.27
                            resources:
                              requests: {cpu: 100m, memory: 64Mi}
                    """));
            kubectl.run("apply", "-f", file.toString()).ok();
            kubectl.run("rollout", "status", "deployment/web", "--timeout=30s").ok();
            await("usage counted", WAIT, () -> {
                try {
                    var status = core.readNamespacedResourceQuota("q", "default").execute().getStatus();
                    return status != null && status.getUsed() != null
                            && "3".equals(status.getUsed().get("pods").toSuffixedString());
                } catch (ApiException e) {
                    return false;
                }
            });
            var status = core.readNamespacedResourceQuota("q", "default").execute().getStatus();
            assertEquals("300m", status.getUsed().get("requests.cpu").toSuffixedString());
            assertEquals("192Mi", status.getUsed().get("requests.memory").toSuffixedString());
            assertEquals(Integer.toString(core.listNamespacedService("default").execute().getItems().size()),
                    status.getUsed().get("services").toSuffixedString());
            assertEquals("1", status.getUsed().get("count/deployments.apps").toSuffixedString());
            assertEquals(status.getHard().keySet(), status.getUsed().keySet(), "used names exactly the hard resources");
            String described = kubectl.run("describe", "quota", "q").ok().out();
            assertTrue(described.lines().anyMatch(l -> l.matches("pods\\s+3\\s+5")), described);
            await("the BestEffort quota counts only the BestEffort pod", WAIT, () -> {
                try {
                    var scoped = core.readNamespacedResourceQuota("besteffort", "batch").execute().getStatus();
                    return scoped != null && scoped.getUsed() != null
                            && "1".equals(scoped.getUsed().get("pods").toSuffixedString());
                } catch (ApiException e) {
                    return false;
                }
            });
            assertTrue(described.lines().anyMatch(l -> l.matches("requests.memory\\s+192Mi\\s+1Gi")), described);

            kubectl.run("scale", "deployment/web", "--replicas=1").ok();
            await("usage goes down", WAIT, () -> {
                try {
                    return "100m".equals(core.readNamespacedResourceQuota("q", "default").execute().getStatus()
                            .getUsed().get("requests.cpu").toSuffixedString());
                } catch (ApiException e) {
                    return false;
                }
            });
        }
    }

    @Test
    void aNamespaceWithRunningPodsIsDeletedCompletely() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            ApiClient client = Clients.client(server);
            CoreV1Api core = new CoreV1Api(client);
            Clients.createNamespace(client, "team");
            new AppsV1Api(client).createNamespacedDeployment("team", deployment("web", "nginx", 2)).execute();
            await("2 pods Running", WAIT, () -> running(core, "team") == 2);
            core.deleteNamespace("team").execute();
            await("namespace gone", WAIT, () -> {
                try {
                    core.readNamespace("team").execute();
                    return false;
                } catch (ApiException e) {
                    return e.getCode() == 404;
                }
            });
        }
    }

    @Test
    void theGarbageCollectorFollowsEachPropagationPolicy() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            ApiClient client = Clients.client(server);
            AppsV1Api apps = new AppsV1Api(client);
            CoreV1Api core = new CoreV1Api(client);

            apps.createNamespacedDeployment("default", deployment("bg", "nginx", 1)).execute();
            await("bg running", WAIT, () -> running(core, "default") == 1);
            apps.deleteNamespacedDeployment("bg", "default").body(new V1DeleteOptions().propagationPolicy("Background"))
                    .execute();
            await("bg's ReplicaSet and pod collected", WAIT, () -> sets(apps).isEmpty() && pods(core).isEmpty());

            apps.createNamespacedDeployment("default", deployment("fg", "nginx", 1)).execute();
            await("fg running", WAIT, () -> running(core, "default") == 1);
            apps.deleteNamespacedDeployment("fg", "default").body(new V1DeleteOptions().propagationPolicy("Foreground"))
                    .execute();
            await("fg and its dependents gone", WAIT, () -> {
                try {
                    apps.readNamespacedDeployment("fg", "default").execute();
                    return false;
                } catch (ApiException e) {
                    return e.getCode() == 404 && sets(apps).isEmpty() && pods(core).isEmpty();
                }
            });

            apps.createNamespacedDeployment("default", deployment("orphaned", "nginx", 1)).execute();
            await("orphaned running", WAIT, () -> running(core, "default") == 1);
            apps.deleteNamespacedDeployment("orphaned", "default").body(new V1DeleteOptions().propagationPolicy("Orphan"))
                    .execute();
            await("the ReplicaSet is orphaned", WAIT, () -> {
                List<V1ReplicaSet> left = sets(apps);
                                List<?> refs = left.isEmpty() ? null : left.get(0).getMetadata().getOwnerReferences();
                return left.size() == 1 && (refs == null || refs.isEmpty());
            });
            assertEquals(1, running(core, "default"), "the orphaned ReplicaSet keeps its pod");
        }
    }

    private static String deploymentYaml(String image) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  replicas: 3
                  selector:
                    matchLabels: {app: web}
                  template:
                    metadata:
                      labels: {app: web}
                    spec:
                      containers:
                      - name: app
                        image: %s
                """.formatted(image);
    }

    private static List<V1ReplicaSet> replicaSets(AppsV1Api apps, String ns) {
        try {
            return apps.listNamespacedReplicaSet(ns).execute().getItems();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String phase(CoreV1Api core, String name) {
        try {
            return core.readNamespacedPod(name, "default").execute().getStatus().getPhase();
        } catch (ApiException e) {
            return null;
        }
    }

    private static List<V1Pod> pods(CoreV1Api core) {
        try {
            return core.listNamespacedPod("default").execute().getItems();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long running(CoreV1Api core, String ns) {
        try {
            return core.listNamespacedPod(ns).execute().getItems().stream()
                    .filter(p -> "Running".equals(p.getStatus().getPhase())
                            && p.getMetadata().getDeletionTimestamp() == null).count();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<V1ReplicaSet> sets(AppsV1Api apps) {
        try {
            return apps.listNamespacedReplicaSet("default").execute().getItems();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }
}
