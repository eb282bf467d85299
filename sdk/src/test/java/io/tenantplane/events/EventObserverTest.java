package io.tenantplane.events;

import io.tenantplane.observe.TenantKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.apply.Retries;
import io.tenantplane.json.Json;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Event names, and the writer against the in-process API server: off the caller's thread, combined, bounded. */
class EventObserverTest {

    private static final TenantKey DEV = new TenantKey("team-dev", "dev");

    private KubeApiServer server;
    private ApiClient client;

    @BeforeEach
    void start() {
        server = KubeApiServer.builder().namespaces("default", "team-dev", "team-qa").build().start();
        client = new ClientBuilder().setBasePath(server.url()).build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private EventObserver.Builder observer() {
        return EventObserver.builder().client(client).clock(Clock.systemUTC());
    }

    private static Outcome created(String name) {
        return new Outcome.Applied(Decision.summary(Action.CREATE, "ConfigMap",
                new Decision.SourceRef("dev", "default", name, null), new Decision.HostRef("team-dev",
                name + "-x-default-x-dev"), "NotOnHost", "ConfigMap default/" + name + " is not on the host yet"),
                null, 1);
    }

    private List<JsonObject> events() {
        return events("team-dev");
    }

    private List<JsonObject> events(String namespace) {
        try {
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.url()
                    + "/apis/events.k8s.io/v1/namespaces/" + namespace + "/events")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return JsonParser.parseString(body).getAsJsonObject().getAsJsonArray("items").asList().stream()
                    .map(e -> e.getAsJsonObject()).toList();
        } catch (java.io.IOException | InterruptedException e) {
            throw new AssertionError("cannot list Events", e);
        }
    }

    private static long count(JsonObject event) {
        return event.has("series") ? event.getAsJsonObject("series").get("count").getAsLong() : 1;
    }

    private static Decision d(Action action, String reason, String host) {
        return Decision.summary(action, "Pod", new Decision.SourceRef("dev", "default", "web", null),
                new Decision.HostRef("team-dev", host), reason, "message " + System.nanoTime());
    }

    @Test
    void repeatsOfOneDecisionShareADeterministicEventNameWhateverTheirMessage() {
        TenantKey dev = new TenantKey("team-dev", "dev");
        String a = EventObserver.eventName(dev, d(Action.CONFLICT, "ForeignObject", "web-x-default-x-dev"));
        String b = EventObserver.eventName(dev, d(Action.CONFLICT, "ForeignObject", "web-x-default-x-dev"));
        assertEquals(a, b);
        assertTrue(a.startsWith("dev."), a);
        assertTrue(a.length() <= 253);
        assertNotEquals(a, EventObserver.eventName(dev, d(Action.CONFLICT, "NameCollision", "web-x-default-x-dev")));
        assertNotEquals(a, EventObserver.eventName(dev, d(Action.CREATE, "NotOnHost", "web-x-default-x-dev")));
        assertNotEquals(a, EventObserver.eventName(dev, d(Action.CONFLICT, "ForeignObject", "other-x-default-x-dev")));
    }

    /** The retry policy given (the front door passes its own) decides how often a refused Event write is tried. */
    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void aRefusedEventWriteIsTriedAsItsRetryPolicySays(int attempts) {
        server.faults().add(FaultRule.on("create", "events.events.k8s.io").respond(503));
        EventObserver events = observer().retries(new Retries(attempts, Duration.ZERO, Duration.ZERO)).build();
        events.decision(new TenantKey("team-dev", "dev"), created("a"));
        assertTrue(events.flush(Duration.ofSeconds(10)));
        assertEquals(attempts, server.requests().count("create", "events.events.k8s.io"));
        assertEquals(1, events.failedWrites());
        events.close();
    }

    /**
     * The API server limits a note to 1024 bytes (Go's {@code len}), not characters: a long message of two-byte
     * characters is cut to fit in bytes, never inside a character, so the Event is written, not refused.
     */
    @Test
    void aLongNoteIsCutToTheBytesTheApiServerTakes() {
        String message = "ConfigMap default/caf\u00e9 " + "\u00e9".repeat(1500);
        Outcome outcome = new Outcome.Applied(Decision.summary(Action.CREATE, "ConfigMap",
                new Decision.SourceRef("dev", "default", "cafe", null), new Decision.HostRef("team-dev",
                "cafe-x-default-x-dev"), "NotOnHost", message), null, 1);
        EventObserver events = observer().build();
        events.decision(DEV, outcome);
        assertTrue(events.flush(Duration.ofSeconds(10)));
        assertEquals(0, events.failedWrites(), "the server took the Event");
        String note = Json.string(events().get(0), "note");
        int bytes = note.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        assertTrue(bytes <= 1024 && bytes > 1000, bytes + " bytes");
        assertTrue(note.endsWith("\u00e9..."), note.substring(note.length() - 10));
        assertEquals("short", EventObserver.truncate("short"));
        events.close();
    }

