package io.tenantplane.controlplane;

import io.tenantplane.testing.Expectations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ControlPlaneRendererTest {

    private final ControlPlaneRenderer renderer = new ControlPlaneRenderer();

    static Stream<Arguments> cases() {
        return Expectations.cases("/controlplane/cases.yaml").stream()
                .map(c -> Arguments.of(Json.string(c, "case"), c));
    }

    private static TenantCluster tenant(JsonObject caseDoc) {
        return TenantCluster.fromJson(caseDoc.getAsJsonObject("tenantCluster")).orElseThrow();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rendersTheExpectedObjectsAndFields(String name, JsonObject caseDoc) {
        Expectations.check(caseDoc, renderer.render(tenant(caseDoc)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyObjectIsLabelledExplainedAndInTheTenantClustersNamespace(String name, JsonObject caseDoc) {
        TenantCluster tc = tenant(caseDoc);
        for (JsonObject o : renderer.render(tc)) {
            String id = Expectations.id(o);
            assertEquals(tc.namespace(), Json.string(o, "metadata", "namespace"), id);
            assertEquals("tenantplane", Json.labels(o).get("tenantplane.io/managed-by"), id);
            assertEquals(tc.tenant(), Json.labels(o).get("tenantplane.io/tenant"), id);
            assertEquals("control-plane", Json.labels(o).get("tenantplane.io/component"), id);
            String reason = Json.annotations(o).get("tenantplane.io/reason");
            assertTrue(reason != null && reason.contains(tc.tenant()), id + ": " + reason);
            String objectName = Json.string(o, "metadata", "name");
            assertTrue(objectName.length() <= 63 && objectName.matches("[a-z]([-a-z0-9]*[a-z0-9])?"), objectName);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void thePodsMeetTheRestrictedPodSecurityLevel(String name, JsonObject caseDoc) {
        JsonObject sts = statefulSet(renderer.render(tenant(caseDoc)));
        JsonObject pod = Json.object(sts, "spec", "template", "spec");
        assertEquals(true, pod.getAsJsonObject("securityContext").get("runAsNonRoot").getAsBoolean());
        assertEquals("RuntimeDefault", Json.string(pod, "securityContext", "seccompProfile", "type"));
        assertTrue(pod.getAsJsonObject("securityContext").get("runAsUser").getAsLong() > 0);
        for (JsonElement c : pod.getAsJsonArray("containers")) {
            JsonObject sc = c.getAsJsonObject().getAsJsonObject("securityContext");
            assertEquals(false, sc.get("allowPrivilegeEscalation").getAsBoolean());
            assertEquals(true, sc.get("readOnlyRootFilesystem").getAsBoolean());
            assertEquals("[\"ALL\"]", sc.getAsJsonObject("capabilities").get("drop").toString());
            assertTrue(c.getAsJsonObject().getAsJsonObject("resources").has("requests"));
        }
        for (JsonElement v : pod.getAsJsonArray("volumes")) {
            List<String> types = v.getAsJsonObject().keySet().stream().filter(k -> !k.equals("name")).toList();
            assertTrue(List.of("emptyDir", "projected", "secret").containsAll(types), types.toString());
        }
    }

    /**
     * The Pods the StatefulSet controller makes from the rendered control plane (and, in private mode, its agents)
     * are Pods an API server accepts: the server does not check a StatefulSet's pod template when it is written
     * ({@code ValidatePodTemplateSpecForStatefulSet}), only each Pod the controller creates from it, with a volume per
     * claim template ({@code pkg/controller/statefulset/stateful_set_utils.go} {@code updateStorage}). The testkit
     * checks the Pod as {@code ValidatePodSpec} does.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theStatefulSetsPodsAreAcceptedByAnApiServer(String name, JsonObject caseDoc) throws Exception {
        TenantCluster tc = tenant(caseDoc);
        List<JsonObject> objects = new java.util.ArrayList<>(renderer.render(tc));
        if (tc.mode() == TenantCluster.Mode.PRIVATE) {
            objects.addAll(new io.tenantplane.controlplane.internal.Agents(renderer).render(tc, tc.namespace()));
        }
        List<JsonObject> statefulSets = objects.stream().filter(o -> "StatefulSet".equals(Json.string(o, "kind")))
                .toList();
        assertTrue(!statefulSets.isEmpty(), name);
        try (io.tenantplane.testkit.KubeApiServer server = io.tenantplane.testkit.KubeApiServer.builder().build()
                .start()) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            // Each namespace as the example IsolationProfile (Pod Security restricted) labels it for this tenant:
            // restricted where tenant workloads run, privileged where private mode's agents run; a namespace the
            // boundary does not render (the TenantCluster's own in dedicated and private mode) has no labels.
            JsonObject profileJson = Manifests.read(Path.of("..", "examples", "yaml", "isolationprofile.yaml")).get(0)
                    .object();
            profileJson.getAsJsonObject("metadata").addProperty("namespace", tc.namespace());
            profileJson.getAsJsonObject("metadata").addProperty("name", tc.spec().isolationProfileRef().name());
            io.tenantplane.model.IsolationProfile profile = io.tenantplane.model.IsolationProfile.fromJson(profileJson)
                    .orElseThrow();
            java.util.Map<String, JsonObject> namespaces = new java.util.HashMap<>();
            for (JsonObject o : new io.tenantplane.isolation.IsolationRenderer().render(tc, profile)) {
                if ("Namespace".equals(Json.string(o, "kind"))) {
                    namespaces.put(Json.string(o, "metadata", "name"), Json.object(o, "metadata", "labels"));
                }
            }
            for (JsonObject sts : statefulSets) {
                String ns = Json.string(sts, "metadata", "namespace");
                post(http, server.url() + "/api/v1/namespaces", io.tenantplane.json.Build.obj("metadata",
                        io.tenantplane.json.Build.obj("name", ns, "labels", namespaces.get(ns))));
            }
            for (JsonObject sts : statefulSets) {
                String ns = Json.string(sts, "metadata", "namespace");
                String stsName = Json.string(sts, "metadata", "name");
                JsonObject spec = Json.object(sts, "spec", "template", "spec").deepCopy();
                String account = Json.string(spec, "serviceAccountName");
                if (account != null) {
                    post(http, server.url() + "/api/v1/namespaces/" + ns + "/serviceaccounts",
                            io.tenantplane.json.Build.obj("metadata", io.tenantplane.json.Build.obj("name", account)));
                }
                var claims = Json.object(sts, "spec").getAsJsonArray("volumeClaimTemplates");
                if (claims != null) {
                    for (JsonElement claim : claims) {
                        String claimName = Json.string(claim.getAsJsonObject(), "metadata", "name");
                        spec.getAsJsonArray("volumes").add(io.tenantplane.json.Build.obj("name", claimName, "persistentVolumeClaim",
                                io.tenantplane.json.Build.obj("claimName", claimName + "-" + stsName + "-0")));
                    }
                }
                JsonObject pod = io.tenantplane.json.Build.obj("apiVersion", "v1", "kind", "Pod", "metadata", io.tenantplane.json.Build.obj("name",
                        stsName + "-0", "labels", Json.object(sts, "spec", "template", "metadata", "labels")
                        .deepCopy()), "spec", spec);
                java.net.http.HttpResponse<String> created = post(http, server.url() + "/api/v1/namespaces/"
                        + ns + "/pods", pod);
                assertEquals(201, created.statusCode(), stsName + ": " + created.body());
            }
        }
    }

    private static java.net.http.HttpResponse<String> post(java.net.http.HttpClient http, String url, JsonObject body)
            throws Exception {
        java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300 && r.statusCode() != 409 && !url.endsWith("/pods")) {
            throw new AssertionError(url + ": " + r.body());
        }
        return r;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyShellScriptOfTheContainersIsValidShell(String name, JsonObject caseDoc) throws Exception {
        JsonObject pod = Json.object(statefulSet(renderer.render(tenant(caseDoc))), "spec", "template", "spec");
        for (JsonElement c : pod.getAsJsonArray("containers")) {
            var command = c.getAsJsonObject().getAsJsonArray("command");
            if (command == null || command.size() < 3 || !"-c".equals(command.get(1).getAsString())) {
                continue;
            }
            Process sh = new ProcessBuilder("sh", "-n", "-c", command.get(2).getAsString()).redirectErrorStream(true)
                    .start();
            String out = new String(sh.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, sh.waitFor(), () -> Json.string(c.getAsJsonObject(), "name") + ": " + out);
        }
    }

    @Test
    void theTokenForTheHostApiGoesToThePublisherOnly() {
        TenantCluster tc = tenant(Expectations.cases("/controlplane/cases.yaml").get(1));
        JsonObject pod = Json.object(statefulSet(renderer.render(tc)), "spec", "template", "spec");
        for (JsonElement c : pod.getAsJsonArray("containers")) {
            boolean mountsToken = c.getAsJsonObject().getAsJsonArray("volumeMounts").asList().stream()
                    .anyMatch(m -> Json.string(m.getAsJsonObject(), "name").equals("host-api-token"));
            assertEquals(Json.string(c.getAsJsonObject(), "name").equals("kubeconfig-publisher"), mountsToken);
        }
    }

    @Test
    void theExampleTenantRendersAndTheImageFollowsTheOnePinnedVersion() {
        TenantCluster tc = TenantCluster.fromJson(Manifests.read(Path.of("..", "examples", "yaml", "tenantcluster.yaml"))
                .get(0).object()).orElseThrow();
        JsonObject sts = statefulSet(renderer.render(tc));
        assertEquals("docker.io/rancher/k3s:" + TenantCluster.DEFAULT_K3S_VERSION.replace('+', '-'),
                Json.string(sts.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("spec")
                        .getAsJsonArray("containers").get(0).getAsJsonObject(), "image"));
        assertEquals("registry.example.com/mirror/k3s:v1.35.5-k3s1",
                new ControlPlaneRenderer("registry.example.com/mirror/k3s").image("v1.35.5+k3s1"));
    }

    @Test
    void anImageRepositoryWithATagIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ControlPlaneRenderer("docker.io/rancher/k3s:latest"));
        assertTrue(e.getMessage().contains("without tag or digest"), e.getMessage());
        new ControlPlaneRenderer("localhost:5000/rancher/k3s");
    }

    @Test
    void refusesAnInvalidTenantClusterListingEveryProblem() {
        TenantCluster tc = TenantCluster.fromJson(Json.gson().fromJson("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                 "metadata":{"name":"dev","namespace":"team-dev"},
                 "spec":{"isolationProfileRef":{"name":"p"},"syncPolicyRef":{"name":"s"},
                         "controlPlane":{"replicas":3,"version":"1.31","datastore":{"type":"sqlite"}}}}""",
                JsonObject.class)).orElseThrow();
        InvalidResourceException e = assertThrows(InvalidResourceException.class, () -> renderer.render(tc));
        assertEquals(List.of("spec.controlPlane.datastore.type", "spec.controlPlane.version"),
                e.problems().stream().map(Problem::field).toList());
        assertTrue(e.getMessage().startsWith("cannot render the control plane of TenantCluster team-dev/dev:\n  "
                + "spec.controlPlane.datastore.type: sqlite requires replicas = 1, got 3"), e.getMessage());
    }

    @Test
    void namesAreDerivedFromTheTenant() {
        ControlPlaneNames n = new ControlPlaneNames("dev", "team-dev");
        assertEquals("dev-control-plane", n.statefulSet());
        assertEquals("dev-control-plane-headless", n.headlessService());
        assertEquals("dev-api", n.apiService());
        assertEquals("dev-kubeconfig", n.kubeconfigSecret());
        assertEquals("https://dev-api.team-dev.svc:443", n.apiServerUrl());
        String longest = "a".repeat(TenantCluster.MAX_NAME_LENGTH);
        assertTrue(new ControlPlaneNames(longest, "ns").headlessService().length() <= 63);
    }

    private static JsonObject statefulSet(List<JsonObject> objects) {
        return objects.stream().filter(o -> "StatefulSet".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
    }
}
