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
import org.junit.jupiter.api.Test;

/** When the host cannot review a token, the REST API refuses the request (fail closed) and says why. */
@HelidonTest
@AddConfig(key = "tenantplane.host.url", value = "http://127.0.0.1:9")
class RestAuthUnreachableTest {

    @Inject
    WebTarget target;

    @Test
    void anUnreviewableTokenIsRefusedWith503AndAProblemNamingTheCause() {
        for (String path : java.util.List.of("/tenants", "/shards", "/tenants/team-dev/dev")) {
            Response r = target.path(path).request().header(HttpHeaders.AUTHORIZATION, "Bearer some-token").get();
            assertEquals(503, r.getStatus(), path);
            assertEquals(Problem.MEDIA_TYPE, r.getMediaType().toString());
            JsonObject problem = r.readEntity(JsonObject.class);
            assertTrue(problem.getString("detail").contains("cannot verify the bearer token")
                    && problem.getString("detail").contains("did not review the token"), problem.toString());
        }
        assertEquals(401, target.path("/tenants").request().get().getStatus(), "no token is still 401");
        assertEquals(200, target.path("/metrics").request().get().getStatus());
    }
}
