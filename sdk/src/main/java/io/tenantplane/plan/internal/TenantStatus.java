package io.tenantplane.plan.internal;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.Condition;
import io.tenantplane.model.Conditions;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The status of a TenantCluster as a function of what a pass found: the one place that decides every condition,
 * phase and status field the SDK writes on a TenantCluster (provisioning, removal, the {@code Synced} condition of a
 * convergence pass, the steps of a migration). Pure, like the rest of {@code plan}: the caller reads the host, carries
 * out the writes, and hands in what it found; the status writer applies the function to the status as it is then
 * (again after a conflict), so a status computed here is never a stale copy.
 *
 * <p>Every reason here is a row of docs/operations.md's condition table ({@code ConditionsDocTest}).
 */
public final class TenantStatus {

    private TenantStatus() {
    }

    /**
     * What became of one write of a pass: the decision as carried out and whether the server refused it.
     *
     * @param decision the decision (a {@code Conflict} or {@code Error} is never written)
     * @param failed   true when the write was refused or could not be made
     */
    public record Written(Decision decision, boolean failed) {
        public Written {
            Objects.requireNonNull(decision, "decision");
        }

        /** {@code Kind name}, as a condition's message names an object. */
        String describe() {
            return decision.kind() + " " + decision.host().name();
        }

        boolean conflict() {
            return decision.action() == Action.CONFLICT;
        }

        boolean bad() {
            return failed || decision.action() == Action.ERROR;
        }
    }

    // ------------------------------------------------------------ provisioning

    /**
     * The {@code ControlPlaneReady} condition, judged from the control plane's StatefulSet and, where the tenant has
     * one on the host, its DNS Deployment: a tenant whose API answers but whose pods cannot resolve its Services is not
     * a working cluster yet.
     *
     * @param statefulSet the StatefulSet's name, for the message when it does not exist
     * @param sts         the StatefulSet as the pass left it, or null when it does not exist
     * @param refusal     why the host refuses to create a control plane pod (the newest {@code FailedCreate} Event
     *                    its StatefulSet controller wrote), or null; asked for only when {@link #refusalMatters} says
     * @param dns         the tenant DNS Deployment as the pass left it (null when it does not exist), or
     *                    {@link #NO_DNS} when the tenant runs no DNS on the host (private mode: its agents run it)
     */
    public static Condition controlPlaneReady(String statefulSet, JsonObject sts, String refusal, Dns dns,
                                              Long generation) {
        if (sts == null) {
            return Condition.of(Condition.CONTROL_PLANE_READY, Condition.Status.FALSE, "NotCreated",
                    "StatefulSet " + statefulSet + " does not exist.", generation);
        }
        long want = Json.number(sts, 1, "spec", "replicas");
        long ready = Json.number(sts, 0, "status", "readyReplicas");
        String counted = ready + " of " + want + " control plane replicas are ready";
        if (ready < want) {
            if (refusal != null && refusalMatters(sts)) {
                return Condition.of(Condition.CONTROL_PLANE_READY, Condition.Status.FALSE, "PodRefused", counted
                        + ": the host refused to create a control plane pod (" + refusal + "). Give the tenant's "
                        + "namespace room for it, or change what refuses it; the StatefulSet controller tries again.",
                        generation);
            }
            return Condition.of(Condition.CONTROL_PLANE_READY, Condition.Status.FALSE, "ReplicasNotReady",
                    counted + ".", generation);
        }
        if (dns.wanted()) {
            long available = dns.deployment() == null ? 0
                    : Json.number(dns.deployment(), 0, "status", "availableReplicas");
            if (available < 1) {
                String what = dns.deployment() == null ? "does not exist"
                        : "has 0 of " + Json.number(dns.deployment(), 1, "spec", "replicas") + " replicas available";
                String why = dns.deployment() == null ? "" : " (kubectl describe deployment " + dns.name() + " -n "
                        + Json.string(dns.deployment(), "metadata", "namespace") + " says why)";
                return Condition.of(Condition.CONTROL_PLANE_READY, Condition.Status.FALSE, "DnsNotReady", counted
                        + ", but the tenant DNS Deployment " + dns.name() + " " + what + ": the tenant's pods cannot "
                        + "resolve its Services yet" + why + ".", generation);
            }
            return Condition.of(Condition.CONTROL_PLANE_READY, Condition.Status.TRUE, "ReplicasReady",
                    counted + ", and the tenant DNS serves.", generation);
        }
        return Condition.of(Condition.CONTROL_PLANE_READY, Condition.Status.TRUE, "ReplicasReady",
                counted + ".", generation);
    }

