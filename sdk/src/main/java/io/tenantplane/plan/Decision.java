package io.tenantplane.plan;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.Objects;

/**
 * One planned action on one host object, with the reason for it: a sealed type with one record per action, each
 * holding exactly the objects its action needs, so a {@code switch} over decisions is checked by the compiler and a
 * decision without its objects cannot be made. The reason is one of {@link Reasons}: a decision with any other is
 * refused when it is made, so every reason in an Event, a metric or {@code explain} is documented. The factories
 * ({@link #create}, {@link #update}, {@link #unchanged}, {@link #delete}, {@link #skip}, {@link #conflict},
 * {@link #error}, {@link #binding}) are named for the action; {@link Summary} is what executors and observers report
 * when the objects are not there (a write that failed before anything could be read, a ring entry kept without
 * them), and only they make it ({@code ArchitectureTest} keeps the planning packages off it).
 *
 * <p>Every decision answers the same questions:
 * <ul>
 *   <li>{@link #action()}: what happens;</li>
 *   <li>{@link #kind()}: the Kubernetes kind, e.g. {@code Pod};</li>
 *   <li>{@link #source()}: the tenant object this is about (for a {@code Delete} of an orphan, the source recorded
 *       in the host object's annotations), or null;</li>
 *   <li>{@link #host()}: the host object this is about;</li>
 *   <li>{@link #reason()}: a stable machine reason in CamelCase, e.g. {@code NotOnHost}, {@code DriftCorrected};</li>
 *   <li>{@link #message()}: a human sentence explaining the decision;</li>
 *   <li>{@link #desired()}: the object to write ({@code Create}, {@code Update}, {@code Unchanged}), the delete
 *       options to send ({@code Delete}, {@code gracePeriodSeconds} for Pods, or null), null otherwise;</li>
 *   <li>{@link #observed()}: the host object as read, or null when absent. Its {@code metadata.resourceVersion} and
 *       {@code uid} are the preconditions of the write.</li>
 * </ul>
 */