    @Test
    void eventsOfAShardedInstallationAreLabelledWithTheTenantsShard() {
        EventObserver events = observer().shards(32).build();
        events.decision(DEV, created("web"));
        assertTrue(events.flush(Duration.ofSeconds(10)));
        JsonObject written = events().get(0);
        assertEquals(Integer.toString(DEV.shard(32)), Json.string(written, "metadata", "labels",
                EventObserver.Builder.SHARD_LABEL));
        assertEquals(io.tenantplane.sync.ShardLeases.shardOf(DEV, 32), DEV.shard(32), "the shard the Leases own");

        EventObserver unsharded = observer().build();
        unsharded.decision(new TenantKey("team-dev", "other"), created("web"));
        assertTrue(unsharded.flush(Duration.ofSeconds(10)));
        assertTrue(events().stream().filter(e -> "other".equals(Json.string(e, "metadata", "labels",
                "tenantplane.io/tenant"))).allMatch(e -> Json.string(e, "metadata", "labels",
                EventObserver.Builder.SHARD_LABEL) == null), "no shard label by default");
    }

    @Test
    void theBuilderNamesWhatIsMissingOrWrong() {
        assertTrue(assertThrows(IllegalStateException.class, () -> EventObserver.builder().build()).getMessage()
                .contains("client"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EventObserver.builder()
                .seriesInterval(Duration.ofSeconds(-1))).getMessage().contains("seriesInterval"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EventObserver.builder()
                .reportingInstance("")).getMessage().contains("reportingInstance"));
    }
    @Test
    void aDecisionReturnsBeforeItsEventIsWrittenAndFlushWaitsForTheWrite() {
        server.faults().add(FaultRule.on("create", "events.events.k8s.io").delay(Duration.ofMillis(700)));
        EventObserver events = observer().build();

        long t0 = System.nanoTime();
        events.decision(DEV, created("web"));
        long took = System.nanoTime() - t0;

        assertTrue(took < Duration.ofMillis(500).toNanos(), "the caller does not wait for the API server: " + took);
        assertTrue(events.flush(Duration.ofSeconds(10)));
        List<JsonObject> written = events();
        assertEquals(1, written.size(), written::toString);
        JsonObject e = written.get(0);
        assertEquals("NotOnHost", Json.string(e, "reason"));
        assertEquals("Create", Json.string(e, "action"));
        assertEquals("Normal", Json.string(e, "type"));
        assertEquals("dev", Json.string(e, "regarding", "name"));
        assertEquals("web-x-default-x-dev", Json.string(e, "related", "name"));
        assertEquals("tenantplane.io/tenantplane", Json.string(e, "reportingController"));
    }

    @Test
    void similarDecisionsBeyondTheLimitShareOneCombinedEventWhoseSeriesCountsThem() {
        EventObserver events = observer().aggregate(3, Duration.ofMinutes(10)).build();

        for (int i = 0; i < 8; i++) {
            events.decision(DEV, created("cm-" + i));
        }
        events.decision(DEV, new Outcome.NotWritten(Decision.conflict("ConfigMap",
                new Decision.SourceRef("dev", "default", "settings", null),
                new Decision.HostRef("team-dev", "settings-x-default-x-dev"), "ForeignObject", "taken", null)));
        assertTrue(events.flush(Duration.ofSeconds(10)));

        List<JsonObject> written = events();
        List<JsonObject> own = written.stream().filter(e -> "NotOnHost".equals(Json.string(e, "reason"))
                && e.has("related")).toList();
        List<JsonObject> combined = written.stream().filter(e -> "NotOnHost".equals(Json.string(e, "reason"))
                && !e.has("related")).toList();
        assertEquals(List.of("cm-0-x-default-x-dev", "cm-1-x-default-x-dev", "cm-2-x-default-x-dev"),
                own.stream().map(e -> Json.string(e, "related", "name")).sorted().toList());
        assertEquals(1, combined.size(), written::toString);
        assertEquals(5, count(combined.get(0)));
        assertTrue(Json.string(combined.get(0), "note").startsWith(EventObserver.COMBINED + "more than 3 Create"),
                Json.string(combined.get(0), "note"));
        assertTrue(Json.string(combined.get(0), "note").contains("cm-3"), "it names the first it combines");
        assertEquals(1, written.stream().filter(e -> "ForeignObject".equals(Json.string(e, "reason"))
                && "Warning".equals(Json.string(e, "type"))).count(), "another reason has Events of its own");
        assertEquals(5, written.size(), written::toString);
    }

