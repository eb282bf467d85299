package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.Snapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tenant Pods lose their host copy for good, and how the tenant is told. */
class PodLifecycleTest {

    private static JsonObject pod(String name, String phase, String hostIp) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default","uid":"u-%s"},
                 "spec":{"nodeName":"worker-1","containers":[{"name":"c","image":"c"}]},
                 "status":{"phase":"%s"%s}}""".formatted(name, name, phase,
                hostIp == null ? "" : ",\"hostIP\":\"" + hostIp + "\"")).getAsJsonObject();
    }

    private static final SyncPolicy PODS = new SyncPolicy(null, null, null, new SyncPolicy.Spec(
            List.of(new SyncPolicy.KindRule("Pod", null, true, null, null, null))));

    @Test
    void aRunningPodWhoseHostCopyVanishedIsDeletedWithGraceZeroAndItsUid() {
        List<JsonObject> tenant = List.of(pod("gone", "Running", "172.18.0.3"), pod("done", "Failed", "172.18.0.3"),
                pod("waiting", "Pending", null));
        Plan plan = new Planner().plan(new Snapshot("dev", "team-dev", PODS, null, tenant, List.of()));
        List<Decision> deletes = PodLifecycle.vanishedDeletes(plan, tenant);
        assertEquals(1, deletes.size(), deletes::toString);
        Decision d = deletes.get(0);
        assertEquals(Action.DELETE, d.action());
        assertEquals(Reasons.HOST_POD_GONE, d.reason());
        assertNull(d.host(), "a tenant-side decision");
        assertEquals("gone", d.source().name());
        assertEquals("u-gone", d.source().uid());
        assertEquals(0, d.desired().get("gracePeriodSeconds").getAsInt());
        assertEquals("gone", Json.string(d.observed(), "metadata", "name"));
    }

    @Test
    void theMovePlannerCreatesPodsThatRanElsewhere() {
        List<JsonObject> tenant = List.of(pod("gone", "Running", "172.18.0.3"));
        Plan plan = Planner.forMove().plan(new Snapshot("dev", "team-dev-x-dev", PODS,
                io.tenantplane.transform.TransformOptions.defaults().withPodSecurity(
                        io.tenantplane.transform.PodSecurityLevel.PRIVILEGED), tenant, List.of()));
        assertEquals(Action.CREATE, plan.decisions().get(0).action(), plan.decisions()::toString);
        assertEquals(List.of(), PodLifecycle.vanishedDeletes(plan, tenant));
    }

    private static JsonObject withEphemeral(String... names) {
        JsonObject pod = JsonParser.parseString("{\"spec\":{\"containers\":[{\"name\":\"app\"}]}}")
                .getAsJsonObject();
        if (names.length > 0) {
            com.google.gson.JsonArray list = new com.google.gson.JsonArray();
            for (String n : names) {
                list.add(Json.gson().toJsonTree(java.util.Map.of("name", n, "image", "busybox")));
            }
            pod.getAsJsonObject("spec").add("ephemeralContainers", list);
        }
        return pod;
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "desired {0}, observed {1} -> added {2}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "''        | ''   | ''",
        "dbg       | ''   | dbg",
        "a b       | a    | b",
        "a b       | a b  | ''",
        "a         | a b  | ''",
        "b         | a    | ''",
    })
    void ephemeralContainersAddedAreThoseTheHostPodLacksWhenItHasNoneTheTenantLacks(String desired, String observed,
                                                                                   String added) {
        assertEquals(names(added), PodLifecycle.addedEphemeralContainers(withEphemeral(names(desired)
                .toArray(String[]::new)), withEphemeral(names(observed).toArray(String[]::new))));
    }

    private static List<String> names(String spaced) {
        return spaced == null || spaced.isBlank() ? List.of() : List.of(spaced.trim().split("\\s+"));
    }
}
