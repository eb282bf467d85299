package io.tenantplane.migration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The migration planner without any cluster: the same plan a CLI shows from files. */
class MigrationPlannerTest {

    private final MigrationPlanner planner = new MigrationPlanner();

    @Test
    void noMigrationIsNeededWhenTheTenantRunsInTheModeItsSpecAsksFor() {
        assertFalse(planner.plan(snapshot(Mode.DEDICATED, Mode.DEDICATED, null, List.of(), List.of())).needed());
        assertFalse(planner.plan(snapshot(null, Mode.DEDICATED, null, List.of(), List.of())).needed(),
                "a tenant that never ran has nothing to move");
    }

    @Test
    void anOfflinePlanFromTenantObjectsAloneCreatesTheNewPlaceAndShowsWhatEachWorkloadSees() {
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, tenantWorkloads("node-a"),
                List.of()));

        assertTrue(plan.needed());
        assertEquals(List.of(Step.values()), plan.steps().stream().map(MigrationStep::step).toList());
        Decision first = plan.steps().get(0).decisions().get(0).decision();
        assertEquals(Action.CREATE, first.action());
        assertEquals("Namespace", first.kind());
        assertEquals(LiveMigration.OWN, first.host().name());
        List<String> moved = plan.steps().get(1).decisions().stream().map(d -> d.decision().action().display() + " "
                + d.decision().kind() + " " + d.decision().host().name()).toList();
        // The copies mount their tenant token, as a pass's Pods do: their Secrets come before them.
        assertEquals(List.of("Create ConfigMap web-config-x-default-x-dev",
                "Create Secret web-6b7f9-a-x-default-x-dev-token", "Create Secret web-6b7f9-b-x-default-x-dev-token",
                "Create Pod web-6b7f9-a-x-default-x-dev", "Create Pod web-6b7f9-b-x-default-x-dev",
                "Create Service web-x-default-x-dev"), moved);
        assertTrue(plan.steps().get(1).decisions().stream().allMatch(d -> LiveMigration.OWN.equals(
                d.decision().host().namespace())));
        Decision pod = plan.steps().get(1).decisions().get(3).decision();
        assertEquals("dedicated", Json.string(pod.desired(), "spec", "nodeSelector", "pool"),
                "the profile's node placement is on the new copies");
        JsonObject env = new JsonObject();
        pod.desired().getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject()
                .getAsJsonArray("env").forEach(e -> env.add(Json.string(e.getAsJsonObject(), "name"),
                        e.getAsJsonObject().get("value")));
        assertEquals("dev-api.team-dev.svc", Json.string(env, "KUBERNETES_SERVICE_HOST"),
                "the copies reach the tenant API in the control plane's namespace (a plan from files names it)");
        WorkloadImpact impact = plan.impacts().get(0);
        assertEquals("overlap", impact.downtime());
        assertTrue(impact.sees().contains("two copies run"), impact.sees());
        assertTrue(plan.render().contains("Step 2/4 MoveWorkloads"), plan.render());
    }

    @Test
    void dedicatedWithoutNodePlacementIsRejectedNamingTheFieldAndPlansNoStep() {
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, List.of(), List.of(),
                p -> p.getAsJsonObject("spec").remove("nodePlacement")));

        assertTrue(plan.rejected());
        assertEquals(Rejection.INVALID_TARGET, plan.rejection().reason());
        assertEquals("IsolationProfile team-dev/restricted spec.nodePlacement", plan.rejection().field());
        assertTrue(plan.steps().isEmpty());
        assertTrue(plan.render().contains("REJECTED InvalidMigrationTarget"), plan.render());
    }

    @Test
    void aRecordedMigrationResumesAtItsStep() {
        MigrationState at = new MigrationState(Mode.SHARED, Mode.DEDICATED, Step.SWITCH_BOUNDARY,
                "2025-01-01T00:00:00Z");
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, at, List.of(), List.of()));

        assertEquals(List.of(Step.SWITCH_BOUNDARY, Step.CLEANUP),
                plan.steps().stream().map(MigrationStep::step).toList());
        assertEquals(at, plan.state());
        assertNull(plan.reversal());
    }

    @Test
    void aModeChangedBackDuringAMigrationTurnsAroundWithADecisionThatSaysFromWhere() {
        MigrationState at = new MigrationState(Mode.SHARED, Mode.DEDICATED, Step.MOVE_WORKLOADS,
                "2025-01-01T00:00:00Z");
        MigrationPlan back = planner.plan(snapshot(Mode.SHARED, Mode.SHARED, at, List.of(), List.of()));

        assertEquals("MigrationReversed", back.reversal().reason());
        assertEquals(Action.SKIP, back.reversal().action());
        assertTrue(back.reversal().message().contains("shared -> dedicated at step MoveWorkloads"));
        assertEquals(new MigrationState(Mode.DEDICATED, Mode.SHARED, Step.PREPARE_TARGET, null), back.state());
        assertEquals(Step.PREPARE_TARGET, back.steps().get(0).step());

        MigrationPlan elsewhere = planner.plan(snapshot(Mode.SHARED, Mode.PRIVATE, at, List.of(), List.of()));
        assertEquals("MigrationRedirected", elsewhere.reversal().reason());
    }

    @Test
    void aMoveThatWouldDeleteABoundVolumeClaimIsBlocked() {
        JsonObject claim = LiveMigration.json("""
                {"apiVersion":"v1","kind":"PersistentVolumeClaim",
                 "metadata":{"name":"data-x-default-x-dev","namespace":"team-dev",
                   "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"dev",
                             "tenantplane.io/virtual-namespace":"default"},
                   "annotations":{"tenantplane.io/source-kind":"PersistentVolumeClaim",
                     "tenantplane.io/source-namespace":"default","tenantplane.io/source-name":"data"}},
                 "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}},
                 "status":{"phase":"Bound"}}""");
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, List.of(), List.of(claim)));

        assertTrue(plan.rejected());
        assertEquals(Rejection.BLOCKED, plan.rejection().reason());
        assertEquals("PersistentVolumeClaim team-dev/data-x-default-x-dev", plan.rejection().field());
    }

    @Test
    void intoPrivateReschedulesOnePodPerOwnerPerRoundAndCollectsAfterwards() {
        List<JsonObject> tenant = new ArrayList<>();
        tenant.addAll(owned("web", 2, "node-a"));
        tenant.addAll(owned("api", 2, "node-a"));
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.PRIVATE, null, tenant, List.of()));

        MigrationStep move = plan.steps().get(1);
        List<List<String>> batches = move.batches().stream().map(b -> b.decisions().stream()
                .map(d -> d.decision().reason() + " " + d.decision().host().name()).toList()).toList();
        assertEquals(List.of(List.of(), List.of("RescheduleOnAgents api-0", "RescheduleOnAgents web-0"),
                List.of("RescheduleOnAgents api-1", "RescheduleOnAgents web-1"), List.of()), batches);
        assertTrue(move.batches().get(1).waits().get(0).what().contains("all its Pods up"));
        assertEquals("reduced capacity", plan.impacts().get(0).downtime());
    }

    @Test
    void theControlPlaneIsUpdatedInPlaceAndKeepsItsVolumeClaimTemplate() {
        TenantCluster shared = LiveMigration.cluster(LiveMigration.clusterJson(Mode.SHARED));
        JsonObject sts = new ControlPlaneRenderer().render(shared).stream()
                .filter(o -> "StatefulSet".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
        Json.child(sts, "metadata").addProperty("uid", "cp-uid");
        Json.child(sts, "metadata").addProperty("resourceVersion", "42");

        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.PRIVATE, null, List.of(), List.of(sts)));

        Decision cp = plan.steps().get(0).decisions().stream().map(StepDecision::decision)
                .filter(d -> "StatefulSet".equals(d.kind()) && d.host().name().equals("dev-control-plane"))
                .findFirst().orElseThrow();
        assertEquals(Action.UPDATE, cp.action());
        assertEquals("ControlPlaneReconfigured", cp.reason());
        assertEquals("cp-uid", Json.string(cp.desired(), "metadata", "uid"));
        assertEquals(sts.getAsJsonObject("spec").get("volumeClaimTemplates"),
                cp.desired().getAsJsonObject("spec").get("volumeClaimTemplates"));
        assertFalse(cp.desired().toString().contains("--disable-scheduler"));
        assertTrue(cp.observed().toString().contains("--disable-scheduler"));
    }

    @Test
    void foreignObjectsKeepTheTenantsOwnNamespaceWhenMovingBackToShared() {
        JsonObject ns = LiveMigration.json("""
                {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-dev-x-dev",
                 "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"dev"}}}""");
        JsonObject foreign = LiveMigration.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"someone-elses","namespace":"team-dev-x-dev"}}""");
        MigrationPlan plan = planner.plan(snapshot(Mode.DEDICATED, Mode.SHARED, null, List.of(), List.of(ns, foreign)));

        Decision cleanup = plan.steps().get(3).decisions().get(0).decision();
        assertEquals(Action.SKIP, cleanup.action());
        assertEquals("NamespaceKept", cleanup.reason());
        assertTrue(cleanup.message().contains("ConfigMap someone-elses"), cleanup.message());
        assertTrue(plan.deletions().stream().noneMatch(d -> d.decision().kind().equals("Namespace")));
    }

    /**
     * The target boundary is judged by provisioning's rule ({@code ProvisionPlan}): ownership first, then difference.
     * A foreign object holding a boundary name is a Conflict, one of the tenant's that differs is put back, one as
     * rendered is left alone.
     */
    @Test
    void theNewPlacesBoundaryIsJudgedByTheProvisioningRule() {
        MigrationPlan clean = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, List.of(), List.of()));
        List<Decision> rendered = clean.steps().get(0).decisions().stream().map(StepDecision::decision).toList();
        JsonObject foreign = rendered.stream().filter(d -> d.host().name().equals("dev-default-deny")).findFirst()
                .orElseThrow().desired().deepCopy();
        foreign.getAsJsonObject("metadata").remove("labels");
        JsonObject drifted = rendered.stream().filter(d -> d.host().name().equals("dev-allow-dns")).findFirst()
                .orElseThrow().desired().deepCopy();
        drifted.getAsJsonObject("spec").add("egress", new JsonArray());
        JsonObject same = rendered.stream().filter(d -> d.kind().equals("ServiceAccount")).findFirst()
                .orElseThrow().desired().deepCopy();

        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, List.of(),
                List.of(foreign, drifted, same)));
        Map<String, Decision> by = new HashMap<>();
        plan.steps().get(0).decisions().forEach(d -> by.put(d.decision().host().name(), d.decision()));

        assertEquals(Action.CONFLICT, by.get("dev-default-deny").action(), by.get("dev-default-deny")::toString);
        assertEquals("ForeignObject", by.get("dev-default-deny").reason());
        assertEquals(Action.UPDATE, by.get("dev-allow-dns").action(), by.get("dev-allow-dns")::toString);
        assertEquals("TargetBoundary", by.get("dev-allow-dns").reason());
        assertEquals(Action.UNCHANGED, by.get("dev-workload").action(), by.get("dev-workload")::toString);
        assertEquals("AlreadyInPlace", by.get("dev-workload").reason());
    }

    @Test
    void aForeignNamespaceOfTheTargetNameIsRejected() {
        JsonObject ns = LiveMigration.json("""
                {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-dev-x-dev"}}""");
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, List.of(), List.of(ns)));

        assertEquals(Rejection.INVALID_TARGET, plan.rejection().reason());
        assertEquals("TenantCluster team-dev/dev spec.hostNamespace", plan.rejection().field());
    }

    @Test
    void theSameSnapshotAlwaysGivesTheSamePlan() {
        MigrationSnapshot s = snapshot(Mode.SHARED, Mode.PRIVATE, null, owned("web", 3, "node-a"), List.of());
        assertEquals(planner.plan(s).summary(), planner.plan(s).summary());
        assertEquals(planner.plan(s).render(), planner.plan(s).render());
    }

    @Test
    void theOldPlacesTokenSecretsGoWithItsPodsAndOtherSecretsStay() {
        String token = """
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s-token","namespace":"team-dev",
                 "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"%s"},
                 "annotations":{"tenantplane.io/token-for":"%s"}}}""";
        JsonObject mine = LiveMigration.json(token.formatted("web-6b7f9-a-x-default-x-dev", "dev",
                "web-6b7f9-a-x-default-x-dev"));
        JsonObject otherTenants = LiveMigration.json(token.formatted("api-x-default-x-qa", "qa", "api-x-default-x-qa"));
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.DEDICATED, null, tenantWorkloads("node-a"),
                List.of(mine, otherTenants)));

        List<Decision> deletes = plan.steps().stream().flatMap(st -> st.decisions().stream())
                .map(StepDecision::decision).filter(d -> d.action() == Action.DELETE && d.kind().equals("Secret"))
                .toList();
        assertEquals(List.of("team-dev/web-6b7f9-a-x-default-x-dev-token"), deletes.stream()
                .map(d -> d.host().namespace() + "/" + d.host().name()).toList(), deletes::toString);
        assertEquals(io.tenantplane.plan.Reasons.MOVED_AWAY, deletes.get(0).reason());
    }

    @Test
    void theOwnNamespaceDefaultsToTheHostNamingRuleAndFollowsSpecHostNamespace() {
        TenantCluster tc = LiveMigration.cluster(LiveMigration.clusterJson(Mode.DEDICATED));
        assertEquals("team-dev-x-dev", MigrationPlanner.ownNamespace(tc));
        JsonObject custom = LiveMigration.clusterJson(Mode.DEDICATED);
        Json.child(custom, "spec").addProperty("hostNamespace", "dev-pool");
        assertEquals("dev-pool", MigrationPlanner.ownNamespace(LiveMigration.cluster(custom)));
    }

    @Test
    void intoPrivateCordonsAndRetiresOnlyNodesWithBothMirrorMarkers() {
        List<JsonObject> tenant = new ArrayList<>(owned("web", 1, "node-a"));
        tenant.add(LiveMigration.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a","labels":{
                 "tenantplane.io/host-node":"true","tenantplane.io/managed-by":"tenantplane"}}}"""));
        // The tenant may write either marker on a Node of its own: neither alone makes it a mirror to cordon or delete.
        tenant.add(LiveMigration.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"labelled-by-the-tenant","labels":{
                 "tenantplane.io/host-node":"true"}}}"""));
        tenant.add(LiveMigration.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"managed-by-alone","labels":{
                 "tenantplane.io/managed-by":"tenantplane"}}}"""));
        MigrationPlan plan = planner.plan(snapshot(Mode.SHARED, Mode.PRIVATE, null, tenant, List.of()));

        List<String> mirrors = plan.decisions().stream().map(StepDecision::decision)
                .filter(d -> d.kind().equals("Node"))
                .map(d -> d.reason() + " " + d.host().name()).toList();
        assertEquals(List.of("MirrorCordoned node-a", "MirrorRetired node-a"), mirrors);
    }

    // ---- fixtures ------------------------------------------------------------------------------------------------

    static MigrationSnapshot snapshot(Mode statusMode, Mode specMode, MigrationState state, List<JsonObject> tenant,
                                      List<JsonObject> host) {
        return snapshot(statusMode, specMode, state, tenant, host, p -> { });
    }

    /** A snapshot of tenant dev with {@code status.mode} (null: never ran) and {@code spec.mode}. */
    static MigrationSnapshot snapshot(Mode statusMode, Mode specMode, MigrationState state,
                                      List<JsonObject> tenant, List<JsonObject> host, Consumer<JsonObject> profileEdit) {
        JsonObject tc = LiveMigration.clusterJson(specMode);
        if (statusMode != null) {
            Json.child(tc, "status").addProperty("mode", statusMode.value());
            Json.child(tc, "status").addProperty("hostNamespace", statusMode == Mode.SHARED ? "team-dev"
                    : "team-dev-x-dev");
        }
        JsonObject profile = LiveMigration.profileJson();
        profileEdit.accept(profile);
        return new MigrationSnapshot(LiveMigration.cluster(tc), state,
                ((Parsed.Ok<IsolationProfile>) IsolationProfile.fromJson(profile)).value(),
                ((Parsed.Ok<SyncPolicy>) SyncPolicy.fromJson(LiveMigration.policyJson())).value(), tenant, host);
    }

    static List<JsonObject> tenantWorkloads(String node) {
        List<JsonObject> out = new ArrayList<>(LiveMigration.workloads());
        JsonObject rs = out.get(2);
        Json.child(rs, "metadata").addProperty("uid", "rs-uid");
        for (String suffix : List.of("a", "b")) {
            JsonObject p = LiveMigration.pod(LiveMigration.RS + "-" + suffix, rs);
            Json.child(p, "metadata").addProperty("uid", "uid-" + suffix);
            Json.child(p, "spec").addProperty("nodeName", node);
            out.add(p);
        }
        return out;
    }

    static List<JsonObject> owned(String name, int replicas, String node) {
        List<JsonObject> out = new ArrayList<>();
        JsonObject rs = LiveMigration.json("""
                {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"%s","namespace":"default",
                 "uid":"%s-uid"},"spec":{"replicas":%d}}""".formatted(name, name, replicas));
        out.add(rs);
        for (int i = 0; i < replicas; i++) {
            JsonObject p = LiveMigration.pod(name + "-" + i, rs);
            Json.child(p, "metadata").addProperty("uid", name + "-" + i);
            Json.child(p, "spec").addProperty("nodeName", node);
            p.add("status", LiveMigration.json("{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
                    + "\"status\":\"True\"}]}"));
            out.add(p);
        }
        return out;
    }
}
