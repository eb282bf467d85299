package io.tenantplane.plan;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.Objects;

/**
 * One planned action on one host object, with the reason for it. The reason is one of {@link Reasons}: a
 * decision with any other is refused when it is made, so every reason in an Event, a metric or {@code explain} is
 * documented. Planners make decisions through the factories named for their action ({@link #create},
 * {@link #update}, {@link #unchanged}, {@link #delete}, {@link #skip}, {@link #conflict}, {@link #error}), which
 * refuse a decision without the objects its action needs ({@code ArchitectureTest} keeps the planning packages on
 * them); the constructor remains for what executors and observers report (a write that failed before anything was
 * read, a ring entry without its objects).
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

    /**
     * A host object to create: nothing holds its name, and {@code desired} is what is written.
     *
     * @throws NullPointerException when {@code desired} is null
     */
    public static Decision create(String kind, SourceRef source, HostRef host, String reason, String message,
                                  JsonObject desired) {
        return new Decision(Action.CREATE, kind, source, host, reason, message, required(desired, "desired",
                Action.CREATE), null);
    }

    /**
     * An object to update: {@code observed} as read (its {@code resourceVersion} is the write's precondition) and
     * {@code desired} the object to write.
     *
     * @throws NullPointerException when either is null
     */
    public static Decision update(String kind, SourceRef source, HostRef host, String reason, String message,
                                  JsonObject desired, JsonObject observed) {
        return new Decision(Action.UPDATE, kind, source, host, reason, message, required(desired, "desired",
                Action.UPDATE), required(observed, "observed", Action.UPDATE));
    }

    /**
     * An object already as it should be: {@code observed} as read; {@code desired} what it was compared with, or
     * null when nothing was rendered for it (an object kept as it is).
     *
     * @throws NullPointerException when {@code observed} is null
     */
    public static Decision unchanged(String kind, SourceRef source, HostRef host, String reason, String message,
                                     JsonObject desired, JsonObject observed) {
        return new Decision(Action.UNCHANGED, kind, source, host, reason, message, desired, required(observed,
                "observed", Action.UNCHANGED));
    }

    /**
     * An object to delete: {@code observed} as read (its {@code uid} and {@code resourceVersion} are the delete's
     * preconditions, so a replacement made since is never deleted); {@code options} the delete options to send
     * ({@code gracePeriodSeconds}, {@code propagationPolicy}), or null for the defaults.
     *
     * @throws NullPointerException when {@code observed} is null
     */
    public static Decision delete(String kind, SourceRef source, HostRef host, String reason, String message,
                                  JsonObject options, JsonObject observed) {
        return new Decision(Action.DELETE, kind, source, host, reason, message, options, required(observed,
                "observed", Action.DELETE));
    }

    /** A tenant object deliberately not synced; {@code observed} is the host object left as it is, or null. */
    public static Decision skip(String kind, SourceRef source, HostRef host, String reason, String message,
                                JsonObject observed) {
        return new Decision(Action.SKIP, kind, source, host, reason, message, null, observed);
    }

    /**
     * A host name that cannot be written: held by an object tenantplane does not manage for this tenant
     * ({@code observed}), or wanted by two tenant objects at once ({@code observed} is what holds it on the host, null
     * when nothing does yet). Nothing is written.
     */
    public static Decision conflict(String kind, SourceRef source, HostRef host, String reason, String message,
                                    JsonObject observed) {
        return new Decision(Action.CONFLICT, kind, source, host, reason, message, null, observed);
    }

    /** A tenant object that cannot be transformed (invalid input): nothing is written. */
    public static Decision error(String kind, SourceRef source, HostRef host, String reason, String message) {
        return error(kind, source, host, reason, message, null);
    }

    /** An Error whose host copy, {@code observed}, is left as it is. */
    public static Decision error(String kind, SourceRef source, HostRef host, String reason, String message,
                                 JsonObject observed) {
        return new Decision(Action.ERROR, kind, source, host, reason, message, null, observed);
    }

    /**
     * A tenant Pod to bind to a node: an {@code Update} the executor carries out by posting a {@code Binding}, so it
     * has no desired object; {@code pod} is the tenant Pod as read.
     *
     * @throws NullPointerException when {@code pod} is null
     */
    public static Decision binding(SourceRef source, HostRef host, String reason, String message, JsonObject pod) {
        return new Decision(Action.UPDATE, "Pod", source, host, reason, message, null, required(pod, "observed",
                Action.UPDATE));
    }

    /** This decision with another message (what an executor learned while carrying it out). */
    public Decision withMessage(String message) {
        return new Decision(action, kind, source, host, reason, message, desired, observed);
    }

    /** This decision with other objects: the object to write and the object as read. */
    public Decision withObjects(JsonObject desired, JsonObject observed) {
        return new Decision(action, kind, source, host, reason, message, desired, observed);
    }

    private static JsonObject required(JsonObject o, String name, Action action) {
        return Objects.requireNonNull(o, () -> name + " of " + action.display() + " decision");
    }

    /** Identity of a tenant object: tenant, virtual namespace (null for cluster-scoped kinds) and name. */
    public record SourceRef(String tenant, String virtualNamespace, String name, String uid) {

        /** The identity of {@code tenantObject}, a tenant object of {@code tenant}, from its metadata. */
        public static SourceRef of(String tenant, JsonObject tenantObject) {
            return new SourceRef(tenant, Json.string(tenantObject, "metadata", "namespace"),
                    Json.string(tenantObject, "metadata", "name"), Json.string(tenantObject, "metadata", "uid"));
        }
    }

    /** Identity of a host object: namespace (null for cluster-scoped kinds) and name. */
    public record HostRef(String namespace, String name) {

        /** The identity of {@code object} from its metadata. */
        public static HostRef of(JsonObject object) {
            return new HostRef(Json.string(object, "metadata", "namespace"), Json.string(object, "metadata", "name"));
        }
    }
}
