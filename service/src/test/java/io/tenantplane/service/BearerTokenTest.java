package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(TokenFileExtension.class)
@HelidonTest
@AddConfig(key = "tenantplane.host.url", value = "http://127.0.0.1:9")
class BearerTokenTest {

    @Inject
    WebTarget target;

    private Response shards(String authorization) {
        var request = target.path("/shards").request();
        if (authorization != null) {
            request = request.header(HttpHeaders.AUTHORIZATION, authorization);
        }
        return request.get();
    }

    @Test
    void restWithoutATokenIsRefusedWithProblemDetails() {
        Response r = shards(null);

        assertEquals(401, r.getStatus());
        assertEquals(Problem.MEDIA_TYPE, r.getMediaType().toString());
        assertTrue(r.getHeaderString(HttpHeaders.WWW_AUTHENTICATE).startsWith("Bearer"));
        JsonObject problem = r.readEntity(JsonObject.class);
        assertEquals(401, problem.getInt("status"));
        assertEquals("Unauthorized", problem.getString("title"));
        assertTrue(problem.getString("detail").contains("Authorization: Bearer"), problem.toString());
    }

    @Test
    void restWithAWrongTokenIsRefused() {
        assertEquals(401, shards("Bearer not-the-token").getStatus());
        assertEquals(401, shards("Basic " + TokenFileExtension.TOKEN).getStatus());
    }

    @Test
    void restWithTheTokenAnswersWithJson() {
        Response r = shards("Bearer " + TokenFileExtension.TOKEN);

        assertEquals(200, r.getStatus());
        JsonObject view = r.readEntity(JsonObject.class);
        assertEquals(32, view.getInt("count"));
        assertEquals(0, view.getInt("owned"), "the host does not answer: no shard is owned");
    }

    @Test
    void healthAndMetricsStayOpenForProbesAndScrapers() {
        assertEquals(200, target.path("/health/live").request().get().getStatus());
        assertEquals(200, target.path("/metrics").request().get().getStatus());
    }

    @Test
    void aRotatedTokenTakesEffectWithoutRestart() throws IOException {
        Files.writeString(TokenFileExtension.file(), "second-token");
        try {
            assertEquals(401, shards("Bearer " + TokenFileExtension.TOKEN).getStatus());
            assertEquals(200, shards("Bearer second-token").getStatus());
        } finally {
            Files.writeString(TokenFileExtension.file(), TokenFileExtension.TOKEN);
        }
    }
}
