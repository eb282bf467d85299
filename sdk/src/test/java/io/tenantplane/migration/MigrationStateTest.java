package io.tenantplane.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.model.TenantCluster.Mode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The migration state kept in status, the steps, the subset rule and the runner's builder. */
class MigrationStateTest {

    @Test
    void stateRoundTripsThroughTheTenantClustersStatus() {
        MigrationState s = new MigrationState(Mode.SHARED, Mode.PRIVATE, Step.MOVE_WORKLOADS, "2025-01-31T12:00:00Z");
        JsonObject tc = new JsonObject();
        JsonObject status = new JsonObject();
        status.add(MigrationState.STATUS_FIELD, s.toJson());
        tc.add("status", status);

        assertEquals(Optional.of(s), MigrationState.fromTenantCluster(tc));
        assertEquals("MoveWorkloads", s.toJson().get("step").getAsString());
        assertEquals(Step.CLEANUP, s.at(Step.CLEANUP).step());
    }

    @Test
    void theTenantClusterStatusRecordReadsTheStateTheRunnerWrites() {
        assertEquals(java.util.Arrays.stream(Step.values()).map(Step::display).toList(),
                java.util.Arrays.stream(TenantCluster.MigrationStep.values())
                        .map(TenantCluster.MigrationStep::value).toList());
        MigrationState s = new MigrationState(Mode.SHARED, Mode.DEDICATED, Step.SWITCH_BOUNDARY, "2025-01-31T12:00:00Z");
        JsonObject tc = LiveMigration.json("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                 "metadata":{"name":"dev","namespace":"team-dev"},
                 "spec":{"mode":"dedicated","isolationProfileRef":{"name":"p"},"syncPolicyRef":{"name":"s"}},
                 "status":{"mode":"shared"}}""");
        tc.getAsJsonObject("status").add(MigrationState.STATUS_FIELD, s.toJson());

        TenantCluster parsed = TenantCluster.fromJson(tc).orElseThrow();

        assertEquals(new TenantCluster.Migration(Mode.SHARED, Mode.DEDICATED,
                TenantCluster.MigrationStep.SWITCH_BOUNDARY, "2025-01-31T12:00:00Z"), parsed.status().migration());
        assertEquals(s.toJson(), parsed.toJson().getAsJsonObject("status").get(MigrationState.STATUS_FIELD),
                "a status written back from the record keeps the migration as the runner wrote it");
        for (Step step : Step.values()) {
            assertEquals(step.display(), s.at(step).toStatus().step().value(), "the typed state the runner records");
        }
        assertEquals(parsed.status().migration(), s.toStatus());
    }

    @Test
    void anUnreadableStateCountsAsNone() {
        JsonObject tc = LiveMigration.json("{\"status\":{\"migration\":{\"from\":\"shared\",\"to\":\"moon\","
                + "\"step\":\"MoveWorkloads\"}}}");
        assertFalse(MigrationState.fromTenantCluster(tc).isPresent());
        assertFalse(MigrationState.fromTenantCluster(new JsonObject()).isPresent());
    }

    @Test
    void stepsAreOrderedAndParsedByTheirCamelCaseName() {
        assertEquals(Optional.of(Step.SWITCH_BOUNDARY), Step.parse("SwitchBoundary"));
        assertEquals(Optional.of(Step.MOVE_WORKLOADS), Step.PREPARE_TARGET.next());
        assertEquals(Optional.empty(), Step.CLEANUP.next());
        assertEquals(Optional.empty(), Step.parse("Teleport"));
    }

    @Test
    void anObjectAsReadHoldsWhatWasRenderedDespiteServerDefaultsButNotAChangedArgument() {
        JsonObject rendered = LiveMigration.json("""
                {"kind":"StatefulSet","metadata":{"name":"x","labels":{"a":"1"}},
                 "spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"k3s","args":["--a","--b"]}]}}}}""");
        JsonObject read = LiveMigration.json("""
                {"kind":"StatefulSet","metadata":{"name":"x","uid":"u","resourceVersion":"9","labels":{"a":"1","b":"2"}},
                 "spec":{"replicas":1.0,"revisionHistoryLimit":10,"template":{"spec":{"containers":[
                   {"name":"k3s","args":["--a","--b"],"terminationMessagePath":"/dev/termination-log"}]}}},
                 "status":{"replicas":1}}""");
        assertTrue(Subset.holds(rendered, read));
        JsonObject changed = read.deepCopy();
        changed.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("spec")
                .getAsJsonArray("containers").get(0).getAsJsonObject().getAsJsonArray("args").remove(1);
        assertFalse(Subset.holds(rendered, changed));
    }

    @Test
    void theRunnerBuilderNamesWhatIsWrong() {
        IllegalStateException noHost = assertThrows(IllegalStateException.class,
                () -> MigrationRunner.builder().build());
        assertTrue(noHost.getMessage().contains("hostClient"));
        IllegalArgumentException attempts = assertThrows(IllegalArgumentException.class,
                () -> MigrationRunner.builder().retries(0, java.time.Duration.ZERO, java.time.Duration.ZERO));
        assertTrue(attempts.getMessage().contains("maxAttempts"));
        assertThrows(IllegalArgumentException.class, () -> MigrationRunner.builder().maxRoundsPerPass(0));
    }
}
