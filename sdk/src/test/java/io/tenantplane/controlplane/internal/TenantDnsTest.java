package io.tenantplane.controlplane.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.TransformResult;
import io.tenantplane.transform.Transformer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tenant's own DNS as rendered for the example tenant: wired to the tenant API, reachable only by its pods. */
class TenantDnsTest {

    private final TenantCluster tc = TenantCluster.fromJson(Manifests.read(Path.of("..", "examples", "yaml",
            "tenantcluster.yaml")).get(0).object()).orElseThrow().withDefaults();
    private final List<JsonObject> objects = TenantDns.render(tc);
    private final ControlPlaneNames n = ControlPlaneNames.of(tc);

    private JsonObject of(String kind) {
        return objects.stream().filter(o -> kind.equals(Json.string(o, "kind"))).findFirst().orElseThrow();
    }

    private static Map<String, String> matchLabels(JsonObject selector) {
        return Json.gson().fromJson(selector.getAsJsonObject("matchLabels"), Map.class);
    }

    @Test
    void fourObjectsNamedForTheTenantBesideItsControlPlane() {
        assertEquals(List.of("ConfigMap", "Deployment", "Service", "NetworkPolicy"),
                objects.stream().map(o -> Json.string(o, "kind")).toList());
        for (JsonObject o : objects) {
            assertEquals(n.dnsService(), Json.string(o, "metadata", "name"));
            assertEquals(tc.namespace(), Json.string(o, "metadata", "namespace"));
            assertEquals(TenantDns.COMPONENT, Json.labels(o).get(ControlPlaneRenderer.COMPONENT_LABEL));
            assertFalse(Json.annotations(o).getOrDefault("tenantplane.io/reason", "").isEmpty());
        }
    }

    @Test
    void coreDnsReadsTheTenantApiThroughItsOwnReadOnlyCredentialNeverTheAdminKubeconfig() {
        String corefile = Json.string(of("ConfigMap"), "data", "Corefile");
        assertTrue(corefile.contains("kubernetes cluster.local in-addr.arpa ip6.arpa {"), corefile);
        assertTrue(corefile.contains("forward . /etc/resolv.conf"), corefile);
        assertTrue(corefile.contains(".:" + TenantDns.PORT + " {"), corefile);
        JsonObject pod = Json.object(of("Deployment"), "spec", "template", "spec");
        JsonArray volumes = pod.getAsJsonArray("volumes");
        JsonObject secret = volumes.asList().stream().map(v -> v.getAsJsonObject())
                .filter(v -> v.has("secret")).findFirst().orElseThrow().getAsJsonObject("secret");
        assertEquals(n.dnsKubeconfigSecret(), Json.string(secret, "secretName"));
        JsonObject item = secret.getAsJsonArray("items").get(0).getAsJsonObject();
        assertEquals(ControlPlaneNames.KUBECONFIG_KEY, Json.string(item, "key"));
        JsonObject token = secret.getAsJsonArray("items").get(1).getAsJsonObject();
        assertEquals(ControlPlaneNames.DNS_TOKEN_KEY, Json.string(token, "key"));
        JsonObject mount = pod.getAsJsonArray("containers").get(0).getAsJsonObject().getAsJsonArray("volumeMounts")
                .asList().stream().map(m -> m.getAsJsonObject()).filter(m -> "kubeconfig".equals(Json.string(m,
                        "name"))).findFirst().orElseThrow();
        String path = Json.string(mount, "mountPath") + "/" + Json.string(item, "path");
        assertTrue(corefile.contains("kubeconfig " + path + "\n"), () -> "the Corefile reads " + path + ": " + corefile);
        assertEquals(TenantDns.TOKEN_PATH, Json.string(mount, "mountPath") + "/" + Json.string(token, "path"),
                "the published kubeconfig's tokenFile is where the token is mounted");
        // A runtime cannot make a mount point inside a read-only volume: no mount lies inside another.
        List<String> paths = pod.getAsJsonArray("containers").get(0).getAsJsonObject().getAsJsonArray("volumeMounts")
                .asList().stream().map(m -> Json.string(m.getAsJsonObject(), "mountPath")).toList();
        for (String a : paths) {
            for (String b : paths) {
                assertTrue(a.equals(b) || !b.startsWith(a + "/"), () -> b + " is inside " + a);
            }
        }
    }

