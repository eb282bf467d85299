package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import io.tenantplane.testkit.FaultRule;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What brings a tenant's next pass besides a change of its TenantCluster or its objects, with the resync minutes away:
 * a change of what it references, its control plane turning ready, and object changes beyond the queue's capacity.
 */
class SyncerRequeueIT {

    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private Live live;
    private TenantPlane plane;

    @BeforeEach
    void start() {
        live = Live.start(true);
        live.tenant("dev");
        plane = live.plane();
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private SyncerOptions options() {
        return SyncerOptions.defaults().withNamespaces(List.of(live.namespace)).withWorkers(2)
                .withResyncPeriod(Duration.ofMinutes(10));
    }

    private JsonObject tc(String tenant) {
        return live.hostKube.require("TenantCluster", live.namespace, tenant);
    }

    private static Optional<JsonObject> condition(JsonObject tc, String type) {
        JsonObject status = tc.getAsJsonObject("status");
        if (status == null || !status.has("conditions")) {
            return Optional.empty();
        }
        for (JsonElement c : status.getAsJsonArray("conditions")) {
            if (type.equals(Json.string(c.getAsJsonObject(), "type"))) {
                return Optional.of(c.getAsJsonObject());
            }
        }
        return Optional.empty();
    }

    private JsonObject customResource(String kind) {
        return live.customResources("dev").stream().filter(o -> kind.equals(Json.string(o, "kind"))).findFirst()
                .orElseThrow();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"IsolationProfile", "SyncPolicy"})
    void aTenantWhoseLastPassFailedOnAMissingReferenceIsProvisionedAsSoonAsItIsCreated(String kind) throws Exception {
        live.createTenant("dev");
        JsonObject referenced = customResource(kind);
        live.hostKube.delete(kind, live.namespace, Json.string(referenced, "metadata", "name"));
        String field = kind.equals("IsolationProfile") ? "spec.isolationProfileRef" : "spec.syncPolicyRef";
        try (Syncer syncer = Syncer.create(plane, options()).start()) {
            assertTrue(syncer.awaitStarted(PROMPTLY));
            assertTrue(Live.eventually(PROMPTLY, () -> condition(tc("dev"), "Ready")
                    .filter(c -> "InvalidSpec".equals(Json.string(c, "reason"))
                            && Json.string(c, "message").contains(field)).isPresent()),
                    () -> "the first pass fails on the missing " + kind + ": " + tc("dev").get("status"));

            live.hostKube.create(referenced);

            assertTrue(Live.eventually(PROMPTLY, () -> live.hostKube.get("StatefulSet", live.namespace,
                    "dev-control-plane").isPresent()), "creating the " + kind + " brings the tenant's next pass");
            assertTrue(Live.eventually(PROMPTLY, () -> "Provisioning".equals(Json.string(tc("dev"), "status",
                    "phase"))), () -> "and its status says so: " + tc("dev").get("status"));
        }
    }

    @Test
    void aChangedIsolationProfileReachesEveryTenantReferencingIt() throws Exception {
        live.createTenant("dev");
        live.tenant("qa");
        live.createTenant("qa");
        try (Syncer syncer = Syncer.create(plane, options()).start()) {
            assertTrue(syncer.awaitStarted(PROMPTLY));
            for (String t : List.of("dev", "qa")) {
                assertTrue(Live.eventually(PROMPTLY, () -> live.hostKube.get("ResourceQuota", live.namespace,
                        t + "-quota").isPresent()), t + " is provisioned");
            }

            JsonObject profile = live.hostKube.require("IsolationProfile", live.namespace, "restricted");
            profile.getAsJsonObject("spec").getAsJsonObject("quota").getAsJsonObject("hard")
                    .addProperty("pods", "7");
            live.hostKube.update(profile);

            for (String t : List.of("dev", "qa")) {
                assertTrue(Live.eventually(PROMPTLY, () -> "7".equals(Json.string(live.hostKube.require(
                        "ResourceQuota", live.namespace, t + "-quota"), "spec", "hard", "pods"))),
                        t + "'s quota follows the profile");
            }
        }
    }