    /**
     * The tenant DNS a provisioning judges readiness by.
     *
     * @param name       the DNS Deployment's name, or null when the tenant runs no DNS on the host
     * @param deployment the Deployment as the provisioning left it, or null when it does not exist
     */
    public record Dns(String name, JsonObject deployment) {
        boolean wanted() {
            return name != null;
        }
    }

    /** A tenant that runs no DNS on the host (private mode: its own agents run cluster DNS). */
    public static final Dns NO_DNS = new Dns(null, null);

    /**
     * True when a refusal to create a pod can be why {@code sts} is not ready: it has fewer pods than it wants, so an
     * old refusal of a pod that exists since is never reported. Only then is the refusal worth reading.
     */
    public static boolean refusalMatters(JsonObject sts) {
        return sts != null && Json.number(sts, 0, "status", "readyReplicas") < Json.number(sts, 1, "spec", "replicas")
                && Json.number(sts, 0, "status", "replicas") < Json.number(sts, 1, "spec", "replicas");
    }

    /** The {@code IsolationApplied} condition from the writes of the boundary's objects. */
    public static Condition isolationApplied(List<Written> isolation, Long generation) {
        List<String> bad = isolation.stream().filter(w -> w.bad() || w.conflict()).map(Written::describe).toList();
        if (bad.isEmpty()) {
            return Condition.of(Condition.ISOLATION_APPLIED, Condition.Status.TRUE, "Applied",
                    isolation.size() + " isolation objects are in place.", generation);
        }
        return Condition.of(Condition.ISOLATION_APPLIED, Condition.Status.FALSE, "NotApplied",
                "Not in place: " + String.join(", ", bad) + ".", generation);
    }

    /** The {@code Degraded} condition from every write of the provisioning: a foreign object first, then failures. */
    public static Condition degraded(List<Written> writes, Long generation) {
        List<String> conflicts = writes.stream().filter(Written::conflict).map(Written::describe).toList();
        if (!conflicts.isEmpty()) {
            return Condition.of(Condition.DEGRADED, Condition.Status.TRUE, Reasons.FOREIGN_OBJECT,
                    "Objects tenantplane does not manage hold names the tenant needs: " + String.join(", ", conflicts)
                            + ". They are left alone; rename or remove them.", generation);
        }
        List<String> failed = writes.stream().filter(Written::bad).map(Written::describe).toList();
        if (!failed.isEmpty()) {
            return Condition.of(Condition.DEGRADED, Condition.Status.TRUE, "WriteFailed",
                    "Could not write: " + String.join(", ", failed) + ".", generation);
        }
        return Condition.of(Condition.DEGRADED, Condition.Status.FALSE, "AsExpected", "Every object is in place.",
                generation);
    }

    /**
     * The {@code Ready} condition of a provisioned tenant: True when the control plane is ready, the boundary in
     * place and nothing degraded; else False with the first that is not, in that order of weight: degraded, boundary,
     * control plane.
     */
    public static Condition ready(Condition controlPlane, Condition isolated, Condition degraded, Long generation) {
        if (controlPlane.isTrue() && isolated.isTrue() && !degraded.isTrue()) {
            return Condition.of(Condition.READY, Condition.Status.TRUE, "TenantReady", "The control plane is ready and "
                    + "the isolation boundary is in place.", generation);
        }
        if (degraded.isTrue()) {
            return Condition.of(Condition.READY, Condition.Status.FALSE, "Degraded", degraded.message(), generation);
        }
        if (!isolated.isTrue()) {
            return Condition.of(Condition.READY, Condition.Status.FALSE, "IsolationNotApplied", isolated.message(),
                    generation);
        }
        return Condition.of(Condition.READY, Condition.Status.FALSE, "ControlPlaneNotReady", controlPlane.message(),
                generation);
    }

