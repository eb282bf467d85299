package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.Rejection;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import io.tenantplane.testkit.KubeApiServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A mode change driven through the front door, as a platform (or the service) runs it: a tenant provisioned with
 * {@code ensure} and synced with {@code converge} in shared mode, then {@code spec.mode: dedicated} on its
 * TenantCluster, then the same calls (or the Syncer) again until the tenant runs in its own namespace. The test plays
 * the host's kubelets by writing host Pod status Ready, as the other migration tests do.
 */
@Tag(Live.HOOKS)
class MigrationViaEnsureIT {

    private static final String NS = LiveMigration.NS;
    private static final String OWN = LiveMigration.OWN;
    private static final List<String> WORKLOAD_COPIES = List.of("Pod web-6b7f9-a-x-default-x-dev",
            "Pod web-6b7f9-b-x-default-x-dev", "Service web-x-default-x-dev", "ConfigMap web-config-x-default-x-dev");

    private Live live;

    @AfterEach
    void stop() {
        if (live != null) {
            live.close();
        }
    }

    @Test
    void repeatedEnsureAndConvergeMoveASharedTenantToDedicatedWithoutRecreatingTenantObjects() {
        TenantPlane plane = sharedTenantWithSyncedWorkloads(p -> { });
        TenantKey key = live.key("dev");
        Map<String, String> tenantBefore = tenantIdentities();
        String changedAt = tenantCluster().getAsJsonObject("metadata").get("resourceVersion").getAsString();

        setMode("dedicated");
        List<MigrationProgress> passes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ProvisionReport p = plane.ensure(key);
            assertNotNull(p.migration(), "every ensure while spec.mode differs runs a migration pass");
            passes.add(p.migration());
            if (p.migration() instanceof MigrationProgress.Completed) {
                break;
            }
            assertTrue(p.migrationPending(), p.migration()::toString);
            ConvergenceReport c = plane.converge(key);
            assertEquals(ConvergenceReport.MIGRATION_IN_PROGRESS, c.failure().reason(), c::toString);
            assertEquals(List.of(), c.outcomes(), "converge stands aside while the migration moves the tenant");
            LiveMigration.hostPodsBecomeReady(live.host, NS, OWN);
        }

        assertInstanceOf(MigrationProgress.Completed.class, passes.get(passes.size() - 1), passes::toString);
        assertTrue(passes.stream().anyMatch(p -> p instanceof MigrationProgress.Waiting),
                "the move waited for the new Pods to become Ready: " + passes);

        // status: the Migrating condition went through the steps in order, then Ready
        assertEquals(List.of("PrepareTarget", "MoveWorkloads", "SwitchBoundary", "Cleanup", "MigrationComplete"),
                migratingReasonsSince(changedAt));
        JsonObject tc = tenantCluster();
        assertEquals("dedicated", Json.string(tc, "status", "mode"));
        assertEquals(OWN, Json.string(tc, "status", "hostNamespace"));
        assertNull(Json.object(tc, "status", "migration"));

        // the next ensure and converge provision and sync the new place
        ProvisionReport after = plane.ensure(key);
        assertNull(after.migration(), "nothing to migrate any more");
        assertTrue(after.succeeded(), after.outcomes()::toString);
        ConvergenceReport synced = plane.converge(key);
        assertTrue(synced.converged(), synced::toString);
        tc = tenantCluster();
        assertEquals("Ready", Json.string(tc, "status", "phase"));
        assertEquals("True", condition(tc, "Ready").get("status").getAsString());
        assertEquals("True", condition(tc, "Synced").get("status").getAsString());
        assertEquals("MigrationComplete", condition(tc, "Migrating").get("reason").getAsString());

