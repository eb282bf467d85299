package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Binding;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Preconditions;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.util.PatchUtils;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.tenantplane.testkit.Clients.configMap;
import static io.tenantplane.testkit.Clients.expectApiError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Object semantics through client-java's typed APIs: metadata, CRUD errors, selectors, paging, concurrency, delete. */
class CoreSemanticsTest {
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

    private static JsonObject status(ApiException e) {
        return JsonParser.parseString(e.getResponseBody()).getAsJsonObject();
    }

    private V1ConfigMap createConfigMap(String name, Map<String, String> labels) throws ApiException {
        V1ConfigMap cm = configMap("default", name, Map.of("k", "v"));
        cm.getMetadata().setLabels(labels);
        return core.createNamespacedConfigMap("default", cm).execute();
    }

    private V1Deployment deployment(String name) {
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(new V1ObjectMeta().name(name).namespace("default"))
                .spec(new V1DeploymentSpec().replicas(2)
                        .selector(new V1LabelSelector().matchLabels(Map.of("app", name)))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(Map.of("app", name)))
                                .spec(new V1PodSpec().containers(List.of(
                                        new V1Container().name("main").image("nginx:1.27"))))));
    }

    private V1Pod pod(String name) {
        return new V1Pod().apiVersion("v1").kind("Pod").metadata(new V1ObjectMeta().name(name).namespace("default"))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("main").image("nginx:1.27"))));
    }

    @Test
    void createFillsInServerOwnedMetadata() throws Exception {
        V1ConfigMap created = createConfigMap("a", null);
        V1ObjectMeta m = created.getMetadata();
        assertNotNull(m.getUid());
        assertNotNull(m.getCreationTimestamp());
        assertEquals(1L, m.getGeneration());
        assertEquals("default", m.getNamespace());
        assertTrue(Long.parseLong(m.getResourceVersion()) > 0);
        assertEquals("v1", created.getApiVersion());
        assertEquals("ConfigMap", created.getKind());
    }

    @Test
    void resourceVersionIsOneGlobalIncreasingCounter() throws Exception {
        long first = Long.parseLong(createConfigMap("a", null).getMetadata().getResourceVersion());
        V1Secret secret = core.createNamespacedSecret("default", new V1Secret().metadata(
                new V1ObjectMeta().name("s"))).execute();
        long second = Long.parseLong(secret.getMetadata().getResourceVersion());
        long third = Long.parseLong(createConfigMap("b", null).getMetadata().getResourceVersion());
        assertTrue(first < second && second < third, first + " < " + second + " < " + third);
        String listVersion = core.listNamespacedConfigMap("default").execute().getMetadata().getResourceVersion();
        assertEquals(third, Long.parseLong(listVersion));
    }

    @Test
    void creatingAnExistingNameIsAlreadyExists() throws Exception {
        createConfigMap("a", null);
        ApiException e = expectApiError(409, () -> createConfigMap("a", null));
        JsonObject status = status(e);
        assertEquals("Status", status.get("kind").getAsString());
        assertEquals("Failure", status.get("status").getAsString());
        assertEquals("AlreadyExists", status.get("reason").getAsString());
        assertEquals("configmaps \"a\" already exists", status.get("message").getAsString());
        assertEquals("a", status.getAsJsonObject("details").get("name").getAsString());
        assertEquals("configmaps", status.getAsJsonObject("details").get("kind").getAsString());
    }

    @Test
    void readingAMissingObjectIsNotFoundWithGroupQualifiedMessage() {
        JsonObject status = status(expectApiError(404,
                () -> apps.readNamespacedDeployment("nope", "default").execute()));
        assertEquals("NotFound", status.get("reason").getAsString());
        assertEquals("deployments.apps \"nope\" not found", status.get("message").getAsString());
        assertEquals("apps", status.getAsJsonObject("details").get("group").getAsString());
        assertEquals(404, status.get("code").getAsInt());
    }

    @Test
    void namespacedObjectsNeedAnExistingNamespace() {
        JsonObject status = status(expectApiError(404, () -> core.createNamespacedConfigMap("missing",
                configMap("missing", "a", Map.of())).execute()));
        assertEquals("namespaces \"missing\" not found", status.get("message").getAsString());
    }

    @Test
    void generateNameAppendsFiveRandomCharacters() throws Exception {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            V1ConfigMap cm = new V1ConfigMap().metadata(new V1ObjectMeta().generateName("job-"));
            names.add(core.createNamespacedConfigMap("default", cm).execute().getMetadata().getName());
        }
        assertEquals(20, names.size());
        assertTrue(names.stream().allMatch(n -> n.matches("job-[bcdfghjklmnpqrstvwxz2456789]{5}")), names::toString);
    }

    @Test
    void invalidNamesAndLabelsAreInvalid() {
        V1Service upper = new V1Service().metadata(new V1ObjectMeta().name("Web"))
                .spec(new V1ServiceSpec().ports(List.of(new V1ServicePort().port(80))));
        JsonObject status = status(expectApiError(422, () -> core.createNamespacedService("default", upper).execute()));
        assertEquals("Invalid", status.get("reason").getAsString());
        assertEquals("metadata.name", status.getAsJsonObject("details").getAsJsonArray("causes").get(0)
                .getAsJsonObject().get("field").getAsString());
        expectApiError(422, () -> core.createNamespace(Clients.namespace("x".repeat(64))).execute());
        expectApiError(422, () -> createConfigMap("labels", Map.of("tenant", "v".repeat(64))));
    }

    @ParameterizedTest(name = "labelSelector \"{0}\" selects [{1}]")
    @CsvSource(delimiter = '|', value = {
        "tier=web                     | a b",
        "tier==web                    | a b",
        "tier!=web                    | c d",
        "tier in (web,db)             | a b c",
        "tier notin (web)             | c d",
        "tier                         | a b c",
        "!tier                        | d",
        "tier=web,env=prod            | a",
        "tier in (web),env notin (dev)| a",
        "env                          | a b",
    })
    void labelSelectorsFilterLists(String selector, String expected) throws Exception {
        createConfigMap("a", Map.of("tier", "web", "env", "prod"));
        createConfigMap("b", Map.of("tier", "web", "env", "dev"));
        createConfigMap("c", Map.of("tier", "db"));
        createConfigMap("d", Map.of());
        List<String> names = core.listNamespacedConfigMap("default").labelSelector(selector).execute().getItems()
                .stream().map(cm -> cm.getMetadata().getName()).toList();
        assertEquals(Arrays.asList(expected.split(" ")), names);
    }

    @Test
    void fieldSelectorsFilterByNameAndNamespaceAndRejectUnknownFields() throws Exception {
        Clients.createNamespace(client, "other");
        createConfigMap("a", null);
        core.createNamespacedConfigMap("other", configMap("other", "a", Map.of())).execute();
        createConfigMap("b", null);
        assertEquals(2, core.listConfigMapForAllNamespaces().fieldSelector("metadata.name=a").execute()
                .getItems().size());
        assertEquals(List.of("other"), core.listConfigMapForAllNamespaces()
                .fieldSelector("metadata.name=a,metadata.namespace!=default").execute().getItems().stream()
                .map(cm -> cm.getMetadata().getNamespace()).toList());
        expectApiError(400, () -> core.listNamespacedConfigMap("default").fieldSelector("data.k=v").execute());
    }

    @Test
    void podsCanBeSelectedByNodeName() throws Exception {
        core.createNamespacedPod("default", pod("p1")).execute();
        core.createNamespacedPod("default", pod("p2").spec(pod("p2").getSpec().nodeName("n1"))).execute();
        assertEquals(List.of("p2"), core.listNamespacedPod("default").fieldSelector("spec.nodeName=n1").execute()
                .getItems().stream().map(p -> p.getMetadata().getName()).toList());
        assertEquals(List.of("p1"), core.listNamespacedPod("default").fieldSelector("spec.nodeName=").execute()
                .getItems().stream().map(p -> p.getMetadata().getName()).toList());
    }

    @Test
    void listingAcrossNamespacesReturnsObjectsOfEveryNamespaceInOrder() throws Exception {
        Clients.createNamespace(client, "b-ns");
        Clients.createNamespace(client, "a-ns");
        core.createNamespacedConfigMap("b-ns", configMap("b-ns", "x", Map.of())).execute();
        core.createNamespacedConfigMap("a-ns", configMap("a-ns", "y", Map.of())).execute();
        createConfigMap("z", null);
        assertEquals(List.of("a-ns/y", "b-ns/x", "default/z"), core.listConfigMapForAllNamespaces().execute()
                .getItems().stream().map(cm -> cm.getMetadata().getNamespace() + "/" + cm.getMetadata().getName())
                .toList());
    }

    @Test
    void pagingWithLimitAndContinueVisitsEveryObjectOnce() throws Exception {
        for (int i = 0; i < 7; i++) {
            createConfigMap("cm-" + i, null);
        }
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            var page = core.listNamespacedConfigMap("default").limit(3)._continue(token).execute();
            page.getItems().forEach(cm -> seen.add(cm.getMetadata().getName()));
            token = page.getMetadata().getContinue();
            if (token != null) {
                assertEquals(7 - seen.size(), page.getMetadata().getRemainingItemCount());
            }
            pages++;
        } while (token != null && !token.isEmpty());
        assertEquals(3, pages);
        assertEquals(List.of("cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"), seen);
    }

    @Test
    void updateWithAStaleResourceVersionIsConflictAndWithoutOneIsUnconditional() throws Exception {
        V1ConfigMap created = createConfigMap("a", null);
        V1ConfigMap first = core.replaceNamespacedConfigMap("a", "default", created.data(Map.of("k", "1"))).execute();
        assertNotEquals(created.getMetadata().getResourceVersion(), first.getMetadata().getResourceVersion());
        JsonObject status = status(expectApiError(409, () -> core.replaceNamespacedConfigMap("a", "default",
                created.data(Map.of("k", "2"))).execute()));
        assertEquals("Conflict", status.get("reason").getAsString());
        assertEquals("Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply "
                + "your changes to the latest version and try again", status.get("message").getAsString());
        created.getMetadata().setResourceVersion(null);
        V1ConfigMap forced = core.replaceNamespacedConfigMap("a", "default", created.data(Map.of("k", "3"))).execute();
        assertEquals("3", forced.getData().get("k"));
    }

    @Test
    void aWriteThatChangesNothingKeepsTheResourceVersion() throws Exception {
        V1ConfigMap created = createConfigMap("a", Map.of("x", "y"));
        V1ConfigMap same = core.replaceNamespacedConfigMap("a", "default", created).execute();
        assertEquals(created.getMetadata().getResourceVersion(), same.getMetadata().getResourceVersion());
        assertEquals(created.getMetadata().getResourceVersion(), kube.server().resourceVersion());
    }

    @Test
    void generationCountsSpecChangesOnly() throws Exception {
        V1Deployment d = apps.createNamespacedDeployment("default", deployment("web")).execute();
        assertEquals(1L, d.getMetadata().getGeneration());
        d.getMetadata().putLabelsItem("team", "a");
        d = apps.replaceNamespacedDeployment("web", "default", d).execute();
        assertEquals(1L, d.getMetadata().getGeneration());
        d.getSpec().setReplicas(3);
        d = apps.replaceNamespacedDeployment("web", "default", d).execute();
        assertEquals(2L, d.getMetadata().getGeneration());
        d.setStatus(new V1DeploymentStatus().replicas(3).observedGeneration(2L));
        d = apps.replaceNamespacedDeploymentStatus("web", "default", d).execute();
        assertEquals(2L, d.getMetadata().getGeneration());
    }

    @Test
    void statusSubresourceWritesOnlyStatusAndTheMainResourceIgnoresStatus() throws Exception {
        V1Deployment d = apps.createNamespacedDeployment("default", deployment("web")
                .status(new V1DeploymentStatus().replicas(99))).execute();
        assertNull(d.getStatus() == null ? null : d.getStatus().getReplicas(), "status is not set on create");
        d.getSpec().setReplicas(5);
        d.setStatus(new V1DeploymentStatus().replicas(1).observedGeneration(1L));
        V1Deployment afterStatus = apps.replaceNamespacedDeploymentStatus("web", "default", d).execute();
        assertEquals(2, afterStatus.getSpec().getReplicas(), "spec changes are ignored on /status");
        assertEquals(1, afterStatus.getStatus().getReplicas());
        afterStatus.setStatus(new V1DeploymentStatus().replicas(42));
        afterStatus.getSpec().setReplicas(4);
        V1Deployment afterMain = apps.replaceNamespacedDeployment("web", "default", afterStatus).execute();
        assertEquals(4, afterMain.getSpec().getReplicas());
        assertEquals(1, afterMain.getStatus().getReplicas(), "status changes are ignored on the main resource");
    }

    @Test
    void deletePreconditionsOnUidAndResourceVersionAreEnforced() throws Exception {
        V1ConfigMap cm = createConfigMap("a", null);
        JsonObject status = status(expectApiError(409, () -> core.deleteNamespacedConfigMap("a", "default")
                .body(new V1DeleteOptions().preconditions(new V1Preconditions().uid("other-uid"))).execute()));
        assertTrue(status.get("message").getAsString().contains("Precondition failed: UID in precondition: other-uid"),
                status.toString());
        expectApiError(409, () -> core.deleteNamespacedConfigMap("a", "default")
                .body(new V1DeleteOptions().preconditions(new V1Preconditions().resourceVersion("1"))).execute());
        core.deleteNamespacedConfigMap("a", "default").body(new V1DeleteOptions().propagationPolicy("Background")
                .preconditions(new V1Preconditions().uid(cm.getMetadata().getUid())
                        .resourceVersion(cm.getMetadata().getResourceVersion()))).execute();
        expectApiError(404, () -> core.readNamespacedConfigMap("a", "default").execute());
    }

    @Test
    void deleteAnswersWithThePodForPodsAndWithASuccessStatusForConfigMaps() throws Exception {
        core.createNamespacedPod("default", pod("p")).execute();
        V1Pod deleted = core.deleteNamespacedPod("p", "default").execute();
        assertEquals("p", deleted.getMetadata().getName());
        createConfigMap("a", null);
        var status = core.deleteNamespacedConfigMap("a", "default").execute();
        assertEquals("Success", status.getStatus());
        assertEquals("a", status.getDetails().getName());
    }

    @Test
    void finalizersKeepADeletedObjectUntilTheyAreRemoved() throws Exception {
        V1ConfigMap cm = configMap("default", "held", Map.of());
        cm.getMetadata().setFinalizers(List.of("example.com/cleanup"));
        core.createNamespacedConfigMap("default", cm).execute();
        core.deleteNamespacedConfigMap("held", "default").execute();
        V1ConfigMap deleting = core.readNamespacedConfigMap("held", "default").execute();
        assertNotNull(deleting.getMetadata().getDeletionTimestamp());
        deleting.getMetadata().setFinalizers(List.of("example.com/cleanup", "example.com/another"));
        JsonObject status = status(expectApiError(422,
                () -> core.replaceNamespacedConfigMap("held", "default", deleting).execute()));
        assertTrue(status.get("message").getAsString().contains("no new finalizers can be added"), status.toString());
        PatchUtils.patch(V1ConfigMap.class, () -> core.patchNamespacedConfigMap("held", "default",
                new V1Patch("{\"metadata\":{\"finalizers\":null}}")).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
        expectApiError(404, () -> core.readNamespacedConfigMap("held", "default").execute());
    }

    @Test
    void deletingANamespaceDeletesWhatItContainsAndWaitsForFinalizers() throws Exception {
        Clients.createNamespace(client, "doomed");
        core.createNamespacedConfigMap("doomed", configMap("doomed", "plain", Map.of())).execute();
        V1ConfigMap held = configMap("doomed", "held", Map.of());
        held.getMetadata().setFinalizers(List.of("example.com/cleanup"));
        core.createNamespacedConfigMap("doomed", held).execute();
        core.deleteNamespace("doomed").execute();
        assertEquals("Terminating", core.readNamespace("doomed").execute().getStatus().getPhase());
        expectApiError(404, () -> core.readNamespacedConfigMap("plain", "doomed").execute());
        expectApiError(403, () -> core.createNamespacedConfigMap("doomed", configMap("doomed", "new", Map.of()))
                .execute());
        V1ConfigMap h = core.readNamespacedConfigMap("held", "doomed").execute();
        core.replaceNamespacedConfigMap("held", "doomed", h.metadata(h.getMetadata().finalizers(List.of())))
                .execute();
        expectApiError(404, () -> core.readNamespace("doomed").execute());
    }

    @Test
    void bindingAssignsAPodToANodeOnceOnly() throws Exception {
        core.createNamespacedPod("default", pod("p")).execute();
        V1Binding binding = new V1Binding().metadata(new V1ObjectMeta().name("p"))
                .target(new V1ObjectReference().kind("Node").name("node-1"));
        // The real server answers a binding with a Status, which client-java's typed call cannot parse as a
        // V1Binding; executing the call without decoding the body is how callers bind.
        client.execute(core.createNamespacedPodBinding("p", "default", binding).buildCall(null));
        V1Pod bound = core.readNamespacedPod("p", "default").execute();
        assertEquals("node-1", bound.getSpec().getNodeName());
        assertEquals("True", bound.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals("PodScheduled")).findFirst().orElseThrow().getStatus());
        expectApiError(409, () -> client.execute(core.createNamespacedBinding("default", binding).buildCall(null)));
    }

    @Test
    void podSpecIsImmutableExceptImages() throws Exception {
        V1Pod p = core.createNamespacedPod("default", pod("p")).execute();
        assertEquals("ClusterFirst", p.getSpec().getDnsPolicy(), "API defaults are applied");
        assertEquals("Pending", p.getStatus().getPhase());
        p.getSpec().getContainers().get(0).setImage("nginx:1.28");
        p = core.replaceNamespacedPod("p", "default", p).execute();
        assertEquals("nginx:1.28", p.getSpec().getContainers().get(0).getImage());
        p.getSpec().setHostname("changed");
        V1Pod changed = p;
        JsonObject status = status(expectApiError(422,
                () -> core.replaceNamespacedPod("p", "default", changed).execute()));
        assertTrue(status.get("message").getAsString().contains("pod updates may not change fields"), status.toString());
    }

    @Test
    void servicesGetAClusterIpThatIsKeptWhenAnUpdateOmitsIt() throws Exception {
        V1Service svc = core.createNamespacedService("default", new V1Service().metadata(new V1ObjectMeta().name("web"))
                .spec(new V1ServiceSpec().selector(Map.of("app", "web"))
                        .ports(List.of(new V1ServicePort().port(80))))).execute();
        String ip = svc.getSpec().getClusterIP();
        assertTrue(ip.startsWith("10.96."), ip);
        assertEquals(List.of(ip), svc.getSpec().getClusterIPs());
        assertEquals("TCP", svc.getSpec().getPorts().get(0).getProtocol());
        svc.getSpec().setClusterIP(null);
        svc.getSpec().setClusterIPs(null);
        svc.getSpec().setSelector(Map.of("app", "web2"));
        assertEquals(ip, core.replaceNamespacedService("web", "default", svc).execute().getSpec().getClusterIP());
        svc.getSpec().setClusterIP("10.96.200.1");
        svc.getMetadata().setResourceVersion(null);
        expectApiError(422, () -> core.replaceNamespacedService("web", "default", svc).execute());
    }

    @Test
    void dryRunValidatesButStoresNothing() throws Exception {
        core.createNamespacedConfigMap("default", configMap("default", "dry", Map.of())).dryRun("All").execute();
        expectApiError(404, () -> core.readNamespacedConfigMap("dry", "default").execute());
        assertEquals(0, kube.server().requests().count("create", "configmaps")
                - kube.server().requests().entries().stream().filter(e -> e.verb().equals("create")
                        && e.path().endsWith("/configmaps")).count());
    }

    @Test
    void secretStringDataIsStoredBase64EncodedInData() throws Exception {
        V1Secret s = core.createNamespacedSecret("default", new V1Secret().metadata(new V1ObjectMeta().name("s"))
                .stringData(Map.of("password", "hunter2"))).execute();
        assertEquals("hunter2", new String(s.getData().get("password"), StandardCharsets.UTF_8));
        assertTrue(s.getStringData() == null || s.getStringData().isEmpty(), "stringData is folded into data");
        assertEquals("Opaque", s.getType());
    }

    @Test
    void anImmutableConfigMapRejectsDataChanges() throws Exception {
        V1ConfigMap cm = configMap("default", "frozen", Map.of("k", "v")).immutable(true);
        V1ConfigMap created = core.createNamespacedConfigMap("default", cm).execute();
        expectApiError(422, () -> core.replaceNamespacedConfigMap("frozen", "default",
                created.data(Map.of("k", "changed"))).execute());
    }
}
