package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The workloads measure what they claim: a mix of kinds that plans to creates, then to nothing. */
class FixturesTest {

    private static final List<JsonObject> OBJECTS = Fixtures.tenantObjects(200);

    @Test
    void workloadMixesPodsServicesConfigMapsAndSecrets() {
        Map<String, Long> kinds = OBJECTS.stream().collect(Collectors.groupingBy(o -> Json.string(o, "kind"),
                Collectors.counting()));
        assertEquals(Map.of("Pod", 120L, "Service", 40L, "ConfigMap", 20L, "Secret", 20L), kinds);
    }

    @Test
    void everyObjectIsCreatedOnAnEmptyHostWithItsReferencesRewritten() {
        Plan plan = new Planner().plan(Fixtures.emptyHost(OBJECTS));
        assertEquals(OBJECTS.size(), plan.decisions().size());
        assertTrue(plan.decisions().stream().allMatch(d -> d.action() == Action.CREATE), plan.toString());
        Decision pod = plan.decisions().stream().filter(d -> d.kind().equals("Pod")).findFirst().orElseThrow();
        assertTrue(Json.gson().toJson(pod.desired()).contains("app-0-config-x-ns-0-x-bench"), pod.desired().toString());
    }

    @Test
    void convergedHostPlansEveryObjectUnchanged() {
        Plan plan = new Planner().plan(Fixtures.convergedHost(OBJECTS));
        assertEquals(OBJECTS.size(), plan.decisions().size());
        List<Decision> changed = plan.decisions().stream().filter(d -> d.action() != Action.UNCHANGED).toList();
        assertTrue(changed.isEmpty(), () -> changed.get(0).message());
    }

    @Test
    void theSameIndexAlwaysGivesTheSameObject() {
        assertEquals(Fixtures.tenantObject(1234), Fixtures.tenantObject(1234));
    }
}
