package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.common.KubernetesType;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.UpdateOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CRDs and custom resources through client-java's DynamicKubernetesApi: serving, schema, concurrency, status. */
class CustomResourceTest {
    private static final String SCHEMA_PREFIX = "spec.versions[0].schema.openAPIV3Schema";

    @RegisterExtension
    final KubeApiServerExtension kube = new KubeApiServerExtension();

    private ApiClient client;
    private DynamicKubernetesApi crds;
    private DynamicKubernetesApi widgets;

    @BeforeEach
    void connect() {
        client = Clients.client(kube.server());
        crds = new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", client);
        widgets = new DynamicKubernetesApi("example.com", "v1", "widgets", client);
    }

    private void createWidgetCrd() throws Exception {
        crds.create(new DynamicKubernetesObject(Fixtures.object("widget-crd.yaml"))).throwsApiException();
    }

    private static DynamicKubernetesObject widget(String name, Object spec) {
        JsonObject o = Json.object("apiVersion", "example.com/v1", "kind", "Widget",
                "metadata", Json.object("name", name, "namespace", "default"), "spec", Json.GSON.toJsonTree(spec));
        return new DynamicKubernetesObject(o);
    }

    private static <T extends KubernetesType> T ok(KubernetesApiResponse<T> response) {
        assertTrue(response.isSuccess(), () -> response.getHttpStatusCode() + " " + response.getStatus());
        return response.getObject();
    }

    @Test
    void creatingACrdServesItsResourceWithStatusConditionsAndDiscovery() throws Exception {
        expectNotServed();
        createWidgetCrd();
        V1CustomResourceDefinition crd = new ApiextensionsV1Api(client)
                .readCustomResourceDefinition("widgets.example.com").execute();
        assertEquals(List.of("NamesAccepted", "Established"), crd.getStatus().getConditions().stream()
                .map(c -> c.getType()).toList());
        assertEquals(List.of("v1"), crd.getStatus().getStoredVersions());
        List<V1APIResource> resources = new CustomObjectsApi(client).getAPIResources("example.com", "v1").execute()
                .getResources();
        V1APIResource widgetResource = resources.stream().filter(r -> r.getName().equals("widgets")).findFirst()
                .orElseThrow();
        assertEquals("Widget", widgetResource.getKind());
        assertTrue(widgetResource.getNamespaced());
        assertEquals(List.of("wg"), widgetResource.getShortNames());
        assertTrue(resources.stream().anyMatch(r -> r.getName().equals("widgets/status")));
        DynamicKubernetesObject created = ok(widgets.create(widget("w1", Map.of("size", 3))));
        assertEquals("red", created.getRaw().getAsJsonObject("spec").get("color").getAsString(), "defaulted");
        assertEquals(1L, created.getMetadata().getGeneration());
    }

    private void expectNotServed() {
        assertEquals(404, widgets.list("default").getHttpStatusCode());
    }

    @Test
    void anInvalidCustomResourceIsInvalidWithEveryCause() throws Exception {
        createWidgetCrd();
        KubernetesApiResponse<DynamicKubernetesObject> response = widgets.create(widget("bad",
                Json.object("size", 11, "color", "green")));
        assertEquals(422, response.getHttpStatusCode());
        assertEquals("Invalid", response.getStatus().getReason());
        assertEquals("Widget.example.com \"bad\" is invalid: [spec.size: Invalid value: 11: spec.size in body should "
                + "be less than or equal to 10, spec.color: Unsupported value: \"green\": supported values: \"red\", "
                + "\"blue\"]", response.getStatus().getMessage());
        assertEquals(List.of("spec.size", "spec.color"), response.getStatus().getDetails().getCauses().stream()
                .map(c -> c.getField()).toList());
        assertEquals(404, widgets.get("default", "bad").getHttpStatusCode());
    }

    @Test
    void unknownFieldsArePrunedWarnedAboutOrRejectedWhenStrict() throws Exception {
        createWidgetCrd();
        DynamicKubernetesObject created = ok(widgets.create(widget("w", Map.of("size", 1, "bogus", true))));
        assertFalse(created.getRaw().getAsJsonObject("spec").has("bogus"));
        Clients.Raw rejected = Clients.raw(client, "POST",
                "/apis/example.com/v1/namespaces/default/widgets?fieldValidation=Strict", "application/json",
                Json.text(widget("w2", Map.of("size", 1, "bogus", true)).getRaw()));
        assertEquals(400, rejected.code());
        assertTrue(Json.str(rejected.json(), "message").contains("unknown field \"spec.bogus\""), rejected.body());
    }

