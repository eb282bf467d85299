package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The watch-driven Syncer: changes on either side converge in seconds, and it stops cleanly. */
class SyncerIT {

    private static final Duration SECONDS = Duration.ofSeconds(5);

    private Live live;
    private TenantPlane plane;
    private Kube dev;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final ThreadFactory counting = r -> {
        Thread t = Thread.ofVirtual().name("syncer-it-", threads.size()).unstarted(r);
        threads.add(t);
        return t;
    };

    @BeforeEach
    void start(TestInfo test) {
        live = Live.start(test.getTags().contains(Live.HOOKS));
        live.createTenant("dev");
        dev = live.tenant("dev");
        plane = live.plane();
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private SyncerOptions options() {
        return SyncerOptions.defaults().withNamespaces(List.of(live.namespace)).withWorkers(2)
                .withResyncPeriod(Duration.ofMinutes(10)).withThreads(counting);
    }

    private boolean onHost(String kind, String name, java.util.function.Predicate<JsonObject> test) {
        return live.hostKube.get(kind, live.namespace, name).filter(test).isPresent();
    }

    private boolean synced(String tenant) {
        JsonObject tc = live.hostKube.require("TenantCluster", live.namespace, tenant);
        JsonObject status = tc.getAsJsonObject("status");
        if (status == null || !status.has("conditions")) {
            return false;
        }
        for (var c : status.getAsJsonArray("conditions")) {
            if ("Synced".equals(Json.string(c.getAsJsonObject(), "type"))
                    && "True".equals(Json.string(c.getAsJsonObject(), "status"))) {
                return true;
            }
        }
        return false;
    }

    @Test
    @Tag(Live.HOOKS)
    void aChangeOnEitherSideConvergesWithinSecondsWithoutListingAgain() throws Exception {
        dev.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        try (Syncer syncer = Syncer.create(plane, options()).start()) {
            assertTrue(syncer.awaitStarted(SECONDS));
            assertTrue(Live.eventually(SECONDS, () -> onHost("Pod", "web-x-default-x-dev", o -> true)),
                    "the initial pass syncs what exists");
            assertTrue(Live.eventually(SECONDS, () -> synced("dev")), "the initial pass records Synced");
            KubeApiServer host = live.requireHostServer();
            KubeApiServer tenant = live.tenantServer("dev");
            long hostLists = host.requests().count("list");
            long tenantLists = tenant.requests().count("list");

            dev.create(Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                     "data":{"mode":"blue"}}"""));
            assertTrue(Live.eventually(SECONDS, () -> onHost("ConfigMap", "settings-x-default-x-dev",
                    o -> "blue".equals(Json.string(o, "data", "mode")))), "a tenant create reaches the host");

            JsonObject cm = dev.require("ConfigMap", "default", "settings");
            cm.getAsJsonObject("data").addProperty("mode", "green");
            dev.update(cm);
            assertTrue(Live.eventually(SECONDS, () -> onHost("ConfigMap", "settings-x-default-x-dev",
                    o -> "green".equals(Json.string(o, "data", "mode")))), "a tenant update reaches the host");

            JsonObject hostCopy = live.hostKube.require("ConfigMap", live.namespace, "settings-x-default-x-dev");
            hostCopy.getAsJsonObject("data").addProperty("mode", "hacked");
            live.hostKube.update(hostCopy);
            assertTrue(Live.eventually(SECONDS, () -> onHost("ConfigMap", "settings-x-default-x-dev",
                    o -> "green".equals(Json.string(o, "data", "mode")))), "a host edit is put back");

            JsonObject hostPod = live.hostKube.require("Pod", live.namespace, "web-x-default-x-dev");
            hostPod.add("status", Kube.json("{\"phase\":\"Running\",\"podIP\":\"10.42.0.9\"}"));
            live.hostKube.updateStatus(hostPod);
            assertTrue(Live.eventually(SECONDS, () -> "Running".equals(Json.string(dev.require("Pod", "default",
                    "web"), "status", "phase"))), "host status flows back to the tenant");

            dev.delete("ConfigMap", "default", "settings");
            assertTrue(Live.eventually(SECONDS, () -> live.hostKube.get("ConfigMap", live.namespace,
                    "settings-x-default-x-dev").isEmpty()), "a tenant delete collects the host copy");

            assertEquals(hostLists, host.requests().count("list"), "changes were picked up by watches, not lists");
            assertEquals(tenantLists, tenant.requests().count("list"));
            assertTrue(plane.decisions(live.key("dev"), 50).stream()
                    .anyMatch(d -> d.outcome().decision().reason().equals("DriftCorrected")));
        }
    }

    @Test
    void closingASyncerWhileItsWatchesConnectLetsNothingEscapeItsThreads() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        ThreadFactory recording = r -> Thread.ofVirtual().uncaughtExceptionHandler((t, e) -> uncaught.add(e))
                .unstarted(r);
        for (int i = 0; i < 20; i++) {
            Syncer syncer = Syncer.create(plane, options().withThreads(recording)).start();
            syncer.close();
            assertFalse(syncer.isRunning());
        }
        assertEquals(List.of(), uncaught);
    }

    @Test
    @Tag(Live.HOOKS)
    void closeStopsEveryThreadAndWatch() throws Exception {
        dev.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        Syncer syncer = Syncer.create(plane, options()).start();
        assertTrue(syncer.awaitStarted(SECONDS));
        assertTrue(Live.eventually(SECONDS, () -> onHost("Pod", "web-x-default-x-dev", o -> true)));
        KubeApiServer host = live.requireHostServer();
        assertTrue(host.openWatches() > 0);
        assertTrue(syncer.isRunning());

        syncer.close();

        assertFalse(syncer.isRunning());
        assertFalse(threads.isEmpty());
        for (Thread t : threads) {
            assertFalse(t.isAlive(), t + " still runs after close");
        }
        // The in-process server notices a closed watch only when it next writes to it (a bookmark each second), and
        // on a loaded machine that write may come late; a watch still open after 20 s was not closed.
        assertTrue(Live.eventually(Duration.ofSeconds(20), () -> host.openWatches() == 0
                && live.tenantServer("dev").openWatches() == 0), "every watch is closed: host "
                + host.openWatches() + ", tenant " + live.tenantServer("dev").openWatches());
        syncer.close();
    }

    @Test
    @Tag(Live.HOOKS)
    void closeReturnsOnlyOnceTheEventsOfItsLastPassesAreWritten() throws Exception {
        KubeApiServer host = live.requireHostServer();
        host.faults().add(FaultRule.on("create", "events.events.k8s.io").delay(Duration.ofMillis(150)));
        dev.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        Syncer syncer = Syncer.create(plane, options()).start();
        assertTrue(syncer.awaitStarted(SECONDS));
        assertTrue(Live.eventually(SECONDS, () -> onHost("Pod", "web-x-default-x-dev", o -> true)));

        syncer.close();

        // Nothing can write after close() returned: no pass runs (each of the Syncer's threads has ended) and the
        // observer holds no Event, waiting or being written (a zero-timeout flush answers at once).
        for (Thread t : threads) {
            assertFalse(t.isAlive(), t + " still runs after close");
        }
        assertTrue(plane.observer().flush(Duration.ZERO), "every Event was written before close() returned");
        assertTrue(host.requests().count("create", "events.events.k8s.io") > 0, "the first pass made Events");
    }
}
