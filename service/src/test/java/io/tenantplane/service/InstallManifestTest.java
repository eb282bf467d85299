package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Renders {@code k8s/} with the real {@code kubectl kustomize} and checks the install against the service itself:
 * the probes hit endpoints this server answers, RBAC names exact verbs and resources, the Deployment is hardened.
 */
@HelidonTest
@AddConfig(key = "tenantplane.host.url", value = "http://127.0.0.1:9")
class InstallManifestTest {

    private static final String NAMESPACE = "tenantplane-system";
    private static final String SERVICE_ACCOUNT = "tenantplane-service";
    private static List<Map<String, Object>> objects;

    @Inject
    WebTarget target;

    @BeforeAll
    static void render() throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("tenantplane.repo.root", "..")).toAbsolutePath().normalize();
        Path out = Files.createTempFile("kustomize", ".yaml");
        Process p;
        try {
            p = new ProcessBuilder("kubectl", "kustomize", root.resolve("k8s").toString())
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        } catch (IOException e) {
            throw new AssertionError("kubectl is needed to render k8s/ (kubectl kustomize); install kubectl 1.32", e);
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("kubectl kustomize k8s/ did not finish within 60s");
        }
        String rendered = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        assertEquals(0, p.exitValue(), () -> "kubectl kustomize k8s/ failed:\n" + rendered);
        objects = new ArrayList<>();
        for (Object doc : new Yaml().loadAll(rendered)) {
            if (doc != null) {
                objects.add(map(doc));
            }
        }
    }

    @Test
    void rendersTheExpectedObjectsAndNothingOptional() {
        Set<String> found = new TreeSet<>();
        for (Map<String, Object> o : objects) {
            found.add(o.get("kind") + "/" + map(o.get("metadata")).get("name"));
        }
        assertEquals(new TreeSet<>(List.of(
                "Namespace/" + NAMESPACE,
                "CustomResourceDefinition/tenantclusters.tenantplane.io",
                "CustomResourceDefinition/isolationprofiles.tenantplane.io",
                "CustomResourceDefinition/syncpolicies.tenantplane.io",
                "ServiceAccount/tenantplane-service",
                "ClusterRole/tenantplane-service",
                "ClusterRoleBinding/tenantplane-service",
                "Role/tenantplane-service-shard-leases",
                "RoleBinding/tenantplane-service-shard-leases",
                "Deployment/tenantplane-service",
                "Service/tenantplane-service",
                "Service/tenantplane-kubelet",
                "PodDisruptionBudget/tenantplane-service")), found);
    }

    @Test
    void everyNamespacedObjectLivesInTheServiceNamespace() {
        Set<String> clusterScoped = Set.of("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding");
        for (Map<String, Object> o : objects) {
            Object ns = map(o.get("metadata")).get("namespace");
            if (clusterScoped.contains((String) o.get("kind"))) {
                assertEquals(null, ns, () -> o.get("kind") + " is cluster-scoped");
            } else {
                assertEquals(NAMESPACE, ns, () -> o.get("kind") + " " + map(o.get("metadata")).get("name"));
            }
        }
        Map<String, Object> labels = map(map(one("Namespace").get("metadata")).get("labels"));
        assertEquals("restricted", labels.get("pod-security.kubernetes.io/enforce"));
    }

    @Test
    void probesPointAtHealthEndpointsThisServerAnswersOnTheConfiguredPort() throws IOException {
        Map<String, Object> container = container();
        Map<String, Object> port = map(list(container.get("ports")).getFirst());
        assertEquals(serverPort(), ((Number) port.get("containerPort")).intValue(),
                "containerPort is the service's server.port");
        Map<String, String> expected = Map.of(
                "startupProbe", "/health/started",
                "livenessProbe", "/health/live",
                "readinessProbe", "/health/ready");
        for (var e : expected.entrySet()) {
            Map<String, Object> httpGet = map(map(container.get(e.getKey())).get("httpGet"));
            assertEquals(e.getValue(), httpGet.get("path"), e.getKey());
            assertEquals(port.get("name"), httpGet.get("port"), e.getKey() + " uses the named container port");

            Response r = target.path((String) httpGet.get("path")).request().get();
            assertTrue(r.getStatus() == 200 || r.getStatus() == 503, () -> e.getKey() + " got HTTP " + r.getStatus());
            JsonObject health = r.readEntity(JsonObject.class);
            assertFalse(health.getJsonArray("checks").isEmpty(), () -> e.getKey() + " answers with checks: " + health);
        }
    }

    @Test
    void deploymentRunsTwoHardenedReplicasWithIdentityFromTheDownwardApi() {
        Map<String, Object> deployment = one("Deployment");
        Map<String, Object> spec = map(deployment.get("spec"));
        assertEquals(2, spec.get("replicas"));
        Map<String, Object> pod = map(map(spec.get("template")).get("spec"));
        assertEquals(SERVICE_ACCOUNT, pod.get("serviceAccountName"));
        Map<String, Object> podSecurity = map(pod.get("securityContext"));
        assertEquals(true, podSecurity.get("runAsNonRoot"));
        assertEquals("RuntimeDefault", map(podSecurity.get("seccompProfile")).get("type"));

        Map<String, Object> container = container();
        Map<String, Object> security = map(container.get("securityContext"));
        assertEquals(true, security.get("readOnlyRootFilesystem"));
        assertEquals(false, security.get("allowPrivilegeEscalation"));
        assertEquals(true, security.get("runAsNonRoot"));
        assertEquals(List.of("ALL"), map(security.get("capabilities")).get("drop"));

        Map<String, Object> resources = map(container.get("resources"));
        assertNotNull(map(resources.get("requests")).get("cpu"));
        assertNotNull(map(resources.get("requests")).get("memory"));
        assertNotNull(map(resources.get("limits")).get("memory"));

        Map<String, Object> tmpMount = list(container.get("volumeMounts")).stream().map(InstallManifestTest::map)
                .filter(m -> "/tmp".equals(m.get("mountPath"))).findFirst()
                .orElseGet(() -> fail("no writable /tmp mount"));
        Map<String, Object> tmpVolume = list(pod.get("volumes")).stream().map(InstallManifestTest::map)
                .filter(v -> tmpMount.get("name").equals(v.get("name"))).findFirst().orElseThrow();
        assertTrue(tmpVolume.containsKey("emptyDir"), "/tmp is an emptyDir");

        Map<String, String> fieldRefs = new java.util.HashMap<>();
        for (Object o : list(container.get("env"))) {
            Map<String, Object> env = map(o);
            if (env.get("valueFrom") != null && map(env.get("valueFrom")).get("fieldRef") != null) {
                fieldRefs.put((String) env.get("name"),
                        (String) map(map(env.get("valueFrom")).get("fieldRef")).get("fieldPath"));
            }
        }
        assertEquals("metadata.name", fieldRefs.get("HOSTNAME"), "lease identity is the pod name");
        assertEquals("metadata.namespace", fieldRefs.get("POD_NAMESPACE"), "the Lease lives in the pod's namespace");
    }

    @Test
    void deploymentRunsTheImageTheImageProfileBuilds() {
        String expected = System.getProperty("tenantplane.image");
        assertNotNull(expected, "the build passes tenantplane.image (image.name:project.version)");
        assertEquals(expected, container().get("image"));
    }

    @Test
    void serviceAndDisruptionBudgetSelectTheDeploymentPods() {
        Map<String, Object> podLabels = map(map(map(map(one("Deployment").get("spec")).get("template"))
                .get("metadata")).get("labels"));
        List<Map<String, Object>> selectors = new java.util.ArrayList<>();
        for (Map<String, Object> o : objects) {
            if ("Service".equals(o.get("kind"))) {
                selectors.add(map(map(o.get("spec")).get("selector")));
            }
        }
        assertEquals(2, selectors.size(), "the REST/metrics Service and the kubelet endpoint's");
        selectors.add(map(map(map(one("PodDisruptionBudget").get("spec")).get("selector")).get("matchLabels")));
        for (Map<String, Object> selector : selectors) {
            assertFalse(selector.isEmpty());
            selector.forEach((k, v) -> assertEquals(v, podLabels.get(k), k));
        }
        assertEquals(1, map(one("PodDisruptionBudget").get("spec")).get("minAvailable"));
    }

    @Test
    void rbacNamesNoWildcardAnywhere() {
        for (Map<String, Object> o : objects) {
            if (!Set.of("ClusterRole", "Role").contains((String) o.get("kind"))) {
                continue;
            }
            for (Object r : list(o.get("rules"))) {
                map(r).forEach((field, values) -> {
                    for (Object v : list(values)) {
                        assertFalse(String.valueOf(v).contains("*"), () -> o.get("kind") + " " + field + ": " + v);
                    }
                });
            }
        }
    }

    @Test
    void clusterRoleGrantsExactlyTheListedVerbsPerResource() {
        // The exact set is derived from the code by RbacFromCodeTest; this pins the rendered result.
        var rw = List.of("get", "list", "watch", "create", "update", "delete");
        var expected = new TreeSet<String>();
        grant(expected, "tenantplane.io", "tenantclusters", List.of("get", "list", "watch", "update"));
        for (String r : List.of("isolationprofiles", "syncpolicies")) {
            grant(expected, "tenantplane.io", r, List.of("get", "list", "watch"));
        }
        grant(expected, "tenantplane.io", "tenantclusters/status", List.of("update"));
        for (String r : List.of("pods", "services", "configmaps", "secrets", "serviceaccounts",
                "persistentvolumeclaims", "endpoints")) {
            grant(expected, "", r, rw);
        }
        grant(expected, "", "secrets", List.of("patch"));
        grant(expected, "networking.k8s.io", "networkpolicies", rw);
        grant(expected, "networking.k8s.io", "ingresses", rw);
        grant(expected, "discovery.k8s.io", "endpointslices", rw);
        grant(expected, "policy", "poddisruptionbudgets", rw);
        var rendered = List.of("get", "list", "create", "update", "delete");
        grant(expected, "", "resourcequotas", rendered);
        grant(expected, "", "limitranges", rendered);
        // The control-plane StatefulSets and DNS Deployments are also watched: their readiness makes a tenant Ready.
        grant(expected, "apps", "statefulsets", List.of("get", "list", "watch", "create", "update", "delete"));
        grant(expected, "apps", "deployments", List.of("get", "list", "watch", "create", "update", "delete"));
        grant(expected, "rbac.authorization.k8s.io", "roles", rendered);
        grant(expected, "rbac.authorization.k8s.io", "rolebindings", rendered);
        grant(expected, "", "namespaces", List.of("get", "create", "update", "delete"));
        grant(expected, "", "nodes", List.of("get"));
        // Mirrors of the host's classes (SyncPolicy spec.fromHost): read-only, listed per full pass.
        grant(expected, "storage.k8s.io", "storageclasses", List.of("list"));
        grant(expected, "networking.k8s.io", "ingressclasses", List.of("list"));
        grant(expected, "scheduling.k8s.io", "priorityclasses", List.of("list"));
        grant(expected, "node.k8s.io", "runtimeclasses", List.of("list"));
        grant(expected, "", "pods/log", List.of("get"));
        grant(expected, "metrics.k8s.io", "pods", List.of("get", "list"));
        grant(expected, "", "pods/ephemeralcontainers", List.of("update"));
        for (String r : List.of("pods/exec", "pods/attach", "pods/portforward")) {
            grant(expected, "", r, List.of("get", "create"));
        }
        grant(expected, "events.k8s.io", "events", List.of("create", "get", "update"));
        // The host StatefulSet controller's FailedCreate Events on a control plane that lacks pods (PodRefused).
        grant(expected, "", "events", List.of("list"));
        grant(expected, "authentication.k8s.io", "tokenreviews", List.of("create"));
        grant(expected, "authorization.k8s.io", "subjectaccessreviews", List.of("create"));

        assertEquals(expected, grants(one("ClusterRole")));
    }

    @Test
    void leasesAreGrantedOnlyInTheServiceNamespaceWithTheVerbsTheShardLeasesUse() {
        Map<String, Object> role = one("Role");
        assertEquals(NAMESPACE, map(role.get("metadata")).get("namespace"));
        var expected = new TreeSet<String>();
        // ShardLeases lists the installation's Leases, creates, replaces (conflict-checked) and deletes member Leases;
        // RbacFromCodeTest derives the same verbs from the calls made.
        grant(expected, "coordination.k8s.io", "leases", List.of("list", "create", "update", "delete"));
        // The kubelet endpoint's CA Secret: read, or created by the first replica.
        grant(expected, "", "secrets", List.of("get", "create"));
        assertEquals(expected, grants(role));
    }

    @Test
    void bindingsGiveTheRolesToTheServiceAccountOnly() {
        for (String kind : List.of("ClusterRoleBinding", "RoleBinding")) {
            Map<String, Object> binding = one(kind);
            List<Object> subjects = list(binding.get("subjects"));
            assertEquals(1, subjects.size(), kind);
            Map<String, Object> subject = map(subjects.getFirst());
            assertEquals("ServiceAccount", subject.get("kind"));
            assertEquals(SERVICE_ACCOUNT, subject.get("name"));
            assertEquals(NAMESPACE, subject.get("namespace"));
            String roleKind = kind.replace("Binding", "");
            assertEquals(roleKind, map(binding.get("roleRef")).get("kind"));
            assertEquals(map(one(roleKind).get("metadata")).get("name"), map(binding.get("roleRef")).get("name"));
        }
    }

    private static void grant(Set<String> into, String group, String resource, List<String> verbs) {
        for (String verb : verbs) {
            into.add(group + "/" + resource + ":" + verb);
        }
    }

    private static Set<String> grants(Map<String, Object> role) {
        var result = new TreeSet<String>();
        for (Object r : list(role.get("rules"))) {
            Map<String, Object> rule = map(r);
            assertFalse(rule.containsKey("nonResourceURLs"), "no non-resource URLs");
            for (Object g : list(rule.get("apiGroups"))) {
                for (Object res : list(rule.get("resources"))) {
                    for (Object v : list(rule.get("verbs"))) {
                        assertTrue(result.add(g + "/" + res + ":" + v), () -> "granted twice: " + g + "/" + res + ":" + v);
                    }
                }
            }
        }
        return result;
    }

    private static int serverPort() throws IOException {
        var props = new Properties();
        try (InputStream in = InstallManifestTest.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            props.load(in);
        }
        return Integer.parseInt(props.getProperty("server.port"));
    }

    private static Map<String, Object> container() {
        Map<String, Object> pod = map(map(map(one("Deployment").get("spec")).get("template")).get("spec"));
        List<Object> containers = list(pod.get("containers"));
        assertEquals(1, containers.size());
        return map(containers.getFirst());
    }

    private static Map<String, Object> one(String kind) {
        List<Map<String, Object>> found = objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        assertEquals(1, found.size(), () -> "exactly one " + kind);
        return found.getFirst();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        assertTrue(o instanceof Map, () -> "expected a mapping, got " + o);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        assertTrue(o instanceof List, () -> "expected a list, got " + o);
        return (List<Object>) o;
    }
}