        // host: the copies moved to the tenant's own namespace, on its nodes, and are gone from the shared one
        for (String copy : WORKLOAD_COPIES) {
            String[] kindAndName = copy.split(" ");
            assertTrue(live.hostKube.get(kindAndName[0], NS, kindAndName[1]).isEmpty(), copy + " left in " + NS);
            JsonObject moved = live.hostKube.require(kindAndName[0], OWN, kindAndName[1]);
            assertEquals("dev", Json.labels(moved).get("tenantplane.io/tenant"));
            if (kindAndName[0].equals("Pod")) {
                assertEquals("dedicated", Json.string(moved, "spec", "nodeSelector", "pool"), copy);
            }
        }
        assertTrue(live.hostKube.list("Pod", NS, "tenantplane.io/tenant=dev").isEmpty());
        assertEquals("team-dev-x-dev", Json.string(live.hostKube.require("Namespace", null, OWN), "metadata", "name"));

        // tenant: every object kept its uid and resourceVersion
        assertEquals(tenantBefore, tenantIdentities());

        // a new tenant object lands in the new place, and a pass over a converged tenant writes nothing
        live.tenant("dev").create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late","namespace":"default"},
                 "data":{"a":"b"}}"""));
        assertTrue(plane.converge(key).converged());
        live.hostKube.require("ConfigMap", OWN, "late-x-default-x-dev");
        plane.ensure(key);
        plane.converge(key);
        KubeApiServer host = live.requireHostServer();
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)), "Events of earlier passes are written");
        host.requests().reset();
        plane.ensure(key);
        plane.converge(key);
        assertEquals(0, host.requests().writes(), host.requests()::toString);
    }

    @Test
    void aRejectedMigrationLeavesTheTenantProvisionedAndConvergedWhereItRuns() {
        TenantPlane plane = sharedTenantWithSyncedWorkloads(profile ->
                Json.child(profile, "spec").remove("nodePlacement"));
        TenantKey key = live.key("dev");

        setMode("dedicated");
        ScopeRecorder heard = new ScopeRecorder();
        ProvisionReport p = live.plane(b -> b.observer(heard)).ensure(key);

        Rejection r = assertInstanceOf(MigrationProgress.Rejected.class, p.migration()).rejection();
        String migrate = "migrate " + key + "#1";
        assertEquals(List.of("provision " + key + "#0", migrate), heard.opened,
                "the migration pass runs in its own scope, inside the provisioning");
        assertEquals(List.of(migrate, "provision " + key + "#0"), heard.closed);
        assertTrue(heard.inScope.get(migrate).stream().anyMatch(o -> o.decision().reason()
                .equals(io.tenantplane.plan.Reasons.MIGRATION_PROGRESS)), () -> "the rejection's status write is a "
                + "span event of the migration scope: " + heard.inScope);
        assertEquals(Rejection.INVALID_TARGET, r.reason());
        JsonObject tc = tenantCluster();
        JsonObject migrating = condition(tc, "Migrating");
        assertEquals("False", migrating.get("status").getAsString());
        assertEquals(Rejection.INVALID_TARGET, migrating.get("reason").getAsString());
        assertEquals("shared", Json.string(tc, "status", "mode"), "the mode in effect is unchanged");
        assertEquals(NS, Json.string(tc, "status", "hostNamespace"));
        assertEquals("Ready", Json.string(tc, "status", "phase"));
        assertTrue(live.hostKube.get("Namespace", null, OWN).isEmpty(), "nothing of the target was created");

        live.tenant("dev").create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late","namespace":"default"},
                 "data":{"a":"b"}}"""));
        ConvergenceReport c = plane.converge(key);
        assertTrue(c.converged(), c::toString);
        live.hostKube.require("ConfigMap", NS, "late-x-default-x-dev");
        for (String copy : WORKLOAD_COPIES) {
            String[] kindAndName = copy.split(" ");
            live.hostKube.require(kindAndName[0], NS, kindAndName[1]);
        }

        setMode("shared");
        plane.ensure(key);
        assertEquals("MigrationWithdrawn", condition(tenantCluster(), "Migrating").get("reason").getAsString());
    }

    @Test
    void theSyncerDrivesAModeChangeToCompletionWhileTheHostsKubeletsStartThePods() throws Exception {
        TenantPlane plane = sharedTenantWithSyncedWorkloads(p -> { });
        Map<String, String> tenantBefore = tenantIdentities();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread kubelets = Thread.ofVirtual().start(() -> {
            while (running.get()) {
                try {
                    LiveMigration.hostPodsBecomeReady(live.host, NS, OWN);
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException | AssertionError e) {
                    // a Pod deleted between list and write; the next round sees the new state
                }
            }
        });
        SyncerOptions options = SyncerOptions.defaults().withNamespaces(List.of(live.namespace)).withWorkers(2)
                .withResyncPeriod(Duration.ofMinutes(10)).withMigrationRecheck(Duration.ofMillis(200));
        try (Syncer syncer = Syncer.create(plane, options).start()) {
            assertTrue(syncer.awaitStarted(Duration.ofSeconds(10)));
            setMode("dedicated");

            assertTrue(Live.eventually(Duration.ofSeconds(30), () -> {
                JsonObject tc = tenantCluster();
                return "dedicated".equals(Json.string(tc, "status", "mode"))
                        && Json.object(tc, "status", "migration") == null
                        && "MigrationComplete".equals(condition(tc, "Migrating").get("reason").getAsString())
                        && live.hostKube.get("Pod", OWN, "web-6b7f9-a-x-default-x-dev").isPresent()
                        && live.hostKube.list("Pod", NS, "tenantplane.io/tenant=dev").isEmpty();
            }), () -> "the migration did not complete: " + tenantCluster().get("status"));
            live.tenant("dev").create(Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late","namespace":"default"},
                     "data":{"a":"b"}}"""));
            assertTrue(Live.eventually(Duration.ofSeconds(10),
                    () -> live.hostKube.get("ConfigMap", OWN, "late-x-default-x-dev").isPresent()),
                    "the Syncer converges the tenant into its new place");
            for (String copy : WORKLOAD_COPIES) {
                String[] kindAndName = copy.split(" ");
                assertTrue(live.hostKube.get(kindAndName[0], NS, kindAndName[1]).isEmpty(), copy + " back in " + NS);
            }
        } finally {
            running.set(false);
            kubelets.join();
        }
        Map<String, String> tenantAfter = tenantIdentities();
        tenantAfter.remove("ConfigMap default/late");
        assertEquals(tenantBefore, tenantAfter);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"SHARED,DEDICATED", "DEDICATED,SHARED", "SHARED,PRIVATE", "PRIVATE,SHARED", "DEDICATED,PRIVATE",
            "PRIVATE,DEDICATED"})
    void everyDirectionCompletesThroughEnsureAndConvergeAndThenWritesNothing(Mode from, Mode to) {
        try (LiveMigration world = LiveMigration.start(from, false)) {
            TenantPlane plane = TenantPlane.builder().hostClient(world.host).tenantConnector(tc -> world.tenant)
                    .retries(3, Duration.ofMillis(5), Duration.ofMillis(20)).build();
            // the StatefulSet and Deployment controllers report the control plane and its DNS ready (they stay so:
            // they are updated in place)
            Kube host = new Kube(world.host);
            host.controlPlaneRuns(NS, "dev");
            assertNull(plane.ensure(world.key()).migration());
            assertTrue(plane.converge(world.key()).converged());
            Map<String, String> tenantBefore = withoutPods(world.tenantIdentities());

            world.setMode(to);
            MigrationProgress last = null;
            for (int i = 0; i < 40 && !(last instanceof MigrationProgress.Completed); i++) {
                last = plane.ensure(world.key()).migration();
                ConvergenceReport c = plane.converge(world.key());
                if (!(last instanceof MigrationProgress.Completed)) {
                    assertEquals(ConvergenceReport.MIGRATION_IN_PROGRESS, c.failure().reason(), c::toString);
                }
                world.actAsCluster();
            }
            assertInstanceOf(MigrationProgress.Completed.class, last);
            plane.ensure(world.key());
            assertTrue(plane.converge(world.key()).converged());
            world.actAsCluster();
            plane.ensure(world.key());
            plane.converge(world.key());

            assertTrue(plane.observer().flush(Duration.ofSeconds(10)), "Events of earlier passes are written");
            world.hostServer.requests().reset();
            world.tenantServer.requests().reset();
            assertNull(plane.ensure(world.key()).migration());
            assertTrue(plane.converge(world.key()).converged());
            assertEquals(0, world.hostServer.requests().writes(), world.hostServer.requests()::toString);
            assertEquals(0, world.tenantServer.requests().writes(), world.tenantServer.requests()::toString);

            JsonObject tc = world.tenantCluster();
            String target = to == Mode.SHARED ? NS : OWN;
            assertEquals(to.value(), Json.string(tc, "status", "mode"));
            assertEquals(target, Json.string(tc, "status", "hostNamespace"));
            assertEquals("Ready", Json.string(tc, "status", "phase"));
            String old = target.equals(NS) ? OWN : NS;
            long copiesInOld = LiveMigration.list(world.host, "Pod", old).stream()
                    .filter(o -> Json.annotations(o).containsKey("tenantplane.io/source-kind")).count();
            long copiesInTarget = LiveMigration.list(world.host, "Pod", target).stream()
                    .filter(o -> Json.annotations(o).containsKey("tenantplane.io/source-kind")).count();
            assertEquals(0, copiesInOld, "no copy is left in " + old);
            assertEquals(to == Mode.PRIVATE ? 0 : 2, copiesInTarget, "Pod copies in " + target);
            boolean token = LiveMigration.get(world.host, "Secret", NS, "dev-token") != null;
            assertEquals(to == Mode.PRIVATE, token, "the join-token Secret exists exactly in private mode");
            String role = LiveMigration.get(world.host, "Role", NS, "dev-control-plane").toString();
            assertEquals(to == Mode.PRIVATE, role.contains("dev-token"), role);
            assertEquals(tenantBefore, withoutPods(world.tenantIdentities()));
        }
    }

    private static Map<String, String> withoutPods(Map<String, String> ids) {
        Map<String, String> out = new LinkedHashMap<>(ids);
        out.keySet().removeIf(k -> k.startsWith("Pod "));
        return out;
    }

    // ---- the world ---------------------------------------------------------------------------------------------

    /**
     * Tenant {@code dev} provisioned in shared mode by {@code ensure} (the test plays the StatefulSet controller),
     * with a ConfigMap, a Service and a ReplicaSet of two Pods synced by {@code converge} and Running on the host.
     */
    private TenantPlane sharedTenantWithSyncedWorkloads(Consumer<JsonObject> editProfile) {
        live = Live.start(true);
        JsonObject profile = LiveMigration.profileJson();
        editProfile.accept(profile);
        live.hostKube.create(profile);
        live.hostKube.create(LiveMigration.policyJson());
        live.hostKube.create(LiveMigration.clusterJson(Mode.SHARED));
        Kube tenant = live.tenant("dev");
        TenantPlane plane = live.plane();
        TenantKey key = live.key("dev");

        plane.ensure(key);
        live.hostKube.controlPlaneRuns(NS, "dev");
        ProvisionReport ready = plane.ensure(key);
        assertEquals("Ready", ready.status().phase().value(), ready::toString);
        assertEquals("shared", Json.string(tenantCluster(), "status", "mode"), "provisioning sets the mode in effect");

        JsonObject rs = null;
        for (JsonObject o : LiveMigration.workloads()) {
            JsonObject made = tenant.create(o);
            if ("ReplicaSet".equals(Json.string(o, "kind"))) {
                rs = made;
            }
        }
        tenant.create(LiveMigration.pod("web-6b7f9-a", rs));
        tenant.create(LiveMigration.pod("web-6b7f9-b", rs));
        ConvergenceReport first = plane.converge(key);
        assertTrue(first.converged(), first::toString);
        assertEquals(2, LiveMigration.hostPodsBecomeReady(live.host, NS));
        assertTrue(plane.converge(key).converged(), "the host Pods' status flows back to the tenant");
        for (String copy : WORKLOAD_COPIES) {
            String[] kindAndName = copy.split(" ");
            live.hostKube.require(kindAndName[0], NS, kindAndName[1]);
        }
        return plane;
    }

    private JsonObject tenantCluster() {
        return live.hostKube.require("TenantCluster", NS, "dev");
    }

    /** Changes spec.mode, as {@code kubectl edit} would. */
    private void setMode(String mode) {
        JsonObject tc = tenantCluster();
        Json.child(tc, "spec").addProperty("mode", mode);
        tc.addProperty("apiVersion", "tenantplane.io/v1alpha1");
        tc.addProperty("kind", "TenantCluster");
        live.hostKube.update(tc);
    }

    private static JsonObject condition(JsonObject tc, String type) {
        JsonArray conditions = tc.getAsJsonObject("status").getAsJsonArray("conditions");
        for (JsonElement c : conditions) {
            if (type.equals(Json.string(c.getAsJsonObject(), "type"))) {
                return c.getAsJsonObject();
            }
        }
        throw new AssertionError("no condition " + type + " in " + conditions);
    }

    /** kind namespace/name -> uid@resourceVersion of every tenant object of the kinds users make. */
    private Map<String, String> tenantIdentities() {
        Map<String, String> out = new LinkedHashMap<>();
        Kube tenant = live.tenant("dev");
        for (String k : List.of("ConfigMap", "Service", "ReplicaSet", "Pod")) {
            for (JsonObject o : tenant.list(k, null, null)) {
                out.put(k + " " + Json.string(o, "metadata", "namespace") + "/" + Json.string(o, "metadata", "name"),
                        Json.string(o, "metadata", "uid") + "@" + Json.string(o, "metadata", "resourceVersion"));
            }
        }
        return out;
    }

    /**
     * The reasons of the TenantCluster's {@code Migrating} condition, in the order the API server stored them since
     * {@code resourceVersion}, read by replaying a watch; repeats folded.
     */
    private List<String> migratingReasonsSince(String resourceVersion) {
        String path = Kube.kind("TenantCluster").collectionPath(NS);
        List<Pair> query = List.of(new Pair("watch", "true"), new Pair("resourceVersion", resourceVersion),
                new Pair("timeoutSeconds", "1"));
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        List<String> reasons = new ArrayList<>();
        try {
            Call call = live.host.buildCall(null, path, "GET", new ArrayList<>(query), List.of(), null, headers,
                    new HashMap<>(), new HashMap<>(), new String[] {"BearerToken"}, null);
            try (Response r = call.execute()) {
                assertEquals(200, r.code());
                for (String line : r.body().string().split("\n")) {
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonObject event = JsonParser.parseString(line).getAsJsonObject();
                    JsonObject tc = event.getAsJsonObject("object");
                    if (!"dev".equals(Json.string(tc, "metadata", "name")) || Json.object(tc, "status") == null
                            || !tc.getAsJsonObject("status").has("conditions")) {
                        continue;
                    }
                    for (JsonElement c : tc.getAsJsonObject("status").getAsJsonArray("conditions")) {
                        JsonObject cond = c.getAsJsonObject();
                        String reason = Json.string(cond, "reason");
                        if ("Migrating".equals(Json.string(cond, "type"))
                                && (reasons.isEmpty() || !reasons.get(reasons.size() - 1).equals(reason))) {
                            reasons.add(reason);
                        }
                    }
                }
            }
        } catch (ApiException | IOException e) {
            throw new AssertionError("watch " + path, e);
        }
        assertFalse(reasons.isEmpty(), "no Migrating condition since resourceVersion " + resourceVersion);
        return reasons;
    }
}
