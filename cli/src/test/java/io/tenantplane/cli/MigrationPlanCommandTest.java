package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenantplane plan} on a TenantCluster whose status.mode differs from its spec.mode: the migration plan. */
class MigrationPlanCommandTest {

    private static final String MOVING = Cli.fixture("migration/tenantcluster-moving.yaml");
    private static final String WITH_PLACEMENT = Cli.fixture("migration/profile-with-placement.yaml");
    private static final String WITHOUT_PLACEMENT = Cli.fixture("migration/profile-without-placement.yaml");
    private static final String WORKLOADS = Cli.fixture("migration/workloads.yaml");

    private static String policy() {
        return Cli.examples().resolve("syncpolicy.yaml").toString();
    }

    @Test
    void aTenantClusterMovingFromSharedToDedicatedPrintsTheStepsInOrderAndExitsZero() {
        Cli.Result r = Cli.run("plan", "-f", MOVING, "-f", WITH_PLACEMENT, "-f", policy(), "-f", WORKLOADS);

        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("Migration of tenant team-dev/dev: shared -> dedicated, from step PrepareTarget\n"),
                r::toString);
        List<String> steps = r.out().lines().filter(l -> l.startsWith("Step ")).map(l -> l.substring(0,
                l.indexOf(':'))).toList();
        assertEquals(List.of("Step 1/4 PrepareTarget", "Step 2/4 MoveWorkloads", "Step 3/4 SwitchBoundary",
                "Step 4/4 Cleanup"), steps);
        assertTrue(r.out().lines().anyMatch(l -> l.contains("Create") && l.contains("Namespace team-dev-x-dev")
                && l.contains("TargetNamespace")), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.contains("Create") && l.contains("Pod team-dev-x-dev/web-x-default-x-dev")),
                r::toString);
        assertTrue(r.out().contains("ModeSwitched"), r::toString);
        assertTrue(r.out().contains("What each workload sees:\n  Pod default/web [overlap]"), r::toString);
        assertTrue(r.err().contains("note: TenantCluster team-dev/dev runs in shared mode and its spec asks for "
                + "dedicated: this is the migration plan"), r::toString);
    }

    @Test
    void aMigrationToDedicatedWithoutNodePlacementIsRejectedAndExitsOne() {
        Cli.Result r = Cli.run("plan", "-f", MOVING, "-f", WITHOUT_PLACEMENT, "-f", policy(), "-f", WORKLOADS);

        assertEquals(1, r.code(), r::toString);
        assertTrue(r.out().contains("REJECTED InvalidMigrationTarget (IsolationProfile team-dev/restricted "
                + "spec.nodePlacement)"), r::toString);
        assertFalse(r.out().contains("Step 1/4"), "a rejected migration has no steps: " + r.out());
        assertTrue(r.out().contains("The migration is rejected: exit code 1."), r::toString);
    }

    @Test
    void jsonOutputHasEveryStepWithItsDecisionsWaitsAndTheImpacts() {
        Cli.Result r = Cli.run("plan", "-f", MOVING, "-f", WITH_PLACEMENT, "-f", policy(), "-f", WORKLOADS,
                "-o", "json");

        assertEquals(0, r.code(), r::toString);
        JsonObject plan = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("shared", plan.get("from").getAsString());
        assertEquals("dedicated", plan.get("to").getAsString());
        assertTrue(plan.get("needed").getAsBoolean());
        assertFalse(plan.get("rejected").getAsBoolean());
        assertEquals("PrepareTarget", plan.getAsJsonObject("state").get("step").getAsString());
        List<String> steps = new ArrayList<>();
        for (JsonElement s : plan.getAsJsonArray("steps")) {
            steps.add(s.getAsJsonObject().get("step").getAsString());
        }
        assertEquals(List.of("PrepareTarget", "MoveWorkloads", "SwitchBoundary", "Cleanup"), steps);
        JsonObject move = plan.getAsJsonArray("steps").get(1).getAsJsonObject();
        JsonObject pod = find(move.getAsJsonArray("decisions"), "Pod");
        assertEquals("Create", pod.get("action").getAsString());
        assertEquals("host", pod.get("api").getAsString());
        assertEquals("team-dev-x-dev", pod.getAsJsonObject("host").get("namespace").getAsString());
        assertFalse(move.getAsJsonArray("waits").get(0).getAsJsonObject().get("satisfied").getAsBoolean());
        assertEquals("overlap", plan.getAsJsonArray("impacts").get(0).getAsJsonObject().get("downtime").getAsString());

        Cli.Result yaml = Cli.run("plan", "-f", MOVING, "-f", WITHOUT_PLACEMENT, "-f", policy(), "-f", WORKLOADS,
                "-o", "yaml");
        assertEquals(1, yaml.code(), yaml::toString);
        assertTrue(yaml.out().startsWith("tenant: dev\nnamespace: team-dev\nfrom: shared\nto: dedicated\n"),
                yaml::toString);
        assertTrue(yaml.out().contains("rejection:\n  reason: InvalidMigrationTarget\n"), yaml::toString);
    }

    @Test
    void withTheHostCopiesOfTheSharedPlaceThePlanDeletesThemAfterTheMove(@TempDir Path dir) throws Exception {
        // What the tenant's shared place holds: the copies a sync plan of the same tenant in shared mode creates.
        Path shared = dir.resolve("shared.yaml");
        Files.writeString(shared, Files.readString(Path.of(MOVING)).replace("mode: dedicated", "mode: shared")
                .replaceAll("(?s)\nstatus:.*", "\n"));
        Cli.Result sync = Cli.run("plan", "-f", shared.toString(), "-f", WITH_PLACEMENT, "-f", policy(), "-f",
                WORKLOADS, "-o", "json", "--show-objects");
        assertEquals(0, sync.code(), sync::toString);
        JsonArray items = new JsonArray();
        for (JsonElement d : JsonParser.parseString(sync.out()).getAsJsonObject().getAsJsonArray("decisions")) {
            items.add(d.getAsJsonObject().getAsJsonObject("desired"));
        }
        JsonObject list = new JsonObject();
        list.addProperty("apiVersion", "v1");
        list.addProperty("kind", "List");
        list.add("items", items);
        Path host = dir.resolve("host.json");
        Files.writeString(host, list.toString());

        Cli.Result r = Cli.run("plan", "-f", MOVING, "-f", WITH_PLACEMENT, "-f", policy(), "-f", WORKLOADS,
                "--host", host.toString(), "-o", "json");

        assertEquals(0, r.code(), r::toString);
        List<String> deleted = new ArrayList<>();
        for (JsonElement d : JsonParser.parseString(r.out()).getAsJsonObject().getAsJsonArray("deletions")) {
            JsonObject h = d.getAsJsonObject().getAsJsonObject("host");
            deleted.add(d.getAsJsonObject().get("kind").getAsString() + " " + h.get("namespace").getAsString() + "/"
                    + h.get("name").getAsString());
        }
        assertTrue(deleted.containsAll(List.of("Pod team-dev/web-x-default-x-dev",
                "ConfigMap team-dev/web-config-x-default-x-dev")), deleted::toString);
        assertTrue(deleted.stream().noneMatch(d -> d.contains("team-dev-x-dev")), deleted::toString);
    }

    private static JsonObject find(JsonArray decisions, String kind) {
        for (JsonElement e : decisions) {
            if (kind.equals(e.getAsJsonObject().get("kind").getAsString())) {
                return e.getAsJsonObject();
            }
        }
        throw new AssertionError("no " + kind + " decision in " + decisions);
    }
}
