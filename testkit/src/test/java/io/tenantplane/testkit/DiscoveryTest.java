package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.ApisApi;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreApi;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.V1APIGroup;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.openapi.models.V1APIResourceList;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Discovery and OpenAPI, as client-java's discovery APIs and kubectl read them. */
class DiscoveryTest {
    @RegisterExtension
    final KubeApiServerExtension kube = new KubeApiServerExtension();

    private ApiClient client;

    @BeforeEach
    void connect() {
        client = Clients.client(kube.server());
    }

    @Test
    void theCoreGroupListsItsResourcesWithVerbsShortNamesAndSubresources() throws Exception {
        assertEquals(List.of("v1"), new CoreApi(client).getAPIVersions().execute().getVersions());
        V1APIResourceList core = new CoreV1Api(client).getAPIResources().execute();
        assertEquals("v1", core.getGroupVersion());
        V1APIResource pods = find(core, "pods");
        assertTrue(pods.getNamespaced());
        assertEquals("Pod", pods.getKind());
        assertEquals(List.of("po"), pods.getShortNames());
        assertEquals(List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
                pods.getVerbs());
        assertEquals(List.of("get", "patch", "update"), find(core, "pods/status").getVerbs());
        assertEquals(List.of("create"), find(core, "pods/binding").getVerbs());
        assertFalse(find(core, "namespaces").getNamespaced());
        assertFalse(find(core, "nodes").getNamespaced());
    }

    private static V1APIResource find(V1APIResourceList list, String name) {
        return list.getResources().stream().filter(r -> r.getName().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError(name + " is not in " + list.getGroupVersion()));
    }

    @Test
    void everyBuiltInGroupIsListedWithItsPreferredVersion() throws Exception {
        List<String> groups = new ApisApi(client).getAPIVersions().execute().getGroups().stream()
                .map(V1APIGroup::getName).toList();
        assertTrue(groups.containsAll(List.of("apps", "batch", "networking.k8s.io", "discovery.k8s.io",
                "rbac.authorization.k8s.io", "coordination.k8s.io", "policy", "events.k8s.io", "apiextensions.k8s.io")),
                groups::toString);
        V1APIResourceList apps = new AppsV1Api(client).getAPIResources().execute();
        assertTrue(find(apps, "deployments").getNamespaced());
        assertEquals(List.of("get", "patch", "update"), find(apps, "statefulsets/status").getVerbs());
        assertFalse(find(new io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api(client).getAPIResources()
                .execute(), "clusterroles").getNamespaced());
    }

    @Test
    void theVersionIsKubernetes132() throws Exception {
        var version = new VersionApi(client).getCode().execute();
        assertEquals("1", version.getMajor());
        assertEquals("32", version.getMinor());
    }

    @Test
    void aCrdAddsItsGroupWithTheHighestPriorityVersionPreferredAndDeletionRemovesIt() throws Exception {
        DynamicKubernetesApi crds = new DynamicKubernetesApi("apiextensions.k8s.io", "v1",
                "customresourcedefinitions", client);
        crds.create(new DynamicKubernetesObject(Fixtures.object("widget-crd.yaml"))).throwsApiException();
        V1APIGroup group = new ApisApi(client).getAPIVersions().execute().getGroups().stream()
                .filter(g -> g.getName().equals("example.com")).findFirst().orElseThrow();
        assertEquals(List.of("example.com/v1", "example.com/v1beta1"), group.getVersions().stream()
                .map(v -> v.getGroupVersion()).toList());
        assertEquals("v1", group.getPreferredVersion().getVersion());
        crds.delete("widgets.example.com").throwsApiException();
        assertFalse(new ApisApi(client).getAPIVersions().execute().getGroups().stream()
                .anyMatch(g -> g.getName().equals("example.com")));
    }

    @Test
    void versionsAreOrderedAsKubernetesOrdersThem() {
        List<String> versions = new java.util.ArrayList<>(List.of("v1alpha1", "v2beta1", "v1", "foo", "v2",
                "v1beta2", "v1beta1"));
        versions.sort(Discovery::byPriority);
        assertEquals(List.of("v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1", "foo"), versions);
    }

    @Test
    void openApiV3AdvertisesServerSideFieldValidationForEveryGroupVersion() throws Exception {
        Clients.Raw root = Clients.raw(client, "GET", "/openapi/v3", null, null);
        assertEquals(200, root.code());
        JsonObject paths = root.json().getAsJsonObject("paths");
        assertTrue(paths.has("api/v1") && paths.has("apis/apps/v1"), paths::toString);
        String url = Json.str(paths.getAsJsonObject("apis/apps/v1"), "serverRelativeURL");
        Clients.Raw apps = Clients.raw(client, "GET", url, null, null);
        JsonObject patch = apps.json().getAsJsonObject("paths")
                .getAsJsonObject("/apis/apps/v1/namespaces/{namespace}/deployments/{name}").getAsJsonObject("patch");
        assertEquals("Deployment", Json.str(patch.getAsJsonObject("x-kubernetes-group-version-kind"), "kind"));
        assertTrue(patch.getAsJsonArray("parameters").asList().stream()
                .anyMatch(p -> "fieldValidation".equals(Json.str(p.getAsJsonObject(), "name"))));
        assertEquals(404, Clients.raw(client, "GET", "/openapi/v2", null, null).code());
    }

    @Test
    void healthEndpointsAnswerOk() throws Exception {
        for (String path : List.of("/healthz", "/livez", "/readyz")) {
            Clients.Raw r = Clients.raw(client, "GET", path, null, null);
            assertEquals(200, r.code());
            assertEquals("ok", r.body());
        }
        Clients.Raw unknown = Clients.raw(client, "GET", "/apis/nothing.example.com/v1/things", null, null);
        assertEquals(404, unknown.code());
        assertEquals("NotFound", Json.str(unknown.json(), "reason"));
    }
}
