package io.tenantplane.apply;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.internal.Rest;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Executes {@link Decision}s against one API server: the only code in tenantplane that writes synced and provisioned
 * objects. Thread-safe; one instance per API server.
 *
 * <ul>
 *   <li>{@code Create} posts the desired object, which never overwrites anything; an {@code AlreadyExists} answer
 *       re-reads the object at once and plans it again (it may now be an {@code Update}, or a {@code Conflict} with a
 *       foreign object, which is then written nowhere). So callers need not look a name up before creating it.</li>
 *   <li>{@code Update} replaces the object carrying the {@code resourceVersion} that was read, so a concurrent change
 *       is never overwritten: a {@code Conflict} answer re-reads, plans that one object again and retries with
 *       bounded exponential backoff. Fields the host owns (a Pod's {@code nodeName}, a Service's cluster IPs, a
 *       claim's bound volume, finalizers) are carried from the object as read.</li>
 *   <li>{@code Delete} carries {@code preconditions.uid} and {@code resourceVersion}: an object that was replaced or
 *       changed since it was read is never deleted by mistake; it is re-read and planned again.</li>
 *   <li>Other actions write nothing and come back as {@link Outcome.NotWritten}.</li>
 * </ul>
 *
 * <p>Answers the API server gives (404, 409, 422, ...) come back as {@link Outcome.Failed}, never as exceptions;
 * throttling, server errors and lost connections are retried within the same attempt budget.
 */
public final class Applier {

    private static final ResourceKind TENANT_CLUSTERS = ResourceKind.wellKnown(TenantCluster.API_VERSION,
            TenantCluster.KIND).orElseThrow();

    private final Rest rest;
    private final Resources resources;
    private final Observer observer;
    private final Retries retries;
    private final String fieldManager;

    private Applier(Builder b) {
        this.rest = new Rest(b.client);
        this.resources = b.resources != null ? b.resources : Resources.of(b.client);
        this.observer = b.observer;
        this.retries = b.retries;
        this.fieldManager = b.fieldManager;
    }

    private Applier(Applier a, Rest rest) {
        this.rest = rest;
        this.resources = a.resources;
        this.observer = a.observer;
        this.retries = a.retries;
        this.fieldManager = a.fieldManager;
    }

    /**
     * This applier with every request it sends (writes and the re-reads after conflicts) waiting for a token of
     * {@code rate} for {@code tenant} first; the same applier when the rate is unlimited.
     */
    public Applier throttled(WriteRate rate, Object tenant) {
        return rate.limited() ? new Applier(this, rest.throttled(rate, tenant)) : this;
    }

    /** A {@link Reader} of the same API server that tries a failed read again as this applier tries a write. */
    public Reader reader() {
        return new Reader(rest.client(), retries);
    }

    /** A builder; {@link Builder#client(ApiClient)} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Plans one object again after the API server said the plan was stale.
     */
    @FunctionalInterface
    public interface Replanner {

        /** Never re-plans: a stale decision fails with the server's answer. */
        Replanner NONE = (stale, current) -> null;

        /**
         * @param stale   the decision the server refused
         * @param current the object as it is now, or null when it does not exist
         * @return the decision to execute instead, or null to give up (the outcome is then the server's refusal)
         */
        Decision replan(Decision stale, JsonObject current);
    }

    /**
     * Executes one decision. The returned outcome carries the decision that was finally executed, which differs from
     * {@code decision} when the object had to be planned again. An {@code Update} whose reason is
     * {@link Reasons#EPHEMERAL_CONTAINERS_ADDED} is written through the Pod's {@code ephemeralcontainers} subresource
     * ({@link #addEphemeralContainers}), the only write a Pod takes them from.
     */
    public Outcome apply(Decision decision, Replanner replanner) {
        Objects.requireNonNull(decision, "decision");
        if (decision.action() == Action.UPDATE && Reasons.EPHEMERAL_CONTAINERS_ADDED.equals(decision.reason())) {
            return addEphemeralContainers(decision);
        }
        Replanner again = replanner == null ? Replanner.NONE : replanner;
        Decision current = decision;
        int attempts = 0;
        while (true) {
            if (!current.action().writes()) {
                return new Outcome.NotWritten(current);
            }
            ResourceKind kind = kindOf(current);
            Target target = target(current, kind);
            attempts++;
            Rest.Reply reply = write(current, kind, target);
            if (reply.ok()) {
                return new Outcome.Applied(current, current.action() == Action.DELETE ? null : reply.body(), attempts);
            }
            observer.apiError(verb(current.action()), kind.plural(), reply.code());
            if (current.action() == Action.DELETE && reply.code() == 404) {
                return new Outcome.NotWritten(current);
            }
            boolean stale = reply.code() == 409 || (reply.code() == 404 && current.action() == Action.UPDATE);
            if (attempts >= retries.maxAttempts() || !(stale || reply.retryable())) {
                return failed(current, reply, attempts);
            }
            // A name already taken is an answer, not contention: nothing is gained by waiting before reading it.
            boolean taken = current.action() == Action.CREATE && reply.code() == 409;
            if (!taken) {
                sleep(attempts);
            }
            if (stale) {
                Rest.Reply fresh = rest.get(kind.objectPath(target.namespace(), target.name()));
                if (!fresh.ok() && fresh.code() != 404) {
                    observer.apiError("get", kind.plural(), fresh.code());
                    continue;
                }
                JsonObject now = fresh.ok() ? withType(fresh.body(), kind) : null;
                Decision next = again.replan(current, now);
                if (next == null) {
                    return failed(current, reply, attempts);
                }
                current = next;
            }
        }
    }

    /**
     * Writes {@code decision.desired()}'s {@code status} to the status subresource of {@code decision.observed()}
     * (the object as read; its {@code resourceVersion} is the precondition). On a conflict the object is re-read and
     * the write is retried unless the status already is the desired one.
     */
    public Outcome applyStatus(Decision decision) {
        return writeObserved(decision, "status", body -> {
            body.remove("status");
            if (decision.desired().has("status")) {
                body.add("status", decision.desired().get("status").deepCopy());
            }
        }, fresh -> Objects.equals(fresh.get("status"), decision.desired().get("status")));
    }

    /**
     * Adds {@code decision.desired()}'s ephemeral containers to the Pod {@code decision.observed()} through its
     * {@code ephemeralcontainers} subresource, the only write an API server takes them from ({@code kubectl debug}
     * uses it too); the server keeps everything else of the Pod as it is. On a conflict the Pod is re-read and the
     * write retried unless it already has them.
     */
    private Outcome addEphemeralContainers(Decision decision) {
        JsonElement wanted = Json.object(decision.desired(), "spec") == null ? null
                : decision.desired().getAsJsonObject("spec").get("ephemeralContainers");
        return writeObserved(decision, "ephemeralcontainers", body -> {
            if (wanted != null) {
                Json.child(body, "spec").add("ephemeralContainers", wanted.deepCopy());
            }
        }, fresh -> Objects.equals(Json.object(fresh, "spec") == null ? null
                : fresh.getAsJsonObject("spec").get("ephemeralContainers"), wanted));
    }

    /**
     * Writes {@code decision.desired()} over {@code decision.observed()} at the observed object's own place, with its
     * {@code resourceVersion} as the precondition: for an update of a tenant object from its host copy, a decision
     * that names the host copy as its {@code host} (the node ports a tenant Service takes). On a conflict the object is
     * re-read and {@code again} computes what to write from the fresh one: null when nothing is left to write.
     */
    public Outcome updateInPlace(Decision decision, java.util.function.UnaryOperator<JsonObject> again) {
        Objects.requireNonNull(again, "again");
        boolean[] first = {true};
        return writeObserved(decision, null, body -> {
            JsonObject next = first[0] ? decision.desired() : again.apply(body);
            first[0] = false;
            body.entrySet().clear();
            next.entrySet().forEach(e -> body.add(e.getKey(), e.getValue().deepCopy()));
        }, fresh -> again.apply(fresh) == null);
    }

    /**
     * Writes {@code decision.observed()} (a {@code subresource} of it, or the object itself when null): a PUT of the
     * object as read, as {@code edit} changes it,
     * with its {@code resourceVersion} as the precondition; on a conflict the object is re-read and the write retried
     * (edited again from the fresh object) unless {@code done} says the fresh object already is as wanted.
     */
    private Outcome writeObserved(Decision decision, String subresource,
                                  java.util.function.Consumer<JsonObject> edit,
                                  java.util.function.Predicate<JsonObject> done) {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(decision.desired(), "decision.desired");
        Objects.requireNonNull(decision.observed(), "decision.observed");
        ResourceKind kind = kindOf(decision);
        JsonObject observed = decision.observed();
        String ns = Json.string(observed, "metadata", "namespace");
        String name = Json.string(observed, "metadata", "name");
        String path = kind.objectPath(kind.namespaced() ? ns : null, name)
                + (subresource == null ? "" : "/" + subresource);
        int attempts = 0;
        while (true) {
            attempts++;
            JsonObject body = withType(observed.deepCopy(), kind);
            edit.accept(body);
            Rest.Reply reply = rest.call("PUT", path, query(), body);
            if (reply.ok()) {
                return new Outcome.Applied(decision, reply.body(), attempts);
            }
            observer.apiError("update", kind.plural() + (subresource == null ? "" : "/" + subresource),
                    reply.code());
            if (attempts >= retries.maxAttempts() || !reply.retryable()) {
                return failed(decision, reply, attempts);
            }
            sleep(attempts);
            if (reply.code() == 409) {
                Rest.Reply fresh = rest.get(kind.objectPath(kind.namespaced() ? ns : null, name));
                if (fresh.code() == 404) {
                    return failed(decision, fresh, attempts);
                }
                if (fresh.ok()) {
                    if (done.test(fresh.body())) {
                        return new Outcome.NotWritten(decision);
                    }
                    observed = fresh.body();
                }
            }
        }
    }

    /**
     * {@link #writeStatus} of a TenantCluster, typed: {@code next} maps its status as read (null when it has none) to
     * the status it should have. The provisioning and the migration write every status of a TenantCluster through
     * this, so both build on what the other wrote.
     */
    public Outcome writeStatus(String namespace, String name, JsonObject current, String reason, String message,
                               UnaryOperator<TenantCluster.Status> next) {
        Objects.requireNonNull(next, "next");
        return writeStatus(TENANT_CLUSTERS, namespace, name, current, reason, message, json -> {
            TenantCluster.Status now = json == null ? null : Json.gson().fromJson(json, TenantCluster.Status.class);
            return Json.gson().toJsonTree(next.apply(now)).getAsJsonObject();
        });
    }

    /**
     * Writes the status that {@code next} computes from an object's current status, the one way tenantplane writes
     * a status it computes (the TenantCluster's conditions and phase, a migration's progress): the object is read
     * (unless {@code current} is given), {@code next} maps its {@code status} (null when it has none) to the status it
     * should have, and that is written to the status subresource with the object's {@code resourceVersion} as
     * precondition. On a conflict the object is read again and {@code next} asked again, so a status another writer
     * changed meanwhile is built on, never overwritten; this uses the applier's attempts and backoff.
     *
     * @param current the object as just read, or null to read it first
     * @param next    the desired status from the current one; called once per attempt, so it must not have effects
     * @return {@link Outcome.NotWritten} of an {@code Unchanged} decision when the status already is what {@code next}
     *     computes; {@link Outcome.Applied} with the object as written; {@link Outcome.Failed} (404 when the object is
     *     gone) otherwise. Each decision carries the status computed ({@code desired}) and the object read
     *     ({@code observed}).
     */
    public Outcome writeStatus(ResourceKind kind, String namespace, String name, JsonObject current, String reason,
                               String message, UnaryOperator<JsonObject> next) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(next, "next");
        String path = kind.objectPath(kind.namespaced() ? namespace : null, name);
        Decision.HostRef ref = new Decision.HostRef(kind.namespaced() ? namespace : null, name);
        JsonObject observed = current;
        for (int attempts = 1; ; attempts++) {
            if (observed == null) {
                Rest.Reply read = rest.get(path);
                if (!read.ok()) {
                    observer.apiError("get", kind.plural(), read.code());
                    if (attempts >= retries.maxAttempts() || read.code() == 404 || !read.retryable()) {
                        return failed(Decision.summary(Action.UPDATE, kind.kind(), null, ref, reason, message),
                                read, attempts);
                    }
                    sleep(attempts);
                    continue;
                }
                observed = read.body();
            }
            JsonElement was = observed.get("status");
            JsonObject status = next.apply(was != null && was.isJsonObject() ? was.getAsJsonObject().deepCopy() : null);
            JsonObject desired = observed.deepCopy();
            desired.remove("status");
            if (status != null) {
                desired.add("status", status);
            }
            if (Objects.equals(was, desired.get("status"))) {
                return new Outcome.NotWritten(Decision.unchanged(kind.kind(), null, ref, Reasons.IN_SYNC,
                        message + " is current", desired, observed));
            }
            Decision d = Decision.update(kind.kind(), null, ref, reason, message, desired, observed);
            JsonObject body = withType(desired.deepCopy(), kind);
            Rest.Reply reply = rest.call("PUT", path + "/status", query(), body);
            if (reply.ok()) {
                return new Outcome.Applied(d, reply.body(), attempts);
            }
            observer.apiError("update", kind.plural() + "/status", reply.code());
            if (attempts >= retries.maxAttempts() || !reply.retryable()) {
                return failed(d, reply, attempts);
            }
            sleep(attempts);
            if (reply.code() == 409) {
                observed = null;
            }
        }
    }

    /**
     * Binds the Pod {@code decision.observed()} to the node {@code nodeName} through the {@code pods/binding}
     * subresource, as a scheduler does.
     */
    public Outcome bind(Decision decision, String nodeName) {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(decision.observed(), "decision.observed");
        Objects.requireNonNull(nodeName, "nodeName");
        JsonObject pod = decision.observed();
        String ns = Json.string(pod, "metadata", "namespace");
        String name = Json.string(pod, "metadata", "name");
        JsonObject binding = new JsonObject();
        binding.addProperty("apiVersion", "v1");
        binding.addProperty("kind", "Binding");
        JsonObject meta = Json.child(binding, "metadata");
        meta.addProperty("name", name);
        meta.addProperty("namespace", ns);
        String uid = Json.string(pod, "metadata", "uid");
        if (uid != null) {
            meta.addProperty("uid", uid);
        }
        JsonObject target = Json.child(binding, "target");
        target.addProperty("apiVersion", "v1");
        target.addProperty("kind", "Node");
        target.addProperty("name", nodeName);
        String path = ResourceKind.wellKnown("v1", "Pod").orElseThrow().objectPath(ns, name) + "/binding";
        int attempts = 0;
        while (true) {
            attempts++;
            Rest.Reply reply = rest.call("POST", path, query(), binding);
            if (reply.ok()) {
                return new Outcome.Applied(decision, reply.body(), attempts);
            }
            observer.apiError("create", "pods/binding", reply.code());
            // A 409 here means the pod is already bound: retrying cannot change that. Bound to this very node (by
            // another pass that saw the same host copy), there is nothing left to write.
            if (reply.code() == 409) {
                Rest.Reply now = rest.get(ResourceKind.wellKnown("v1", "Pod").orElseThrow().objectPath(ns, name));
                if (now.ok() && nodeName.equals(Json.string(now.body(), "spec", "nodeName"))) {
                    return new Outcome.NotWritten(decision);
                }
            }
            if (attempts >= retries.maxAttempts() || reply.code() == 409 || !reply.retryable()) {
                return failed(decision, reply, attempts);
            }
            sleep(attempts);
        }
    }

    /**
     * Replaces {@code decision.observed()} by {@code decision.desired()} under the same name, for a field the API
     * server never lets change (a Service's ClusterIP): a delete with the observed object's uid and resourceVersion as
     * preconditions, then a create. When the create is refused the observed object is created again as it was (without
     * what its server allocated), so the object is never lost; the outcome is then the refusal. When another writer got
     * there first (the object changed or was deleted meanwhile, so the delete's preconditions fail or it finds
     * nothing; or it was created again between the delete and the create), nothing more is written and the outcome is
     * not a failure: the next pass decides again. In particular an object its owner deleted meanwhile is never
     * created again from the stale copy.
     */
    public Outcome recreate(Decision decision) {
        Objects.requireNonNull(decision, "decision");
        JsonObject observed = Objects.requireNonNull(decision.observed(), "decision.observed");
        JsonObject desired = Objects.requireNonNull(decision.desired(), "decision.desired");
        ResourceKind kind = kindOf(decision);
        String ns = kind.namespaced() ? Json.string(observed, "metadata", "namespace") : null;
        String name = Json.string(observed, "metadata", "name");
        Rest.Reply deleted = rest.call("DELETE", kind.objectPath(ns, name), Map.of(), deleteOptions(observed, null));
        if (deleted.code() == 404 || deleted.code() == 409) {
            return new Outcome.NotWritten(decision.withMessage(decision.message() + "; not written: " + kind.kind()
                    + " " + name + " was " + (deleted.code() == 404 ? "deleted" : "changed") + " meanwhile ("
                    + deleted.code() + " " + deleted.message() + "), the next pass decides again"));
        }
        if (!deleted.ok()) {
            observer.apiError("delete", kind.plural(), deleted.code());
            return failed(decision, deleted, 1);
        }
        Rest.Reply created = rest.call("POST", kind.collectionPath(ns), query(), withType(fresh(desired), kind));
        if (created.ok()) {
            return new Outcome.Applied(decision, created.body(), 1);
        }
        if (created.code() == 409 && "AlreadyExists".equals(created.reason())) {
            // Another writer created it between our delete and our create: nothing is lost, and it is not ours to
            // replace again now.
            return new Outcome.NotWritten(decision.withMessage(decision.message() + "; not written: " + kind.kind()
                    + " " + name + " was created again meanwhile by another writer, the next pass decides again"));
        }
        observer.apiError("create", kind.plural(), created.code());
        JsonObject restore = withType(fresh(observed), kind);
        JsonObject spec = Json.object(restore, "spec");
        if (spec != null && kind.kind().equals("Service")) {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
        Rest.Reply restored = rest.call("POST", kind.collectionPath(ns), query(), restore);
        String note = restored.ok() ? "; the object was created again as it was"
                : "; creating it again as it was failed too (" + restored.code() + " " + restored.message() + ")";
        return new Outcome.Failed(decision, created.code(), created.reason(), created.message() + note, 1);
    }

    /** A copy without what the server set on the object (identity, versions, timestamps, status). */
    private static JsonObject fresh(JsonObject o) {
        JsonObject copy = o.deepCopy();
        JsonObject meta = Json.child(copy, "metadata");
        for (String f : List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
                "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")) {
            meta.remove(f);
        }
        copy.remove("status");
        return copy;
    }

    private Rest.Reply write(Decision d, ResourceKind kind, Target t) {
        return switch (d) {
            case Decision.Create c -> {
                JsonObject body = withType(c.desired().deepCopy(), kind);
                Json.child(body, "metadata").remove("resourceVersion");
                yield rest.call("POST", kind.collectionPath(t.namespace()), query(), body);
            }
            case Decision.Update u -> {
                JsonObject body = withType(u.desired().deepCopy(), kind);
                HostOwnedFields.carry(kind.kind(), u.observed(), body);
                String rv = Json.string(u.observed(), "metadata", "resourceVersion");
                JsonObject meta = Json.child(body, "metadata");
                if (rv != null) {
                    meta.addProperty("resourceVersion", rv);
                }
                yield rest.call("PUT", kind.objectPath(t.namespace(), t.name()), query(), body);
            }
            case Decision.Delete x -> rest.call("DELETE", kind.objectPath(t.namespace(), t.name()), Map.of(),
                    deleteOptions(x.observed(), x.desired()));
            case Decision.Bind b -> throw new IllegalStateException("a binding is written by bind(decision, node), "
                    + "not apply: " + b);
            case Decision.Summary x -> throw new IllegalStateException("a summary carries no object to write: " + x);
            case Decision.Unchanged x -> throw new IllegalStateException("not a write: " + x.action());
            case Decision.Skip x -> throw new IllegalStateException("not a write: " + x.action());
            case Decision.Conflict x -> throw new IllegalStateException("not a write: " + x.action());
            case Decision.Error x -> throw new IllegalStateException("not a write: " + x.action());
        };
    }

    /** DeleteOptions: background propagation (or the {@code propagationPolicy} a Delete decision carries in its
     * {@code desired}, e.g. {@code Orphan}), the observed object's uid and resourceVersion as preconditions, and the
     * {@code gracePeriodSeconds} a Delete decision carries in its {@code desired} (Pods). */
    private static JsonObject deleteOptions(JsonObject observed, JsonObject desired) {
        JsonObject options = new JsonObject();
        options.addProperty("apiVersion", "v1");
        options.addProperty("kind", "DeleteOptions");
        options.addProperty("propagationPolicy", desired != null && desired.has("propagationPolicy")
                ? Json.string(desired, "propagationPolicy") : "Background");
        if (desired != null && desired.has("gracePeriodSeconds")) {
            options.add("gracePeriodSeconds", desired.get("gracePeriodSeconds").deepCopy());
        }
        if (observed != null) {
            JsonObject pre = new JsonObject();
            String uid = Json.string(observed, "metadata", "uid");
            String rv = Json.string(observed, "metadata", "resourceVersion");
            if (uid != null) {
                pre.addProperty("uid", uid);
            }
            if (rv != null) {
                pre.addProperty("resourceVersion", rv);
            }
            options.add("preconditions", pre);
        }
        return options;
    }

    private Map<String, String> query() {
        return Map.of("fieldManager", fieldManager);
    }

    private ResourceKind kindOf(Decision d) {
        String apiVersion = null;
        if (d.desired() != null) {
            apiVersion = Json.string(d.desired(), "apiVersion");
        }
        if (apiVersion == null && d.observed() != null) {
            apiVersion = Json.string(d.observed(), "apiVersion");
        }
        return resources.resolve(apiVersion, d.kind());
    }

    private static Target target(Decision d, ResourceKind kind) {
        String ns = d.host() == null ? null : d.host().namespace();
        String name = d.host() == null ? null : d.host().name();
        JsonObject obj = d.observed() != null ? d.observed() : d.desired();
        if (name == null && obj != null) {
            name = Json.string(obj, "metadata", "name");
        }
        if (ns == null && obj != null) {
            ns = Json.string(obj, "metadata", "namespace");
        }
        if (!kind.namespaced()) {
            ns = null;
        }
        if (name == null) {
            throw new IllegalArgumentException("decision names no object: " + d);
        }
        return new Target(ns, name);
    }

    private record Target(String namespace, String name) {
    }

    private static JsonObject withType(JsonObject obj, ResourceKind kind) {
        if (obj != null) {
            if (!obj.has("apiVersion")) {
                obj.addProperty("apiVersion", kind.apiVersion());
            }
            if (!obj.has("kind")) {
                obj.addProperty("kind", kind.kind());
            }
        }
        return obj;
    }

    private static Outcome.Failed failed(Decision d, Rest.Reply reply, int attempts) {
        return new Outcome.Failed(d, reply.code(), reply.reason(), reply.message(), attempts);
    }

    private static String verb(Action a) {
        return switch (a) {
            case CREATE -> "create";
            case UPDATE -> "update";
            case DELETE -> "delete";
            default -> a.display().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private void sleep(int attempt) {
        try {
            Thread.sleep(retries.backoff(attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApplyInterruptedException(e);
        }
    }

    /** Configures an {@link Applier}. Not thread-safe; {@link #build()} copies the configuration. */
    public static final class Builder {
        private ApiClient client;
        private Resources resources;
        private Observer observer = Observer.NOOP;
        private Retries retries = Retries.DEFAULT;
        private String fieldManager = "tenantplane";

        private Builder() {
        }

        /** The API server to write to. Required. */
        public Builder client(ApiClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /** Kind resolution to share with readers of the same server; by default a new {@link Resources}. */
        public Builder resources(Resources resources) {
            this.resources = Objects.requireNonNull(resources, "resources");
            return this;
        }

        /** Receives {@link Observer#apiError} for every refused request. */
        public Builder observer(Observer observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * Attempts per decision, including the first (default 5).
         *
         * @throws IllegalArgumentException when {@code maxAttempts} is less than 1
         */
        public Builder maxAttempts(int maxAttempts) {
            return retries(new Retries(maxAttempts, retries.initialBackoff(), retries.maxBackoff()));
        }

        /**
         * The wait before the second attempt, doubled for each further one up to {@code max} (defaults 100 ms and
         * 2 s); each wait is jittered down by up to half.
         *
         * @throws IllegalArgumentException when {@code initial} is negative or {@code max} is less than {@code initial}
         */
        public Builder backoff(Duration initial, Duration max) {
            return retries(new Retries(retries.maxAttempts(), initial, max));
        }

        /** Attempts and backoff at once (default {@link Retries#DEFAULT}). */
        public Builder retries(Retries retries) {
            this.retries = Objects.requireNonNull(retries, "retries");
            return this;
        }

        /** The {@code fieldManager} recorded in managed fields (default {@code tenantplane}). */
        public Builder fieldManager(String fieldManager) {
            if (fieldManager == null || fieldManager.isBlank()) {
                throw new IllegalArgumentException("fieldManager must not be blank, got '" + fieldManager + "'");
            }
            this.fieldManager = fieldManager;
            return this;
        }

        /**
         * @throws IllegalStateException when no client was set
         */
        public Applier build() {
            if (client == null) {
                throw new IllegalStateException("client is required: call client(ApiClient) before build()");
            }
            return new Applier(this);
        }
    }
}
