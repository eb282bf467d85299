package io.tenantplane.model;

import com.google.gson.annotations.SerializedName;
import java.util.List;

/**
 * One entry of {@code status.conditions}, as Kubernetes API conventions define it. Build desired conditions with
 * {@link #of} (no time) and let {@link Conditions#merge} decide {@code lastTransitionTime}.
 *
 * @param type               CamelCase condition type, e.g. {@link #READY}
 * @param status             True, False or Unknown
 * @param observedGeneration the {@code metadata.generation} the condition was computed from
 * @param lastTransitionTime RFC 3339 time at which {@code status} last changed, e.g. {@code 2025-01-31T12:00:00Z}
 * @param reason             a stable CamelCase machine reason, e.g. {@code ControlPlaneReady}
 * @param message            a human sentence
 */
public record Condition(
        @Required("set the condition type, e.g. Ready") String type,
        @Required("set True, False or Unknown") Status status,
        Long observedGeneration,
        @Required("set the RFC 3339 time of the last status change") String lastTransitionTime,
        @Required("set a CamelCase reason, e.g. ControlPlaneReady") String reason,
        String message) {

    /** The summary condition: the object is fully working. */
    public static final String READY = "Ready";
    /** The spec passed validation (True) or not (False, with the problems in the message). */
    public static final String ACCEPTED = "Accepted";
    /** A TenantCluster's control plane (its StatefulSet) has every replica ready. */
    public static final String CONTROL_PLANE_READY = "ControlPlaneReady";
    /** A TenantCluster's isolation boundary (NetworkPolicies, quota, limits, Pod Security labels) is on the host. */
    public static final String ISOLATION_APPLIED = "IsolationApplied";
    /** The last convergence pass over a TenantCluster's workloads finished without conflicts or errors. */
    public static final String SYNCED = "Synced";
    /** Something tenantplane must own is held by another owner, or a write failed. */
    public static final String DEGRADED = "Degraded";
    /** A TenantCluster is moving between modes (True, with the step as reason), or its last move ended (False). */
    public static final String MIGRATING = "Migrating";

    /** Every condition type tenantplane writes, in the order it lists them. */
    public static final List<String> TYPES = List.of(READY, ACCEPTED, CONTROL_PLANE_READY,
            ISOLATION_APPLIED, SYNCED, DEGRADED, MIGRATING);

    /** A condition's status. */
    public enum Status {
        /** The condition holds. */
        @SerializedName("True") TRUE,
        /** The condition does not hold. */
        @SerializedName("False") FALSE,
        /** Not known yet. */
        @SerializedName("Unknown") UNKNOWN;

        /** {@code True}, {@code False} or {@code Unknown}. */
        public String value() {
            return Enums.jsonValue(this);
        }
    }

    /** A desired condition without a time; {@link Conditions#merge} adds {@code lastTransitionTime}. */
    public static Condition of(String type, Status status, String reason, String message, Long observedGeneration) {
        return new Condition(type, status, observedGeneration, null, reason, message);
    }

    /** True when {@code status} is True. */
    public boolean isTrue() {
        return status == Status.TRUE;
    }

    /** This condition with another {@code lastTransitionTime}. */
    public Condition withLastTransitionTime(String time) {
        return new Condition(type, status, observedGeneration, time, reason, message);
    }
}
