package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * All objects of all resources, as JSON trees keyed like etcd ({@code namespace/name} within a resource), with one
 * global resourceVersion counter. Every read and write takes one lock, so each write is atomic, gets the next
 * resourceVersion and is published to the watch hub in that order. Stored trees are never mutated after they are
 * stored: a write stores a new tree.
 */
final class Store {
    /**
     * Per-request write options: {@code dryRun=All}, {@code fieldValidation}, the warnings to send back, and who
     * writes: the field manager of an API request (null for the simulated controllers' own writes, whose fields the
     * store does not track) and, for a server-side apply, the managed fields it computed.
     */
    record WriteOptions(boolean dryRun, String fieldValidation, List<String> warnings, ManagedFields.Writer writer,
            List<ManagedFields.Entry> applied) {
        static WriteOptions defaults() {
            return new WriteOptions(false, "", new ArrayList<>(), null, null);
        }

        WriteOptions withApplied(List<ManagedFields.Entry> entries) {
            return new WriteOptions(dryRun, fieldValidation, warnings, writer, entries);
        }
    }

    /** The result of a server-side apply: the object, and whether the apply created it (201) or not (200). */
    record ApplyResult(JsonObject object, boolean created) {
    }

    /** One page of a list. */
    /** One stored object with its type, as the garbage collector reads them. */
    record Stored(ResourceType type, JsonObject object) {
    }

    record Page(List<JsonObject> items, String resourceVersion, String continueToken, Long remainingItemCount) {
    }

    private static final String GENERATED_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
    private static final int MAX_GENERATED_BASE = 58;

    private final ReentrantLock lock = new ReentrantLock();
    private final Registry registry;
    private final WatchHub hub;
    private final Clock clock;
    private final ServiceIps serviceIps;
    private final NodePorts nodePorts;
    private final KindRules rules;
    private final Random random;
    private final Map<String, TreeMap<String, JsonObject>> data = new HashMap<>();
    private final Map<String, ResourceType> typeOfStorage = new HashMap<>();
    private long resourceVersion;

    Store(Registry registry, WatchHub hub, Clock clock, Random random, String serviceCidr) {
        // Each server draws ClusterIPs on its own, as independent API servers do (not from the fault seed, which two
        // servers of one test share: they would allocate the same IPs in the same order).
        this.serviceIps = new ServiceIps(serviceCidr, new Random());
        this.nodePorts = new NodePorts(new Random());
        this.rules = new KindRules(serviceIps, nodePorts);
        this.registry = registry;
        this.hub = hub;
        this.clock = clock;
        this.random = random;
    }

    String resourceVersion() {
        lock.lock();
        try {
            return Long.toString(resourceVersion);
        } finally {
            lock.unlock();
        }
    }

    // ---- reads ----

    JsonObject get(ResourceType t, String ns, String name) {
        lock.lock();
        try {
            return present(t, must(t, ns, name));
        } finally {
            lock.unlock();
        }
    }

    Page list(ResourceType t, String ns, String labelSelector, String fieldSelector, long limit, String continueToken) {
        Predicate<JsonObject> labels = Selectors.labels(labelSelector);
        Predicate<JsonObject> fields = Selectors.fields(fieldSelector, t);
        boolean filtered = labelSelector != null && !labelSelector.isBlank()
                || fieldSelector != null && !fieldSelector.isBlank();
        lock.lock();
        try {
            NavigableMap<String, JsonObject> view = view(t, ns);
            String listVersion = Long.toString(resourceVersion);
            if (continueToken != null && !continueToken.isEmpty()) {
                String[] token = decodeContinue(continueToken);
                listVersion = token[0];
                view = view.tailMap(token[1], false);
            }
            List<JsonObject> items = new ArrayList<>();
            String next = null;
            long remaining = 0;
            String lastKey = null;
            for (Map.Entry<String, JsonObject> e : view.entrySet()) {
                JsonObject o = e.getValue();
                if (!labels.test(Json.obj(Json.obj(o, "metadata"), "labels")) || !fields.test(o)) {
                    continue;
                }
                if (limit > 0 && items.size() >= limit) {
                    if (next == null) {
                        next = encodeContinue(listVersion, lastKey);
                    }
                    remaining++;
                    continue;
                }
                items.add(present(t, o));
                lastKey = e.getKey();
            }
            return new Page(items, listVersion, next, next != null && !filtered ? remaining : null);
        } finally {
            lock.unlock();
        }
    }

    WatchHub.Subscription watch(ResourceType t, String ns, String labelSelector, String fieldSelector,
            String fromVersion, boolean sendInitialEvents) {
        WatchHub.Filter filter = new WatchHub.Filter(t.storageKey(), t.namespaced() ? ns : null,
                Selectors.labels(labelSelector), Selectors.fields(fieldSelector, t));
        boolean initial = fromVersion == null || fromVersion.isEmpty() || fromVersion.equals("0") || sendInitialEvents;
        lock.lock();
        try {
            long from;
            List<JsonObject> objects = new ArrayList<>();
            if (initial) {
                from = resourceVersion;
                for (JsonObject o : view(t, ns).values()) {
                    if (filter.matches(o)) {
                        objects.add(o);
                    }
                }
            } else {
                from = parseVersion(fromVersion);
            }
            return hub.subscribe(filter, from, objects);
        } finally {
            lock.unlock();
        }
    }