    /**
     * The {@code Migrating} condition when a migration pass could not even start (the tenant API is unreachable, a
     * read failed) and so wrote no status of its own; null when that is not so.
     *
     * @param tc      the TenantCluster as read
     * @param reason  the reason the migration pass failed before its first step, or null when it did not
     * @param message what failed
     */
    public static Condition migrationNotStarted(TenantCluster tc, String reason, String message, Long generation) {
        if (reason == null || tc.status() == null || tc.status().migration() != null || tc.status().mode() == null) {
            return null;
        }
        String now = tc.status().mode().value();
        return Condition.of(Condition.MIGRATING, Condition.Status.FALSE, reason,
                "spec.mode asks for " + tc.mode().value() + " but the migration from " + now + " mode has not "
                        + "started: " + message + "; the tenant keeps running in " + now + " mode and a later pass "
                        + "starts it", generation);
    }

    /**
     * What one provisioning found, for its status.
     *
     * @param tc           the TenantCluster as read
     * @param place        where the tenant is provisioned: {@code tc}, or the target of a move under way
     * @param moving       true while a migration moves the tenant: phase, {@code Ready}, mode, host namespace and the
     *                     migration are then the migration's
     * @param wantsMove    true when {@code spec.mode} differs from the mode in effect, or a migration is recorded
     * @param generation   {@code metadata.generation} as read
     * @param controlPlane the {@code ControlPlaneReady} condition
     * @param isolation    the writes of the isolation boundary
     * @param writes       every write of the provisioning
     * @param notStarted   {@link #migrationNotStarted}, or null
     * @param kubeconfig   where the tenant's kubeconfig is published
     */
    public record Provisioned(TenantCluster tc, TenantCluster place, boolean moving, boolean wantsMove, Long generation,
                              Condition controlPlane, List<Written> isolation, List<Written> writes,
                              Condition notStarted, TenantCluster.SecretKeyRef kubeconfig) {
        public Provisioned {
            Objects.requireNonNull(tc, "tc");
            Objects.requireNonNull(place, "place");
            Objects.requireNonNull(controlPlane, "controlPlane");
            isolation = List.copyOf(isolation);
            writes = List.copyOf(writes);
        }
    }

    /**
     * The status after a provisioning, from the status as it is now ({@code current}, null when there is none yet):
     * {@code Accepted}, {@code ControlPlaneReady}, {@code IsolationApplied}, {@code Degraded} and (unless moving)
     * {@code Ready}; {@code Synced} Unknown until a pass has run; a refused or failed migration that nobody asks for
     * any more is closed as withdrawn. The mode in effect is set from the spec when the tenant is first provisioned;
     * after that only a migration switches it.
     */
    public static TenantCluster.Status provisioned(Provisioned p, TenantCluster.Status current, Clock clock) {
        Long generation = p.generation();
        Condition isolated = isolationApplied(p.isolation(), generation);
        Condition degraded = degraded(p.writes(), generation);
        Condition ready = ready(p.controlPlane(), isolated, degraded, generation);
        List<Condition> desired = new ArrayList<>(List.of(Conditions.accepted(List.of(), generation),
                p.controlPlane(), isolated, degraded));
        if (p.notStarted() != null) {
            desired.add(p.notStarted());
        }
        if (!p.moving()) {
            desired.add(ready);
        }
        List<Condition> now = current == null ? null : current.conditions();
        if (Conditions.find(now, Condition.SYNCED).isEmpty()) {
            desired.add(Condition.of(Condition.SYNCED, Condition.Status.UNKNOWN, "NotSyncedYet",
                    "No convergence pass has run yet.", generation));
        }
        if (!p.wantsMove() && withdrawn(current)) {
            desired.add(Condition.of(Condition.MIGRATING, Condition.Status.FALSE, "MigrationWithdrawn",
                    "spec.mode is " + p.tc().mode().value() + " again, the mode in effect: no migration", generation));
        }
        List<Condition> merged = Conditions.merge(now, desired, clock);
        if (p.moving() && current != null) {
            return new TenantCluster.Status(current.phase(), generation, merged, current.hostNamespace(),
                    p.kubeconfig(), current.mode(), current.migration());
        }
        TenantCluster.Phase phase = degraded.isTrue() ? TenantCluster.Phase.DEGRADED
                : ready.isTrue() ? TenantCluster.Phase.READY : TenantCluster.Phase.PROVISIONING;
        return new TenantCluster.Status(phase, generation, merged, p.place().hostNamespace(), p.kubeconfig(),
                p.place().mode(), current == null ? null : current.migration());
    }

