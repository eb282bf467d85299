package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationPlan;
import io.tenantplane.migration.MigrationPlanner;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.MigrationSnapshot;
import io.tenantplane.model.TenantCluster.Mode;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each of the six directions end to end against a host and a tenant testkit API server. */
class MigrationDirectionsIT {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"SHARED,DEDICATED", "DEDICATED,SHARED", "SHARED,PRIVATE", "PRIVATE,SHARED", "DEDICATED,PRIVATE",
            "PRIVATE,DEDICATED"})
    void migratesEndToEndWithTheOfflinePlanAndWithoutRecreatingTenantState(Mode from, Mode to) {
        try (LiveMigration world = LiveMigration.start(from, false)) {
            Map<String, String> before = world.tenantIdentities();
            JsonObject controlPlaneBefore = LiveMigration.get(world.host, "StatefulSet", LiveMigration.NS,
                    "dev-control-plane");
            world.setMode(to);
            MigrationSnapshot snapshot = world.runner().snapshot(world.key(), world.tenant);
            MigrationPlan offline = new MigrationPlanner().plan(snapshot);
            System.out.println(offline.render());

            LiveMigration.Result run = world.migrate(world.runner());

            assertInstanceOf(MigrationProgress.Completed.class, run.passes.get(run.passes.size() - 1));
            Set<String> uids = new HashSet<>();
            snapshot.tenantObjects().forEach(o -> uids.add(Json.string(o, "metadata", "uid")));
            assertEquals(offline.summary().stream().filter(l -> !l.startsWith("Unchanged")).toList(),
                    run.executed(uids));
            System.out.println(world.hostInventory());
        }
    }
}