    /** A copy of every stored object, for the simulated garbage collector. */
    List<Stored> all() {
        lock.lock();
        try {
            List<Stored> out = new ArrayList<>();
            for (Map.Entry<String, TreeMap<String, JsonObject>> e : data.entrySet()) {
                ResourceType type = typeOfStorage.get(e.getKey());
                if (type != null) {
                    e.getValue().values().forEach(o -> out.add(new Stored(type, present(type, o))));
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    // ---- writes ----

    JsonObject create(ResourceType t, String ns, JsonObject body, WriteOptions opts) {
        lock.lock();
        try {
            JsonObject o = body.deepCopy();
            typeMeta(t, o);
            JsonObject m = Json.meta(o);
            String bodyNs = Json.str(m, "namespace");
            if (t.namespaced()) {
                if (bodyNs != null && !bodyNs.isEmpty() && !bodyNs.equals(ns)) {
                    throw ApiError.badRequest(
                            "the namespace of the provided object does not match the namespace sent on the request");
                }
                m.addProperty("namespace", ns);
                JsonObject namespace = namespaces().get(ns);
                if (namespace == null) {
                    throw ApiError.notFound("", "namespaces", ns);
                }
                if (deleting(namespace)) {
                    throw ApiError.forbidden(t, Json.str(m, "name") == null ? "" : Json.str(m, "name"),
                            "unable to create new content in namespace " + ns + " because it is being terminated");
                }
            } else {
                m.remove("namespace");
            }
            if (t.custom() && crdTerminating(t)) {
                throw new ApiError(405, "MethodNotAllowed",
                        "create not allowed while custom resource definition is terminating", null);
            }
            if (Json.str(m, "resourceVersion") != null && !Json.str(m, "resourceVersion").isEmpty()) {
                // storage.ErrResourceVersionSetOnCreate is a plain error, not a Status: ErrorToAPIStatus
                // answers it with 500 and no reason (kubectl: "Error from server: ...").
                throw new ApiError(500, "", "resourceVersion should not be set on objects to be created", null);
            }
            normalize(t, o);
            String generateName = Json.str(m, "generateName");
            String name = Json.str(m, "name");
            boolean generated = name == null || name.isEmpty();
            if (generated) {
                if (generateName == null || generateName.isEmpty()) {
                    throw ApiError.invalid(t, "", List.of(new ApiError.Cause("FieldValueRequired", "metadata.name",
                            "Required value: name or generateName is required")));
                }
                name = generateName(generateName);
            }
            m.addProperty("name", name);
            if (t.group().isEmpty() && t.plural().equals("pods")) {
                // Defaulting happens as the body is decoded, before admission (a deprecated spec.serviceAccount
                // fills serviceAccountName before the ServiceAccount plugin looks at it).
                KindRules.podSpecDefaults(Json.child(o, "spec"));
                ResourceAdmission.podRequestsFromLimits(Json.child(o, "spec"));
                ResourceAdmission.limitRangerAdmit(o, core("limitranges", ns));
                admitPriority(t, o, name);
                admitServiceAccount(t, o, name, ns);
                // The pod strategy's PrepareForCreate, after admission.
                PodSpecs.mergeAffinityLabelKeys(o);
            }
            m.addProperty("uid", UUID.randomUUID().toString());
            m.addProperty("creationTimestamp", now());
            m.addProperty("generation", 1);
            JsonArray requestedManaged = Json.arr(m, "managedFields");
            for (String field : List.of("deletionTimestamp", "deletionGracePeriodSeconds", "managedFields",
                    "selfLink", "resourceVersion")) {
                m.remove(field);
            }
            if (opts.writer() != null) {
                // create.go: FieldManager.UpdateNoErrors(empty live object, the new object, manager).
                List<ManagedFields.Entry> base = ManagedFields.read(requestedManaged);
                List<ManagedFields.Entry> managed = opts.applied() != null ? opts.applied()
                        : ManagedFields.update(t, new JsonObject(), o, base, opts.writer(), t.apiVersion(), now());
                if (!managed.isEmpty()) {
                    m.add("managedFields", ManagedFields.write(managed));
                }
            }
            List<ApiError.Cause> causes = new ArrayList<>();
            String nameProblem = Validation.nameProblem(name, Validation.nameRule(t));
            if (nameProblem != null) {
                causes.add(ApiError.Cause.invalid("metadata.name", Validation.quote(name), nameProblem));
            }
            Validation.checkMeta(m, causes);
            rules.onCreate(t, o, causes);
            if (t.isCrd()) {
                Crds.defaults(o);
                Crds.validate(o, null, causes);
            }
            if (t.custom()) {
                if (t.statusSubresource()) {
                    o.remove("status");
                }
                applySchema(t, o, null, opts, causes);
            }
            if (!causes.isEmpty()) {
                throw ApiError.invalid(t, name, causes);
            }
            if (t.is("", "pods")) {
                ResourceAdmission.limitRangerValidate(t, name, o, core("limitranges", ns));
            }
            admitPodSecurity(t, ns, name, o, null, opts);
            if (ns != null && !storage(t).containsKey(key(t, ns, name))) {
                admitQuota(t, ns, name, o, null);
            }
            TreeMap<String, JsonObject> objects = storage(t);
            while (objects.containsKey(key(t, ns, name))) {
                if (!generated) {
                    throw ApiError.alreadyExists(t, name);
                }
                name = generateName(generateName);
                m.addProperty("name", name);
            }
            if (t.isCrd()) {
                o.add("status", Crds.status(o, null, now()));
            }
            if (opts.dryRun()) {
                return o;
            }
            JsonObject stored = put(t, key(t, ns, name), null, o, "ADDED");
            if (t.isCrd()) {
                serve(stored);
            }
            if (t.is("", "namespaces")) {
                defaultServiceAccount(name);
            }
            return present(t, stored);
        } finally {
            lock.unlock();
        }
    }

    JsonObject update(ResourceType t, String ns, String name, JsonObject body, boolean statusOnly, WriteOptions opts) {
        lock.lock();
        try {
            JsonObject current = must(t, ns, name);
            JsonObject next = body.deepCopy();
            typeMeta(t, next);
            checkIdentity(t, ns, name, next);
            return replace(t, current, next, statusOnly, opts);
        } finally {
            lock.unlock();
        }
    }

    JsonObject patch(ResourceType t, String ns, String name, String patchType, JsonElement patch, boolean statusOnly,
            WriteOptions opts) {
        lock.lock();
        try {
            JsonObject current = must(t, ns, name);
            return replace(t, current, patched(t, ns, name, current, patchType, patch), statusOnly, opts);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The {@code scale} subresource of a Deployment, StatefulSet or ReplicaSet, as an {@code autoscaling/v1} Scale
     * ({@code scaleFromStatefulSet} and its siblings in {@code pkg/registry/apps/statefulset/storage/storage.go} and the deployment and replicaset ones):
     * {@code spec.replicas}, {@code status.replicas} and the selector as a label-selector string.
     */
    JsonObject scale(ResourceType t, String ns, String name) {
        lock.lock();
        try {
            return scaleOf(present(t, must(t, ns, name)));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes a Scale ({@code patchType} null for an update): only {@code spec.replicas} of the object changes, at
     * the Scale's {@code resourceVersion} when it names one; a negative count is refused as {@code ValidateScale}
     * refuses it.
     */
    JsonObject updateScale(ResourceType t, String ns, String name, String patchType, JsonElement body,
                           WriteOptions opts) {
        lock.lock();
        try {
            JsonObject current = must(t, ns, name);
            JsonObject scale = scaleOf(present(t, current));
            JsonElement next = patchType == null ? body : switch (patchType) {
                case "json" -> Patches.jsonPatch(scale.deepCopy(), body);
                case "merge", "strategic" -> Patches.mergePatch(scale.deepCopy(), body);
                default -> throw ApiError.unsupportedMediaType("application/apply-patch+yaml", "application/json-patch"
                        + "+json, application/merge-patch+json, application/strategic-merge-patch+json");
            };
            if (!next.isJsonObject()) {
                throw ApiError.badRequest("a Scale must be a JSON object");
            }
            JsonObject wanted = next.getAsJsonObject();
            JsonElement replicas = Json.obj(wanted, "spec") == null ? null : Json.obj(wanted, "spec").get("replicas");
            if (replicas == null || !replicas.isJsonPrimitive() || !replicas.getAsJsonPrimitive().isNumber()) {
                throw ApiError.invalid("autoscaling", "Scale", name, List.of(ApiError.Cause.required("spec.replicas")));
            }
            if (replicas.getAsLong() < 0) {
                throw ApiError.invalid("autoscaling", "Scale", name, List.of(ApiError.Cause.invalid("spec.replicas",
                        replicas.toString(), "must be greater than or equal to 0")));
            }
            String version = Json.str(Json.meta(wanted), "resourceVersion");
            if (version != null && !version.isEmpty() && !version.equals(Json.str(Json.meta(current),
                    "resourceVersion"))) {
                throw ApiError.staleResourceVersion(t, name);
            }
            JsonObject object = present(t, current).deepCopy();
            Json.child(object, "spec").addProperty("replicas", replicas.getAsLong());
            return scaleOf(replace(t, current, object, false, opts));
        } finally {
            lock.unlock();
        }
    }

    private static JsonObject scaleOf(JsonObject o) {
        JsonObject m = Json.meta(o);
        JsonObject spec = Json.obj(o, "spec");
        JsonObject status = Json.obj(o, "status");
        long replicas = spec != null && spec.has("replicas") ? spec.get("replicas").getAsLong() : 0;
        long current = status != null && status.has("replicas") ? status.get("replicas").getAsLong() : 0;
        return Json.object("kind", "Scale", "apiVersion", "autoscaling/v1",
                "metadata", Json.object("name", Json.str(m, "name"), "namespace", Json.str(m, "namespace"),
                        "uid", Json.str(m, "uid"), "resourceVersion", Json.str(m, "resourceVersion"),
                        "creationTimestamp", Json.str(m, "creationTimestamp")),
                "spec", Json.object("replicas", replicas),
                "status", Json.object("replicas", current, "selector",
                        Selectors.format(spec == null ? null : Json.obj(spec, "selector"))));
    }

    /**
     * The update's precondition: a {@code resourceVersion} the request names must be the stored one (else Conflict);
     * one it leaves out is allowed for built-in kinds and refused for custom ones ({@code AllowUnconditionalUpdate}).
     */
    private static void checkVersion(ResourceType t, JsonObject current, JsonObject next) {
        String requested = Json.str(Json.meta(next), "resourceVersion");
        if (requested == null || requested.isEmpty()) {
            if (!t.unconditionalUpdate()) {
                throw ApiError.invalid(t, Json.str(Json.meta(current), "name"), List.of(ApiError.Cause.invalid(
                        "metadata.resourceVersion", "0x0", "must be specified for an update")));
            }
        } else if (!requested.equals(Json.str(Json.meta(current), "resourceVersion"))) {
            throw ApiError.staleResourceVersion(t, Json.str(Json.meta(current), "name"));
        }
    }

    /** {@code current} with {@code patch} applied, at {@code current}'s resourceVersion unless the patch names one. */
    private JsonObject patched(ResourceType t, String ns, String name, JsonObject current, String patchType,
            JsonElement patch) {
        JsonObject base = present(t, current).deepCopy();
        JsonElement result = switch (patchType) {
            case "json" -> Patches.jsonPatch(base, patch);
            case "merge" -> Patches.mergePatch(base, patch);
            case "strategic" -> {
                if (!patch.isJsonObject()) {
                    throw ApiError.badRequest("a strategic merge patch must be a JSON object");
                }
                yield Patches.strategicMergePatch(base, patch.getAsJsonObject(), t);
            }
            default -> throw new IllegalArgumentException(patchType);
        };
        if (!result.isJsonObject()) {
            throw ApiError.badRequest("the patch does not result in an object");
        }
        JsonObject next = result.getAsJsonObject();
        typeMeta(t, next);
        checkIdentity(t, ns, name, next);
        JsonObject m = Json.meta(next);
        if (Json.str(m, "resourceVersion") == null || Json.str(m, "resourceVersion").isEmpty()) {
            m.addProperty("resourceVersion", Json.str(Json.meta(current), "resourceVersion"));
        }
        return next;
    }

    /**
     * An update ({@code patchType} null: {@code body} is the Pod) or patch of a Pod's {@code ephemeralcontainers}
     * subresource, as {@code podEphemeralContainersStrategy} does it ({@code pkg/registry/core/pod/strategy.go}):
     * everything but {@code spec.ephemeralContainers} is taken from the stored Pod ({@code
     * dropNonEphemeralContainerUpdates}), then the change is validated ({@link KindRules#onEphemeralContainersUpdate}).
     */
    JsonObject updateEphemeralContainers(ResourceType t, String ns, String name, String patchType, JsonElement body,
            WriteOptions opts) {
        lock.lock();
        try {
            JsonObject current = must(t, ns, name);
            JsonObject next;
            if (patchType == null) {
                if (!body.isJsonObject()) {
                    throw ApiError.badRequest("the request body must be a Pod");
                }
                next = body.getAsJsonObject().deepCopy();
                typeMeta(t, next);
                checkIdentity(t, ns, name, next);
            } else {
                next = patched(t, ns, name, current, patchType, body);
            }
            checkVersion(t, current, next);
            JsonObject candidate = current.deepCopy();
            JsonArray wanted = Json.arr(Json.obj(next, "spec"), "ephemeralContainers");
            if (wanted == null) {
                Json.child(candidate, "spec").remove("ephemeralContainers");
            } else {
                Json.child(candidate, "spec").add("ephemeralContainers", wanted.deepCopy());
            }
            List<ApiError.Cause> causes = new ArrayList<>();
            rules.onEphemeralContainersUpdate(current, candidate, causes);
            if (!causes.isEmpty()) {
                throw ApiError.invalid(t, name, causes);
            }
            // PodSecurity ignores pods' exec, attach, log, status... subresources, not this one (ValidatePod).
            PodSecurityAdmission.admitPod(t, name, namespaces().get(ns), candidate, current, opts.warnings());
            if (Json.same(current, candidate) || opts.dryRun()) {
                return present(t, Json.same(current, candidate) ? current : candidate);
            }
            trackFields(t, current, candidate, null, false, opts);
            return present(t, put(t, key(t, namespaceOf(candidate), name), current, candidate, "MODIFIED"));
        } finally {
            lock.unlock();
        }
    }

    /** Deletes one object; returns the object (still present or as deleted) or a success Status, as k8s does. */
    JsonObject delete(ResourceType t, String ns, String name, JsonObject options, WriteOptions opts) {
        lock.lock();
        try {
            JsonObject current = must(t, ns, name);
            checkPreconditions(t, name, current, options);
            if (opts.dryRun()) {
                return present(t, current);
            }
            current = withGarbageCollectionFinalizers(t, current, options);
            if (t.is("", "pods")) {
                return present(t, deletePod(t, current, options));
            }
            return present(t, deleteObject(t, current, true));
        } finally {
            lock.unlock();
        }
    }

    /** Deletes every matching object; returns the list of them, as the real server does. */
    Page deleteCollection(ResourceType t, String ns, String labelSelector, String fieldSelector, WriteOptions opts) {
        Predicate<JsonObject> labels = Selectors.labels(labelSelector);
        Predicate<JsonObject> fields = Selectors.fields(fieldSelector, t);
        lock.lock();
        try {
            List<JsonObject> deleted = new ArrayList<>();
            for (JsonObject o : new ArrayList<>(view(t, ns).values())) {
                if (labels.test(Json.obj(Json.obj(o, "metadata"), "labels")) && fields.test(o)) {
                    deleted.add(present(t, opts.dryRun() ? o
                            : t.is("", "pods") ? deletePod(t, o, null) : deleteObject(t, o, false)));
                }
            }
            return new Page(deleted, Long.toString(resourceVersion), null, null);
        } finally {
            lock.unlock();
        }
    }

    /** {@code pods/binding}: assigns an unscheduled pod to a node, as the scheduler does. */
    JsonObject bind(ResourceType pods, String ns, String podName, JsonObject binding) {
        JsonObject target = Json.obj(binding, "target");
        String node = Json.str(target, "name");
        if (node == null || node.isEmpty()) {
            throw ApiError.invalid("", "Binding", podName, List.of(ApiError.Cause.required("target.name")));
        }
        lock.lock();
        try {
            JsonObject current = must(pods, ns, podName);
            String assigned = Json.str(Json.obj(current, "spec"), "nodeName");
            if (assigned != null && !assigned.isEmpty()) {
                throw ApiError.conflict(pods, podName, "pod " + podName + " is already assigned to node \""
                        + assigned + "\"");
            }
            if (deleting(current)) {
                throw ApiError.conflict(pods, podName, "pod " + podName + " is being deleted, cannot be assigned to a host");
            }
            JsonObject next = current.deepCopy();
            Json.child(next, "spec").addProperty("nodeName", node);
            JsonObject status = Json.child(next, "status");
            JsonArray conditions = Json.arr(status, "conditions");
            if (conditions == null) {
                conditions = new JsonArray();
                status.add("conditions", conditions);
            }
            conditions.asList().removeIf(c -> "PodScheduled".equals(Json.str(c.getAsJsonObject(), "type")));
            conditions.add(Json.object("type", "PodScheduled", "status", "True", "lastProbeTime", com.google.gson.JsonNull.INSTANCE,
                    "lastTransitionTime", now()));
            Normalizer.builtin(pods, next);
            put(pods, key(pods, ns, podName), current, next, "MODIFIED");
            return Json.object("kind", "Status", "apiVersion", "v1", "metadata", new JsonObject(), "status", "Success",
                    "code", 201);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The ServiceAccount {@code default} of a new namespace, as kube-controller-manager's service-account controller
     * makes it ({@code pkg/controller/serviceaccount/serviceaccounts_controller.go}) in every cluster.
     */
    private void defaultServiceAccount(String namespace) {
        ResourceType accounts = registry.find("", "v1", "serviceaccounts");
        if (accounts == null || storage(accounts).containsKey(key(accounts, namespace, "default"))) {
            return;
        }
        create(accounts, namespace, Json.object("metadata", Json.object("name", "default")), WriteOptions.defaults());
    }

    /**
     * Creates the given namespaces at start, as a fresh cluster has them, and, where {@code default} is among them,
     * the {@code kubernetes} Service at the Service range's first address, as kube-apiserver's kubernetes-service
     * controller does ({@code pkg/controlplane/controller/kubernetesservice/controller.go},
     * {@code CreateOrUpdateMasterServiceIfNeeded}: labels {@code provider: kubernetes}, {@code component: apiserver},
     * port {@code https} 443 to the secure port).
     */
    void bootstrap(List<String> namespaceNames) {
        ResourceType type = registry.find("", "v1", "namespaces");
        for (String ns : namespaceNames) {
            create(type, null, Json.object("metadata", Json.object("name", ns)), WriteOptions.defaults());
        }
        ResourceType services = registry.find("", "v1", "services");
        if (namespaceNames.contains("default") && services != null) {
            JsonObject ports = Json.object("name", "https", "protocol", "TCP", "port", 443, "targetPort", 6443);
            JsonArray list = new JsonArray();
            list.add(ports);
            create(services, "default", Json.object(
                    "metadata", Json.object("name", "kubernetes", "labels",
                            Json.object("provider", "kubernetes", "component", "apiserver")),
                    "spec", Json.object("type", "ClusterIP", "clusterIP", serviceIps.first(), "ports", list,
                            "sessionAffinity", "None")), WriteOptions.defaults());
        }
    }

    // ---- the one update path ----

    private JsonObject replace(ResourceType t, JsonObject current, JsonObject next, boolean statusOnly,
            WriteOptions opts) {
        JsonObject cm = Json.obj(current, "metadata");
        JsonArray requestedManaged = statusOnly ? null : Json.arr(Json.meta(next), "managedFields");
        String name = Json.str(cm, "name");
        String currentVersion = Json.str(cm, "resourceVersion");
        checkVersion(t, current, next);
        normalize(t, next);
        JsonObject candidate;
        List<ApiError.Cause> causes = new ArrayList<>();
        if (statusOnly) {
            candidate = current.deepCopy();
            if (next.has("status")) {
                candidate.add("status", next.get("status").deepCopy());
            } else {
                candidate.remove("status");
            }
            rules.onStatusUpdate(t, current, candidate, causes);
        } else {
            candidate = next;
            JsonObject m = Json.meta(candidate);
            for (String field : List.of("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                    "generation", "name", "namespace")) {
                if (cm.has(field)) {
                    m.add(field, cm.get(field).deepCopy());
                } else {
                    m.remove(field);
                }
            }
            m.remove("managedFields");
            m.remove("selfLink");
            if (t.statusSubresource()) {
                if (current.has("status")) {
                    candidate.add("status", current.get("status").deepCopy());
                } else {
                    candidate.remove("status");
                }
            }
            if (deleting(current)) {
                Set<String> before = finalizers(current);
                List<String> added = finalizers(candidate).stream().filter(f -> !before.contains(f)).toList();
                if (!added.isEmpty()) {
                    causes.add(ApiError.Cause.forbidden("metadata.finalizers", "no new finalizers can be added if the "
                            + "object is being deleted, found new finalizers " + added));
                }
            }
            Validation.checkMeta(m, causes);
            rules.onUpdate(t, current, candidate, causes);
            if (t.isCrd()) {
                Crds.defaults(candidate);
                Crds.validate(candidate, current, causes);
                if (causes.isEmpty()) {
                    candidate.add("status", Crds.status(candidate, Json.obj(current, "status"), now()));
                }
            }
        }
        if (t.custom()) {
            applySchema(t, candidate, current, opts, causes);
        }
        if (!causes.isEmpty()) {
            throw ApiError.invalid(t, name, causes);
        }
        if (!statusOnly) {
            admitPodSecurity(t, namespaceOf(current), name, candidate, current, opts);
            if (t.is("", "services") || t.is("", "persistentvolumeclaims")) {
                admitQuota(t, namespaceOf(current), name, candidate, current);
            }
        }
        JsonObject m = Json.meta(candidate);
        m.addProperty("resourceVersion", currentVersion);
        trackFields(t, current, candidate, requestedManaged, statusOnly, opts);
        if (!Json.same(specOf(t, current), specOf(t, candidate))) {
            m.addProperty("generation", Json.obj(current, "metadata").get("generation").getAsLong() + 1);
        }
        if (Json.same(current, candidate) || opts.dryRun()) {
            return present(t, Json.same(current, candidate) ? current : candidate);
        }
        // ShouldDeleteDuringUpdate (registry/generic/registry/store.go): the last finalizer gone and no grace
        // period left; a pod still in its grace period stays for its kubelet.
        if (deleting(candidate) && finalizers(candidate).isEmpty() && noGraceLeft(candidate)
                && contentsGone(t, candidate)) {
            return present(t, remove(t, candidate, current));
        }
        JsonObject stored = put(t, key(t, namespaceOf(candidate), name), current, candidate, "MODIFIED");
        if (t.isCrd()) {
            serve(stored);
        }
        return present(t, stored);
    }

    /**
     * Sets the candidate's {@code metadata.managedFields}: the live ones for the simulated controllers' writes;
     * otherwise those the request carried when it carried some ({@code decodeLiveOrNew}: an empty list resets them),
     * else the live ones, updated for this writer (fieldmanager.go {@code Update}), or those an apply computed.
     */
    private void trackFields(ResourceType t, JsonObject current, JsonObject candidate, JsonArray requested,
            boolean statusOnly, WriteOptions opts) {
        JsonObject m = Json.meta(candidate);
        m.remove("managedFields");
        List<ManagedFields.Entry> managed;
        if (opts.applied() != null) {
            managed = opts.applied();
        } else if (opts.writer() == null) {
            JsonArray live = Json.arr(Json.obj(current, "metadata"), "managedFields");
            if (live != null) {
                m.add("managedFields", live.deepCopy());
            }
            return;
        } else {
            List<ManagedFields.Entry> base = requested != null && !statusOnly
                    ? ManagedFields.read(requested)
                    : List.of();
            boolean reset = requested != null && !statusOnly && requested.isEmpty();
            if (base.isEmpty() && !reset) {
                base = ManagedFields.read(current);
            }
            managed = ManagedFields.update(t, stripManaged(current), stripManaged(candidate), base, opts.writer(),
                    t.apiVersion(), now());
        }
        if (!managed.isEmpty()) {
            m.add("managedFields", ManagedFields.write(managed));
        }
    }

    private static JsonObject stripManaged(JsonObject o) {
        JsonObject m = Json.obj(o, "metadata");
        if (m == null || !m.has("managedFields")) {
            return o;
        }
        JsonObject copy = o.deepCopy();
        Json.meta(copy).remove("managedFields");
        return copy;
    }

    /**
     * Server-side apply ({@code application/apply-patch+yaml}), as {@code applyPatcher} in
     * {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go} with {@code FieldManager.Apply}: the
     * configuration must name this resource's version and kind and carry no managedFields; a missing object is
     * created from it (not through {@code status}); otherwise it is merged into the live object, what this manager
     * applied before and applies no longer is pruned, and fields other managers own that it would change are
     * conflicts unless {@code force}.
     */
    ApplyResult apply(ResourceType t, String ns, String name, JsonElement body, boolean statusOnly, boolean force,
            WriteOptions opts) {
        if (!body.isJsonObject()) {
            throw ApiError.badRequest("error decoding YAML: the applied configuration must be an object");
        }
        JsonObject config = body.getAsJsonObject().deepCopy();
        String kind = Json.str(config, "kind");
        if (kind == null || kind.isEmpty()) {
            throw ApiError.badRequest("Object 'Kind' is missing in '" + Json.text(body) + "'");
        }
        String version = Json.str(config, "apiVersion");
        if (!t.apiVersion().equals(version)) {
            throw ApiError.badRequest("Incorrect version specified in apply patch. Specified patch version: "
                    + (version == null ? "" : version) + ", expected: " + t.apiVersion());
        }
        JsonObject m = Json.meta(config);
        if (m.has("managedFields") && !m.get("managedFields").isJsonNull()) {
            throw ApiError.badRequest("metadata.managedFields must be nil");
        }
        String configName = Json.str(m, "name");
        if (configName == null || !configName.equals(name)) {
            // checkName (handlers/rest.go).
            throw ApiError.badRequest("the name of the object (" + (configName == null ? "" : configName)
                    + ") does not match the name on the URL (" + name + ")");
        }
        String configNs = Json.str(m, "namespace");
        if (t.namespaced() && configNs != null && !configNs.isEmpty() && !configNs.equals(ns)) {
            throw ApiError.badRequest(
                    "the namespace of the provided object does not match the namespace sent on the request");
        }
        ManagedFields.Writer writer = opts.writer();
        lock.lock();
        try {
            JsonObject current = storage(t).get(key(t, ns, name));
            if (current == null) {
                if (statusOnly) {
                    throw ApiError.notFound(t, name);
                }
                ManagedFields.Applied a = ManagedFields.apply(t, new JsonObject(), config, List.of(), writer, force,
                        now());
                return new ApplyResult(create(t, ns, a.object(), opts.withApplied(a.managed())), true);
            }
            ManagedFields.Applied a = ManagedFields.apply(t, stripManaged(present(t, current)), config,
                    ManagedFields.read(current), writer, force, now());
            JsonObject next = a.object();
            typeMeta(t, next);
            Json.meta(next).addProperty("resourceVersion", Json.str(Json.meta(current), "resourceVersion"));
            return new ApplyResult(replace(t, current, next, statusOnly, opts.withApplied(a.managed())), false);
        } finally {
            lock.unlock();
        }
    }

    // ---- deletion ----

    /**
     * Deletes now, or marks for deletion when finalizers remain. A namespace or CRD first deletes what it contains
     * and goes when that is gone, standing in for the namespace and CRD-finalizer controllers.
     */
    private JsonObject deleteObject(ResourceType t, JsonObject current, boolean returnStatus) {
        boolean container = t.is("", "namespaces") || t.isCrd();
        if (!finalizers(current).isEmpty() || container) {
            JsonObject marked = current;
            if (!deleting(current)) {
                marked = current.deepCopy();
                JsonObject m = Json.meta(marked);
                m.addProperty("deletionTimestamp", now());
                m.addProperty("deletionGracePeriodSeconds", 0);
                m.addProperty("generation", m.get("generation").getAsLong() + 1);
                if (t.is("", "namespaces")) {
                    Json.child(marked, "status").addProperty("phase", "Terminating");
                }
                marked = put(t, key(t, namespaceOf(marked), Json.str(m, "name")), current, marked, "MODIFIED");
                if (container) {
                    deleteContents(t, marked);
                }
            }
            JsonObject latest = storage(t).get(key(t, namespaceOf(marked), Json.str(Json.meta(marked), "name")));
            if (latest != null && finalizers(latest).isEmpty() && contentsGone(t, latest)) {
                remove(t, latest, latest);
            }
            return marked;
        }
        JsonObject removed = remove(t, current, current);
        if (!returnStatus || t.returnsDeletedObject()) {
            return removed;
        }
        JsonObject details = Json.object("name", Json.str(Json.meta(removed), "name"));
        if (!t.group().isEmpty()) {
            details.addProperty("group", t.group());
        }
        details.addProperty("kind", t.plural());
        details.addProperty("uid", Json.str(Json.meta(removed), "uid"));
        return Json.object("kind", "Status", "apiVersion", "v1", "metadata", new JsonObject(), "status", "Success",
                "details", details);
    }

    /**
     * Graceful pod deletion, as {@code podStrategy.CheckGracefulDelete} ({@code pkg/registry/core/pod/strategy.go})
     * and {@code rest.BeforeDelete} ({@code staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go}) do it: the
     * period is the request's {@code gracePeriodSeconds} (negative counts as 1), else the pod's
     * {@code terminationGracePeriodSeconds}; it is 0 for a pod bound to no node or already Succeeded/Failed. A
     * period above 0 sets {@code deletionTimestamp} (now + period) and {@code deletionGracePeriodSeconds} and the
     * pod stays until its kubelet deletes it with period 0; a second delete may only shorten the period. With
     * period 0 and no finalizers the pod goes at once.
     */
    private JsonObject deletePod(ResourceType t, JsonObject current, JsonObject options) {
        long period = podGracePeriod(current, options);
        JsonObject m = Json.meta(current);
        if (deleting(current)) {
            JsonElement old = m.get("deletionGracePeriodSeconds");
            long oldPeriod = old == null || old.isJsonNull() ? 0 : old.getAsLong();
            if (period >= oldPeriod) {
                return current;
            }
            JsonObject shortened = current.deepCopy();
            JsonObject sm = Json.meta(shortened);
            Instant at = Instant.parse(Json.str(m, "deletionTimestamp")).minusSeconds(oldPeriod).plusSeconds(period);
            sm.addProperty("deletionTimestamp", stamp(at));
            sm.addProperty("deletionGracePeriodSeconds", period);
            if (period == 0 && finalizers(shortened).isEmpty()) {
                return remove(t, shortened, current);
            }
            return put(t, key(t, namespaceOf(shortened), Json.str(sm, "name")), current, shortened, "MODIFIED");
        }
        if (period == 0 && finalizers(current).isEmpty()) {
            return remove(t, current, current);
        }
        JsonObject marked = current.deepCopy();
        JsonObject mm = Json.meta(marked);
        mm.addProperty("deletionTimestamp", stamp(clock.instant().plusSeconds(period)));
        mm.addProperty("deletionGracePeriodSeconds", period);
        mm.addProperty("generation", mm.get("generation").getAsLong() + 1);
        return put(t, key(t, namespaceOf(marked), Json.str(mm, "name")), current, marked, "MODIFIED");
    }

    /**
     * {@code deletionFinalizersForGarbageCollection} (registry/generic/registry/store.go): {@code Orphan} (or the
     * legacy {@code orphanDependents: true}) adds the {@code orphan} finalizer, {@code Foreground} adds
     * {@code foregroundDeletion}, {@code Background} removes both; the garbage collector then finishes the
     * deletion. The change is stored with the deletion mark that follows.
     */
    private JsonObject withGarbageCollectionFinalizers(ResourceType t, JsonObject current, JsonObject options) {
        String policy = options == null ? null : Json.str(options, "propagationPolicy");
        if (policy == null && options != null && Json.bool(options, "orphanDependents")) {
            policy = "Orphan";
        }
        if (policy == null || deleting(current) || t.is("", "namespaces") || t.isCrd()) {
            return current;
        }
        Set<String> before = finalizers(current);
        Set<String> after = new java.util.LinkedHashSet<>(before);
        switch (policy) {
            case "Orphan" -> {
                after.add("orphan");
                after.remove("foregroundDeletion");
            }
            case "Foreground" -> {
                after.add("foregroundDeletion");
                after.remove("orphan");
            }
            case "Background" -> {
                after.remove("orphan");
                after.remove("foregroundDeletion");
            }
            default -> throw ApiError.invalid("meta.k8s.io", "DeleteOptions", "", List.of(new ApiError.Cause(
                    "FieldValueNotSupported", "propagationPolicy", "Unsupported value: \"" + policy
                    + "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"")));
        }
        if (after.equals(before)) {
            return current;
        }
        JsonObject copy = current.deepCopy();
        JsonArray list = new JsonArray();
        after.forEach(list::add);
        Json.meta(copy).add("finalizers", list);
        storage(t).put(key(t, namespaceOf(copy), Json.str(Json.meta(copy), "name")), copy);
        return copy;
    }

    private static long podGracePeriod(JsonObject pod, JsonObject options) {
        JsonElement requested = options == null ? null : options.get("gracePeriodSeconds");
        long period;
        if (requested != null && !requested.isJsonNull()) {
            period = requested.getAsLong() < 0 ? 1 : requested.getAsLong();
        } else {
            JsonElement own = Json.obj(pod, "spec").get("terminationGracePeriodSeconds");
            period = own == null || own.isJsonNull() ? 0 : own.getAsLong();
        }
        String node = Json.str(Json.obj(pod, "spec"), "nodeName");
        String phase = Json.str(Json.obj(pod, "status"), "phase");
        if (node == null || node.isEmpty() || "Succeeded".equals(phase) || "Failed".equals(phase)) {
            return 0;
        }
        return period;
    }

    private void deleteContents(ResourceType t, JsonObject container) {
        String name = Json.str(Json.meta(container), "name");
        if (t.is("", "namespaces")) {
            for (Map.Entry<String, TreeMap<String, JsonObject>> e : new ArrayList<>(data.entrySet())) {
                ResourceType type = typeOfStorage.get(e.getKey());
                if (type == null || !type.namespaced()) {
                    continue;
                }
                for (JsonObject o : new ArrayList<>(e.getValue().subMap(name + "/", name + "/\uffff").values())) {
                    if (type.is("", "pods")) {
                        // The namespace controller deletes pods gracefully; bound ones wait for their kubelet.
                        deletePod(type, o, null);
                    } else if (!deleting(o) || finalizers(o).isEmpty()) {
                        deleteObject(type, o, false);
                    }
                }
            }
        } else {
            JsonObject spec = Json.obj(container, "spec");
            String storageKey = Json.str(spec, "group") + "/" + Json.str(Json.obj(spec, "names"), "plural");
            ResourceType type = typeOfStorage.get(storageKey);
            TreeMap<String, JsonObject> objects = data.get(storageKey);
            if (type != null && objects != null) {
                for (JsonObject o : new ArrayList<>(objects.values())) {
                    if (!deleting(o)) {
                        deleteObject(type, o, false);
                    }
                }
            }
        }
    }

    private boolean contentsGone(ResourceType t, JsonObject o) {
        String name = Json.str(Json.meta(o), "name");
        if (t.is("", "namespaces")) {
            for (Map.Entry<String, TreeMap<String, JsonObject>> e : data.entrySet()) {
                ResourceType type = typeOfStorage.get(e.getKey());
                if (type != null && type.namespaced() && !e.getValue().subMap(name + "/", name + "/\uffff").isEmpty()) {
                    return false;
                }
            }
            return true;
        }
        if (t.isCrd()) {
            JsonObject spec = Json.obj(o, "spec");
            TreeMap<String, JsonObject> objects = data.get(Json.str(spec, "group") + "/"
                    + Json.str(Json.obj(spec, "names"), "plural"));
            return objects == null || objects.isEmpty();
        }
        return true;
    }

    /** After an object is gone, a terminating namespace or CRD that waited for it may go too. */
    private void afterRemoval(ResourceType t, JsonObject removed) {
        if (t.isCrd()) {
            JsonObject spec = Json.obj(removed, "spec");
            String group = Json.str(spec, "group");
            String plural = Json.str(Json.obj(spec, "names"), "plural");
            registry.replaceCustom(group, plural, List.of());
            hub.closeAll(group + "/" + plural);
            return;
        }
        if (t.namespaced()) {
            finishIfReady(namespaceType(), namespaces().get(namespaceOf(removed)));
        }
        if (t.custom()) {
            finishIfReady(crdType(), storage(crdType()).get(t.plural() + "." + t.group()));
        }
    }

    private void finishIfReady(ResourceType type, JsonObject container) {
        if (container != null && deleting(container) && finalizers(container).isEmpty()
                && contentsGone(type, container)) {
            remove(type, container, container);
        }
    }

    private void checkPreconditions(ResourceType t, String name, JsonObject current, JsonObject options) {
        JsonObject pre = Json.obj(options, "preconditions");
        if (pre == null) {
            return;
        }
        JsonObject m = Json.obj(current, "metadata");
        String uid = Json.str(pre, "uid");
        if (uid != null && !uid.equals(Json.str(m, "uid"))) {
            throw ApiError.conflict(t, name, "Precondition failed: UID in precondition: " + uid
                    + ", UID in object meta: " + Json.str(m, "uid"));
        }
        String version = Json.str(pre, "resourceVersion");
        if (version != null && !version.equals(Json.str(m, "resourceVersion"))) {
            throw ApiError.conflict(t, name, "Precondition failed: ResourceVersion in precondition: " + version
                    + ", ResourceVersion in object meta: " + Json.str(m, "resourceVersion"));
        }
    }

    // ---- storage primitives ----

    private JsonObject put(ResourceType t, String key, JsonObject previous, JsonObject next, String type) {
        resourceVersion++;
        Json.meta(next).addProperty("resourceVersion", Long.toString(resourceVersion));
        storage(t).put(key, next);
        if (t.is("", "services")) {
            serviceIps.stored(previous, next);
            nodePorts.stored(previous, next);
        }
        hub.publish(new WatchHub.Event(resourceVersion, type, t.storageKey(), namespaceOf(next), next, previous));
        return next;
    }

    private JsonObject remove(ResourceType t, JsonObject last, JsonObject previous) {
        resourceVersion++;
        JsonObject removed = last.deepCopy();
        Json.meta(removed).addProperty("resourceVersion", Long.toString(resourceVersion));
        storage(t).remove(key(t, namespaceOf(removed), Json.str(Json.meta(removed), "name")));
        if (t.is("", "services")) {
            serviceIps.stored(last, null);
            nodePorts.stored(last, null);
        }
        hub.publish(new WatchHub.Event(resourceVersion, "DELETED", t.storageKey(), namespaceOf(removed), removed,
                previous));
        afterRemoval(t, removed);
        return removed;
    }

    /**
     * The PodSecurity validating admission plugin, after object validation as in the registry's create and update
     * ({@code createValidation} runs after {@code BeforeCreate}): a Pod its namespace's enforce level forbids is
     * refused; a Pod or a workload's pod template its warn level forbids gets a warning ({@link PodSecurityAdmission}).
     */
    private void admitPodSecurity(ResourceType t, String ns, String name, JsonObject o, JsonObject old,
            WriteOptions opts) {
        if (t.custom() || !(t.group().isEmpty() || t.group().equals("apps") || t.group().equals("batch"))) {
            return;
        }
        if (t.is("", "namespaces")) {
            String nsName = Json.str(Json.meta(o), "name");
            PodSecurityAdmission.admitNamespace(t, nsName, o, old, old == null ? List.of() : core("pods", nsName),
                    opts.warnings());
            return;
        }
        JsonObject namespace = ns == null ? null : namespaces().get(ns);
        if (t.is("", "pods")) {
            PodSecurityAdmission.admitPod(t, name, namespace, o, old, opts.warnings());
        } else if (PodSecurityAdmission.CONTROLLERS.contains(t.plural())) {
            PodSecurityAdmission.admitController(namespace, PodSecurityAdmission.template(t.plural(), o),
                    opts.warnings());
        }
    }

    /** ResourceQuota admission of an object of {@code t} created ({@code old} null) or updated in {@code ns}. */
    private void admitQuota(ResourceType t, String ns, String name, JsonObject o, JsonObject old) {
        ResourceAdmission.quota(t, name, o, old, core("resourcequotas", ns), () -> inNamespace(t, ns, name));
    }

    /** The stored objects of a core/v1 resource in a namespace. */
    private List<JsonObject> core(String plural, String ns) {
        return inNamespace(registry.find("", "v1", plural), ns, null);
    }

    /** The stored objects of a resource in a namespace, but the one named {@code except}. */
    private List<JsonObject> inNamespace(ResourceType type, String ns, String except) {
        if (type == null || ns == null) {
            return List.of();
        }
        List<JsonObject> out = new ArrayList<>();
        // Keys are "<namespace>/<name>", and no namespace name holds '/': the namespace's objects sit between
        // "<namespace>/" and "<namespace>0" ('0' follows '/').
        for (JsonObject o : storage(type).subMap(ns + "/", ns + "0").values()) {
            if (!Json.str(Json.meta(o), "name").equals(except)) {
                out.add(o);
            }
        }
        return out;
    }

    /** The PriorityClasses every API server creates at start ({@code SystemPriorityClasses}). */
    private static final Map<String, Integer> SYSTEM_PRIORITY_CLASSES = Map.of(
            "system-node-critical", 2000001000, "system-cluster-critical", 2000000000);

    /**
     * The Priority admission plugin on Pod create ({@code plugin/pkg/admission/priority/admission.go},
     * {@code admitPod}): the PriorityClass the pod names must exist (403 "no PriorityClass with name X was found"),
     * without a name the global default class (the lowest value among those marked globalDefault) or priority 0;
     * a pod that sets {@code spec.priority} or {@code spec.preemptionPolicy} to another value than the class gives
     * is refused (403); otherwise both are set from the class. Runs only where PriorityClasses are served.
     */
    /**
     * ServiceAccount admission of a new pod ({@code plugin/pkg/admission/serviceaccount/admission.go}, {@code Admit}
     * and {@code Validate}): a mirror pod may name no ServiceAccount and mount no secret or token projection; any
     * other pod runs as {@code default} unless it names one, which must exist (403 otherwise); unless the pod, or else
     * its ServiceAccount, turns automounting off, every container and init container that mounts nothing at
     * {@code /var/run/secrets/kubernetes.io/serviceaccount} gets the {@code kube-api-access-<random>} projected
     * volume ({@code TokenVolumeSource}: token, {@code kube-root-ca.crt}, namespace); a pod without
     * {@code imagePullSecrets} gets its ServiceAccount's.
     */
    private void admitServiceAccount(ResourceType pods, JsonObject pod, String name, String ns) {
        JsonObject spec = Json.child(pod, "spec");
        JsonObject annotations = Json.obj(Json.meta(pod), "annotations");
        if (annotations != null && annotations.has("kubernetes.io/config.mirror")) {
            String account = Json.str(spec, "serviceAccountName");
            if (account != null && !account.isEmpty()) {
                throw ApiError.forbidden(pods, name, "a mirror pod may not reference service accounts");
            }
            return;
        }
        String account = Json.str(spec, "serviceAccountName");
        if (account == null || account.isEmpty()) {
            account = "default";
            spec.addProperty("serviceAccountName", account);
        }
        ResourceType accounts = registry.find("", "v1", "serviceaccounts");
        JsonObject sa = accounts == null ? null : storage(accounts).get(key(accounts, ns, account));
        if (sa == null) {
            throw ApiError.forbidden(pods, name, "error looking up service account " + ns + "/" + account
                    + ": serviceaccount \"" + account + "\" not found");
        }
        JsonElement podChoice = spec.get("automountServiceAccountToken");
        JsonElement saChoice = sa.get("automountServiceAccountToken");
        boolean automount = podChoice != null && !podChoice.isJsonNull() ? podChoice.getAsBoolean()
                : saChoice == null || saChoice.isJsonNull() || saChoice.getAsBoolean();
        if (automount) {
            mountServiceAccountToken(spec);
        }
        JsonArray pullSecrets = Json.arr(spec, "imagePullSecrets");
        JsonArray saPullSecrets = Json.arr(sa, "imagePullSecrets");
        if ((pullSecrets == null || pullSecrets.isEmpty()) && saPullSecrets != null && !saPullSecrets.isEmpty()) {
            JsonArray copy = new JsonArray();
            saPullSecrets.forEach(r -> copy.add(Json.object("name", Json.str(r.getAsJsonObject(), "name"))));
            spec.add("imagePullSecrets", copy);
        }
    }

    private static final String TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

    /** {@code mountServiceAccountToken} and {@code TokenVolumeSource} of the ServiceAccount admission plugin. */
    private void mountServiceAccountToken(JsonObject spec) {
        String volumeName = null;
        JsonArray volumes = Json.arr(spec, "volumes");
        if (volumes != null) {
            for (JsonElement v : volumes) {
                String n = Json.str(v.getAsJsonObject(), "name");
                if (n != null && n.startsWith("kube-api-access-")) {
                    volumeName = n;
                    break;
                }
            }
        }
        boolean hasVolume = volumeName != null;
        if (volumeName == null) {
            volumeName = generateName("kube-api-access-");
        }
        boolean needed = false;
        for (String field : List.of("initContainers", "containers")) {
            JsonArray containers = Json.arr(spec, field);
            if (containers == null) {
                continue;
            }
            for (JsonElement c : containers) {
                JsonObject container = c.getAsJsonObject();
                JsonArray mounts = Json.arr(container, "volumeMounts");
                boolean mounted = false;
                if (mounts != null) {
                    for (JsonElement m : mounts) {
                        mounted |= TOKEN_MOUNT_PATH.equals(Json.str(m.getAsJsonObject(), "mountPath"));
                    }
                }
                if (!mounted) {
                    if (mounts == null) {
                        mounts = new JsonArray();
                        container.add("volumeMounts", mounts);
                    }
                    mounts.add(Json.object("name", volumeName, "readOnly", true, "mountPath", TOKEN_MOUNT_PATH));
                    needed = true;
                }
            }
        }
        if (!hasVolume && needed) {
            if (volumes == null) {
                volumes = new JsonArray();
                spec.add("volumes", volumes);
            }
            JsonObject projected = Json.object("defaultMode", 420, "sources", Json.array(
                    Json.object("serviceAccountToken", Json.object("expirationSeconds", 3607, "path", "token")),
                    Json.object("configMap", Json.object("name", "kube-root-ca.crt", "items",
                            Json.array(Json.object("key", "ca.crt", "path", "ca.crt")))),
                    Json.object("downwardAPI", Json.object("items", Json.array(Json.object("path", "namespace",
                            "fieldRef", Json.object("apiVersion", "v1", "fieldPath", "metadata.namespace")))))));
            volumes.add(Json.object("name", volumeName, "projected", projected));
        }
    }

    private void admitPriority(ResourceType pods, JsonObject pod, String name) {
        ResourceType classes = registry.find("scheduling.k8s.io", "v1", "priorityclasses");
        if (classes == null) {
            return;
        }
        JsonObject spec = Json.child(pod, "spec");
        String className = Json.str(spec, "priorityClassName");
        int value;
        String policy = null;
        if (className == null || className.isEmpty()) {
            JsonObject def = null;
            for (JsonObject pc : storage(classes).values()) {
                JsonElement g = pc.get("globalDefault");
                if (g != null && g.isJsonPrimitive() && g.getAsBoolean()
                        && (def == null || classValue(pc) < classValue(def))) {
                    def = pc;
                }
            }
            value = def == null ? 0 : classValue(def);
            if (def != null) {
                spec.addProperty("priorityClassName", Json.str(Json.meta(def), "name"));
                policy = Json.str(def, "preemptionPolicy");
            }
        } else {
            JsonObject pc = storage(classes).get(key(classes, null, className));
            if (pc != null) {
                value = classValue(pc);
                policy = Json.str(pc, "preemptionPolicy");
            } else if (SYSTEM_PRIORITY_CLASSES.containsKey(className)) {
                value = SYSTEM_PRIORITY_CLASSES.get(className);
                policy = "PreemptLowerPriority";
            } else {
                throw ApiError.forbidden(pods, name, "no PriorityClass with name " + className + " was found");
            }
        }
        JsonElement given = spec.get("priority");
        if (given != null && !given.isJsonNull() && given.getAsInt() != value) {
            throw ApiError.forbidden(pods, name, "the integer value of priority (" + given.getAsInt() + ") must not be "
                    + "provided in pod spec; priority admission controller computed " + value + " from the given "
                    + "PriorityClass name");
        }
        spec.addProperty("priority", value);
        if (policy != null) {
            String givenPolicy = Json.str(spec, "preemptionPolicy");
            if (givenPolicy != null && !givenPolicy.equals(policy)) {
                throw ApiError.forbidden(pods, name, "the string value of PreemptionPolicy (" + givenPolicy + ") must "
                        + "not be provided in pod spec; priority admission controller computed " + policy
                        + " from the given PriorityClass name");
            }
            spec.addProperty("preemptionPolicy", policy);
        }
    }

    private static int classValue(JsonObject priorityClass) {
        JsonElement v = priorityClass.get("value");
        return v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() ? v.getAsInt() : 0;
    }

    private TreeMap<String, JsonObject> storage(ResourceType t) {
        typeOfStorage.putIfAbsent(t.storageKey(), t);
        return data.computeIfAbsent(t.storageKey(), k -> new TreeMap<>());
    }

    private NavigableMap<String, JsonObject> view(ResourceType t, String ns) {
        TreeMap<String, JsonObject> objects = storage(t);
        if (t.namespaced() && ns != null) {
            return objects.subMap(ns + "/", true, ns + "/\uffff", false);
        }
        return objects;
    }

    private JsonObject must(ResourceType t, String ns, String name) {
        JsonObject o = storage(t).get(key(t, ns, name));
        if (o == null) {
            throw ApiError.notFound(t, name);
        }
        return o;
    }

    private static String key(ResourceType t, String ns, String name) {
        return t.namespaced() ? ns + "/" + name : name;
    }

    private TreeMap<String, JsonObject> namespaces() {
        return storage(namespaceType());
    }

    private ResourceType namespaceType() {
        return registry.find("", "v1", "namespaces");
    }

    private ResourceType crdType() {
        return registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    }

    private boolean crdTerminating(ResourceType t) {
        JsonObject crd = storage(crdType()).get(t.plural() + "." + t.group());
        return crd != null && deleting(crd);
    }

    private void serve(JsonObject crd) {
        JsonObject spec = Json.obj(crd, "spec");
        List<ResourceType> types = Crds.types(crd);
        String group = Json.str(spec, "group");
        String plural = Json.str(Json.obj(spec, "names"), "plural");
        registry.replaceCustom(group, plural, types);
        if (!types.isEmpty()) {
            typeOfStorage.put(group + "/" + plural, types.get(0));
        }
    }

    // ---- helpers ----

    private static void normalize(ResourceType t, JsonObject o) {
        if (t.custom()) {
            Normalizer.metadata(o);
        } else {
            Normalizer.builtin(t, o);
        }
    }

    /**
     * Prunes, defaults and validates a custom resource against its version's schema, then runs its CEL rules
     * ({@code old} is the stored object on update) unless a schema error blocks them, as the API server does (which
     * has a CEL validator, and so the note on blocked rules, only for a schema with rules).
     */
    private static void applySchema(ResourceType t, JsonObject o, JsonObject old, WriteOptions opts,
                                    List<ApiError.Cause> causes) {
        if (t.schema() == null) {
            return;
        }
        List<String> unknown = new ArrayList<>();
        SchemaValidator.pruneAndDefault(o, t.schema(), unknown);
        if (!unknown.isEmpty()) {
            if ("Strict".equalsIgnoreCase(opts.fieldValidation())) {
                throw ApiError.badRequest(t.kind() + " in version \"" + t.version() + "\" cannot be handled as a "
                        + t.kind() + ": strict decoding error: " + String.join(", ",
                                unknown.stream().map(u -> "unknown field \"" + u + "\"").toList()));
            }
            if (!"Ignore".equalsIgnoreCase(opts.fieldValidation())) {
                unknown.forEach(u -> opts.warnings().add("unknown field \"" + u + "\""));
            }
        }
        int before = causes.size();
        SchemaValidator.validate(o, t.schema(), causes);
        if (!CelRules.present(t.schema())) {
            return;
        }
        if (causes.subList(before, causes.size()).stream().anyMatch(c -> BLOCKING.contains(c.reason()))) {
            causes.add(ApiError.Cause.invalid("<nil>", Validation.quote("null"), "some validation rules were not checked because the "
                    + "object was invalid; correct the existing errors to complete validation"));
        } else {
            CelRules.validate(o, old, t.schema(), causes);
        }
    }

    /**
     * Schema errors that keep CEL rules from running ({@code hasBlockingErr} of the custom resource strategy): a
     * wrong type, a missing required field, an enum, length or size violation; other schema errors do not.
     */
    private static final Set<String> BLOCKING = Set.of("FieldValueNotSupported", "FieldValueRequired",
            "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid");

    private static void typeMeta(ResourceType t, JsonObject o) {
        String kind = Json.str(o, "kind");
        if (kind != null && !kind.isEmpty() && !kind.equals(t.kind())) {
            throw ApiError.badRequest("the kind in the request body (" + kind + ") does not match the resource ("
                    + t.kind() + ")");
        }
        String apiVersion = Json.str(o, "apiVersion");
        if (apiVersion != null && !apiVersion.isEmpty()) {
            String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
            String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
            if (!group.equals(t.group())) {
                throw ApiError.badRequest("the API version in the data (" + apiVersion
                        + ") does not match the expected API version (" + t.apiVersion() + ")");
            }
            if (!t.custom() && !version.equals(t.version())) {
                // The typed decoder knows no such version (transformDecodeError in endpoints/handlers/rest.go).
                throw ApiError.badRequest(t.kind() + " in version \"" + version + "\" cannot be handled as a "
                        + t.kind() + ": no kind \"" + t.kind() + "\" is registered for version \"" + apiVersion
                        + "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
            }
        }
        List<Map.Entry<String, JsonElement>> rest = new ArrayList<>(o.entrySet());
        rest.removeIf(e -> e.getKey().equals("apiVersion") || e.getKey().equals("kind"));
        for (Map.Entry<String, JsonElement> e : rest) {
            o.remove(e.getKey());
        }
        o.addProperty("apiVersion", t.apiVersion());
        o.addProperty("kind", t.kind());
        rest.forEach(e -> o.add(e.getKey(), e.getValue()));
    }

    private static void checkIdentity(ResourceType t, String ns, String name, JsonObject next) {
        JsonObject m = Json.meta(next);
        String bodyName = Json.str(m, "name");
        if (bodyName != null && !bodyName.isEmpty() && !bodyName.equals(name)) {
            throw ApiError.badRequest("the name of the object (" + bodyName + ") does not match the name on the URL ("
                    + name + ")");
        }
        String bodyNs = Json.str(m, "namespace");
        if (t.namespaced() && bodyNs != null && !bodyNs.isEmpty() && !bodyNs.equals(ns)) {
            throw ApiError.badRequest(
                    "the namespace of the provided object does not match the namespace sent on the request");
        }
    }

    /** The object as seen through one served version: the same fields with that version's apiVersion. */
    static JsonObject present(ResourceType t, JsonObject o) {
        if (t.apiVersion().equals(Json.str(o, "apiVersion"))) {
            return o;
        }
        JsonObject copy = o.deepCopy();
        copy.addProperty("apiVersion", t.apiVersion());
        return copy;
    }

    /**
     * What counts as a spec change for {@code metadata.generation}: everything but metadata and status; for a custom
     * resource without a status subresource, everything but metadata.
     */
    private static JsonObject specOf(ResourceType t, JsonObject o) {
        boolean statusCounts = t.custom() && !t.statusSubresource();
        JsonObject copy = new JsonObject();
        for (Map.Entry<String, JsonElement> e : o.entrySet()) {
            if (!Set.of("metadata", "apiVersion", "kind").contains(e.getKey())
                    && (statusCounts || !e.getKey().equals("status"))) {
                copy.add(e.getKey(), e.getValue());
            }
        }
        return copy;
    }

    private static boolean noGraceLeft(JsonObject o) {
        JsonElement period = Json.meta(o).get("deletionGracePeriodSeconds");
        return period == null || period.isJsonNull() || period.getAsLong() == 0;
    }

    private static boolean deleting(JsonObject o) {
        return Json.str(Json.obj(o, "metadata"), "deletionTimestamp") != null;
    }

    private static Set<String> finalizers(JsonObject o) {
        Set<String> set = new HashSet<>();
        JsonArray list = Json.arr(Json.obj(o, "metadata"), "finalizers");
        if (list != null) {
            list.forEach(f -> set.add(f.getAsString()));
        }
        return set;
    }

    private static String namespaceOf(JsonObject o) {
        return Json.str(Json.obj(o, "metadata"), "namespace");
    }

    private String now() {
        return stamp(Instant.now(clock));
    }

    private static String stamp(Instant at) {
        return DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.SECONDS));
    }

    private String generateName(String base) {
        String prefix = base.length() > MAX_GENERATED_BASE ? base.substring(0, MAX_GENERATED_BASE) : base;
        StringBuilder name = new StringBuilder(prefix);
        for (int i = 0; i < 5; i++) {
            name.append(GENERATED_NAME_CHARS.charAt(random.nextInt(GENERATED_NAME_CHARS.length())));
        }
        return name.toString();
    }

    private static long parseVersion(String version) {
        try {
            return Long.parseLong(version);
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("resourceVersion: Invalid value: \"" + version + "\": must be a number");
        }
    }

    private static String encodeContinue(String version, String lastKey) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((version + "\n" + lastKey)
                .getBytes(StandardCharsets.UTF_8));
    }

    private static String[] decodeContinue(String token) {
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split("\n", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException();
            }
            return parts;
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest("continue key is not valid");
        }
    }
}
