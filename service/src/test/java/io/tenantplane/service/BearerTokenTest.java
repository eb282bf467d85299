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

    private Response leader(String authorization) {
        var request = target.path("/leader").request();
        if (authorization != null) {
            request = request.header(HttpHeaders.AUTHORIZATION, authorization);
        }
        return request.get();
    }

    @Test
    void restWithoutATokenIsRefusedWithProblemDetails() {
        Response r = leader(null);

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
        assertEquals(401, leader("Bearer not-the-token").getStatus());
        assertEquals(401, leader("Basic " + TokenFileExtension.TOKEN).getStatus());
    }

    @Test
    void restWithTheTokenAnswersWithJson() {
        Response r = leader("Bearer " + TokenFileExtension.TOKEN);

        assertEquals(200, r.getStatus());
        JsonObject view = r.readEntity(JsonObject.class);
        assertEquals("tenantplane-system/tenantplane-service-leader", view.getString("lease"));
        assertEquals(false, view.getBoolean("leader"));
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
            assertEquals(401, leader("Bearer " + TokenFileExtension.TOKEN).getStatus());
            assertEquals(200, leader("Bearer second-token").getStatus());
        } finally {
            Files.writeString(TokenFileExtension.file(), TokenFileExtension.TOKEN);
        }
    }
}
