package io.tenantplane.testkit;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.util.PatchUtils;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.tenantplane.testkit.Clients.configMap;
import static io.tenantplane.testkit.Clients.expectApiError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PATCH through client-java's PatchUtils, in each patch format, on built-in kinds. */
class PatchTest {
    @RegisterExtension
    final KubeApiServerExtension kube = new KubeApiServerExtension();

    private ApiClient client;
    private CoreV1Api core;
    private AppsV1Api apps;

    @BeforeEach
    void connect() {
        client = Clients.client(kube.server());
        core = new CoreV1Api(client);
        apps = new AppsV1Api(client);
    }

    private V1ConfigMap patchConfigMap(String format, String patch) throws ApiException {
        return PatchUtils.patch(V1ConfigMap.class, () -> core.patchNamespacedConfigMap("a", "default",
                new V1Patch(patch)).buildCall(null), format, client);
    }

    @Test
    void aMergePatchChangesOnlyWhatItNames() throws Exception {
        V1ConfigMap cm = configMap("default", "a", Map.of("keep", "1", "drop", "2"));
        cm.getMetadata().setLabels(Map.of("team", "a"));
        core.createNamespacedConfigMap("default", cm).execute();
        V1ConfigMap patched = patchConfigMap(V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
                "{\"metadata\":{\"labels\":{\"tier\":\"web\"}},\"data\":{\"drop\":null,\"new\":\"3\"}}");
        assertEquals(Map.of("team", "a", "tier", "web"), patched.getMetadata().getLabels());
        assertEquals(Map.of("keep", "1", "new", "3"), patched.getData());
    }

    @Test
    void aJsonPatchWhoseTestFailsIsInvalidAndChangesNothing() throws Exception {
        String version = core.createNamespacedConfigMap("default", configMap("default", "a", Map.of("k", "v")))
                .execute().getMetadata().getResourceVersion();
        expectApiError(422, () -> patchConfigMap(V1Patch.PATCH_FORMAT_JSON_PATCH,
                "[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"other\"},"
                        + "{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"x\"}]"));
        expectApiError(422, () -> patchConfigMap(V1Patch.PATCH_FORMAT_JSON_PATCH,
                "[{\"op\":\"remove\",\"path\":\"/data/missing\"}]"));
        assertEquals(version, core.readNamespacedConfigMap("a", "default").execute().getMetadata()
                .getResourceVersion());
        V1ConfigMap ok = patchConfigMap(V1Patch.PATCH_FORMAT_JSON_PATCH,
                "[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"v\"},"
                        + "{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"x\"}]");
        assertEquals("x", ok.getData().get("k"));
    }

    @Test
    void aPatchCarryingAStaleResourceVersionIsConflict() throws Exception {
        core.createNamespacedConfigMap("default", configMap("default", "a", Map.of())).execute();
        patchConfigMap(V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, "{\"data\":{\"k\":\"1\"}}");
        expectApiError(409, () -> patchConfigMap(V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
                "{\"metadata\":{\"resourceVersion\":\"1\"},\"data\":{\"k\":\"2\"}}"));
    }

    @Test
    void patchingAMissingObjectIsNotFound() {
        expectApiError(404, () -> patchConfigMap(V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, "{\"data\":{}}"));
    }

    @Test
    void aStrategicMergePatchMergesContainersAndEnvByName() throws Exception {
        V1Deployment d = new V1Deployment().metadata(new V1ObjectMeta().name("web"))
                .spec(new V1DeploymentSpec().selector(new V1LabelSelector().matchLabels(Map.of("app", "web")))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(Map.of("app", "web")))
                                .spec(new V1PodSpec().containers(List.of(
                                        new V1Container().name("app").image("app:1").env(List.of(
                                                new V1EnvVar().name("A").value("1"))),
                                        new V1Container().name("proxy").image("proxy:1"))))));
        apps.createNamespacedDeployment("default", d).execute();
        String patch = "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"app:2\","
                + "\"env\":[{\"name\":\"B\",\"value\":\"2\"}]}]}}}}";
        V1Deployment patched = PatchUtils.patch(V1Deployment.class, () -> apps.patchNamespacedDeployment("web",
                "default", new V1Patch(patch)).buildCall(null), V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, client);
        List<V1Container> containers = patched.getSpec().getTemplate().getSpec().getContainers();
        assertEquals(List.of("app:2", "proxy:1"), containers.stream().map(V1Container::getImage).toList());
        assertEquals(List.of("A", "B"), containers.get(0).getEnv().stream().map(V1EnvVar::getName).toList());
        assertEquals(2L, patched.getMetadata().getGeneration());
    }

    @Test
    void aStatusPatchChangesOnlyTheStatus() throws Exception {
        V1Deployment d = new V1Deployment().metadata(new V1ObjectMeta().name("web"))
                .spec(new V1DeploymentSpec().selector(new V1LabelSelector().matchLabels(Map.of("app", "web")))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(Map.of("app", "web")))
                                .spec(new V1PodSpec().containers(List.of(new V1Container().name("app")
                                        .image("app:1"))))));
        apps.createNamespacedDeployment("default", d).execute();
        V1Deployment patched = PatchUtils.patch(V1Deployment.class, () -> apps.patchNamespacedDeploymentStatus("web",
                "default", new V1Patch("{\"spec\":{\"replicas\":7},\"status\":{\"readyReplicas\":1}}")).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
        assertEquals(1, patched.getStatus().getReadyReplicas());
        assertEquals(1, patched.getSpec().getReplicas());
    }

    @Test
    void serverSideApplyWithoutAFieldManagerIsInvalidAndWithOneApplies() throws Exception {
        core.createNamespacedConfigMap("default", configMap("default", "a", Map.of())).execute();
        ApiException e = expectApiError(422, () -> patchConfigMap(V1Patch.PATCH_FORMAT_APPLY_YAML,
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: v\n"));
        assertTrue(e.getResponseBody().contains("fieldManager: Required value: is required for apply patch"),
                e.getResponseBody());
        V1ConfigMap applied = PatchUtils.patch(V1ConfigMap.class, () -> core.patchNamespacedConfigMap("a", "default",
                new V1Patch("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: v\n"))
                .fieldManager("tester").buildCall(null), V1Patch.PATCH_FORMAT_APPLY_YAML, client);
        assertEquals(Map.of("k", "v"), applied.getData());
        String stored = Clients.raw(client, "GET", "/api/v1/namespaces/default/configmaps/a", null, null).body();
        assertTrue(stored.contains("\"manager\":\"tester\",\"operation\":\"Apply\""), stored);
    }
}
