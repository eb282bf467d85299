package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The planner's table-driven cases (YAML under {@code plan/}), plus invariants every case must keep. */
class PlannerTest {

    private final Planner planner = new Planner();

    @TestFactory
    Stream<DynamicTest> createUpdateAndUnchanged() {
        return cases("plan/sync.yaml");
    }

    @TestFactory
    Stream<DynamicTest> garbageCollectionAndPolicyChanges() {
        return cases("plan/gc.yaml");
    }

    @TestFactory
    Stream<DynamicTest> skips() {
        return cases("plan/skip.yaml");
    }

    @TestFactory
    Stream<DynamicTest> conflictsErrorsAndOrder() {
        return cases("plan/conflict-error.yaml");
    }

    /** Builds the snapshot a fixture case describes (host state included). */
    static Snapshot snapshot(JsonObject file, JsonObject c) {
        String tenant = c.has("tenant") ? Json.string(c, "tenant") : Json.string(file, "tenant");
        String hostNs = Json.string(file, "hostNamespace");
        SyncPolicy policy = FixtureYaml.policy(c.has("policy") ? c : file);
        TransformOptions options = FixtureYaml.options(file, c, "options");
        List<JsonObject> host = new ArrayList<>();
        FixtureYaml.objects(c, "hostObjects").forEach(h -> host.add(h.deepCopy()));
        if (c.has("appliedFrom")) {
            JsonObject prev = new JsonObject();
            prev.add("policy", c.has("previousPolicy") ? c.get("previousPolicy") : (c.has("policy") ? c.get("policy") : file.get("policy")));
            SyncPolicy previousPolicy = FixtureYaml.policy(prev);
            TransformOptions previousOptions = FixtureYaml.options(file, c, "previousOptions");
            Plan earlier = new Planner().plan(new Snapshot(tenant, hostNs, previousPolicy, previousOptions,
                    FixtureYaml.objects(c, "appliedFrom"), List.of()));
            host.addAll(new HostSimulator().apply(earlier, List.of()));
        }
        for (JsonObject patch : FixtureYaml.objects(c, "hostPatches")) {
            JsonObject target = host.stream().filter(h -> Json.string(patch, "kind").equals(Json.string(h, "kind"))
                    && Json.string(patch, "name").equals(Json.string(h, "metadata", "name"))).findFirst()
                    .orElseThrow(() -> new AssertionError("hostPatches: no host object " + patch));
            HostSimulator.merge(target, patch.getAsJsonObject("merge"));
        }
        return new Snapshot(tenant, hostNs, policy, options, FixtureYaml.objects(c, "tenantObjects"), host);
    }

    private Stream<DynamicTest> cases(String resource) {
        JsonObject file = FixtureYaml.resource(resource).get(0).getAsJsonObject();
        return FixtureYaml.objects(file, "cases").stream().map(c -> DynamicTest.dynamicTest(Json.string(c, "name"), () -> {
            Snapshot s = snapshot(file, c);
            Plan plan = planner.plan(s);
            List<JsonObject> expected = FixtureYaml.objects(c, "expect");
            if (expected.size() != plan.decisions().size()) {
                fail("expected " + expected.size() + " decisions, got:\n" + describe(plan));
            }
            for (int i = 0; i < expected.size(); i++) {
                check(expected.get(i), plan.decisions().get(i), s.hostNamespace(), plan);
            }
            checkInvariants(s, plan);
        }));
    }

    static String describe(Plan plan) {
        StringBuilder sb = new StringBuilder();
        for (Decision d : plan.decisions()) {
            sb.append("  ").append(d.action().display()).append('/').append(d.reason()).append(' ').append(d.kind()).append(' ')
                    .append(d.host()).append(": ").append(d.message()).append('\n');
        }
        return sb.toString();
    }

