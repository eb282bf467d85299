package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationPlan;
import io.tenantplane.migration.MigrationPlanner;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.MigrationSnapshot;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.testkit.RequestLog;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each of the six directions end to end against a host and a tenant testkit API server: the offline plan equals
 * what the live run executed, host objects end up in the new place only, the tenant's API objects keep their uids and
 * resourceVersions (Pods excepted where private mode reschedules them), and the control plane is updated in place.
 */
class MigrationDirectionsIT {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"SHARED,DEDICATED", "DEDICATED,SHARED", "SHARED,PRIVATE", "PRIVATE,SHARED", "DEDICATED,PRIVATE",
            "PRIVATE,DEDICATED"})
    void movesTheTenantAsTheOfflinePlanSaidWithoutRecreatingTenantState(Mode from, Mode to) {
        try (LiveMigration world = LiveMigration.start(from, false)) {
            Map<String, String> tenantBefore = world.tenantIdentities();
            JsonObject controlPlaneBefore = LiveMigration.get(world.host, "StatefulSet", LiveMigration.NS,
                    "dev-control-plane");
            world.setMode(to);
            MigrationSnapshot snapshot = world.runner().snapshot(world.key(), world.tenant);
            MigrationPlan offline = new MigrationPlanner().plan(snapshot);
            world.hostServer.requests().reset();

            LiveMigration.Result run = world.migrate(world.runner());

            assertInstanceOf(MigrationProgress.Completed.class, run.passes.get(run.passes.size() - 1));
            // decisions in order: exactly the offline plan's writes (Pods that controllers made during the move
            // are synced too, but no plan made before the move can name them)
            Set<String> knownUids = new HashSet<>();
            snapshot.tenantObjects().forEach(o -> knownUids.add(Json.string(o, "metadata", "uid")));
            assertEquals(offline.summary().stream().filter(l -> !l.startsWith("Unchanged")).toList(),
                    run.executed(knownUids));

            // a further pass finds nothing to do and writes nothing
            world.hostServer.requests().reset();
            world.tenantServer.requests().reset();
            assertInstanceOf(MigrationProgress.NotNeeded.class, world.runner().resume(world.key(), world.tenant));
            assertEquals(0, world.hostServer.requests().writes() + world.tenantServer.requests().writes());

            // status
            JsonObject tc = world.tenantCluster();
            String targetNs = to == Mode.SHARED ? LiveMigration.NS : LiveMigration.OWN;
            assertEquals(to.value(), Json.string(tc, "status", "mode"));
            assertEquals(targetNs, Json.string(tc, "status", "hostNamespace"));
            assertEquals("Ready", Json.string(tc, "status", "phase"));
            assertNull(Json.object(tc, "status", "migration"), "status.migration is removed when done");
            TenantCluster.Status status = LiveMigration.cluster(tc).status();
            assertEquals("MigrationComplete", condition(status, "Migrating").reason());
            assertFalse(condition(status, "Migrating").isTrue());
            assertTrue(condition(status, "Ready").isTrue());

            // the control plane: same StatefulSet, same volume claim template, never deleted
            JsonObject controlPlaneAfter = LiveMigration.get(world.host, "StatefulSet", LiveMigration.NS,
                    "dev-control-plane");
            assertEquals(Json.string(controlPlaneBefore, "metadata", "uid"),
                    Json.string(controlPlaneAfter, "metadata", "uid"));
            assertEquals(controlPlaneBefore.getAsJsonObject("spec").get("volumeClaimTemplates"),
                    controlPlaneAfter.getAsJsonObject("spec").get("volumeClaimTemplates"));
            assertEquals(to == Mode.PRIVATE, !controlPlaneAfter.toString().contains("--disable-scheduler"),
                    "the tenant scheduler runs exactly in private mode");
            for (RequestLog.Entry e : world.hostServer.requests().entries()) {
                assertFalse(e.verb().equals("delete") && e.resource().equals("persistentvolumeclaims"),
                        "no claim is deleted: " + e);
                assertFalse(e.verb().equals("delete") && "dev-control-plane".equals(e.name()), "kept: " + e);
            }

            // the tenant API: same uids and resourceVersions; Pods too unless private mode rescheduled them
            Map<String, String> tenantAfter = world.tenantIdentities();
            boolean reschedules = from == Mode.PRIVATE || to == Mode.PRIVATE;
            assertEquals(withoutPods(tenantBefore), withoutPods(tenantAfter));
            if (!reschedules) {
                assertEquals(tenantBefore, tenantAfter);
            } else {
                Set<String> podsAfter = pods(tenantAfter).keySet();
                assertEquals(2, podsAfter.size(), "the ReplicaSet is back at two Pods: " + podsAfter);
                pods(tenantBefore).keySet().forEach(p -> assertFalse(podsAfter.contains(p), p + " was rescheduled"));
            }
            for (Outcome o : run.outcomes) {
                Decision d = o.decision();
                boolean tenantSide = "Node".equals(d.kind())
                        || d.host() != null && "default".equals(d.host().namespace());
                if (tenantSide && d.action().writes()) {
                    assertTrue("Node".equals(d.kind()) || d.kind().equals("Pod") && d.action() == Action.DELETE,
                            "the migration writes only Pods to reschedule and Nodes in the tenant API: " + d);
                }
            }

            // the host: the new place holds the tenant's copies and boundary, the old place nothing of the tenant
            String otherNs = targetNs.equals(LiveMigration.NS) ? LiveMigration.OWN : LiveMigration.NS;
            for (String kind : List.of("Pod", "Service", "ConfigMap", "NetworkPolicy", "ServiceAccount")) {
                for (JsonObject o : LiveMigration.list(world.host, kind, otherNs)) {
                    Map<String, String> labels = Json.labels(o);
                    assertFalse(LiveMigration.TENANT.equals(labels.get(ReverseMapping.TENANT))
                                    && !"control-plane".equals(labels.get("tenantplane.io/component"))
                                    && !io.tenantplane.controlplane.internal.TenantDns.COMPONENT.equals(
                                            labels.get("tenantplane.io/component")),
                            "left in the old place: " + kind + " " + Json.string(o, "metadata", "name"));
                }
            }
            long copies = LiveMigration.list(world.host, "Pod", targetNs).stream()
                    .filter(p -> Json.labels(p).containsKey(ReverseMapping.SOURCE_KIND)
                            || Json.annotations(p).containsKey(ReverseMapping.SOURCE_KIND)).count();
            assertEquals(to == Mode.PRIVATE ? 0 : 2, copies, "Pod copies in " + targetNs);
            assertEquals(to == Mode.SHARED, LiveMigration.get(world.host, "Namespace", null, LiveMigration.OWN) == null);
            assertEquals(to == Mode.PRIVATE,
                    LiveMigration.get(world.host, "StatefulSet", LiveMigration.OWN, "dev-agent") != null);
            TenantCluster target = LiveMigration.cluster(tc);
            IsolationProfile profile = ((Parsed.Ok<IsolationProfile>) IsolationProfile.fromJson(
                    LiveMigration.profileJson())).value();
            for (JsonObject o : new IsolationRenderer().render(target, profile)) {
                String kind = Json.string(o, "kind");
                String ns = Json.string(o, "metadata", "namespace");
                if (!"Namespace".equals(kind)) {
                    assertNotNull(LiveMigration.get(world.host, kind, ns, Json.string(o, "metadata", "name")),
                            "boundary object " + kind + " " + ns + "/" + Json.string(o, "metadata", "name"));
                }
            }
        }
    }

    private static io.tenantplane.model.Condition condition(TenantCluster.Status s, String type) {
        return s.conditions().stream().filter(c -> type.equals(c.type())).findFirst()
                .orElseThrow(() -> new AssertionError("no condition " + type + " in " + s.conditions()));
    }

    private static Map<String, String> withoutPods(Map<String, String> ids) {
        Map<String, String> out = new LinkedHashMap<>(ids);
        out.keySet().removeIf(k -> k.startsWith("Pod "));
        return out;
    }

    private static Map<String, String> pods(Map<String, String> ids) {
        Map<String, String> out = new LinkedHashMap<>(ids);
        out.keySet().removeIf(k -> !k.startsWith("Pod "));
        return out;
    }
}
