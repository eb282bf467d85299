package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tenantplane.model.Condition;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conditions provisioning and a pass write, from their outcomes alone: table-driven, no API server. Each row is
 * outcomes written as {@code action kind name} ({@code failed} for a write the server refused), and the condition
 * expected.
 */
class ProvisionerConditionsTest {

    private static final TenantKey DEV = new TenantKey("team-dev", "dev");

    private static List<Outcome> outcomes(String... rows) {
        List<Outcome> out = new ArrayList<>();
        for (String row : rows) {
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
            out.add(switch (p[0]) {
                case "failed" -> new Outcome.Failed(d, 500, "InternalError", "refused", 5);
                case "create", "update" -> new Outcome.Applied(d, null, 1);
                default -> new Outcome.NotWritten(d);
            });
        }
        return out;
    }

    static Stream<Arguments> syncedRows() {
        return Stream.of(
                Arguments.of(List.of("create Pod a", "update Service b", "unchanged ConfigMap c"), null,
                        "True Converged The host copies of 3 tenant objects are in sync."),
                Arguments.of(List.of(), null, "True Converged The host copies of 0 tenant objects are in sync."),
                Arguments.of(List.of("create Pod a", "conflict Pod b", "error Pod c"), null,
                        "False Conflicts 1 conflict(s), 1 invalid object(s), 0 failed write(s); see the decisions "
                                + "for details."),
                Arguments.of(List.of("error Pod c"), null,
                        "False InvalidObjects 0 conflict(s), 1 invalid object(s), 0 failed write(s); see the "
                                + "decisions for details."),
                Arguments.of(List.of("failed Pod a"), null,
                        "False WritesFailed 0 conflict(s), 0 invalid object(s), 1 failed write(s); see the "
                                + "decisions for details."),
                Arguments.of(List.of("create Pod a"), "TenantApiUnavailable",
                        "False TenantApiUnavailable the tenant API is not ready"));
    }

    @ParameterizedTest
    @MethodSource("syncedRows")
    void theSyncedConditionSaysWhatThePassDid(List<String> rows, String failure, String expected) {
        ConvergenceReport r = new ConvergenceReport(DEV, outcomes(rows.toArray(String[]::new)), Duration.ZERO,
                failure == null ? null : new ConvergenceReport.PassFailure(failure, "the tenant API is not ready"));
        Condition c = Provisioner.synced(r, 4L);
        assertEquals(Condition.SYNCED, c.type());
        assertEquals(4L, c.observedGeneration());
        assertEquals(expected, c.status().value() + " " + c.reason() + " " + c.message());
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
        Condition c = Provisioner.degraded(outcomes(rows.toArray(String[]::new)), 2L);
        assertEquals(Condition.DEGRADED, c.type());
        assertEquals(expected, c.status().value() + " " + c.reason() + " " + c.message());
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
        Condition c = Provisioner.isolationApplied(outcomes(rows.toArray(String[]::new)), 1L);
        assertEquals(Condition.ISOLATION_APPLIED, c.type());
        assertEquals(expected, c.status().value() + " " + c.reason() + " " + c.message());
    }
}
