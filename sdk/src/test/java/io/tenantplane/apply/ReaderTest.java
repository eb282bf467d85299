package io.tenantplane.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the SDK keeps of an object it reads from an API server. */
class ReaderTest {

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
}
