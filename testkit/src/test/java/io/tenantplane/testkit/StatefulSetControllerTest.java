package io.tenantplane.testkit;

import static io.tenantplane.testkit.Clients.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import io.kubernetes.client.openapi.models.V1StatefulSetStatus;
import io.kubernetes.client.util.Yaml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulated StatefulSet controller, driven as a user drives a real one: {@code kubectl apply},
 * {@code kubectl rollout status statefulset/...} (which reads the status fields the controller writes) and
 * {@code kubectl rollout history} (which reads its ControllerRevisions).
 */
class StatefulSetControllerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private static KubeApiServer server(Simulation simulation) {
        return KubeApiServer.builder().simulate(simulation).build().start();
    }

    @Test
    void podsAreMadeOneAtATimeInOrdinalOrderWithTheirIdentityAndClaims() throws Exception {
        try (KubeApiServer server = server(Simulation.builder().startDelay(Duration.ofMillis(500)).build())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            // Created through the client, not kubectl, so that the first look comes before db-0 can have started.
            AppsV1Api apps = new AppsV1Api(Clients.client(server));
            apps.createNamespacedStatefulSet("default", (V1StatefulSet) Yaml.loadAll(statefulSet("db", "postgres:16", 3,
                    "OrderedReady")).get(1)).execute();
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            await("db-0 exists", WAIT, () -> !pods(core).isEmpty());
            assertEquals(List.of("db-0"), names(pods(core)), "OrderedReady makes db-1 only once db-0 is ready");
            String status = awaitRollout(kubectl);
            assertTrue(status.contains("partitioned roll out complete: 3 new pods"), status);
            List<V1Pod> pods = pods(core);
            assertEquals(List.of("db-0", "db-1", "db-2"), names(pods));
            for (int i = 0; i < 3; i++) {
                V1Pod p = pods.get(i);
                Map<String, String> labels = p.getMetadata().getLabels();
                assertEquals("db-" + i, labels.get("statefulset.kubernetes.io/pod-name"));
                assertEquals(Integer.toString(i), labels.get("apps.kubernetes.io/pod-index"));
                assertTrue(labels.get("controller-revision-hash").startsWith("db-"), labels.toString());
                assertEquals("db", labels.get("app"));
                assertEquals("db-" + i, p.getSpec().getHostname());
                assertEquals("db-headless", p.getSpec().getSubdomain());
                assertEquals("StatefulSet", p.getMetadata().getOwnerReferences().get(0).getKind());
                assertEquals("data-db-" + i, p.getSpec().getVolumes().stream().filter(v -> v.getName().equals("data"))
                        .findFirst().orElseThrow().getPersistentVolumeClaim().getClaimName());
                assertTrue(p.getSpec().getVolumes().stream().anyMatch(v -> v.getName().equals("scratch")),
                        "the template's own volumes are kept");
            }
            assertEquals(List.of("data-db-0", "data-db-1", "data-db-2"), core.listNamespacedPersistentVolumeClaim(
                    "default").execute().getItems().stream().map(c -> c.getMetadata().getName()).sorted().toList());
            assertEquals("db", core.readNamespacedPersistentVolumeClaim("data-db-1", "default").execute()
                    .getMetadata().getLabels().get("app"), "a claim carries the selector's labels");
            V1StatefulSetStatus s = sts(server).getStatus();
            assertEquals(3, s.getReplicas());
            assertEquals(3, s.getReadyReplicas());
            assertEquals(3, s.getAvailableReplicas());
            assertEquals(3, s.getCurrentReplicas());
            assertEquals(3, s.getUpdatedReplicas());
            assertEquals(s.getCurrentRevision(), s.getUpdateRevision());
            assertEquals(1L, s.getObservedGeneration());
        }
    }

    @Test
    void aChangedTemplateRollsFromTheHighestOrdinalAndKubectlSeesTheRevisions() throws Exception {
        try (KubeApiServer server = server(Simulation.builder().stopDelay(Duration.ofMillis(50)).build())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            rollOut(kubectl, "postgres:16", 3, "OrderedReady");
            String first = sts(server).getStatus().getCurrentRevision();
            Map<String, String> uids = pods(new CoreV1Api(Clients.client(server))).stream().collect(
                    Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));

            kubectl.run("apply", "-f", write("db.yaml", statefulSet("db", "postgres:17", 3, "OrderedReady"))).ok();
            String rolled = awaitRollout(kubectl);
            // The server defaults rollingUpdate.partition to 0, so kubectl reports a partitioned roll out.
            assertTrue(rolled.contains("partitioned roll out complete: 3 new pods have been updated"), rolled);
            V1StatefulSetStatus s = sts(server).getStatus();
            assertNotEquals(first, s.getCurrentRevision());
            assertEquals(s.getUpdateRevision(), s.getCurrentRevision());
            for (V1Pod p : pods(new CoreV1Api(Clients.client(server)))) {
                assertEquals("postgres:17", p.getSpec().getContainers().get(0).getImage());
                assertNotEquals(uids.get(p.getMetadata().getName()), p.getMetadata().getUid(),
                        p.getMetadata().getName() + " was made again");
                assertEquals(s.getUpdateRevision(), p.getMetadata().getLabels().get("controller-revision-hash"));
            }
            String history = kubectl.run("rollout", "history", "statefulset/db").ok().out();
            assertTrue(history.contains("1 ") && history.contains("2 "), history);
            assertEquals(2, new AppsV1Api(Clients.client(server)).listNamespacedControllerRevision("default")
                    .execute().getItems().size());

            // Back to the first template: the first revision is reused with the next number, as upstream rolls back.
            rollOut(kubectl, "postgres:16", 3, "OrderedReady");
            assertEquals(first, sts(server).getStatus().getCurrentRevision());
            assertEquals(3L, new AppsV1Api(Clients.client(server)).readNamespacedControllerRevision(first, "default")
                    .execute().getRevision());
        }
    }

    @Test
    void scalingDownRemovesTheHighestOrdinalsAndKeepsTheirClaims() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            rollOut(kubectl, "postgres:16", 3, "Parallel");
            kubectl.run("scale", "statefulset/db", "--replicas=1").ok();
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            await("db-1 and db-2 gone", WAIT, () -> names(pods(core)).equals(List.of("db-0")));
            await("status replicas 1", WAIT, () -> Integer.valueOf(1).equals(sts(server).getStatus().getReplicas()));
            assertEquals(3, core.listNamespacedPersistentVolumeClaim("default").execute().getItems().size(),
                    "whenScaled: Retain keeps the claims");

            kubectl.run("delete", "statefulset/db").ok();
            await("pods and revisions collected", WAIT, () -> pods(core).isEmpty() && revisions(server) == 0);
            assertEquals(3, core.listNamespacedPersistentVolumeClaim("default").execute().getItems().size(),
                    "whenDeleted: Retain keeps the claims");
        }
    }

    @Test
    void podsTheNamespaceForbidsAreReportedAsAWarningEventAndMadeOnceAllowed() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            kubectl.run("create", "namespace", "locked").ok();
            kubectl.run("label", "namespace", "locked", "pod-security.kubernetes.io/enforce=restricted").ok();
            kubectl.run("apply", "-n", "locked", "-f", write("db.yaml", statefulSet("db", "postgres:16", 2,
                    "OrderedReady"))).ok();
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            await("FailedCreate", WAIT, () -> events(core, "locked").stream().anyMatch(e ->
                    "FailedCreate".equals(e.getReason()) && "Warning".equals(e.getType())
                            && e.getMessage().startsWith("create Pod db-0 in StatefulSet db failed error: pods "
                            + "\"db-0\" is forbidden: violates PodSecurity \"restricted:latest\"")));
            String described = kubectl.run("describe", "-n", "locked", "statefulset/db").ok().out();
            assertTrue(described.contains("FailedCreate"), described);
            assertEquals(List.of(), core.listNamespacedPod("locked").execute().getItems(), "no pod was admitted");
            assertEquals(1, events(core, "locked").size(), "the refusal is evented once, not on every change");

            kubectl.run("label", "--overwrite", "namespace", "locked", "pod-security.kubernetes.io/enforce=baseline")
                    .ok();
            kubectl.run("rollout", "status", "-n", "locked", "statefulset/db", "--timeout=30s").ok();
            assertEquals(2, core.listNamespacedPod("locked").execute().getItems().size());
        }
    }

    @Test
    void aFailedPodIsMadeAgain() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            rollOut(kubectl, "postgres:16", 1, "OrderedReady");
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            V1Pod before = core.readNamespacedPod("db-0", "default").execute();
            before.getStatus().setPhase("Failed");
            core.replaceNamespacedPodStatus("db-0", "default", before).execute();
            await("db-0 made again and running", WAIT, () -> pods(core).stream().anyMatch(p ->
                    !p.getMetadata().getUid().equals(before.getMetadata().getUid())
                            && "Running".equals(p.getStatus().getPhase())));
        }
    }

    /** The documented way to change a set's immutable fields: delete it orphaning its pods, create it again. */
    @Test
    void aSetMadeAgainAdoptsThePodsItsPredecessorOrphaned() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            String file = write("db.yaml", statefulSet("db", "postgres:16", 2, "OrderedReady"));
            kubectl.run("apply", "-f", file).ok();
            awaitRollout(kubectl);
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            Map<String, String> uids = pods(core).stream().collect(Collectors.toMap(p -> p.getMetadata().getName(),
                    p -> p.getMetadata().getUid()));
            kubectl.run("delete", "statefulset/db", "--cascade=orphan").ok();
            await("pods orphaned", WAIT, () -> pods(core).stream().allMatch(p -> p.getMetadata()
                    .getOwnerReferences() == null || p.getMetadata().getOwnerReferences().isEmpty()));

            kubectl.run("apply", "-f", file).ok();
            String uid = sts(server).getMetadata().getUid();
            await("pods adopted", WAIT, () -> pods(core).stream().allMatch(p -> p.getMetadata()
                    .getOwnerReferences() != null && p.getMetadata().getOwnerReferences().stream()
                    .anyMatch(r -> uid.equals(r.getUid()) && Boolean.TRUE.equals(r.getController()))));
            awaitRollout(kubectl);
            assertEquals(uids, pods(core).stream().collect(Collectors.toMap(p -> p.getMetadata().getName(),
                    p -> p.getMetadata().getUid())), "the same pods, not new ones");
        }
    }

    /** A settled set is left alone: no status write without a change (upstream's inconsistentStatus). */
    @Test
    void aSettledSetIsNotWrittenAgain() throws Exception {
        try (KubeApiServer server = server(Simulation.defaults())) {
            Kubectl kubectl = new Kubectl(server.writeKubeconfig(dir), dir);
            rollOut(kubectl, "postgres:16", 2, "OrderedReady");
            Thread.sleep(200);
            String version = server.resourceVersion();
            Thread.sleep(500);
            assertEquals(version, server.resourceVersion(), "nothing is written while nothing changes");
        }
    }

    @Test
    void anOrdinalFollowsOnlyTheSetsOwnName() {
        assertEquals(12, StatefulSetController.ordinal("db", pod("db-12")));
        assertEquals(-1, StatefulSetController.ordinal("db", pod("dbx-1")));
        assertEquals(-1, StatefulSetController.ordinal("db", pod("db-x")));
        assertEquals(1, StatefulSetController.ordinal("db-0", pod("db-0-1")));
        assertEquals(-1, StatefulSetController.ordinal("db", pod("db-0-1")));
    }

    private static com.google.gson.JsonObject pod(String name) {
        return Json.object("metadata", Json.object("name", name));
    }

    /** Applies StatefulSet {@code db} of {@code image} with kubectl and waits until kubectl sees it rolled out. */
    private void rollOut(Kubectl kubectl, String image, int replicas, String policy) throws Exception {
        kubectl.run("apply", "-f", write("db.yaml", statefulSet("db", image, replicas, policy))).ok();
        awaitRollout(kubectl);
    }

    /** {@code kubectl rollout status statefulset/db}, which fails the test when it does not complete in 30 s. */
    private static String awaitRollout(Kubectl kubectl) throws Exception {
        return kubectl.run("rollout", "status", "statefulset/db", "--timeout=30s").ok().out();
    }

    private String write(String name, String yaml) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, yaml);
        return file.toString();
    }

    private static String statefulSet(String name, String image, int replicas, String policy) {
        return """
                apiVersion: v1
                kind: Service
                metadata:
                  name: %1$s-headless
                spec:
                  clusterIP: None
                  selector: {app: %1$s}
                  ports:
                  - port: 5432
                ---
                apiVersion: apps/v1
                kind: StatefulSet
                metadata:
                  name: %1$s
                spec:
                  serviceName: %1$s-headless
                  replicas: %3$d
                  podManagementPolicy: %4$s
                  selector:
                    matchLabels: {app: %1$s}
                  template:
                    metadata:
                      labels: {app: %1$s}
                    spec:
                      containers:
                      - name: db
                        image: %2$s
                        volumeMounts:
                        - {name: data, mountPath: /var/lib/data}
                        - {name: scratch, mountPath: /tmp}
                      volumes:
                      - name: scratch
                        emptyDir: {}
                  volumeClaimTemplates:
                  - metadata:
                      name: data
                    spec:
                      accessModes: [ReadWriteOnce]
                      resources:
                        requests: {storage: 1Gi}
                """.formatted(name, image, replicas, policy);
    }

    private static V1StatefulSet sts(KubeApiServer server) {
        try {
            return new AppsV1Api(Clients.client(server)).readNamespacedStatefulSet("db", "default").execute();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int revisions(KubeApiServer server) {
        try {
            return new AppsV1Api(Clients.client(server)).listNamespacedControllerRevision("default").execute()
                    .getItems().size();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<V1Pod> pods(CoreV1Api core) {
        try {
            return core.listNamespacedPod("default").execute().getItems().stream()
                    .sorted(java.util.Comparator.comparing(p -> p.getMetadata().getName())).toList();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<CoreV1Event> events(CoreV1Api core, String ns) {
        try {
            return core.listNamespacedEvent(ns).execute().getItems();
        } catch (ApiException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> names(List<V1Pod> pods) {
        return pods.stream().map(p -> p.getMetadata().getName()).toList();
    }
}
