package io.tenantplane.plan;

import com.google.gson.JsonObject;
import java.util.Objects;

/**
 * One planned action on one host object, with the reason for it. The reason is one of {@link Reasons}: a
 * decision with any other is refused when it is made, so every reason in an Event, a metric or {@code explain} is
 * documented.
 *
 * @param action   what happens
 * @param kind     the Kubernetes kind, e.g. {@code Pod}
 * @param source   the tenant object this is about; for a {@code Delete} of an orphan, the source recorded in the
 *                 host object's annotations
 * @param host     the host object this is about
 * @param reason   a stable machine reason in CamelCase, e.g. {@code NotOnHost}, {@code DriftCorrected}
 * @param message  a human sentence explaining the decision
 * @param desired  the host object to write ({@code Create}/{@code Update}/{@code Unchanged}); for a {@code Delete},
 *                 null or the delete options to send ({@code gracePeriodSeconds} for Pods); null otherwise
 * @param observed the host object as read ({@code Update}/{@code Unchanged}/{@code Delete}/{@code Conflict});
 *                 null when absent. Its {@code metadata.resourceVersion} and {@code uid} are the preconditions of the write.
 */
public record Decision(Action action, String kind, SourceRef source, HostRef host, String reason, String message,
                       JsonObject desired, JsonObject observed) {

    public Decision {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
        if (!Reasons.isRegistered(reason)) {
            throw new IllegalArgumentException("reason " + reason + " is not registered: every reason a decision "
                    + "carries is a constant of Reasons, with its meaning in Reasons.all() and docs/explain.md");
        }
    }

    /** Identity of a tenant object: tenant, virtual namespace (null for cluster-scoped kinds) and name. */
    public record SourceRef(String tenant, String virtualNamespace, String name, String uid) {
    }

    /** Identity of a host object: namespace (null for cluster-scoped kinds) and name. */
    public record HostRef(String namespace, String name) {
    }
}
