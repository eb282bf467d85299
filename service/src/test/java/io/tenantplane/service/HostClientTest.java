package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.testkit.KubeApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * client-java works on the service's class path (where Helidon's dependency management also applies): typed calls,
 * optimistic concurrency, YAML, generic custom objects and informers, against the in-process API server.
 */
class HostClientTest {

    private static final Path REPO = Path.of(System.getProperty("tenantplane.repo.root", "..")).toAbsolutePath();

    private KubeApiServer server;
    private HostClients clients;

    @BeforeEach
    void start() {
        server = KubeApiServer.builder().build().start();
        ServiceSettings settings = ServiceSettings.from(
                key -> ServiceSettings.HOST_URL.equals(key) ? Optional.of(server.url()) : Optional.empty(),
                () -> "test");
        clients = new HostClients(settings, ConfigProviderResolver.instance().getBuilder().build());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void typedCallsRoundTripObjectsAndConflictsComeBackAs409() throws ApiException {
        var core = new CoreV1Api(clients.hostClient());
        core.createNamespace(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name("team-dev"))).execute();
        V1ConfigMap created = core.createNamespacedConfigMap("team-dev", new V1ConfigMap().apiVersion("v1")
                .kind("ConfigMap")
                .metadata(new V1ObjectMeta().name("settings").labels(Map.of("app", "nginx")))
                .data(Map.of("greeting", "hello"))).execute();

        OffsetDateTime createdAt = created.getMetadata().getCreationTimestamp();
        assertNotNull(createdAt, "timestamps parse through client-java's gson setup");
        V1ConfigMapList listed = core.listNamespacedConfigMap("team-dev").labelSelector("app=nginx").execute();
        assertEquals(List.of("settings"), listed.getItems().stream().map(c -> c.getMetadata().getName()).toList());

        V1ConfigMap fresh = core.readNamespacedConfigMap("settings", "team-dev").execute();
        core.replaceNamespacedConfigMap("settings", "team-dev", fresh.data(Map.of("greeting", "hi"))).execute();
        ApiException stale = assertThrows(ApiException.class, () -> core.replaceNamespacedConfigMap("settings",
                "team-dev", fresh.data(Map.of("greeting", "stale"))).execute());
        assertEquals(409, stale.getCode());
        assertEquals(1, server.requests().count("create", "configmaps"));
        assertEquals(2, server.requests().count("update", "configmaps"), "the refused update was sent, too");
    }

    @Test
    void theShippedCrdsAreAcceptedThroughTheDynamicApiAndTheExampleTenantClusterThroughCustomObjects()
            throws Exception {
        ApiClient client = clients.hostClient();
        // The typed V1CustomResourceDefinition cannot be used to send a CRD: client-java serialises empty
        // definitions/dependencies/patternProperties maps, which an API server rejects. The dynamic API sends the
        // document as written.
        var crds = new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", client);
        for (String plural : List.of("tenantclusters", "isolationprofiles", "syncpolicies")) {
            Object yaml = new org.yaml.snakeyaml.Yaml(new LoaderOptions())
                    .load(Files.readString(REPO.resolve("k8s/crds/" + plural + ".tenantplane.io.yaml")));
            JsonObject json = JsonParser.parseString(client.getJSON().serialize(yaml)).getAsJsonObject();
            crds.create(new DynamicKubernetesObject(json)).throwsApiException();
        }
        new CoreV1Api(client).createNamespace(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name("team-dev"))).execute();

        Object tenant = new org.yaml.snakeyaml.Yaml(new LoaderOptions())
                .load(Files.readString(REPO.resolve("examples/yaml/tenantcluster.yaml")));
        var custom = new CustomObjectsApi(client);
        custom.createNamespacedCustomObject("tenantplane.io", "v1alpha1", "team-dev", "tenantclusters", tenant)
                .execute();

        @SuppressWarnings("unchecked")
        Map<String, Object> read = (Map<String, Object>) custom.getNamespacedCustomObject("tenantplane.io",
                "v1alpha1", "team-dev", "tenantclusters", "dev").execute();
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) read.get("spec");
        assertEquals("shared", spec.get("mode"));
    }

    @Test
    void informersOnAWatchClientSeeAddsAndDeletes() throws Exception {
        ApiClient client = clients.newWatchClient();
        var core = new CoreV1Api(client);
        var factory = new SharedInformerFactory(client);
        SharedIndexInformer<V1ConfigMap> informer = factory.sharedIndexInformerFor(
                call -> core.listNamespacedConfigMap("default")
                        .resourceVersion(call.resourceVersion)
                        .watch(call.watch)
                        .timeoutSeconds(call.timeoutSeconds)
                        .buildCall(null),
                V1ConfigMap.class, V1ConfigMapList.class);
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(V1ConfigMap obj) {
                seen.add("add " + obj.getMetadata().getName());
            }

            @Override
            public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {
                seen.add("update " + newObj.getMetadata().getName());
            }

            @Override
            public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {
                seen.add("delete " + obj.getMetadata().getName());
            }
        });
        factory.startAllRegisteredInformers();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!informer.hasSynced() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(informer.hasSynced(), "the informer listed and synced");

            core.createNamespacedConfigMap("default", new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                    .metadata(new V1ObjectMeta().name("watched"))).execute();
            assertEquals("add watched", seen.poll(10, TimeUnit.SECONDS));
            core.deleteNamespacedConfigMap("watched", "default").execute();
            assertEquals("delete watched", seen.poll(10, TimeUnit.SECONDS));
        } finally {
            factory.stopAllRegisteredInformers();
        }
    }

    @Test
    void anElectorClientGivesUpOnAHangingCallInsteadOfBlockingItsLoop() {
        ApiClient client = clients.newClient(Duration.ofMillis(300));
        server.faults().add(io.tenantplane.testkit.FaultRule.on("get", "namespaces").delay(Duration.ofSeconds(5)));

        long start = System.nanoTime();
        ApiException e = assertThrows(ApiException.class,
                () -> new CoreV1Api(client).readNamespace("default").execute());
        long tookMs = Duration.ofNanos(System.nanoTime() - start).toMillis();

        assertEquals(0, e.getCode(), "no answer");
        assertTrue(tookMs < 2000, "gave up after " + tookMs + " ms");
    }
}