    private static void check(JsonObject e, Decision d, String hostNs, Plan plan) {
        String where = "decision " + d.kind() + " " + d.host() + " in\n" + describe(plan);
        assertEquals(Json.string(e, "action"), d.action().display(), where);
        assertEquals(Json.string(e, "reason"), d.reason(), where);
        assertEquals(Json.string(e, "kind"), d.kind(), where);
        JsonElement host = e.get("host");
        if (host == null || host.isJsonNull()) {
            assertNull(d.host(), where);
        } else {
            assertEquals(host.getAsString(), d.host().name(), where);
            JsonElement ns = e.get("hostNamespace");
            assertEquals(e.has("hostNamespace") ? (ns.isJsonNull() ? null : ns.getAsString()) : hostNs, d.host().namespace(), where);
        }
        if (e.has("messageContains")) {
            assertTrue(d.message().contains(Json.string(e, "messageContains")), "message: " + d.message());
        }
        if (e.has("desiredContains")) {
            assertNotNull(d.desired(), "desired of " + where);
            List<String> p = FixtureYaml.containsProblems(e.get("desiredContains"), d.desired(), "desired");
            assertTrue(p.isEmpty(), String.join("\n", p) + "\n" + d.desired());
        }
        if (e.has("desiredLacks")) {
            e.getAsJsonArray("desiredLacks").forEach(x -> assertNull(FixtureYaml.at(d.desired(), x.getAsString()), x.getAsString()));
        }
        if (e.has("observedContains")) {
            assertNotNull(d.observed(), "observed of " + where);
            List<String> p = FixtureYaml.containsProblems(e.get("observedContains"), d.observed(), "observed");
            assertTrue(p.isEmpty(), String.join("\n", p));
        }
    }

    /** What holds for every plan: deterministic under input order, planObject agrees, writes carry their reason. */
    private void checkInvariants(Snapshot s, Plan plan) {
        for (long seed = 1; seed <= 3; seed++) {
            List<JsonObject> tenants = new ArrayList<>(s.tenantObjects());
            List<JsonObject> hosts = new ArrayList<>(s.hostObjects());
            Collections.shuffle(tenants, new Random(seed));
            Collections.shuffle(hosts, new Random(seed * 31));
            Plan again = planner.plan(new Snapshot(s.tenant(), s.hostNamespace(), s.policy(), s.options(), tenants, hosts));
            assertEquals(plan, again, "the plan must not depend on input order");
        }
        for (Decision d : plan.decisions()) {
            switch (d.action()) {
                case CREATE, UPDATE -> {
                    assertNotNull(d.desired());
                    assertEquals(d.reason(), Json.annotations(d.desired()).get(ReverseMapping.REASON));
                }
                case UNCHANGED -> {
                    if (d.reason().equals(Reasons.POD_SPEC_IMMUTABLE)) {
                        assertNull(d.desired(), "a host Pod that cannot take the new spec gets nothing written");
                    } else {
                        // Nothing is written: the desired object shows the reason the host copy keeps.
                        assertNotNull(d.desired());
                        String kept = d.observed() == null ? null : Json.annotations(d.observed()).get(ReverseMapping.REASON);
                        assertEquals(kept == null ? d.reason() : kept, Json.annotations(d.desired()).get(ReverseMapping.REASON));
                    }
                }
                case DELETE -> assertNotNull(d.observed(), "a Delete carries the observed object for its uid precondition");
                default -> assertNull(d.desired(), "only writes carry a desired object");
            }
            if (d.host() != null && plan.decisions().stream().filter(x -> d.host().equals(x.host()) && d.kind().equals(x.kind())).count() == 1) {
                Decision single = planner.planObject(s, d.kind(), d.host().name()).orElseThrow(
                        () -> new AssertionError("planObject found no decision for " + d.kind() + " " + d.host()));
                assertEquals(d.action(), single.action());
                assertEquals(d.reason(), single.reason());
                assertEquals(d.message(), single.message());
            }
        }
    }
}