public sealed interface Decision permits Decision.Create, Decision.Update, Decision.Bind, Decision.Unchanged,
        Decision.Delete, Decision.Skip, Decision.Conflict, Decision.Error, Decision.Summary {

    /** What happens. */
    Action action();

    /** The Kubernetes kind, e.g. {@code Pod}. */
    String kind();

    /** The tenant object this is about, or null. */
    SourceRef source();

    /** The host object this is about. */
    HostRef host();

    /** One of {@link Reasons}. */
    String reason();

    /** A human sentence explaining the decision. */
    String message();

    /** The object to write, or the delete options of a {@code Delete}; null when the action writes none. */
    JsonObject desired();

    /** The object as read; null when absent or not read. */
    JsonObject observed();

    /** This decision with another message (what an executor learned while carrying it out). */
    Decision withMessage(String message);

    /**
     * This decision with other objects (the object to write and the object as read), checked as its factory checks
     * them.
     *
     * @throws NullPointerException     when the action needs an object that is null
     * @throws IllegalArgumentException when the action takes no such object
     */
    Decision withObjects(JsonObject desired, JsonObject observed);

    /**
     * This decision without the objects it carries: itself when it carries none, else a {@link Summary} of it (or,
     * for {@code Skip}, {@code Conflict} and {@code Error}, the same decision without its observed object).
     */
    default Decision withoutObjects() {
        if (desired() == null && observed() == null) {
            return this;
        }
        return switch (this) {
            case Skip x -> new Skip(x.kind(), x.source(), x.host(), x.reason(), x.message(), null);
            case Conflict x -> new Conflict(x.kind(), x.source(), x.host(), x.reason(), x.message(), null);
            case Error x -> new Error(x.kind(), x.source(), x.host(), x.reason(), x.message(), null);
            default -> new Summary(action(), kind(), source(), host(), reason(), message());
        };
    }

    /**
     * A host object to create: nothing holds its name, and {@code desired} is what is written.
     *
     * @throws NullPointerException when {@code desired} is null
     */
    static Decision create(String kind, SourceRef source, HostRef host, String reason, String message,
                           JsonObject desired) {
        return new Create(kind, source, host, reason, message, desired);
    }

    /**
     * An object to update: {@code observed} as read (its {@code resourceVersion} is the write's precondition) and
     * {@code desired} the object to write.
     *
     * @throws NullPointerException when either is null
     */
    static Decision update(String kind, SourceRef source, HostRef host, String reason, String message,
                           JsonObject desired, JsonObject observed) {
        return new Update(kind, source, host, reason, message, desired, observed);
    }

    /**
     * An object already as it should be: {@code observed} as read; {@code desired} what it was compared with, or
     * null when nothing was rendered for it (an object kept as it is).
     *
     * @throws NullPointerException when {@code observed} is null
     */
    static Decision unchanged(String kind, SourceRef source, HostRef host, String reason, String message,
                              JsonObject desired, JsonObject observed) {
        return new Unchanged(kind, source, host, reason, message, desired, observed);
    }

    /**
     * An object to delete: {@code observed} as read (its {@code uid} and {@code resourceVersion} are the delete's
     * preconditions, so a replacement made since is never deleted); {@code options} the delete options to send
     * ({@code gracePeriodSeconds}, {@code propagationPolicy}), or null for the defaults.
     *
     * @throws NullPointerException when {@code observed} is null
     */
    static Decision delete(String kind, SourceRef source, HostRef host, String reason, String message,
                           JsonObject options, JsonObject observed) {
        return new Delete(kind, source, host, reason, message, options, observed);
    }

    /** A tenant object deliberately not synced; {@code observed} is the host object left as it is, or null. */
    static Decision skip(String kind, SourceRef source, HostRef host, String reason, String message,
                         JsonObject observed) {
        return new Skip(kind, source, host, reason, message, observed);
    }

    /**
     * A host name that cannot be written: held by an object tenantplane does not manage for this tenant
     * ({@code observed}), or wanted by two tenant objects at once ({@code observed} is what holds it on the host, null
     * when nothing does yet). Nothing is written.
     */
    static Decision conflict(String kind, SourceRef source, HostRef host, String reason, String message,
                             JsonObject observed) {
        return new Conflict(kind, source, host, reason, message, observed);
    }

    /** A tenant object that cannot be transformed (invalid input): nothing is written. */
    static Decision error(String kind, SourceRef source, HostRef host, String reason, String message) {
        return new Error(kind, source, host, reason, message, null);
    }

    /** An Error whose host copy, {@code observed}, is left as it is. */
    static Decision error(String kind, SourceRef source, HostRef host, String reason, String message,
                          JsonObject observed) {
        return new Error(kind, source, host, reason, message, observed);
    }

    /**
     * A tenant Pod to bind to a node: an {@code Update} the executor carries out by posting a {@code Binding}, so it
     * has no desired object; {@code pod} is the tenant Pod as read.
     *
     * @throws NullPointerException when {@code pod} is null
     */
    static Decision binding(SourceRef source, HostRef host, String reason, String message, JsonObject pod) {
        return new Bind(source, host, reason, message, pod);
    }

    /**
     * A decision told without its objects: what an executor reports when its write failed before the object could be
     * read, and what an observer keeps of a decision (see {@link #withoutObjects()}). Not for planners.
     */
    static Decision summary(Action action, String kind, SourceRef source, HostRef host, String reason,
                            String message) {
        return new Summary(action, kind, source, host, reason, message);
    }

    /** Create {@code desired}; nothing holds its name. */
    record Create(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject desired)
            implements Decision {
        public Create {
            checked(kind, reason, message);
            required(desired, "desired", Action.CREATE);
        }

        @Override
        public Action action() {
            return Action.CREATE;
        }

        @Override
        public JsonObject observed() {
            return null;
        }

        @Override
        public Decision withMessage(String message) {
            return new Create(kind, source, host, reason, message, desired);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            none(observed, "observed", Action.CREATE);
            return new Create(kind, source, host, reason, message, desired);
        }
    }

    /** Write {@code desired} over {@code observed}, with its {@code resourceVersion} as precondition. */
    record Update(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject desired,
                  JsonObject observed) implements Decision {
        public Update {
            checked(kind, reason, message);
            required(desired, "desired", Action.UPDATE);
            required(observed, "observed", Action.UPDATE);
        }

        @Override
        public Action action() {
            return Action.UPDATE;
        }

        @Override
        public Decision withMessage(String message) {
            return new Update(kind, source, host, reason, message, desired, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            return new Update(kind, source, host, reason, message, desired, observed);
        }
    }

    /** Bind the tenant Pod {@code observed} to a node by posting a {@code Binding}: an {@code Update}. */
    record Bind(SourceRef source, HostRef host, String reason, String message, JsonObject observed)
            implements Decision {
        public Bind {
            checked("Pod", reason, message);
            required(observed, "observed", Action.UPDATE);
        }

        @Override
        public Action action() {
            return Action.UPDATE;
        }

        @Override
        public String kind() {
            return "Pod";
        }

        @Override
        public JsonObject desired() {
            return null;
        }

        @Override
        public Decision withMessage(String message) {
            return new Bind(source, host, reason, message, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            none(desired, "desired", Action.UPDATE);
            return new Bind(source, host, reason, message, observed);
        }
    }

    /** {@code observed} is already as it should be; {@code desired}, when not null, is what it was compared with. */
    record Unchanged(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject desired,
                     JsonObject observed) implements Decision {
        public Unchanged {
            checked(kind, reason, message);
            required(observed, "observed", Action.UNCHANGED);
        }

        @Override
        public Action action() {
            return Action.UNCHANGED;
        }

        @Override
        public Decision withMessage(String message) {
            return new Unchanged(kind, source, host, reason, message, desired, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            return new Unchanged(kind, source, host, reason, message, desired, observed);
        }
    }

    /**
     * Delete {@code observed}, with its {@code uid} and {@code resourceVersion} as preconditions; {@code desired} the
     * delete options, or null for the defaults.
     */
    record Delete(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject desired,
                  JsonObject observed) implements Decision {
        public Delete {
            checked(kind, reason, message);
            required(observed, "observed", Action.DELETE);
        }

        @Override
        public Action action() {
            return Action.DELETE;
        }

        @Override
        public Decision withMessage(String message) {
            return new Delete(kind, source, host, reason, message, desired, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            return new Delete(kind, source, host, reason, message, desired, observed);
        }
    }

    /** Not synced, on purpose; {@code observed} is the host object left as it is, or null. */
    record Skip(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject observed)
            implements Decision {
        public Skip {
            checked(kind, reason, message);
        }

        @Override
        public Action action() {
            return Action.SKIP;
        }

        @Override
        public JsonObject desired() {
            return null;
        }

        @Override
        public Decision withMessage(String message) {
            return new Skip(kind, source, host, reason, message, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            none(desired, "desired", Action.SKIP);
            return new Skip(kind, source, host, reason, message, observed);
        }
    }

    /** The host name cannot be written; {@code observed} is what holds it, or null. */
    record Conflict(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject observed)
            implements Decision {
        public Conflict {
            checked(kind, reason, message);
        }

        @Override
        public Action action() {
            return Action.CONFLICT;
        }

        @Override
        public JsonObject desired() {
            return null;
        }

        @Override
        public Decision withMessage(String message) {
            return new Conflict(kind, source, host, reason, message, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            none(desired, "desired", Action.CONFLICT);
            return new Conflict(kind, source, host, reason, message, observed);
        }
    }

    /** The tenant object cannot be transformed; {@code observed}, the host copy, is left as it is, or null. */
    record Error(String kind, SourceRef source, HostRef host, String reason, String message, JsonObject observed)
            implements Decision {
        public Error {
            checked(kind, reason, message);
        }

        @Override
        public Action action() {
            return Action.ERROR;
        }

        @Override
        public JsonObject desired() {
            return null;
        }

        @Override
        public Decision withMessage(String message) {
            return new Error(kind, source, host, reason, message, observed);
        }

        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            none(desired, "desired", Action.ERROR);
            return new Error(kind, source, host, reason, message, observed);
        }
    }

    /** A decision of any action told without its objects (see {@link Decision#summary}). */
    record Summary(Action action, String kind, SourceRef source, HostRef host, String reason, String message)
            implements Decision {
        public Summary {
            Objects.requireNonNull(action, "action");
            checked(kind, reason, message);
        }

        @Override
        public JsonObject desired() {
            return null;
        }

        @Override
        public JsonObject observed() {
            return null;
        }

        @Override
        public Decision withMessage(String message) {
            return new Summary(action, kind, source, host, reason, message);
        }

        /** @throws IllegalArgumentException always: a summary has no objects to replace */
        @Override
        public Decision withObjects(JsonObject desired, JsonObject observed) {
            throw new IllegalArgumentException("a summary of a " + action.display() + " decision carries no objects; "
                    + "make the decision through its factory instead");
        }
    }

    private static void checked(String kind, String reason, String message) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
        if (!Reasons.isRegistered(reason)) {
            throw new IllegalArgumentException("reason " + reason + " is not registered: every reason a decision "
                    + "carries is a constant of Reasons, with its meaning in Reasons.all() and docs/explain.md");
        }
    }

    private static void required(JsonObject o, String name, Action action) {
        Objects.requireNonNull(o, () -> name + " of " + action.display() + " decision");
    }

    private static void none(JsonObject o, String name, Action action) {
        if (o != null) {
            throw new IllegalArgumentException("a " + action.display() + " decision has no " + name + " object");
        }
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
