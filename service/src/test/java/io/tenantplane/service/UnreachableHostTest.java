package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The service started, but the host API server does not answer (port 9 on loopback refuses connections). */
@HelidonTest
@AddConfig(key = "tenantplane.host.url", value = "http://127.0.0.1:9")
@AddConfig(key = "tenantplane.lease.duration", value = "PT2S")
@AddConfig(key = "tenantplane.lease.renew-deadline", value = "PT1S")
@AddConfig(key = "tenantplane.lease.retry-period", value = "PT0.1S")
class UnreachableHostTest {

    @Inject
    WebTarget target;

    @Test
    void startedAndAliveButNotReadyWhileTheHostApiDoesNotAnswer() throws InterruptedException {
        Probes.awaitStatus(target, "/health/started", 200, Duration.ofSeconds(10));
        JsonObject ready = Probes.awaitFailedElectorRound(target);

        assertEquals("DOWN", ready.getString("status"));
        JsonObject data = Probes.check(ready, "host").getJsonObject("data");
        assertEquals(0, data.getInt("shardsOwned"));
        assertTrue(data.getString("hostApi").startsWith("no answer from the host API: ConnectException"),
                data.toString());

        Response live = target.path("/health/live").request().get();
        assertEquals(200, live.getStatus());
        JsonObject liveData = Probes.check(live.readEntity(JsonObject.class), "work-loops").getJsonObject("data");
        assertTrue(liveData.getString("shard-leases").startsWith("beating"), liveData.toString());
    }

    @Test
    void failedCallsAreCountedUnderCodeZeroAndNoShardIsOwned() throws InterruptedException {
        Probes.awaitFailedElectorRound(target);

        String metrics = target.path("/metrics").request(MediaType.TEXT_PLAIN).get(String.class);

        Matcher errors = Pattern.compile("(?m)^tenantplane_api_errors_total\\{code=\"0\",mp_scope=\"application\",?} "
                + "([0-9.]+)$").matcher(metrics);
        assertTrue(errors.find(), metrics);
        assertTrue(Double.parseDouble(errors.group(1)) >= 1.0, errors.group());
        assertTrue(metrics.contains("\ntenantplane_shards_held{mp_scope=\"application\",} 0.0\n"), metrics);
    }
}
