package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.MigrationRunner;
import io.tenantplane.migration.Step;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@code spec.mode} changed back while a migration is under way: the move turns around, explained by a decision. */
class MigrationReversalIT {

    @Test
    void turningBackDuringMoveWorkloadsKeepsTheOldCopiesAndRemovesTheNewPlace() {
        try (LiveMigration world = LiveMigration.start(Mode.SHARED, false)) {
            Map<String, String> copiesBefore = uids(world, LiveMigration.NS);
            Map<String, String> tenantBefore = world.tenantIdentities();
            world.setMode(Mode.DEDICATED);
            MigrationRunner runner = world.runner();
            MigrationProgress first = runner.resume(world.key(), world.tenant);
            MigrationProgress.Waiting waiting = assertInstanceOf(MigrationProgress.Waiting.class, first);
            assertEquals(Step.MOVE_WORKLOADS, waiting.step(), "the copies in the new place are not Ready yet");
            assertEquals(2, LiveMigration.list(world.host, "Pod", LiveMigration.OWN).size());

            world.setMode(Mode.SHARED);
            LiveMigration.Result back = world.migrate(runner);

            Decision reversal = back.outcomes.get(0).decision();
            assertEquals(Action.SKIP, reversal.action());
            assertEquals("MigrationReversed", reversal.reason());
            assertTrue(reversal.message().contains("shared -> dedicated at step MoveWorkloads"), reversal.message());
            assertInstanceOf(MigrationProgress.Completed.class, back.passes.get(back.passes.size() - 1));
            JsonObject tc = world.tenantCluster();
            assertEquals("shared", Json.string(tc, "status", "mode"));
            assertNull(Json.object(tc, "status", "migration"));
            assertNull(LiveMigration.get(world.host, "Namespace", null, LiveMigration.OWN),
                    "the half-prepared namespace is gone");
            // A ClusterIP belongs to one Service at a time: the move handed the Service's IP to the new place's copy
            // first (ClusterIPMoves), and turning back created the old place's copy again with that same IP.
            Map<String, String> copiesAfter = uids(world, LiveMigration.NS);
            String service = "Service web-x-default-x-dev";
            assertEquals(copiesBefore.keySet(), copiesAfter.keySet());
            copiesBefore.remove(service);
            copiesAfter.remove(service);
            assertEquals(copiesBefore, copiesAfter,
                    "every other copy in the shared namespace was never touched: same objects, same uids");
            assertEquals(Json.string(LiveMigration.get(world.tenant, "Service", "default", "web"), "spec", "clusterIP"),
                    Json.string(LiveMigration.get(world.host, "Service", LiveMigration.NS, "web-x-default-x-dev"),
                            "spec", "clusterIP"), "the Service came back with the tenant Service's IP");
            assertEquals(tenantBefore, world.tenantIdentities());
            for (Outcome o : back.outcomes) {
                assertFalse(o.decision().action() == Action.DELETE
                        && LiveMigration.NS.equals(o.decision().host().namespace())
                        && "Pod".equals(o.decision().kind()), "no Pod of the old place is deleted: " + o);
            }
        }
    }

    @Test
    void turningBackFromPrivateHalfWayReschedulesWhatMovedAndUncordonsTheMirrors() {
        try (LiveMigration world = LiveMigration.start(Mode.SHARED, false)) {
            world.setMode(Mode.PRIVATE);
            MigrationRunner runner = world.runner();
            // run until one Pod has moved onto an agent
            for (int i = 0; i < 20; i++) {
                MigrationProgress p = runner.resume(world.key(), world.tenant);
                world.actAsCluster();
                boolean moved = LiveMigration.list(world.tenant, "Pod", "default").stream()
                        .anyMatch(pod -> String.valueOf(Json.string(pod, "spec", "nodeName")).startsWith("dev-agent"));
                if (moved) {
                    break;
                }
                assertFalse(p instanceof MigrationProgress.Completed);
            }
            assertEquals("MoveWorkloads", Json.string(world.tenantCluster(), "status", "migration", "step"));

            world.setMode(Mode.SHARED);
            LiveMigration.Result back = world.migrate(runner);

            assertEquals("MigrationReversed", back.outcomes.get(0).decision().reason());
            assertInstanceOf(MigrationProgress.Completed.class, back.passes.get(back.passes.size() - 1));
            assertTrue(back.outcomes.stream().anyMatch(o -> "RescheduleOnHost".equals(o.decision().reason())),
                    "the Pod that reached an agent comes back to the host");
            assertTrue(back.outcomes.stream().anyMatch(o -> "MirrorUncordoned".equals(o.decision().reason())));
            for (JsonObject node : LiveMigration.list(world.tenant, "Node", null)) {
                assertFalse(node.getAsJsonObject("spec") != null && node.getAsJsonObject("spec").has("unschedulable"),
                        "mirror uncordoned: " + Json.string(node, "metadata", "name"));
                assertFalse(Json.string(node, "metadata", "name").startsWith("dev-agent"), "agent Nodes removed");
            }
            assertEquals("shared", Json.string(world.tenantCluster(), "status", "mode"));
            assertNull(LiveMigration.get(world.host, "StatefulSet", LiveMigration.OWN, "dev-agent"));
            assertTrue(LiveMigration.get(world.host, "StatefulSet", LiveMigration.NS, "dev-control-plane").toString()
                    .contains("--disable-scheduler"), "the tenant scheduler is off again");
            long copies = LiveMigration.list(world.host, "Pod", LiveMigration.NS).size();
            assertEquals(2, copies, "both Pods run on the host again");
        }
    }

    private static Map<String, String> uids(LiveMigration world, String ns) {
        Map<String, String> out = new TreeMap<>();
        for (String kind : List.of("Pod", "Service", "ConfigMap")) {
            for (JsonObject o : LiveMigration.list(world.host, kind, ns)) {
                if (Json.labels(o).containsKey("tenantplane.io/tenant")
                        && !Json.labels(o).containsKey("tenantplane.io/component")) {
                    out.put(kind + " " + Json.string(o, "metadata", "name"), Json.string(o, "metadata", "uid"));
                }
            }
        }
        return out;
    }
}
