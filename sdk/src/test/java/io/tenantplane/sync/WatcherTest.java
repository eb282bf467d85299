package io.tenantplane.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Watcher against the in-process API server. */
class WatcherTest {

    private KubeApiServer server;
    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicBoolean interruptFlagKept = new AtomicBoolean();
    /** Threads that report what escapes them, and whether they still carried their interrupt when they ended. */
    private final ThreadFactory recording = r -> {
        Thread t = Thread.ofVirtual().uncaughtExceptionHandler((th, e) -> uncaught.add(e)).unstarted(() -> {
            r.run();
            interruptFlagKept.set(Thread.currentThread().isInterrupted());
        });
        threads.add(t);
        return t;
    };

    @BeforeEach
    void start() {
        server = KubeApiServer.builder().build().start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }

    @Test
    void closingAWatcherWhoseCallThrowsAnUndeclaredInterruptedExceptionEndsItQuietly() throws Exception {
        CountDownLatch connecting = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        ApiClient client = new ClientBuilder().setBasePath(server.url()).build();
        // As OkHttp's own connect code can, an interceptor blocks interruptibly and lets InterruptedException
        // through without declaring it.
        client.setHttpClient(client.getHttpClient().newBuilder().addInterceptor(chain -> {
            connecting.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                throw sneaky(e);
            }
            return chain.proceed(chain.request());
        }).build());
        Watcher watcher = new Watcher(client, ResourceKind.wellKnown("v1", "ConfigMap").orElseThrow(), "default",
                null, (type, o) -> { }, recording, true);
        watcher.start();
        assertTrue(connecting.await(5, TimeUnit.SECONDS), "the watcher starts its first list");

        watcher.close();

        assertEquals(1, threads.size());
        assertTrue(threads.getFirst().join(Duration.ofSeconds(5)), "the watcher's thread ends");
        assertEquals(List.of(), uncaught, "nothing escapes the watcher's thread");
        assertTrue(interruptFlagKept.get(), "the thread ends with its interrupt flag set again");
        assertFalse(watcher.hasSynced());
    }

    @Test
    void aWatcherReportsChangesAfterItsQuietFirstListAndStopsOnClose() throws Exception {
        ApiClient client = new ClientBuilder().setBasePath(server.url()).build();
        List<String> events = new CopyOnWriteArrayList<>();
        createConfigMap(client, "before");
        Watcher watcher = new Watcher(client, ResourceKind.wellKnown("v1", "ConfigMap").orElseThrow(), "default", null,
                (type, o) -> events.add(type + " " + Json.string(o, "metadata", "name")),
                recording, true);
        watcher.start();
        assertTrue(watcher.awaitSynced(Duration.ofSeconds(5)));
        createConfigMap(client, "after");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!events.contains("ADDED after") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of("ADDED after"), events, "the first list is quiet, the watch reports");
        watcher.close();
        assertTrue(threads.getFirst().join(Duration.ofSeconds(5)));
        assertEquals(List.of(), uncaught);
        assertTrue(waitFor(() -> server.openWatches() == 0), "the watch is closed on the server");
    }

    private static void createConfigMap(ApiClient client, String name) throws Exception {
        new CoreV1Api(client).createNamespacedConfigMap("default", new V1ConfigMap().apiVersion("v1")
                .kind("ConfigMap").metadata(new V1ObjectMeta().name(name))).execute();
    }

    private static boolean waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }
}
