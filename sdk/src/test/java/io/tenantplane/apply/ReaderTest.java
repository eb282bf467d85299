package io.tenantplane.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the SDK keeps of an object it reads from an API server, and which failed reads it tries again. */
class ReaderTest {

    private static final ResourceKind CONFIG_MAPS = ResourceKind.wellKnown("v1", "ConfigMap").orElseThrow();
    private static final Retries QUICK = new Retries(4, Duration.ofMillis(1), Duration.ofMillis(5));

    private KubeApiServer server;
    private ApiClient client;

    @BeforeEach
    void start() {
        server = KubeApiServer.builder().build().start();
        client = new ClientBuilder().setBasePath(server.url()).build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void objectsAreReadTypedAndWithoutTheirManagedFields() throws Exception {
        HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(server.url() + "/api/v1/namespaces/default/configmaps?fieldManager=someone"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        JsonObject stored = JsonParser.parseString(created.body()).getAsJsonObject();
        assertTrue(stored.getAsJsonObject("metadata").has("managedFields"), "the server tracks the field owners");

        ResourceKind configMaps = ResourceKind.wellKnown("v1", "ConfigMap").orElseThrow();
        Reader reader = new Reader(client);
        JsonObject got = reader.get(configMaps, "default", "c").orElseThrow();
        List<JsonObject> listed = reader.list(configMaps, "default", null);
        for (JsonObject o : List.of(got, listed.get(0))) {
            assertFalse(Json.object(o, "metadata").has("managedFields"), o.toString());
            assertEquals("ConfigMap", Json.string(o, "kind"));
            assertEquals("v", Json.string(o, "data", "k"));
        }
    }

    @Test
    void aReadAnsweredWithThrottlingAServerErrorOrNothingIsTriedAgain() throws Exception {
        create("c");
        server.faults().add(FaultRule.on("get", "configmaps").times(1).respond(503));
        server.faults().add(FaultRule.on("get", "configmaps").times(1).respond(429));
        server.faults().add(FaultRule.on("get", "configmaps").times(1).resetConnection());

        JsonObject got = new Reader(client, QUICK).get(CONFIG_MAPS, "default", "c").orElseThrow();

        assertEquals("v", Json.string(got, "data", "k"));
        assertEquals(3, server.faults().fired(), "503, 429 and the reset each cost one attempt");
    }

    @Test
    void aListPageThatFailsIsReadAgainAndTheListIsComplete() throws Exception {
        for (int i = 0; i < 3; i++) {
            create("c" + i);
        }
        server.faults().add(FaultRule.on("list", "configmaps").times(2).respond(500));

        List<JsonObject> listed = new Reader(client, QUICK).list(CONFIG_MAPS, "default", null);

        assertEquals(List.of("c0", "c1", "c2"), listed.stream().map(o -> Json.string(o, "metadata", "name"))
                .sorted().toList());
        assertEquals(2, server.faults().fired());
    }

    @Test
    void aReadStillFailingAfterItsAttemptsFailsWithTheServersAnswer() {
        server.faults().add(FaultRule.on("get", "configmaps").respond(500, "etcd is down"));

        ReadFailedException e = assertThrows(ReadFailedException.class,
                () -> new Reader(client, QUICK).get(CONFIG_MAPS, "default", "c"));

        assertEquals(500, e.code());
        assertTrue(e.getMessage().contains("etcd is down"), e.getMessage());
        assertEquals(QUICK.maxAttempts(), server.faults().fired(), "one request per attempt, no more");
    }

    @Test
    void anAnswerThatWouldNotChangeIsNotTriedAgain() {
        server.faults().add(FaultRule.on("get", "configmaps").times(1).respond(403));

        ReadFailedException e = assertThrows(ReadFailedException.class,
                () -> new Reader(client, QUICK).get(CONFIG_MAPS, "default", "c"));

        assertEquals(403, e.code());
        assertEquals(1, server.requests().count("get", "configmaps"), "a refusal is not tried again");
        assertEquals(java.util.Optional.empty(), new Reader(client, QUICK).get(CONFIG_MAPS, "default", "absent"));
        assertEquals(2, server.requests().count("get", "configmaps"), "404 is an answer: absent, not tried again");
    }

    private void create(String name) throws Exception {
        HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(server.url() + "/api/v1/namespaces/default/configmaps"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"name\":\"" + name
                        + "\"},\"data\":{\"k\":\"v\"}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
    }
}
