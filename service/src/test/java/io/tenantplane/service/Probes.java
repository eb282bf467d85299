package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.fail;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.function.Predicate;

/** Polling helpers over the service's HTTP endpoints, bounded in time. */
final class Probes {

    private Probes() {
    }

    static JsonObject awaitStatus(WebTarget target, String path, int status, Duration timeout)
            throws InterruptedException {
        return await(target, path, timeout, r -> r.getStatus() == status, "HTTP " + status);
    }

    /** Waits until the readiness response shows the outcome of at least one elector round. */
    static JsonObject awaitFailedElectorRound(WebTarget target) throws InterruptedException {
        return await(target, "/health/ready", Duration.ofSeconds(10),
                r -> r.getStatus() == 503
                        && !check(r.readEntity(JsonObject.class), "host").getJsonObject("data").getString("hostApi")
                        .equals("not contacted yet"),
                "a failed host API call in the readiness data");
    }

    static JsonObject await(WebTarget target, String path, Duration timeout, Predicate<Response> done, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            Response r = target.path(path).request().get();
            r.bufferEntity();
            if (done.test(r)) {
                return r.readEntity(JsonObject.class);
            }
            last = r.getStatus() + " " + r.readEntity(String.class);
            Thread.sleep(50);
        }
        return fail("GET " + path + " did not show " + what + " within " + timeout + "; last: " + last);
    }

    /** The named check of a MicroProfile Health response. */
    static JsonObject check(JsonObject health, String name) {
        for (JsonValue v : health.getJsonArray("checks")) {
            if (v.asJsonObject().getString("name").equals(name)) {
                return v.asJsonObject();
            }
        }
        return fail("no check named " + name + " in " + health);
    }
}
