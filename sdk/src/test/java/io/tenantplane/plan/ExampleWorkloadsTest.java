package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.transform.TransformOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The tenant workloads shipped in examples/yaml/workloads plan cleanly under the example policy and converge. */
class ExampleWorkloadsTest {

    static final Path EXAMPLES = Path.of("..", "examples", "yaml");

    static List<JsonObject> workloads() throws IOException {
        List<JsonObject> out = new ArrayList<>();
        // What the tenant applied and the Pod its Deployment made, as the tenant API holds them.
        for (String dir : List.of("workloads", "tenant-api-snapshot")) {
            try (Stream<Path> files = Files.list(EXAMPLES.resolve(dir))) {
                files.filter(p -> p.toString().endsWith(".yaml")).sorted()
                        .forEach(p -> FixtureYaml.file(p).forEach(d -> out.add(d.getAsJsonObject())));
            }
        }
        return out;
    }

    static SyncPolicy examplePolicy() {
        return Json.gson().fromJson(FixtureYaml.file(EXAMPLES.resolve("syncpolicy.yaml")).get(0), SyncPolicy.class);
    }

    @Test
    void theExampleWorkloadsAreAllCreatedInTeamDevWithRewrittenReferences() throws IOException {
        Snapshot s = new Snapshot("dev", "team-dev", examplePolicy(), TransformOptions.defaults(), workloads(), List.of());
        Plan plan = new Planner().plan(s);
        assertFalse(plan.hasProblems(), PlannerTest.describe(plan));
        assertEquals(List.of(
                "Create ConfigMap team-dev/nginx-config-x-default-x-dev",
                "Skip Deployment team-dev/nginx-x-default-x-dev",
                "Create Ingress team-dev/nginx-x-default-x-dev",
                "Create PersistentVolumeClaim team-dev/nginx-data-x-default-x-dev",
                "Create Pod team-dev/nginx-x-default-x-dev",
                "Create Secret team-dev/nginx-env-x-default-x-dev",
                "Create Secret team-dev/registry-credentials-x-default-x-dev",
                "Create Service team-dev/nginx-x-default-x-dev"),
                plan.decisions().stream().map(d -> d.action().display() + " " + d.kind() + " " + d.host().namespace() + "/"
                        + d.host().name()).toList());
        JsonObject pod = plan.decisions().stream().filter(d -> d.kind().equals("Pod")).findFirst().orElseThrow().desired();
        assertEquals("nginx-config-x-default-x-dev", FixtureYaml.at(pod, "spec.volumes[0].configMap.name").getAsString());
        assertEquals("nginx-data-x-default-x-dev", FixtureYaml.at(pod, "spec.volumes[1].persistentVolumeClaim.claimName").getAsString());
        assertNull(FixtureYaml.at(pod, "spec.volumes[2]"), "the tenant token volume is removed");
        assertEquals("nginx-env-x-default-x-dev", FixtureYaml.at(pod, "spec.containers[0].envFrom[0].secretRef.name").getAsString());
        assertEquals("registry-credentials-x-default-x-dev", FixtureYaml.at(pod, "spec.imagePullSecrets[0].name").getAsString());
        assertEquals(false, FixtureYaml.at(pod, "spec.automountServiceAccountToken").getAsBoolean());
        JsonObject ingress = plan.decisions().stream().filter(d -> d.kind().equals("Ingress")).findFirst().orElseThrow().desired();
        assertEquals("nginx-x-default-x-dev", FixtureYaml.at(ingress, "spec.rules[0].http.paths[0].backend.service.name").getAsString());
    }

    @Test
    void theExampleWorkloadsConvergeSoASecondPlanIsAllUnchanged() throws IOException {
        List<JsonObject> tenant = workloads();
        Planner planner = new Planner();
        Plan first = planner.plan(new Snapshot("dev", "team-dev", examplePolicy(), null, tenant, List.of()));
        List<JsonObject> host = new HostSimulator().apply(first, List.of());
        Plan second = planner.plan(new Snapshot("dev", "team-dev", examplePolicy(), null, tenant, host));
        // The Deployment stays in the tenant (the example policy syncs the Pods it makes, not the Deployment).
        assertTrue(second.decisions().stream().allMatch(d -> d.action() == Action.UNCHANGED
                || d.action() == Action.SKIP && d.kind().equals("Deployment")), PlannerTest.describe(second));
        assertEquals(first.decisions().size(), second.decisions().size());
    }
}