    @Test
    void theDnsPodsPassTheRestrictedLevelAndListenUnprivileged() {
        JsonObject template = Json.object(of("Deployment"), "spec", "template");
        JsonObject pod = Json.gson().fromJson("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"dns\","
                + "\"namespace\":\"default\"}}", JsonObject.class);
        pod.add("spec", template.getAsJsonObject("spec").deepCopy());
        Transformer restricted = new Transformer("x", "y", new SyncPolicy(null, null, null, new SyncPolicy.Spec(
                List.of(new SyncPolicy.KindRule("Pod", null, true, null, null, null),
                        new SyncPolicy.KindRule("ConfigMap", null, true, null, null, null),
                        new SyncPolicy.KindRule("Secret", null, true, null, null, null)))),
                TransformOptions.defaults().withPodSecurity(PodSecurityLevel.RESTRICTED));
        assertInstanceOf(TransformResult.Transformed.class, restricted.transform(pod));
        JsonObject svcPort = of("Service").getAsJsonObject("spec").getAsJsonArray("ports").get(0).getAsJsonObject();
        assertEquals(53, svcPort.get("port").getAsInt());
        assertEquals(TenantDns.PORT, svcPort.get("targetPort").getAsInt());
    }

    @Test
    void theServiceSelectsTheDnsPodsAndNeitherTheApiServiceNorTheBoundarySelectsThem() {
        Map<String, String> podLabels = Json.gson().fromJson(Json.object(of("Deployment"), "spec", "template",
                "metadata", "labels"), Map.class);
        Map<String, String> svcSelector = Json.gson().fromJson(Json.object(of("Service"), "spec", "selector"),
                Map.class);
        assertTrue(podLabels.entrySet().containsAll(svcSelector.entrySet()));
        assertFalse(podLabels.entrySet().containsAll(ControlPlaneRenderer.selectorLabels(tc.tenant()).entrySet()),
                "the tenant API Service does not send API traffic to DNS pods");
        JsonObject workload = IsolationRenderer.workloadSelector(tc.tenant());
        List<String> excluded = workload.getAsJsonArray("matchExpressions").get(0).getAsJsonObject()
                .getAsJsonArray("values").asList().stream().map(e -> e.getAsString()).toList();
        assertTrue(excluded.contains(podLabels.get(ControlPlaneRenderer.COMPONENT_LABEL)),
                "the tenant's default-deny does not cut its own DNS off");
    }

    @Test
    void onlyTheTenantsPodsMayQueryAndTheDnsReachesOnlyItsApiAndTheHostsDns() {
        JsonObject spec = of("NetworkPolicy").getAsJsonObject("spec");
        JsonObject from = spec.getAsJsonArray("ingress").get(0).getAsJsonObject().getAsJsonArray("from").get(0)
                .getAsJsonObject();
        assertEquals(Map.of("kubernetes.io/metadata.name", tc.hostNamespace()),
                matchLabels(from.getAsJsonObject("namespaceSelector")));
        assertEquals(Map.of("tenantplane.io/tenant", tc.tenant()), matchLabels(from.getAsJsonObject("podSelector")));
        JsonArray egress = spec.getAsJsonArray("egress");
        assertEquals(2, egress.size());
        assertEquals(ControlPlaneRenderer.selectorLabels(tc.tenant()), matchLabels(egress.get(0).getAsJsonObject()
                .getAsJsonArray("to").get(0).getAsJsonObject().getAsJsonObject("podSelector")));
        assertEquals(ControlPlaneRenderer.API_PORT, egress.get(0).getAsJsonObject().getAsJsonArray("ports").get(0)
                .getAsJsonObject().get("port").getAsInt());
        assertEquals(List.of("Ingress", "Egress"), spec.getAsJsonArray("policyTypes").asList().stream()
                .map(e -> e.getAsString()).toList());
    }
}
