package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.observe.TenantKey;
import jakarta.inject.Inject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service opens the kubelet endpoint as it is wired (KubeletEndpoints): on first start it creates the kubelet CA
 * Secret on the host, serves mutual TLS on {@code tenantplane.kubelet.port} for {@code tenantplane.kubelet.host}, and
 * counts every call in {@code tenantplane_kubelet_requests_total}.
 */
@ExtendWith(HostServerExtension.class)
@HelidonTest
@AddConfig(key = "tenantplane.shards", value = "4")
@AddConfig(key = "tenantplane.kubelet.host", value = "localhost")
@AddConfig(key = "tenantplane.kubelet.port", value = "18250")
class KubeletEndpointServiceTest {

    private static final int PORT = 18250;

    @Inject
    WebTarget target;

    private static Optional<JsonObject> caSecret() {
        return HostServerExtension.host().get("Secret", "tenantplane-system", "tenantplane-kubelet-ca");
    }

    private static String file(JsonObject secret, String key) {
        return new String(Base64.getDecoder().decode(secret.getAsJsonObject("data").get(key).getAsString()),
                StandardCharsets.UTF_8);
    }

    private static HttpResponse<String> get(SSLContext tls, String path) throws IOException, InterruptedException {
        return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build().send(
                HttpRequest.newBuilder(URI.create("https://localhost:" + PORT + path))
                        .timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theServiceCreatesItsCaServesMutualTlsAndCountsEveryCall() throws Exception {
        assertTrue(Kube.eventually(Duration.ofSeconds(20), () -> caSecret().isPresent()),
                "the first replica creates the kubelet CA Secret");
        JsonObject secret = caSecret().orElseThrow();
        assertEquals("kubernetes.io/tls", secret.get("type").getAsString());
        KubeletCa ca = KubeletCa.fromPem(file(secret, "tls.crt"), file(secret, "tls.key"), Clock.systemUTC());

        SSLContext ghost = ca.context(ca.issueTenantClient(new TenantKey("team-dev", "ghost"), "no-such-uid",
                Duration.ofHours(1)));
        assertTrue(Kube.eventually(Duration.ofSeconds(20), () -> {
            try {
                return get(ghost, "/healthz").statusCode() == 200;
            } catch (IOException | InterruptedException e) {
                return false;
            }
        }), "the endpoint opens once the CA is loaded");
        HttpResponse<String> refused = get(ghost, "/containerLogs/default/web/app");
        assertEquals(403, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("TenantCluster team-dev/ghost"), refused.body());

        KubeletCa other = KubeletCa.generate("another-ca", Clock.systemUTC());
        SSLContext stranger = other.context(other.issueTenantClient(new TenantKey("team-dev", "ghost"), "x",
                Duration.ofHours(1)));
        assertThrows(IOException.class, () -> get(stranger, "/healthz"),
                "a client certificate of another CA fails the handshake");

        String metrics = target.path("/metrics").request(MediaType.TEXT_PLAIN).get(String.class);
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("tenantplane_kubelet_requests_total{")
                && l.contains("code=\"403\"") && l.contains("tenant=\"ghost\"") && l.contains("verb=\"containerLogs\"")),
                metrics);
    }
}
