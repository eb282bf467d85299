package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.Condition;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.FixtureYaml;
import io.tenantplane.plan.Reasons;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The status of a TenantCluster from what a pass found, with no API server: the provisioning cases from
 * {@code plan/tenant-status.yaml}, the conditions from tables of writes written as {@code action Kind name}
 * ({@code failed} for a write the server refused).
 */
class TenantStatusTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-01T12:00:00Z"), ZoneOffset.UTC);

    private static TenantStatus.Written written(String row) {
        String[] p = row.split(" ");
        Action action = p[0].equals("failed") ? Action.UPDATE : Action.valueOf(p[0].toUpperCase());
        String reason = switch (action) {
            case CREATE -> Reasons.NOT_ON_HOST;
            case UPDATE -> Reasons.SOURCE_CHANGED;
            case UNCHANGED -> Reasons.IN_SYNC;
            case CONFLICT -> Reasons.FOREIGN_OBJECT;
            case ERROR -> Reasons.INVALID_SOURCE;
            default -> Reasons.KIND_NOT_SYNCED;
        };
        Decision d = Decision.summary(action, p[1], null, new Decision.HostRef("team-dev", p[2]), reason, "m");
        return new TenantStatus.Written(d, p[0].equals("failed"));
    }

    private static List<TenantStatus.Written> written(List<String> rows) {
        return rows.stream().map(TenantStatusTest::written).toList();
    }

    private static String said(Condition c) {
        return c.status().value() + " " + c.reason() + " " + c.message();
    }

    private static TenantCluster cluster(JsonObject fields) {
        JsonObject json = fields.deepCopy();
        json.addProperty("apiVersion", TenantCluster.API_VERSION);
        json.addProperty("kind", TenantCluster.KIND);
        return switch (TenantCluster.fromJson(json)) {
            case Parsed.Ok<TenantCluster> ok -> ok.value();
            case Parsed.Invalid<TenantCluster> bad -> throw new AssertionError("fixture is invalid: " + bad.problems());
        };
    }

    // ------------------------------------------------------------ provisioning, from the YAML cases

    static Stream<Arguments> provisioningCases() {
        return FixtureYaml.resource("plan/tenant-status.yaml").stream().map(JsonElement::getAsJsonObject)
                .map(c -> Arguments.of(Json.string(c, "case"), c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("provisioningCases")
    void provisioningWritesTheStatusOfWhatItFound(String name, JsonObject c) {
        TenantCluster tc = cluster(Json.object(c, "tenantCluster"));
        TenantCluster place = tc;
        JsonObject p = Json.object(c, "place");
        if (p != null) {
            JsonObject moved = Json.object(c, "tenantCluster").deepCopy();
            Json.child(moved, "spec").addProperty("mode", Json.string(p, "mode"));
            Json.child(moved, "spec").addProperty("hostNamespace", Json.string(p, "hostNamespace"));
            place = cluster(moved);
        }
        List<String> rows = new ArrayList<>();
        c.getAsJsonArray("writes").forEach(e -> rows.add(e.getAsString()));
        List<TenantStatus.Written> all = written(rows.stream().map(r -> r.replace(" isolation", "")).toList());
        List<TenantStatus.Written> isolation = written(rows.stream().filter(r -> r.endsWith(" isolation"))
                .map(r -> r.replace(" isolation", "")).toList());
        Long generation = tc.metadata().generation();
        JsonObject sts = Json.object(c, "statefulSet");
        JsonObject dnsCase = Json.object(c, "dns");
        TenantStatus.Dns dns = dnsCase == null ? TenantStatus.NO_DNS
                : new TenantStatus.Dns(Json.string(dnsCase, "name"), Json.object(dnsCase, "deployment"));
        Condition controlPlane = TenantStatus.controlPlaneReady("dev", sts, Json.string(c, "refusal"), dns,
                generation);
        JsonObject ns = Json.object(c, "notStarted");
        Condition notStarted = ns == null ? null : TenantStatus.migrationNotStarted(tc, Json.string(ns, "reason"),
                Json.string(ns, "message"), generation);
        TenantStatus.Provisioned found = new TenantStatus.Provisioned(tc, place, c.has("moving")
                && c.get("moving").getAsBoolean(), c.has("wantsMove") && c.get("wantsMove").getAsBoolean(),
                generation, controlPlane, isolation, all, notStarted,
                new TenantCluster.SecretKeyRef("dev-kubeconfig", "team-dev", "config"));

        TenantCluster.Status s = TenantStatus.provisioned(found, tc.status(), CLOCK);

        JsonObject expect = Json.object(c, "expect");
        assertEquals(Json.string(expect, "phase"), s.phase().value(), name + ": phase");
        assertEquals(Json.string(expect, "mode"), s.mode().value(), name + ": status.mode");
        assertEquals(Json.string(expect, "hostNamespace"), s.hostNamespace(), name + ": status.hostNamespace");
        assertEquals(expect.has("migration"), s.migration() != null, name + ": status.migration");
        assertEquals(generation, s.observedGeneration(), name + ": observedGeneration");
        TreeSet<String> want = new TreeSet<>();
        expect.getAsJsonArray("conditions").forEach(e -> want.add(e.getAsString()));
        TreeSet<String> got = new TreeSet<>();
        Map<String, Condition> byType = new TreeMap<>();
        for (Condition k : s.conditions()) {
            got.add(k.type() + " " + k.status().value() + " " + k.reason());
            byType.put(k.type(), k);
        }
        assertEquals(want, got, name + ": conditions");
        JsonObject messages = Json.object(expect, "messages");
        if (messages != null) {
            messages.entrySet().forEach(e -> assertEquals(e.getValue().getAsString(),
                    byType.get(e.getKey()).message(), name + ": message of " + e.getKey()));
        }
        for (Condition k : s.conditions()) {
            boolean carried = tc.status() != null && tc.status().conditions().stream()
                    .anyMatch(old -> old.type().equals(k.type()) && old.status() == k.status());
            // A condition whose status did not change keeps its time; every other is stamped now.
            assertEquals(carried ? "2026-01-01T00:00:00Z" : "2026-06-01T12:00:00Z", k.lastTransitionTime(),
                    name + ": lastTransitionTime of " + k.type());
        }
    }

    @Test
    void theYamlCasesCoverTheProvisioningReasons() {
        TreeSet<String> covered = new TreeSet<>();
        FixtureYaml.resource("plan/tenant-status.yaml").forEach(c -> Json.object(c.getAsJsonObject(), "expect")
                .getAsJsonArray("conditions").forEach(e -> covered.add(e.getAsString())));
        for (String row : List.of("Ready True TenantReady", "Ready False ControlPlaneNotReady",
                "Ready False Degraded", "ControlPlaneReady False NotCreated",
                "ControlPlaneReady False ReplicasNotReady", "ControlPlaneReady False PodRefused",
                "ControlPlaneReady False DnsNotReady",
                "Degraded True ForeignObject", "Degraded True WriteFailed", "Migrating False MigrationWithdrawn")) {
            assertTrue(covered.contains(row), "no case of tenant-status.yaml shows " + row);
        }
    }

    @Test
    void readyNamesTheBoundaryWhenOnlyTheBoundaryIsMissing() {
        Condition cp = TenantStatus.controlPlaneReady("dev", com.google.gson.JsonParser.parseString(
                "{\"spec\":{\"replicas\":1},\"status\":{\"replicas\":1,\"readyReplicas\":1}}").getAsJsonObject(), null,
                TenantStatus.NO_DNS, 1L);
        Condition isolated = TenantStatus.isolationApplied(written(List.of("create NetworkPolicy a")), 1L);
        Condition notIsolated = Condition.of(Condition.ISOLATION_APPLIED, Condition.Status.FALSE, "NotApplied",
                "Not in place: NetworkPolicy a.", 1L);
        Condition fine = TenantStatus.degraded(List.of(), 1L);
        assertEquals("True TenantReady The control plane is ready and the isolation boundary is in place.",
                said(TenantStatus.ready(cp, isolated, fine, 1L)));
        assertEquals("False IsolationNotApplied Not in place: NetworkPolicy a.",
                said(TenantStatus.ready(cp, notIsolated, fine, 1L)));
    }

    static Stream<Arguments> refusalRows() {
        return Stream.of(
                Arguments.of("{\"spec\":{\"replicas\":3},\"status\":{\"replicas\":2,\"readyReplicas\":2}}", true),
                Arguments.of("{\"spec\":{\"replicas\":3},\"status\":{\"replicas\":3,\"readyReplicas\":1}}", false),
                Arguments.of("{\"spec\":{\"replicas\":1},\"status\":{\"replicas\":1,\"readyReplicas\":1}}", false),
                Arguments.of("{\"spec\":{\"replicas\":1}}", true),
                Arguments.of("{\"status\":{\"replicas\":1,\"readyReplicas\":1}}", false));
    }

    @ParameterizedTest
    @MethodSource("refusalRows")
    void aRefusalIsReadOnlyWhileTheSetHasFewerPodsThanItWants(String sts, boolean matters) {
        assertEquals(matters, TenantStatus.refusalMatters(com.google.gson.JsonParser.parseString(sts)
                .getAsJsonObject()));
    }

    // ------------------------------------------------------------ invalid, removal, migration

    @Test
    void anInvalidSpecIsPendingNamesTheFirstProblemAndKeepsWhereTheTenantRuns() {
        TenantCluster.Status current = new TenantCluster.Status(TenantCluster.Phase.READY, 2L, List.of(),
                "team-dev", new TenantCluster.SecretKeyRef("dev-kubeconfig", "team-dev", "config"),
                TenantCluster.Mode.SHARED);
        TenantCluster.Status s = TenantStatus.invalid(List.of(Problem.of("spec.mode", "must be shared, dedicated "
                + "or private"), Problem.of("spec.syncPolicyRef.name", "is required")), 3L, current, CLOCK);
        assertEquals(TenantCluster.Phase.PENDING, s.phase());
        assertEquals("team-dev", s.hostNamespace());
        assertEquals(TenantCluster.Mode.SHARED, s.mode());
        Condition ready = s.conditions().stream().filter(c -> c.type().equals(Condition.READY)).findFirst()
                .orElseThrow();
        assertEquals("False InvalidSpec spec.mode: must be shared, dedicated or private (and 1 more problem(s), see "
                + "Accepted)", said(ready));
        assertTrue(s.conditions().stream().anyMatch(c -> c.type().equals(Condition.ACCEPTED) && !c.isTrue()));
        assertNull(TenantStatus.invalid(List.of(Problem.of(null, "x")), 1L, null, CLOCK).hostNamespace());
    }

    @Test
    void removalChangesOnlyThePhase() {
        TenantCluster.Status current = new TenantCluster.Status(TenantCluster.Phase.READY, 2L,
                List.of(new Condition(Condition.READY, Condition.Status.TRUE, 2L, "2026-01-01T00:00:00Z",
                        "TenantReady", "m")), "team-dev", null, TenantCluster.Mode.SHARED);
        TenantCluster.Status s = TenantStatus.deleting(current);
        assertEquals(new TenantCluster.Status(TenantCluster.Phase.DELETING, 2L, current.conditions(), "team-dev",
                null, TenantCluster.Mode.SHARED), s);
        assertEquals(TenantCluster.Phase.DELETING, TenantStatus.deleting(null).phase());
    }

    @Test
    void aMigrationStepAndItsEndAreMigratingAndReady() {
        List<Condition> step = TenantStatus.migrationStep("dev", TenantCluster.Mode.DEDICATED, "MoveWorkloads",
                "step 2 of 4", 4L);
        assertEquals(List.of("Migrating True MoveWorkloads step 2 of 4",
                "Ready False Migrating tenant dev is moving to dedicated mode: MoveWorkloads"),
                step.stream().map(c -> c.type() + " " + said(c)).toList());
        List<Condition> done = TenantStatus.migrationComplete("dev", TenantCluster.Mode.SHARED,
                TenantCluster.Mode.DEDICATED, 5L);
        assertEquals(List.of("Migrating False MigrationComplete moved from shared to dedicated mode",
                "Ready True MigrationComplete tenant dev runs in dedicated mode"),
                done.stream().map(c -> c.type() + " " + said(c)).toList());
        assertEquals("False MigrationBlocked spec.mode: a PersistentVolumeClaim is in the way",
                said(TenantStatus.migrationRejected("MigrationBlocked", "spec.mode",
                        "a PersistentVolumeClaim is in the way", 5L)));
    }

    @Test
    void aRecordedStepIsMigratingAtItsStepAndACompletedMigrationIsReadyWithoutOne() {
        TenantCluster.Status provisioned = new TenantCluster.Status(TenantCluster.Phase.READY, 3L,
                List.of(Condition.of(Condition.READY, Condition.Status.TRUE, "TenantReady", "ready", 3L)
                        .withLastTransitionTime("2026-05-01T00:00:00Z")),
                "team-dev", new TenantCluster.SecretKeyRef("dev-kubeconfig", "team-dev", "config"),
                TenantCluster.Mode.SHARED);
        TenantCluster.Migration at = new TenantCluster.Migration(TenantCluster.Mode.SHARED,
                TenantCluster.Mode.DEDICATED, TenantCluster.MigrationStep.MOVE_WORKLOADS, "2026-06-01T11:00:00Z");

        TenantCluster.Status recorded = TenantStatus.migrationRecorded(provisioned, at, "dev", "MoveWorkloads",
                "step 2 of 4 (shared -> dedicated): copies", 4L, CLOCK);
        assertEquals(TenantCluster.Phase.MIGRATING, recorded.phase());
        assertEquals(at, recorded.migration());
        assertEquals(TenantCluster.Mode.SHARED, recorded.mode(), "the mode switches last, in the migration itself");
        assertEquals("team-dev", recorded.hostNamespace());
        assertEquals(provisioned.kubeconfigSecretRef(), recorded.kubeconfigSecretRef());
        assertEquals(List.of("Migrating True MoveWorkloads step 2 of 4 (shared -> dedicated): copies",
                "Ready False Migrating tenant dev is moving to dedicated mode: MoveWorkloads"),
                recorded.conditions().stream().map(c -> c.type() + " " + said(c)).toList());
        assertEquals("2026-06-01T12:00:00Z", recorded.conditions().stream().filter(c -> c.type()
                .equals(Condition.READY)).findFirst().orElseThrow().lastTransitionTime(), "Ready changed now");

        TenantCluster.Status placed = TenantStatus.placed(recorded, TenantCluster.Mode.DEDICATED, "dev");
        assertEquals(new TenantCluster.Status(recorded.phase(), recorded.observedGeneration(), recorded.conditions(),
                "dev", recorded.kubeconfigSecretRef(), TenantCluster.Mode.DEDICATED, at), placed,
                "placing switches the mode and the host namespace, nothing else");
        assertEquals(TenantCluster.Mode.PRIVATE, TenantStatus.placed(null, TenantCluster.Mode.PRIVATE, "dev").mode(),
                "a status not yet written is placed too");

        TenantCluster.Status done = TenantStatus.migrationCompleted(recorded, "dev", TenantCluster.Mode.SHARED,
                TenantCluster.Mode.DEDICATED, 4L, CLOCK);
        assertEquals(TenantCluster.Phase.READY, done.phase());
        assertNull(done.migration(), "status.migration is removed");
        assertEquals(List.of("Migrating False MigrationComplete moved from shared to dedicated mode",
                "Ready True MigrationComplete tenant dev runs in dedicated mode"),
                done.conditions().stream().map(c -> c.type() + " " + said(c)).toList());

        TenantCluster.Status refused = TenantStatus.with(provisioned, TenantStatus.migrationRejected(
                "MigrationBlocked", "spec.mode", "a PersistentVolumeClaim is in the way", 4L), CLOCK);
        assertEquals(TenantCluster.Phase.READY, refused.phase(), "a refused migration changes nothing else");
        assertNull(refused.migration());
        assertTrue(refused.conditions().stream().anyMatch(c -> c.type().equals(Condition.MIGRATING)
                && c.status() == Condition.Status.FALSE && c.reason().equals("MigrationBlocked")));
    }

    // ------------------------------------------------------------ the conditions, from tables of writes

    static Stream<Arguments> syncedRows() {
        return Stream.of(
                Arguments.of(new TenantStatus.Tally(null, null, 0, 0, 0, 3),
                        "True Converged The host copies of 3 tenant objects are in sync."),
                Arguments.of(new TenantStatus.Tally(null, null, 0, 0, 0, 0),
                        "True Converged The host copies of 0 tenant objects are in sync."),
                Arguments.of(new TenantStatus.Tally(null, null, 1, 1, 0, 1),
                        "False Conflicts 1 conflict(s), 1 invalid object(s), 0 failed write(s); see the decisions "
                                + "for details."),
                Arguments.of(new TenantStatus.Tally(null, null, 0, 1, 0, 0),
                        "False InvalidObjects 0 conflict(s), 1 invalid object(s), 0 failed write(s); see the "
                                + "decisions for details."),
                Arguments.of(new TenantStatus.Tally(null, null, 0, 0, 1, 0),
                        "False WritesFailed 0 conflict(s), 0 invalid object(s), 1 failed write(s); see the "
                                + "decisions for details."),
                Arguments.of(new TenantStatus.Tally("TenantApiUnavailable", "the tenant API is not ready", 0, 0, 0, 1),
                        "False TenantApiUnavailable the tenant API is not ready"));
    }

    @ParameterizedTest
    @MethodSource("syncedRows")
    void theSyncedConditionSaysWhatThePassDid(TenantStatus.Tally t, String expected) {
        Condition c = TenantStatus.synced(t, 4L);
        assertEquals(Condition.SYNCED, c.type());
        assertEquals(4L, c.observedGeneration());
        assertEquals(expected, said(c));
    }

    @Test
    void aSyncedConditionAlreadyKnownIsNotWrittenAgain() {
        Condition known = new Condition(Condition.SYNCED, Condition.Status.TRUE, 4L, "2026-01-01T00:00:00Z",
                "Converged", "The host copies of 3 tenant objects are in sync.");
        TenantCluster tc = cluster(com.google.gson.JsonParser.parseString("{\"metadata\":{\"name\":\"dev\",\"namespace\":\"team-dev\"},"
                + "\"spec\":{\"mode\":\"shared\",\"isolationProfileRef\":{\"name\":\"r\"},\"syncPolicyRef\":"
                + "{\"name\":\"d\"}}}").getAsJsonObject());
        TenantCluster withKnown = new TenantCluster(tc.apiVersion(), tc.kind(), tc.metadata(), tc.spec(),
                new TenantCluster.Status(null, null, List.of(known), null, null, null));
        assertTrue(TenantStatus.knownAlready(withKnown, TenantStatus.synced(
                new TenantStatus.Tally(null, null, 0, 0, 0, 3), 4L)));
        assertEquals(false, TenantStatus.knownAlready(withKnown, TenantStatus.synced(
                new TenantStatus.Tally(null, null, 0, 0, 0, 4), 4L)));
        assertEquals(false, TenantStatus.knownAlready(tc, known));
        TenantCluster.Status merged = TenantStatus.with(withKnown.status(), TenantStatus.synced(
                new TenantStatus.Tally(null, null, 1, 0, 0, 3), 5L), CLOCK);
        assertEquals("2026-06-01T12:00:00Z", merged.conditions().get(0).lastTransitionTime());
    }

    static Stream<Arguments> degradedRows() {
        return Stream.of(
                Arguments.of(List.of("create StatefulSet dev", "unchanged Service dev-api"),
                        "False AsExpected Every object is in place."),
                Arguments.of(List.of("conflict NetworkPolicy dev-default-deny", "failed Secret dev-kubeconfig"),
                        "True ForeignObject Objects tenantplane does not manage hold names the tenant needs: "
                                + "NetworkPolicy dev-default-deny. They are left alone; rename or remove them."),
                Arguments.of(List.of("failed Secret dev-kubeconfig", "error Role dev"),
                        "True WriteFailed Could not write: Secret dev-kubeconfig, Role dev."));
    }

    @ParameterizedTest
    @MethodSource("degradedRows")
    void degradedNamesForeignObjectsFirstThenFailedWrites(List<String> rows, String expected) {
        Condition c = TenantStatus.degraded(written(rows), 2L);
        assertEquals(Condition.DEGRADED, c.type());
        assertEquals(expected, said(c));
    }

    static Stream<Arguments> isolationRows() {
        return Stream.of(
                Arguments.of(List.of("create NetworkPolicy a", "unchanged ResourceQuota q"),
                        "True Applied 2 isolation objects are in place."),
                Arguments.of(List.of("create NetworkPolicy a", "failed LimitRange l", "conflict NetworkPolicy b"),
                        "False NotApplied Not in place: LimitRange l, NetworkPolicy b."));
    }

    @ParameterizedTest
    @MethodSource("isolationRows")
    void isolationIsAppliedOnlyWhenEveryBoundaryObjectIs(List<String> rows, String expected) {
        Condition c = TenantStatus.isolationApplied(written(rows), 1L);
        assertEquals(Condition.ISOLATION_APPLIED, c.type());
        assertEquals(expected, said(c));
    }
}
