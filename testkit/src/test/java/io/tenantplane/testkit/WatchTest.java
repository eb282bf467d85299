package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.tenantplane.testkit.Clients.await;
import static io.tenantplane.testkit.Clients.configMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Watches over chunked HTTP, as client-java's Watch and SharedInformerFactory use them. */
class WatchTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    final KubeApiServerExtension kube = new KubeApiServerExtension(KubeApiServer.builder().watchHistory(5)
            .bookmarkInterval(Duration.ofMillis(100)));

    private ApiClient client;
    private CoreV1Api core;

    @BeforeEach
    void connect() {
        client = Clients.client(kube.server());
        core = new CoreV1Api(client);
    }

    /** Collects the events of one configmap watch on a background thread. */
    private BlockingQueue<Watch.Response<V1ConfigMap>> watchConfigMaps(String resourceVersion, String labelSelector,
            Integer timeoutSeconds, boolean bookmarks) throws Exception {
        Watch<V1ConfigMap> watch = Watch.createWatch(client, core.listNamespacedConfigMap("default").watch(true)
                .resourceVersion(resourceVersion).labelSelector(labelSelector).timeoutSeconds(timeoutSeconds)
                .allowWatchBookmarks(bookmarks).buildCall(null),
                new TypeToken<Watch.Response<V1ConfigMap>>() { }.getType());
        BlockingQueue<Watch.Response<V1ConfigMap>> events = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try (watch) {
                for (Watch.Response<V1ConfigMap> event : watch) {
                    events.add(event);
                }
            } catch (Exception e) {
                // The stream ended; the queue has what arrived.
            } finally {
                events.add(new Watch.Response<>("END", (V1ConfigMap) null));
            }
        });
        return events;
    }

    private static Watch.Response<V1ConfigMap> next(BlockingQueue<Watch.Response<V1ConfigMap>> events)
            throws InterruptedException {
        Watch.Response<V1ConfigMap> event = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(event, "no watch event within " + WAIT);
        return event;
    }

    private static String describe(Watch.Response<V1ConfigMap> e) {
        return e.type + (e.object == null ? "" : " " + e.object.getMetadata().getName());
    }

    private String currentVersion() throws Exception {
        return core.listNamespacedConfigMap("default").execute().getMetadata().getResourceVersion();
    }

    @Test
    void aWatchStreamsAddedModifiedAndDeletedEventsInOrder() throws Exception {
        var events = watchConfigMaps(currentVersion(), null, null, false);
        V1ConfigMap created = core.createNamespacedConfigMap("default", configMap("default", "a", Map.of())).execute();
        V1ConfigMap updated = core.replaceNamespacedConfigMap("a", "default", created.data(Map.of("k", "v")))
                .execute();
        core.deleteNamespacedConfigMap("a", "default").execute();
        var added = next(events);
        var modified = next(events);
        var deleted = next(events);
        assertEquals(List.of("ADDED a", "MODIFIED a", "DELETED a"), List.of(describe(added), describe(modified),
                describe(deleted)));
        assertEquals(created.getMetadata().getResourceVersion(), added.object.getMetadata().getResourceVersion());
        assertEquals(updated.getMetadata().getResourceVersion(), modified.object.getMetadata().getResourceVersion());
        assertTrue(Long.parseLong(deleted.object.getMetadata().getResourceVersion())
                > Long.parseLong(updated.getMetadata().getResourceVersion()), "a deletion has its own version");
    }

    @Test
    void aWatchWithoutAResourceVersionStartsWithTheCurrentState() throws Exception {
        core.createNamespacedConfigMap("default", configMap("default", "old", Map.of())).execute();
        var events = watchConfigMaps(null, null, null, false);
        assertEquals("ADDED old", describe(next(events)));
        core.createNamespacedConfigMap("default", configMap("default", "new", Map.of())).execute();
        assertEquals("ADDED new", describe(next(events)));
    }

    @Test
    void aWatchResumesAfterTheGivenResourceVersion() throws Exception {
        String afterA = core.createNamespacedConfigMap("default", configMap("default", "a", Map.of())).execute()
                .getMetadata().getResourceVersion();
        core.createNamespacedConfigMap("default", configMap("default", "b", Map.of())).execute();
        core.createNamespacedConfigMap("default", configMap("default", "c", Map.of())).execute();
        var events = watchConfigMaps(afterA, null, null, false);
        assertEquals("ADDED b", describe(next(events)));
        assertEquals("ADDED c", describe(next(events)));
    }

    @Test
    void aWatchFromACompactedResourceVersionGetsAnExpiredErrorEvent() throws Exception {
        String early = currentVersion();
        for (int i = 0; i < 8; i++) {
            core.createNamespacedConfigMap("default", configMap("default", "cm-" + i, Map.of())).execute();
        }
        var events = watchConfigMaps(early, null, null, false);
        Watch.Response<V1ConfigMap> error = next(events);
        assertEquals("ERROR", error.type);
        assertEquals(410, error.status.getCode());
        assertEquals("Expired", error.status.getReason());
        assertEquals("END", next(events).type);
    }

    @Test
    void aWatchEndsAfterTimeoutSeconds() throws Exception {
        long start = System.nanoTime();
        var events = watchConfigMaps(currentVersion(), null, 1, false);
        assertEquals("END", next(events).type);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis >= 900 && millis < 5000, "ended after " + millis + " ms");
    }

    @Test
    void bookmarksCarryTheLatestResourceVersionWhenAllowed() throws Exception {
        var events = watchConfigMaps(currentVersion(), null, null, true);
        core.createNamespacedSecret("default", new io.kubernetes.client.openapi.models.V1Secret()
                .metadata(new V1ObjectMeta().name("elsewhere"))).execute();
        String latest = kube.server().resourceVersion();
        Watch.Response<V1ConfigMap> event;
        do {
            event = next(events);
            assertEquals("BOOKMARK", event.type);
        } while (!event.object.getMetadata().getResourceVersion().equals(latest));
    }

    @Test
    void aLabelSelectedWatchSeesObjectsEnterAsAddedAndLeaveAsDeleted() throws Exception {
        var events = watchConfigMaps(currentVersion(), "team=a", null, false);
        V1ConfigMap cm = core.createNamespacedConfigMap("default", configMap("default", "x", Map.of())).execute();
        cm.getMetadata().setLabels(Map.of("team", "a"));
        cm = core.replaceNamespacedConfigMap("x", "default", cm).execute();
        cm.getMetadata().setLabels(Map.of("team", "a", "more", "yes"));
        cm = core.replaceNamespacedConfigMap("x", "default", cm).execute();
        cm.getMetadata().setLabels(Map.of("team", "b"));
        core.replaceNamespacedConfigMap("x", "default", cm).execute();
        assertEquals("ADDED x", describe(next(events)));
        assertEquals("MODIFIED x", describe(next(events)));
        assertEquals("DELETED x", describe(next(events)));
    }

    @Test
    void aWatchListEndsItsInitialEventsWithAnAnnotatedBookmark() throws Exception {
        core.createNamespacedConfigMap("default", configMap("default", "a", Map.of())).execute();
        HttpRequest request = HttpRequest.newBuilder(URI.create(kube.url() + "/api/v1/namespaces/default/configmaps"
                + "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
                + "&timeoutSeconds=1")).build();
        HttpResponse<java.io.InputStream> response = HttpClient.newHttpClient().send(request,
                HttpResponse.BodyHandlers.ofInputStream());
        List<JsonObject> events = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body()))) {
            events.add(JsonParser.parseString(reader.readLine()).getAsJsonObject());
            events.add(JsonParser.parseString(reader.readLine()).getAsJsonObject());
        }
        assertEquals("ADDED", Json.str(events.get(0), "type"));
        assertEquals("BOOKMARK", Json.str(events.get(1), "type"));
        assertEquals("true", Json.str(Json.obj(Json.obj(Json.obj(events.get(1), "object"), "metadata"),
                "annotations"), "k8s.io/initial-events-end"));
    }

    private static V1Pod pod(String name) {
        return new V1Pod().apiVersion("v1").kind("Pod").metadata(new V1ObjectMeta().name(name).namespace("default"))
                .spec(new V1PodSpec().containers(List.of(new V1Container().name("c").image("busybox:1.36"))));
    }

    /** Records informer callbacks as "ADD name", "UPDATE name", "DELETE name". */
    private static <T extends io.kubernetes.client.common.KubernetesObject> ResourceEventHandler<T> recorder(
            List<String> seen) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                seen.add("ADD " + obj.getMetadata().getName());
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                if (!oldObj.getMetadata().getResourceVersion().equals(newObj.getMetadata().getResourceVersion())) {
                    seen.add("UPDATE " + newObj.getMetadata().getName());
                }
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                seen.add("DELETE " + obj.getMetadata().getName());
            }
        };
    }

    @Test
    void anInformerOnPodsSeesAddsUpdatesAndDeletes() throws Exception {
        core.createNamespacedPod("default", pod("before")).execute();
        SharedInformerFactory factory = new SharedInformerFactory(client);
        SharedIndexInformer<V1Pod> informer = factory.sharedIndexInformerFor(
                new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", client), V1Pod.class, 0L);
        List<String> seen = new CopyOnWriteArrayList<>();
        informer.addEventHandler(recorder(seen));
        factory.startAllRegisteredInformers();
        try {
            await("the informer to sync", WAIT, informer::hasSynced);
            V1Pod p = core.createNamespacedPod("default", pod("after")).execute();
            p.getMetadata().putLabelsItem("seen", "yes");
            core.replaceNamespacedPod("after", "default", p).execute();
            core.deleteNamespacedPod("before", "default").execute();
            List<String> expected = List.of("ADD before", "ADD after", "UPDATE after", "DELETE before");
            await("informer events " + expected, WAIT, () -> seen.equals(expected));
            assertEquals(List.of("after"), informer.getIndexer().list().stream().map(x -> x.getMetadata().getName())
                    .toList());
        } finally {
            factory.stopAllRegisteredInformers();
        }
    }

    @Test
    void anInformerOnACustomResourceSeesAddsUpdatesAndDeletes() throws Exception {
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi("apiextensions.k8s.io", "v1",
                "customresourcedefinitions", client).create(new DynamicKubernetesObject(
                        Fixtures.object("widget-crd.yaml"))).throwsApiException();
        GenericKubernetesApi<DynamicKubernetesObject, DynamicKubernetesListObject> widgets =
                new GenericKubernetesApi<>(DynamicKubernetesObject.class, DynamicKubernetesListObject.class,
                        "example.com", "v1", "widgets", client);
        SharedInformerFactory factory = new SharedInformerFactory(client);
        SharedIndexInformer<DynamicKubernetesObject> informer = factory.sharedIndexInformerFor(widgets,
                DynamicKubernetesObject.class, 0L);
        List<String> seen = new CopyOnWriteArrayList<>();
        informer.addEventHandler(recorder(seen));
        factory.startAllRegisteredInformers();
        try {
            await("the informer to sync", WAIT, informer::hasSynced);
            JsonObject w = Json.object("apiVersion", "example.com/v1", "kind", "Widget", "metadata",
                    Json.object("name", "w", "namespace", "default"), "spec", Json.object("size", 1));
            DynamicKubernetesObject created = widgets.create(new DynamicKubernetesObject(w)).throwsApiException()
                    .getObject();
            created.getRaw().getAsJsonObject("spec").addProperty("size", 2);
            widgets.update(created).throwsApiException();
            widgets.delete("default", "w").throwsApiException();
            List<String> expected = List.of("ADD w", "UPDATE w", "DELETE w");
            await("informer events " + expected, WAIT, () -> seen.equals(expected));
        } finally {
            factory.stopAllRegisteredInformers();
        }
    }

    @Test
    void anInformerCatchesUpAfterDroppedWatchesAndAnOutage() throws Exception {
        SharedInformerFactory factory = new SharedInformerFactory(client);
        SharedIndexInformer<V1Pod> informer = factory.sharedIndexInformerFor(
                new GenericKubernetesApi<>(V1Pod.class, V1PodList.class, "", "v1", "pods", client), V1Pod.class, 0L);
        List<String> seen = new CopyOnWriteArrayList<>();
        informer.addEventHandler(recorder(seen));
        factory.startAllRegisteredInformers();
        try {
            await("the informer to sync and watch", WAIT, () -> informer.hasSynced()
                    && kube.server().openWatches() == 1);
            kube.server().faults().dropWatches();
            core.createNamespacedPod("default", pod("during-rewatch")).execute();
            await("the pod created while re-watching", WAIT, () -> seen.contains("ADD during-rewatch"));

            await("the informer to watch again", WAIT, () -> kube.server().openWatches() == 1);
            kube.server().pause();
            kube.server().resume();
            core.createNamespacedPod("default", pod("after-outage")).execute();
            await("the pod created after the outage", Duration.ofSeconds(20),
                    () -> seen.contains("ADD after-outage"));
            assertEquals(List.of("ADD during-rewatch", "ADD after-outage"), seen);
        } finally {
            factory.stopAllRegisteredInformers();
        }
    }
}
