package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.helidon.microprofile.testing.junit5.AddBean;
import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.util.Config;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service against a host API server that answers: alone, it owns every shard, is ready, and its seams reach
 * health and metrics.
 */
@ExtendWith(HostServerExtension.class)
@HelidonTest
@AddBean(OffsetClock.class)
@AddConfig(key = "tenantplane.shards", value = "8")
@AddConfig(key = "tenantplane.lease.identity", value = "tenantplane-service-0")
@AddConfig(key = "tenantplane.lease.retry-period", value = "PT0.5S")
class ServiceOnHostTest {

    @Inject
    WebTarget target;
    @Inject
    ServiceStatus status;
    @Inject
    ServiceMetrics metrics;
    private JsonObject awaitLeaderReady() throws InterruptedException {
        return Probes.await(target, "/health/ready", Duration.ofSeconds(10), r -> r.getStatus() == 200
                && Probes.check(r.readEntity(JsonObject.class), "host").getJsonObject("data")
                        .getInt("shardsOwned") == 8, "ready, owning every shard");
    }

    @Test
    void aSingleReplicaTakesEveryShardLeaseAndIsReady() throws Exception {
        JsonObject ready = awaitLeaderReady();

        JsonObject data = Probes.check(ready, "host").getJsonObject("data");
        assertEquals("UP", ready.getString("status"));
        assertEquals("tenantplane-service-0", data.getString("identity"));
        assertEquals("reachable", data.getString("hostApi"));

        var api = new CoordinationV1Api(Config.fromUrl(HostServerExtension.server().url(), false));
        for (int i = 0; i < 8; i++) {
            V1Lease lease = api.readNamespacedLease("tenantplane-service-shard-" + i, "tenantplane-system").execute();
            assertEquals("tenantplane-service-0", lease.getSpec().getHolderIdentity());
        }
        assertEquals("tenantplane-service-0", api.readNamespacedLease("tenantplane-service-member-tenantplane-service-0",
                "tenantplane-system").execute().getSpec().getHolderIdentity());

        JsonObject shards = target.path("/shards").request()
                .header("Authorization", "Bearer " + HostServerExtension.host().viewerToken()).get(JsonObject.class);
        assertEquals(8, shards.getInt("count"));
        assertEquals(8, shards.getInt("owned"));
        assertEquals(8, shards.getInt("fairShare"));
        assertEquals(List.of("tenantplane-service-0"), shards.getJsonArray("members").getValuesAs(
                jakarta.json.JsonString::getString));
        JsonObject first = shards.getJsonArray("shards").getJsonObject(0);
        assertEquals("tenantplane-system/tenantplane-service-shard-0", first.getString("lease"));
        assertEquals("HELD", first.getString("state"));
        assertTrue(first.getBoolean("owned"));
    }

    @Test
    void allThreeHealthEndpointsAnswerUpWithTheirChecks() throws Exception {
        awaitLeaderReady();
        for (String path : List.of("/health/live", "/health/ready", "/health/started")) {
            Response r = target.path(path).request().get();
            assertEquals(200, r.getStatus(), path);
            JsonObject body = r.readEntity(JsonObject.class);
            assertEquals("UP", body.getString("status"), path);
            assertEquals(1, body.getJsonArray("checks").size(), path + ": only tenantplane's own check");
        }
    }

    @Test
    void metricsCarryTheExactPrometheusNames() throws Exception {
        awaitLeaderReady();
        metrics.queueDepth(7);
        metrics.apiError(503);
        metrics.queueOverflowed();

        String text = target.path("/metrics").request(MediaType.TEXT_PLAIN).get(String.class);

        assertTrue(text.contains("\n# TYPE tenantplane_shards_held gauge\n"), text);
        assertTrue(text.contains("\ntenantplane_shards_held{mp_scope=\"application\",} 8.0\n"), text);
        assertTrue(text.contains("\ntenantplane_shards{mp_scope=\"application\",} 8.0\n"), text);
        assertTrue(text.contains("\ntenantplane_shard_members{mp_scope=\"application\",} 1.0\n"), text);
        assertTrue(text.contains("\ntenantplane_shard_owned{mp_scope=\"application\",shard=\"7\",} 1.0\n"), text);
        assertTrue(text.contains("\ntenantplane_workqueue_depth{mp_scope=\"application\",} 7.0\n"), text);
        assertTrue(text.contains("\n# TYPE tenantplane_api_errors_total counter\n"), text);
        assertTrue(text.contains("\ntenantplane_api_errors_total{code=\"503\",mp_scope=\"application\",} 1.0\n"), text);
        assertTrue(!text.contains("tenantplane_api_errors_total_total"), "no doubled suffix");
        assertTrue(text.contains("\n# TYPE tenantplane_workqueue_overflows_total counter\n"), text);
        assertTrue(text.contains("\ntenantplane_workqueue_overflows_total{mp_scope=\"application\",} 1.0\n"), text);
        metrics.queueDepth(0);
    }

    @Test
    void aClosedReadinessGateMakesTheReplicaNotReadyAndSaysWhy() throws Exception {
        awaitLeaderReady();
        try (ServiceStatus.Gate gate = status.readinessGate("test-gate", "a test holds this gate closed")) {
            Response notReady = target.path("/health/ready").request().get();
            assertEquals(503, notReady.getStatus());
            JsonObject data = Probes.check(notReady.readEntity(JsonObject.class), "host").getJsonObject("data");
            assertEquals("a test holds this gate closed", data.getString("test-gate"));
            assertEquals("ready", data.getString(Reconciler.GATE), "the informers have listed");

            gate.ready();
            Response ready = target.path("/health/ready").request().get();
            assertEquals(200, ready.getStatus());
            assertEquals("ready", Probes.check(ready.readEntity(JsonObject.class), "host").getJsonObject("data")
                    .getString("test-gate"));
        }
    }

    @Test
    void aStalledWorkLoopMakesTheServiceNotAlive() throws Exception {
        awaitLeaderReady();
        try (ServiceStatus.Heartbeat loop = status.heartbeat("test-loop", Duration.ofSeconds(1))) {
            loop.beat();
            assertEquals(200, target.path("/health/live").request().get().getStatus());

            OffsetClock.advance(Duration.ofMillis(1500));
            Response stalled = target.path("/health/live").request().get();
            assertEquals(503, stalled.getStatus());
            JsonObject data = Probes.check(stalled.readEntity(JsonObject.class), "work-loops").getJsonObject("data");
            assertTrue(data.getString("test-loop").startsWith("stalled"), data.toString());
            assertTrue(data.getString("shard-leases").startsWith("beating"), data.toString());
            assertTrue(data.getString(Reconciler.LOOP).startsWith("beating"), data.toString());
        }
        assertEquals(200, target.path("/health/live").request().get().getStatus(), "a closed loop no longer counts");
    }
}