    @Test
    void aTenantTurnsReadyWithinSecondsOfItsControlPlaneAndDnsReportingReady() throws Exception {
        live.createTenant("dev");
        try (Syncer syncer = Syncer.create(plane, options()).start()) {
            assertTrue(syncer.awaitStarted(PROMPTLY));
            assertTrue(Live.eventually(PROMPTLY, () -> "Provisioning".equals(Json.string(tc("dev"), "status",
                    "phase"))), () -> "the tenant waits for its control plane: " + tc("dev").get("status"));
            assertEquals("ReplicasNotReady", Json.string(condition(tc("dev"), "ControlPlaneReady").orElseThrow(),
                    "reason"));

            // Plays the StatefulSet controller.
            JsonObject sts = live.hostKube.require("StatefulSet", live.namespace, "dev-control-plane");
            sts.add("status", Kube.json("{\"replicas\":1,\"readyReplicas\":1,\"availableReplicas\":1}"));
            live.hostKube.updateStatus(sts);

            assertTrue(Live.eventually(PROMPTLY, () -> condition(tc("dev"), "ControlPlaneReady")
                            .filter(c -> "DnsNotReady".equals(Json.string(c, "reason"))).isPresent()),
                    () -> "its API is up, its DNS is not: " + tc("dev").get("status"));
            assertEquals("Provisioning", Json.string(tc("dev"), "status", "phase"));

            // Plays the ReplicaSet and Deployment controllers.
            JsonObject dns = live.hostKube.require("Deployment", live.namespace, "dev-dns");
            dns.add("status", Kube.json("{\"replicas\":2,\"readyReplicas\":1,\"availableReplicas\":1}"));
            live.hostKube.updateStatus(dns);

            assertTrue(Live.eventually(PROMPTLY, () -> "Ready".equals(Json.string(tc("dev"), "status", "phase"))),
                    () -> "the tenant is Ready without waiting for the resync: " + tc("dev").get("status"));
            assertEquals("True", Json.string(condition(tc("dev"), "ControlPlaneReady").orElseThrow(), "status"));

            dns = live.hostKube.require("Deployment", live.namespace, "dev-dns");
            dns.add("status", Kube.json("{\"replicas\":2,\"readyReplicas\":0,\"availableReplicas\":0}"));
            live.hostKube.updateStatus(dns);
            assertTrue(Live.eventually(PROMPTLY, () -> "Provisioning".equals(Json.string(tc("dev"), "status",
                    "phase"))), () -> "back when its DNS has no replica available: " + tc("dev").get("status"));
            dns = live.hostKube.require("Deployment", live.namespace, "dev-dns");
            dns.add("status", Kube.json("{\"replicas\":2,\"readyReplicas\":2,\"availableReplicas\":2}"));
            live.hostKube.updateStatus(dns);
            assertTrue(Live.eventually(PROMPTLY, () -> "Ready".equals(Json.string(tc("dev"), "status", "phase"))),
                    () -> "and Ready again: " + tc("dev").get("status"));

            sts = live.hostKube.require("StatefulSet", live.namespace, "dev-control-plane");
            sts.add("status", Kube.json("{\"replicas\":1,\"readyReplicas\":0,\"availableReplicas\":0}"));
            live.hostKube.updateStatus(sts);

            assertTrue(Live.eventually(PROMPTLY, () -> "Provisioning".equals(Json.string(tc("dev"), "status",
                    "phase"))), () -> "and back when its replica is no longer ready: " + tc("dev").get("status"));
        }
    }

    @Test
    @Tag(Live.HOOKS)
    void objectChangesBeyondTheQueueCapacityAreFoldedIntoAFullPassNotLost() throws Exception {
        live.createTenant("dev");
        Kube dev = live.tenant("dev");
        java.util.concurrent.atomic.AtomicInteger overflows = new java.util.concurrent.atomic.AtomicInteger();
        plane = live.plane(b -> b.observer(new io.tenantplane.observe.Observer() {
            @Override
            public void queueOverflowed(io.tenantplane.observe.TenantKey tenant) {
                assertEquals(live.key("dev"), tenant);
                overflows.incrementAndGet();
            }
        }));
        try (Syncer syncer = Syncer.create(plane, options().withWorkers(1).withQueueCapacity(2)).start()) {
            assertTrue(syncer.awaitStarted(PROMPTLY));
            assertTrue(Live.eventually(PROMPTLY, () -> condition(tc("dev"), "Synced")
                    .filter(c -> "True".equals(Json.string(c, "status"))).isPresent()), "the first pass syncs");
            // Slow host writes keep the one worker busy while the changes arrive, so the queue fills up.
            live.requireHostServer().faults().add(FaultRule.on("create", "configmaps")
                    .delay(Duration.ofMillis(50)));
            int count = 30;
            for (int i = 0; i < count; i++) {
                dev.create(Kube.json("""
                        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"burst-%d","namespace":"default"},
                         "data":{"n":"%d"}}""".formatted(i, i)));
            }

            assertTrue(Live.eventually(Duration.ofSeconds(20), () -> live.hostKube.list("ConfigMap",
                    live.namespace, "tenantplane.io/tenant=dev").stream()
                    .filter(o -> Json.string(o, "metadata", "name").startsWith("burst-")).count() == count),
                    "every change reaches the host without waiting for the resync");
            assertTrue(overflows.get() > 0, "the observer heard of the changes folded into a full pass");
        }
    }
}
