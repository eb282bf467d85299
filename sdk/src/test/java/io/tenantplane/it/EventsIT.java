package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.events.EventObserver;
import io.tenantplane.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Decisions recorded as events.k8s.io/v1 Events on the TenantCluster. */
class EventsIT {

    private Live live;

    @BeforeEach
    void start(TestInfo test) {
        live = Live.start(test.getTags().contains(Live.HOOKS));
        live.createTenant("dev");
        live.syncPrerequisites("dev");
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private List<JsonObject> events() {
        JsonObject list = live.hostKube.call("GET", "/apis/events.k8s.io/v1/namespaces/" + live.namespace + "/events",
                Map.of(), null).body();
        return list.getAsJsonArray("items").asList().stream().map(e -> e.getAsJsonObject()).toList();
    }

    private static JsonObject eventWithReason(List<JsonObject> events, String reason, String related) {
        return events.stream().filter(e -> reason.equals(Json.string(e, "reason"))
                        && related.equals(Json.string(e, "related", "name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + reason + " Event about " + related + " in " + events));
    }

    @Test
    void writesAreRecordedAsEventsOnTheTenantClusterAndRepeatsAreCountedInASeries() {
        TenantPlane plane = live.plane(b -> b.recordEvents(false).observer(EventObserver.builder()
                .client(live.host).clock(Clock.systemUTC()).seriesInterval(Duration.ZERO).build()));
        Kube dev = live.tenant("dev");
        dev.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings-x-default-x-dev","namespace":"%s"},
                 "data":{"mine":"yes"}}""".formatted(live.namespace)));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                 "data":{"mode":"blue"}}"""));

        plane.converge(live.key("dev"));
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)));
        plane.converge(live.key("dev"));
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)));

        List<JsonObject> events = events();
        String uid = Json.string(live.hostKube.require("TenantCluster", live.namespace, "dev"), "metadata", "uid");
        JsonObject created = eventWithReason(events, "NotOnHost", "web-x-default-x-dev");
        assertEquals("Create", Json.string(created, "action"));
        assertEquals("Normal", Json.string(created, "type"));
        assertEquals("TenantCluster", Json.string(created, "regarding", "kind"));
        assertEquals("dev", Json.string(created, "regarding", "name"));
        assertEquals(uid, Json.string(created, "regarding", "uid"));
        assertEquals("Pod", Json.string(created, "related", "kind"));
        assertTrue(Json.string(created, "note").contains("nginx") || Json.string(created, "note").contains("web"));
        assertEquals("tenantplane.io/tenantplane", Json.string(created, "reportingController"));

        JsonObject conflict = eventWithReason(events, "ForeignObject", "settings-x-default-x-dev");
        assertEquals("Warning", Json.string(conflict, "type"));
        assertEquals("Conflict", Json.string(conflict, "action"));
        assertEquals(2L, conflict.getAsJsonObject("series").get("count").getAsLong(),
                "the same conflict in two passes is one Event with a series");
        assertEquals(1, events.stream().filter(e -> "ForeignObject".equals(Json.string(e, "reason"))).count());
        assertTrue(events.stream().noneMatch(e -> "InSync".equals(Json.string(e, "reason"))),
                "decisions that change nothing make no Event");
    }
    @Test
    void aFirstPassOverManyObjectsRecordsTenEventsAndOneCombinedEventThatCountsTheRest() {
        TenantPlane plane = live.plane();
        Kube dev = live.tenant("dev");
        for (int i = 0; i < 25; i++) {
            dev.create(Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","namespace":"default"},
                     "data":{"i":"%d"}}""".formatted(i, i)));
        }

        ConvergenceReport report = plane.converge(live.key("dev"));
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)));

        long created = report.decisions().stream().filter(d -> d.reason().equals("NotOnHost")).count();
        assertTrue(created >= 25, report.counts()::toString);
        List<JsonObject> notOnHost = events().stream().filter(e -> "NotOnHost".equals(Json.string(e, "reason")))
                .toList();
        List<JsonObject> own = notOnHost.stream().filter(e -> e.has("related")).toList();
        List<JsonObject> combined = notOnHost.stream().filter(e -> !e.has("related")).toList();
        assertEquals(10, own.size(), "the first ten creates get an Event each: " + notOnHost);
        assertEquals(1, combined.size(), "the rest share one: " + notOnHost);
        JsonObject rest = combined.get(0);
        assertTrue(Json.string(rest, "note").startsWith(EventObserver.COMBINED), Json.string(rest, "note"));
        assertEquals("Create", Json.string(rest, "action"));
        assertEquals("Normal", Json.string(rest, "type"));
        assertEquals("TenantCluster", Json.string(rest, "regarding", "kind"));
        assertEquals(created - 10, rest.getAsJsonObject("series").get("count").getAsLong(),
                "its series counts every create it stands for");
        assertEquals(created, plane.decisions(live.key("dev"), 200).stream()
                .filter(d -> d.outcome().decision().reason().equals("NotOnHost")).count(),
                "the decision ring still holds each decision");
    }
}