    @Test
    void repeatsOfOneDecisionAreOneEventWhoseSeriesFlushBringsUpToDate() {
        EventObserver events = observer().seriesInterval(Duration.ofHours(1)).build();

        events.decision(DEV, created("web"));
        assertTrue(events.flush(Duration.ofSeconds(10)));
        events.decision(DEV, created("web"));
        events.decision(DEV, created("web"));
        assertTrue(events.flush(Duration.ofSeconds(10)));

        List<JsonObject> written = events();
        assertEquals(1, written.size(), written::toString);
        assertEquals(3, count(written.get(0)));
        assertTrue(written.get(0).getAsJsonObject("series").has("lastObservedTime"));
        assertEquals(1, server.requests().count("update", "events"), "one series write for both repeats");
    }

    @Test
    void aFullQueueDropsDecisionsWithoutWaitingAndCountsThemInAWarningEvent() {
        server.faults().add(FaultRule.on("create", "events.events.k8s.io").delay(Duration.ofMillis(300)));
        EventObserver events = observer().queueCapacity(2).aggregate(100, Duration.ofMinutes(10)).build();

        long t0 = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            events.decision(DEV, created("cm-" + i));
        }
        long took = System.nanoTime() - t0;

        assertTrue(took < Duration.ofMillis(250).toNanos(), "a full queue never blocks the caller: " + took);
        long dropped = events.dropped();
        // the writer may or may not have taken the first Event off the queue before the others came
        assertTrue(dropped == 5 || dropped == 6, "dropped " + dropped);
        assertTrue(events.flush(Duration.ofSeconds(20)));
        List<JsonObject> written = events();
        assertEquals(8 - dropped, written.stream().filter(e -> "NotOnHost".equals(Json.string(e, "reason"))).count(),
                written::toString);
        JsonObject notice = written.stream().filter(e -> EventObserver.EVENTS_DROPPED.equals(Json.string(e, "reason")))
                .findFirst().orElseThrow(() -> new AssertionError("no EventsDropped Event in " + written));
        assertEquals("Warning", Json.string(notice, "type"));
        assertEquals(dropped, count(notice), "its series counts the dropped decisions");
        assertEquals("dev", Json.string(notice, "regarding", "name"));
    }

    @Test
    void tenantsOfOneNameInTwoNamespacesHaveEventsOfTheirOwn() {
        EventObserver events = observer().build();

        events.decision(DEV, created("web"));
        events.decision(new TenantKey("team-qa", "dev"), created("web"));
        assertTrue(events.flush(Duration.ofSeconds(10)));

        assertEquals(1, events("team-dev").size());
        assertEquals(1, events("team-qa").size());
        assertEquals(1, count(events("team-qa").get(0)), "not a repeat of the other tenant's decision");
    }

    @Test
    void closeWritesWhatIsWaitingAndLaterDecisionsAreDropped() {
        server.faults().add(FaultRule.on("create", "events.events.k8s.io").delay(Duration.ofMillis(200)));
        EventObserver events = observer().build();
        events.decision(DEV, created("a"));
        events.decision(DEV, created("b"));

        events.close();

        assertEquals(2, events().size(), "nothing waiting is lost on close");
        events.decision(DEV, created("c"));
        assertEquals(1, events.dropped());
        assertTrue(events.flush(Duration.ofSeconds(1)));
        assertEquals(2, events().size());
    }

    @Test
    void theWriterThreadEndsWhenThereIsNothingLeftToWrite() throws Exception {
        EventObserver events = observer().build();
        events.decision(DEV, created("a"));
        assertTrue(events.flush(Duration.ofSeconds(10)));

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (events.writerRunning() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(!events.writerRunning(), "no writer thread is left behind");
        events.decision(DEV, created("b"));
        assertTrue(events.flush(Duration.ofSeconds(10)), "a later decision starts a writer again");
        assertEquals(2, events().size());
    }
}
