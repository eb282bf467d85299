package io.tenantplane.testkit;

import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.util.Watch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

import static io.tenantplane.testkit.Clients.configMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server must not be what makes tests slow. */
class PerformanceTest {
    @Test
    void aServerStartsInWellUnderASecond() {
        long start = System.nanoTime();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 1000, "started in " + millis + " ms");
            assertTrue(server.url().startsWith("http://127.0.0.1:"));
        }
    }

    @Test
    void itServesHundredsOfWritesPerSecondAndAWatchSeesEveryOne() throws Exception {
        int count = 1000;
        try (KubeApiServer server = KubeApiServer.builder().watchHistory(2 * count).build().start()) {
            ApiClient client = Clients.client(server);
            CoreV1Api core = new CoreV1Api(client);
            String from = server.resourceVersion();
            AtomicInteger added = new AtomicInteger();
            Thread watcher = Thread.ofVirtual().start(() -> {
                try (Watch<V1ConfigMap> watch = Watch.createWatch(client, core.listNamespacedConfigMap("default")
                        .watch(true).resourceVersion(from).buildCall(null),
                        new TypeToken<Watch.Response<V1ConfigMap>>() { }.getType())) {
                    for (Watch.Response<V1ConfigMap> e : watch) {
                        if (e.type.equals("ADDED") && added.incrementAndGet() == count) {
                            return;
                        }
                    }
                } catch (Exception e) {
                    // Reported by the count assertion below.
                }
            });
            long start = System.nanoTime();
            try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    String name = "cm-" + i;
                    futures.add(pool.submit(() -> core.createNamespacedConfigMap("default",
                            configMap("default", name, Map.of("k", "v"))).execute()));
                }
                for (Future<?> f : futures) {
                    f.get();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // Hundreds per second even on a loaded two-core CI machine; idle, it is well over a thousand.
            assertTrue(count / seconds > 100, count + " creates took " + seconds + " s");
            watcher.join(10_000);
            assertEquals(count, added.get());
            assertEquals(count, core.listNamespacedConfigMap("default").execute().getItems().size());
        }
    }
}