    @Test
    void aStaleResourceVersionOnACustomResourceIsConflict() throws Exception {
        createWidgetCrd();
        DynamicKubernetesObject created = ok(widgets.create(widget("w", Map.of("size", 1))));
        DynamicKubernetesObject stale = new DynamicKubernetesObject(created.getRaw().deepCopy());
        created.getRaw().getAsJsonObject("spec").addProperty("size", 2);
        DynamicKubernetesObject updated = ok(widgets.update(created));
        assertEquals(2L, updated.getMetadata().getGeneration());
        stale.getRaw().getAsJsonObject("spec").addProperty("size", 5);
        KubernetesApiResponse<DynamicKubernetesObject> conflict = widgets.update(stale);
        assertEquals(409, conflict.getHttpStatusCode());
        assertEquals("Conflict", conflict.getStatus().getReason());
    }

    @Test
    void updatingACustomResourceWithoutAResourceVersionIsInvalidAsOnARealServer() throws Exception {
        createWidgetCrd();
        DynamicKubernetesObject created = ok(widgets.create(widget("w", Map.of("size", 1))));
        created.getRaw().getAsJsonObject("metadata").remove("resourceVersion");
        KubernetesApiResponse<DynamicKubernetesObject> response = widgets.update(created);
        assertEquals(422, response.getHttpStatusCode());
        assertEquals("metadata.resourceVersion", response.getStatus().getDetails().getCauses().get(0).getField());
    }

