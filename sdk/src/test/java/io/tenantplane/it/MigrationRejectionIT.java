package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.Rejection;
import io.tenantplane.model.Condition;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.testkit.RequestLog;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** A migration to a target that cannot work is refused with a condition before any step writes anything. */
class MigrationRejectionIT {

    @Test
    void dedicatedWithoutNodePlacementIsRejectedNamingTheFieldWithNoHostWrite() {
        Rejection r = rejected(Mode.SHARED, Mode.DEDICATED, false,
                p -> p.getAsJsonObject("spec").remove("nodePlacement"), Rejection.INVALID_TARGET);
        assertTrue(r.field().endsWith("spec.nodePlacement"), r.field());
    }

    @Test
    void privateWithAProfileThatShutsTheAgentsOutIsRejectedNamingTheField() {
        Rejection r = rejected(Mode.SHARED, Mode.PRIVATE, false, p -> {
            JsonArray allow = new JsonArray();
            allow.add("dns");
            Json.child(p, "spec", "network").add("allow", allow);
        }, Rejection.INVALID_TARGET);
        assertTrue(r.field().endsWith("spec.mode"), r.field());
        assertTrue(r.message().contains("tenant-api"), r.message());
    }

    @Test
    void privateWithABarePodIsBlockedBecauseTheBarePodWouldNotComeBack() {
        Rejection r = rejected(Mode.SHARED, Mode.PRIVATE, true, p -> { }, Rejection.BLOCKED);
        assertEquals("Pod default/debug", r.field());
    }

    private static Rejection rejected(Mode from, Mode to, boolean barePod, Consumer<JsonObject> profileEdit,
                                      String reason) {
        try (LiveMigration world = LiveMigration.start(from, barePod)) {
            world.editProfile(profileEdit);
            world.setMode(to);
            world.hostServer.requests().reset();
            world.tenantServer.requests().reset();

            MigrationProgress p = world.runner().resume(world.key(), world.tenant);

            Rejection r = assertInstanceOf(MigrationProgress.Rejected.class, p).rejection();
            assertEquals(reason, r.reason());
            List<RequestLog.Entry> hostWrites = world.hostServer.requests().entries().stream()
                    .filter(RequestLog.Entry::isWrite).toList();
            assertEquals(1, hostWrites.size(), "only the TenantCluster's status is written: " + hostWrites);
            assertEquals("tenantclusters/status", hostWrites.get(0).resource());
            assertEquals(0, world.tenantServer.requests().writes(), "nothing is written to the tenant API");
            Condition migrating = LiveMigration.cluster(world.tenantCluster()).status().conditions().stream()
                    .filter(c -> c.type().equals("Migrating")).findFirst().orElseThrow();
            assertEquals(Condition.Status.FALSE, migrating.status());
            assertEquals(reason, migrating.reason());
            assertTrue(migrating.message().startsWith(r.field() + ": "), migrating.message());
            assertEquals(from.value(), Json.string(world.tenantCluster(), "status", "mode"), "the tenant stays put");

            MigrationProgress again = world.runner().resume(world.key(), world.tenant);
            assertInstanceOf(MigrationProgress.Rejected.class, again);
            assertEquals(1, world.hostServer.requests().writes(), "a second pass writes nothing new");
            return r;
        }
    }
}
