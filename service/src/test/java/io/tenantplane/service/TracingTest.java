package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import jakarta.inject.Inject;
import jakarta.ws.rs.client.WebTarget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Turning tracing on takes only the standard OpenTelemetry settings; spans then reach an OTLP/HTTP collector. */
@ExtendWith(OtlpCollectorExtension.class)
@HelidonTest
@AddConfig(key = "tenantplane.host.url", value = "http://127.0.0.1:9")
@AddConfig(key = "tenantplane.auth.mode", value = "none")
class TracingTest {

    @Inject
    WebTarget target;

    @Test
    void requestSpansAreExportedOverOtlpHttpOnceTheStandardSettingsAskForIt() throws InterruptedException {
        assertEquals(200, target.path("/shards").request().get().getStatus());

        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (OtlpCollectorExtension.Export e : OtlpCollectorExtension.EXPORTS) {
                if (e.path().equals("/v1/traces") && e.mentions("/shards")) {
                    assertEquals("application/x-protobuf", e.contentType());
                    return;
                }
            }
            Thread.sleep(50);
        }
        fail("no span for /shards reached the collector; exports: " + OtlpCollectorExtension.EXPORTS.stream()
                .map(e -> e.path() + " " + e.body().length + "B").toList());
    }
}