    @Test
    void theStatusSubresourceOfACustomResourceChangesOnlyStatus() throws Exception {
        createWidgetCrd();
        DynamicKubernetesObject created = ok(widgets.create(widget("w", Map.of("size", 1))));
        JsonObject raw = created.getRaw().deepCopy();
        raw.add("status", Json.object("ready", true, "observedGeneration", 1));
        raw.getAsJsonObject("spec").addProperty("size", 9);
        DynamicKubernetesObject afterStatus = ok(widgets.updateStatus(new DynamicKubernetesObject(raw),
                o -> o.getRaw().get("status")));
        assertTrue(afterStatus.getRaw().getAsJsonObject("status").get("ready").getAsBoolean());
        assertEquals(1, afterStatus.getRaw().getAsJsonObject("spec").get("size").getAsInt(), "spec kept on /status");
        assertEquals(1L, afterStatus.getMetadata().getGeneration());

        JsonObject main = afterStatus.getRaw().deepCopy();
        main.add("status", Json.object("ready", false));
        main.getAsJsonObject("spec").addProperty("size", 4);
        DynamicKubernetesObject afterMain = ok(widgets.update(new DynamicKubernetesObject(main)));
        assertTrue(afterMain.getRaw().getAsJsonObject("status").get("ready").getAsBoolean(), "status kept on main");
        assertEquals(4, afterMain.getRaw().getAsJsonObject("spec").get("size").getAsInt());

        KubernetesApiResponse<DynamicKubernetesObject> invalidStatus = widgets.patch("default", "w",
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"status\":{\"ready\":\"yes\"}}"));
        assertEquals(200, invalidStatus.getHttpStatusCode(), "the main resource ignores status, so no validation");
    }

    @Test
    void aStatusPatchIsValidatedAgainstTheSchema() throws Exception {
        createWidgetCrd();
        ok(widgets.create(widget("w", Map.of("size", 1))));
        Clients.Raw response = Clients.raw(client, "PATCH", "/apis/example.com/v1/namespaces/default/widgets/w/status",
                "application/merge-patch+json", "{\"status\":{\"ready\":\"yes\"}}");
        assertEquals(422, response.code(), response.body());
        assertTrue(Json.str(response.json(), "message").contains("status.ready"), response.body());
    }

    @Test
    void strategicMergePatchOnACustomResourceIsUnsupportedMediaType() throws Exception {
        createWidgetCrd();
        ok(widgets.create(widget("w", Map.of("size", 1))));
        KubernetesApiResponse<DynamicKubernetesObject> response = widgets.patch("default", "w",
                V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, new V1Patch("{\"spec\":{\"size\":2}}"));
        assertEquals(415, response.getHttpStatusCode());
        assertEquals("UnsupportedMediaType", response.getStatus().getReason());
        // An apply configuration names its version and kind (there is no "Object 'Kind' is missing" guessing).
        io.kubernetes.client.util.generic.options.PatchOptions asTester =
                new io.kubernetes.client.util.generic.options.PatchOptions();
        asTester.setFieldManager("tester");
        KubernetesApiResponse<DynamicKubernetesObject> apply = widgets.patch("default", "w",
                V1Patch.PATCH_FORMAT_APPLY_YAML, new V1Patch("spec:\n  size: 2\n"), asTester);
        assertEquals(400, apply.getHttpStatusCode());
        assertTrue(apply.getStatus().getMessage().startsWith("Object 'Kind' is missing in"),
                apply.getStatus().getMessage());
        KubernetesApiResponse<DynamicKubernetesObject> merge = widgets.patch("default", "w",
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, new V1Patch("{\"spec\":{\"size\":2}}"));
        assertEquals(2, ok(merge).getRaw().getAsJsonObject("spec").get("size").getAsInt());
        KubernetesApiResponse<DynamicKubernetesObject> invalid = widgets.patch("default", "w",
                V1Patch.PATCH_FORMAT_JSON_PATCH, new V1Patch("[{\"op\":\"replace\",\"path\":\"/spec/size\",\"value\":0}]"));
        assertEquals(422, invalid.getHttpStatusCode());
    }

    @Test
    void everyServedVersionReadsTheSameObjects() throws Exception {
        createWidgetCrd();
        ok(widgets.create(widget("w", Map.of("size", 1))));
        DynamicKubernetesApi beta = new DynamicKubernetesApi("example.com", "v1beta1", "widgets", client);
        DynamicKubernetesObject viaBeta = ok(beta.get("default", "w"));
        assertEquals("example.com/v1beta1", viaBeta.getApiVersion());
        assertEquals(1, viaBeta.getRaw().getAsJsonObject("spec").get("size").getAsInt());
        assertEquals("v1", new ApiextensionsV1Api(client).getAPIResources().execute() != null
                ? new CustomObjectsApi(client).getAPIResources("example.com", "v1").execute().getGroupVersion()
                        .split("/")[1] : "");
    }

    @Test
    void deletingACrdDeletesItsObjectsAndStopsServingIt() throws Exception {
        createWidgetCrd();
        ok(widgets.create(widget("w1", Map.of("size", 1))));
        ok(widgets.create(widget("w2", Map.of("size", 2))));
        assertTrue(crds.delete("widgets.example.com").isSuccess());
        expectNotServed();
        assertEquals(404, crds.get("widgets.example.com").getHttpStatusCode());
        createWidgetCrd();
        assertEquals(0, ok(widgets.list("default")) == null ? -1 : widgets.list("default").getObject().getItems()
                .size(), "objects of the old CRD are gone");
    }

    @Test
    void aCrdWaitsForCustomResourcesWithFinalizers() throws Exception {
        createWidgetCrd();
        DynamicKubernetesObject held = widget("held", Map.of("size", 1));
        held.getRaw().getAsJsonObject("metadata").add("finalizers", Json.array("example.com/keep"));
        ok(widgets.create(held));
        assertTrue(crds.delete("widgets.example.com").isSuccess());
        DynamicKubernetesObject terminating = ok(widgets.get("default", "held"));
        assertNotNull(terminating.getMetadata().getDeletionTimestamp());
        assertEquals(405, widgets.create(widget("new", Map.of("size", 1))).getHttpStatusCode());
        ok(widgets.patch("default", "held", V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
                new V1Patch("{\"metadata\":{\"finalizers\":null}}")));
        assertEquals(404, crds.get("widgets.example.com").getHttpStatusCode());
        expectNotServed();
    }

    @Test
    void clusterScopedCustomResourcesLiveOutsideNamespaces() throws Exception {
        JsonObject crd = Fixtures.object("widget-crd.yaml");
        crd.getAsJsonObject("metadata").addProperty("name", "gadgets.example.com");
        JsonObject spec = crd.getAsJsonObject("spec");
        spec.addProperty("scope", "Cluster");
        spec.add("names", Json.object("plural", "gadgets", "kind", "Gadget"));
        ok(crds.create(new DynamicKubernetesObject(crd)));
        DynamicKubernetesApi gadgets = new DynamicKubernetesApi("example.com", "v1", "gadgets", client);
        JsonObject gadget = Json.object("apiVersion", "example.com/v1", "kind", "Gadget", "metadata",
                Json.object("name", "g"), "spec", Json.object("size", 1));
        DynamicKubernetesObject created = ok(gadgets.create(new DynamicKubernetesObject(gadget)));
        assertNull(created.getMetadata().getNamespace());
        assertEquals(1, ok(gadgets.list()).getItems().size());
        assertEquals("gadget", ok(crds.get("gadgets.example.com")).getRaw().getAsJsonObject("spec")
                .getAsJsonObject("names").get("singular").getAsString(), "singular defaults to the lower-case kind");
    }

    @Test
    void crdUpdatesNeedAResourceVersionAndKeepTheScope() throws Exception {
        createWidgetCrd();
        DynamicKubernetesObject crd = ok(crds.get("widgets.example.com"));
        crd.getRaw().getAsJsonObject("spec").addProperty("scope", "Cluster");
        KubernetesApiResponse<DynamicKubernetesObject> response = crds.update(crd);
        assertEquals(422, response.getHttpStatusCode());
        assertEquals("spec.scope", response.getStatus().getDetails().getCauses().get(0).getField());
        crd.getRaw().getAsJsonObject("metadata").remove("resourceVersion");
        crd.getRaw().getAsJsonObject("spec").addProperty("scope", "Namespaced");
        assertEquals(422, crds.update(crd, new UpdateOptions()).getHttpStatusCode());
    }

    static Stream<Named<JsonObject>> structuralCases() {
        return Fixtures.cases("crd-structural-cases.yaml").stream().map(c -> Named.of(Json.str(c, "name"), c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("structuralCases")
    void aCrdWhoseSchemaIsNotStructuralIsRejected(JsonObject c) throws Exception {
        JsonObject crd = Fixtures.object("widget-crd.yaml");
        JsonArray versions = crd.getAsJsonObject("spec").getAsJsonArray("versions");
        versions.remove(1);
        versions.get(0).getAsJsonObject().getAsJsonObject("schema").add("openAPIV3Schema", c.get("schema"));
        KubernetesApiResponse<DynamicKubernetesObject> response = crds.create(new DynamicKubernetesObject(crd));
        List<String> expected = new ArrayList<>();
        for (JsonElement f : Json.arr(c, "fields")) {
            expected.add(SCHEMA_PREFIX + f.getAsString());
        }
        if (expected.isEmpty()) {
            assertTrue(response.isSuccess(), () -> String.valueOf(response.getStatus()));
            return;
        }
        assertEquals(422, response.getHttpStatusCode());
        List<String> fields = response.getStatus().getDetails().getCauses().stream().map(x -> x.getField()).toList();
        assertEquals(expected, fields);
        assertEquals(404, crds.get("widgets.example.com").getHttpStatusCode());
    }

    @Test
    void aCrdWithBadNamesIsRejected() {
        JsonObject crd = Fixtures.object("widget-crd.yaml");
        crd.getAsJsonObject("metadata").addProperty("name", "widgets.other.com");
        crd.getAsJsonObject("spec").addProperty("group", "nodots");
        crd.getAsJsonObject("spec").getAsJsonArray("versions").get(1).getAsJsonObject().addProperty("storage", true);
        KubernetesApiResponse<DynamicKubernetesObject> response = crds.create(new DynamicKubernetesObject(crd));
        assertEquals(422, response.getHttpStatusCode());
        assertEquals(List.of("spec.group", "metadata.name", "spec.versions"), response.getStatus().getDetails()
                .getCauses().stream().map(x -> x.getField()).toList());
    }

    @Test
    void withoutAStatusSubresourceStatusIsOrdinaryDataAndCountsForGeneration() throws Exception {
        JsonObject crd = Fixtures.object("widget-crd.yaml");
        JsonArray versions = crd.getAsJsonObject("spec").getAsJsonArray("versions");
        versions.remove(1);
        versions.get(0).getAsJsonObject().remove("subresources");
        ok(crds.create(new DynamicKubernetesObject(crd)));
        DynamicKubernetesObject w = widget("w", Map.of("size", 1));
        w.getRaw().add("status", Json.object("ready", false));
        DynamicKubernetesObject created = ok(widgets.create(w));
        assertFalse(created.getRaw().getAsJsonObject("status").get("ready").getAsBoolean(), "status kept on create");
        created.getRaw().add("status", Json.object("ready", true));
        DynamicKubernetesObject updated = ok(widgets.update(created));
        assertTrue(updated.getRaw().getAsJsonObject("status").get("ready").getAsBoolean());
        assertEquals(2L, updated.getMetadata().getGeneration());
        assertEquals(404, Clients.raw(client, "GET", "/apis/example.com/v1/namespaces/default/widgets/w/status", null,
                null).code());
    }
}