    /**
     * True when {@code Migrating} says a migration was refused or could not start, though spec.mode is the mode in
     * effect again: the condition would otherwise keep telling of a move nobody asks for any more.
     */
    static boolean withdrawn(TenantCluster.Status current) {
        return current != null && Conditions.find(current.conditions(), Condition.MIGRATING)
                .filter(c -> !c.isTrue() && !"MigrationComplete".equals(c.reason())
                        && !"MigrationWithdrawn".equals(c.reason())).isPresent();
    }

    /**
     * The status of a TenantCluster whose spec (or what it references) is invalid: phase Pending, {@code Accepted}
     * False naming every problem, {@code Ready} False naming the first; the rest as it is now.
     */
    public static TenantCluster.Status invalid(List<Problem> problems, Long generation, TenantCluster.Status current,
                                               Clock clock) {
        Problem first = problems.get(0);
        String message = (first.field() == null ? "" : first.field() + ": ") + first.message()
                + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more problem(s), see Accepted)" : "");
        Condition accepted = Conditions.accepted(problems, generation);
        Condition ready = Condition.of(Condition.READY, Condition.Status.FALSE, "InvalidSpec", message, generation);
        TenantCluster.Status s = orEmpty(current);
        return new TenantCluster.Status(TenantCluster.Phase.PENDING, generation,
                Conditions.merge(current == null ? null : current.conditions(), List.of(accepted, ready), clock),
                s.hostNamespace(), s.kubeconfigSecretRef(), s.mode(), s.migration());
    }

    /** The status of a TenantCluster being removed: phase Deleting, the rest as it is now. */
    public static TenantCluster.Status deleting(TenantCluster.Status current) {
        TenantCluster.Status s = orEmpty(current);
        return new TenantCluster.Status(TenantCluster.Phase.DELETING, s.observedGeneration(), s.conditions(),
                s.hostNamespace(), s.kubeconfigSecretRef(), s.mode(), s.migration());
    }

    // ------------------------------------------------------------ convergence

    /**
     * What a convergence pass did, counted for its {@code Synced} condition.
     *
     * @param failure   the reason the pass failed as a whole, or null
     * @param message   what failed, when it did
     * @param conflicts {@code Conflict} decisions
     * @param errors    {@code Error} decisions
     * @param failed    refused writes
     * @param inSync    host copies the pass left as planned (created, updated or unchanged), each counted once
     */
    public record Tally(String failure, String message, long conflicts, long errors, long failed, long inSync) {
    }

    /** The {@code Synced} condition of a pass. */
    public static Condition synced(Tally t, Long generation) {
        if (t.failure() != null) {
            return Condition.of(Condition.SYNCED, Condition.Status.FALSE, t.failure(), t.message(), generation);
        }
        if (t.conflicts() + t.errors() + t.failed() == 0) {
            return Condition.of(Condition.SYNCED, Condition.Status.TRUE, "Converged",
                    "The host copies of " + t.inSync() + " tenant objects are in sync.", generation);
        }
        String reason = t.conflicts() > 0 ? "Conflicts" : t.errors() > 0 ? "InvalidObjects" : "WritesFailed";
        return Condition.of(Condition.SYNCED, Condition.Status.FALSE, reason, t.conflicts() + " conflict(s), "
                + t.errors() + " invalid object(s), " + t.failed() + " failed write(s); see the decisions for details.",
                generation);
    }

    /**
     * True when {@code synced} says what the {@code Synced} condition of {@code tc} (as read) already says, so that
     * nothing needs writing.
     */
    public static boolean knownAlready(TenantCluster tc, Condition synced) {
        return Conditions.find(tc.status() == null ? null : tc.status().conditions(), Condition.SYNCED)
                .filter(known -> synced.withLastTransitionTime(known.lastTransitionTime()).equals(known))
                .isPresent();
    }

    /** The status as it is now with {@code condition} merged in; nothing else changes. */
    public static TenantCluster.Status with(TenantCluster.Status current, Condition condition, Clock clock) {
        TenantCluster.Status s = orEmpty(current);
        return new TenantCluster.Status(s.phase(), s.observedGeneration(),
                Conditions.merge(s.conditions(), List.of(condition), clock), s.hostNamespace(),
                s.kubeconfigSecretRef(), s.mode(), s.migration());
    }

    // ------------------------------------------------------------ migration

    /**
     * The conditions of a migration step in progress: {@code Migrating} True with the step as reason, {@code Ready}
     * False while the tenant moves.
     */
    public static List<Condition> migrationStep(String tenant, TenantCluster.Mode to, String step, String message,
                                                Long generation) {
        return List.of(Condition.of(Condition.MIGRATING, Condition.Status.TRUE, step, message, generation),
                Condition.of(Condition.READY, Condition.Status.FALSE, "Migrating", "tenant " + tenant
                        + " is moving to " + to.value() + " mode: " + step, generation));
    }

    /** The condition of a migration refused before it started ({@code field: message}). */
    public static Condition migrationRejected(String reason, String field, String message, Long generation) {
        return Condition.of(Condition.MIGRATING, Condition.Status.FALSE, reason, field + ": " + message, generation);
    }

    /** The conditions of a completed migration: {@code Migrating} False and {@code Ready} True. */
    public static List<Condition> migrationComplete(String tenant, TenantCluster.Mode from, TenantCluster.Mode to,
                                                    Long generation) {
        return List.of(Condition.of(Condition.MIGRATING, Condition.Status.FALSE, "MigrationComplete", "moved from "
                        + from.value() + " to " + to.value() + " mode", generation),
                Condition.of(Condition.READY, Condition.Status.TRUE, "MigrationComplete", "tenant " + tenant
                        + " runs in " + to.value() + " mode", generation));
    }

    /**
     * The status while a migration step runs, as recorded before the step writes anything: phase {@code Migrating},
     * {@code status.migration} at the step, the step's {@link #migrationStep} conditions; mode, host namespace and
     * the rest as they are (a migration switches them itself, last).
     */
    public static TenantCluster.Status migrationRecorded(TenantCluster.Status current, TenantCluster.Migration state,
                                                         String tenant, String step, String message,
                                                         Long generation, Clock clock) {
        TenantCluster.Status s = orEmpty(current);
        return new TenantCluster.Status(TenantCluster.Phase.MIGRATING, s.observedGeneration(),
                Conditions.merge(s.conditions(), migrationStep(tenant, state.to(), step, message, generation), clock),
                s.hostNamespace(), s.kubeconfigSecretRef(), s.mode(), state);
    }

    /**
     * The status of a completed migration: {@code status.migration} gone, phase {@code Ready}, the
     * {@link #migrationComplete} conditions.
     */
    public static TenantCluster.Status migrationCompleted(TenantCluster.Status current, String tenant,
                                                          TenantCluster.Mode from, TenantCluster.Mode to,
                                                          Long generation, Clock clock) {
        TenantCluster.Status s = orEmpty(current);
        return new TenantCluster.Status(TenantCluster.Phase.READY, s.observedGeneration(),
                Conditions.merge(s.conditions(), migrationComplete(tenant, from, to, generation), clock),
                s.hostNamespace(), s.kubeconfigSecretRef(), s.mode(), null);
    }

    /**
     * The status with the tenant placed: {@code status.mode} and {@code status.hostNamespace} switched to where a
     * migration has moved the tenant, everything else as it is (the migration's own record goes when it completes).
     */
    public static TenantCluster.Status placed(TenantCluster.Status current, TenantCluster.Mode mode,
                                              String hostNamespace) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(hostNamespace, "hostNamespace");
        TenantCluster.Status s = orEmpty(current);
        return new TenantCluster.Status(s.phase(), s.observedGeneration(), s.conditions(), hostNamespace,
                s.kubeconfigSecretRef(), mode, s.migration());
    }

    private static TenantCluster.Status orEmpty(TenantCluster.Status current) {
        return current == null ? new TenantCluster.Status(null, null, List.of(), null, null, null) : current;
    }
}
