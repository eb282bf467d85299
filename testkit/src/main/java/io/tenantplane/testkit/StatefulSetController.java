package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The StatefulSet controller, after {@code pkg/controller/statefulset} ({@code stateful_set_control.go},
 * {@code stateful_set_utils.go}, {@code stateful_pod_control.go}), acting on the store as the real one acts on an API
 * server:
 * <ul>
 *   <li>revisions: the set's template is kept in a {@code ControllerRevision} named {@code <set>-<hash>} (its data the
 *       patch {@code {"spec":{"template":{…,"$patch":"replace"}}}}, as {@code newRevision} stores it); an equal
 *       earlier revision is reused with the next revision number (a rollback); {@code status.currentRevision} and
 *       {@code updateRevision} name them;</li>
 *   <li>pods: {@code <set>-<ordinal>} for each ordinal from {@code spec.ordinals.start}, from the template of the
 *       revision {@code newVersionedStatefulSetPod} picks, with the labels {@code statefulset.kubernetes.io/pod-name},
 *       {@code apps.kubernetes.io/pod-index} and {@code controller-revision-hash}, {@code spec.hostname} and
 *       {@code spec.subdomain} ({@code initIdentity}), a controller reference, and a volume per claim template
 *       ({@code updateStorage}); the claims {@code <template>-<set>-<ordinal>} are created first, labelled with the
 *       template's labels and the selector's, owned as {@code persistentVolumeClaimRetentionPolicy} says;</li>
 *   <li>{@code OrderedReady}: one pod at a time, each only once every lower ordinal is Running and Ready (and
 *       available for {@code minReadySeconds}); scale-down from the highest ordinal, one at a time;
 *       {@code Parallel} does all at once; a Failed pod is deleted and made again;</li>
 *   <li>updates ({@code RollingUpdate}): the pod of the highest ordinal at or above the partition that is not at the
 *       update revision is deleted, one at a time, each waiting for the ones above to be healthy; {@code OnDelete}
 *       replaces only what is deleted; {@code completeRollingUpdate} makes the update revision current;</li>
 *   <li>status: {@code replicas}, {@code readyReplicas}, {@code availableReplicas}, {@code currentReplicas},
 *       {@code updatedReplicas}, the revisions, {@code collisionCount} and {@code observedGeneration}, written only
 *       when they change ({@code inconsistentStatus});</li>
 *   <li>a pod or claim the server refuses (Pod Security, quota, LimitRanger) is reported as upstream's recorder
 *       reports it: a Warning Event {@code FailedCreate} on the StatefulSet,
 *       {@code create Pod <pod> in StatefulSet <set> failed error: <message>}; the controller stops there and tries
 *       again on the next change.</li>
 * </ul>
 * Known differences: a pod that stops matching the selector is not released; the
 * revision hash is FNV-32a of this server's JSON of the patch (the same function over Go's encoding in upstream, so the
 * names differ); a claim's owner references are set when it is created and not reconciled after a change of
 * the retention policy or on scale-down; {@code maxUnavailable} (alpha) is not supported; a refusal is evented once per
 * distinct message (upstream counts repeats and retries with backoff); success events are not written.
 */
final class StatefulSetController {
    static final String POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
    static final String POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";
    static final String REVISION_LABEL = "controller-revision-hash";
    private static final String COMPONENT = "statefulset-controller";
    private static final Pattern ORDINAL = Pattern.compile("(.*)-([0-9]+)$");
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

    private final Store store;
    private final Registry registry;
    private final Clock clock;
    private final Store.WriteOptions opts = Store.WriteOptions.defaults();
    /** Refusals already evented, by set uid and message: a refusal repeats on every change, its event once. */
    private final Set<String> evented = new HashSet<>();

    StatefulSetController(Store store, Registry registry, Clock clock) {
        this.store = store;
        this.registry = registry;
        this.clock = clock;
    }

    /** One sync of every StatefulSet. */
    void sync() {
        for (JsonObject set : list(type("apps", "statefulsets"), null, null)) {
            try {
                sync(set);
            } catch (ApiError e) {
                // A write lost a race (409, 404): the next tick sees the new state.
            }
        }
    }

    private void sync(JsonObject set) {
        JsonObject m = Json.meta(set);
        String ns = Json.str(m, "namespace");
        JsonObject spec = Json.obj(set, "spec");
        JsonObject before = Json.obj(set, "status") == null ? new JsonObject() : Json.obj(set, "status");

        List<JsonObject> revisions = claim(set, type("apps", "controllerrevisions"), o -> true);
        revisions.sort(Comparator.comparingLong(r -> r.get("revision").getAsLong()));
        int[] collisions = {intOf(before, "collisionCount")};
        JsonObject update = updateRevision(set, revisions, collisions);
        JsonObject current = update;
        for (JsonObject r : revisions) {
            if (Json.str(Json.meta(r), "name").equals(Json.str(before, "currentRevision"))) {
                current = r;
            }
        }
        String currentName = Json.str(Json.meta(current), "name");
        String updateName = Json.str(Json.meta(update), "name");

        int start = startOrdinal(spec);
        int count = intOf(spec, "replicas");
        JsonObject[] replicas = new JsonObject[count];
        List<JsonObject> condemned = new ArrayList<>();
        String name = Json.str(m, "name");
        for (JsonObject pod : pods(set)) {
            int ordinal = ordinal(name, pod);
            if (ordinal >= start && ordinal < start + count) {
                replicas[ordinal - start] = pod;
            } else if (ordinal >= 0) {
                condemned.add(pod);
            }
        }
        condemned.sort(Comparator.comparingInt((JsonObject p) -> ordinal(name, p)).reversed());
        JsonObject firstUnhealthy = null;
        for (JsonObject pod : replicas) {
            if (firstUnhealthy == null && pod != null && !healthy(pod)) {
                firstUnhealthy = pod;
            }
        }
        for (int i = condemned.size() - 1; i >= 0 && firstUnhealthy == null; i--) {
            if (!healthy(condemned.get(i))) {
                firstUnhealthy = condemned.get(i);
            }
        }
        int minReady = intOf(spec, "minReadySeconds");
        boolean monotonic = !"Parallel".equals(Json.str(spec, "podManagementPolicy"));
        boolean done = m.has("deletionTimestamp");
        for (int i = 0; i < count && !done; i++) {
            JsonObject pod = replicas[i];
            if (pod != null && "Failed".equals(phase(pod)) && !Json.meta(pod).has("deletionTimestamp")) {
                deletePod(set, pod);
                replicas[i] = null;
                done = monotonic;
                continue;
            }
            if (pod == null) {
                JsonObject made = create(set, current, update, before, start + i);
                if (made == null) {
                    done = true;
                    break;
                }
                replicas[i] = made;
                done = monotonic;
                continue;
            }
            if (monotonic && (Json.meta(pod).has("deletionTimestamp") || !runningAndReady(pod)
                    || !available(pod, minReady))) {
                done = true;
            }
        }
        for (int i = 0; i < condemned.size() && !done; i++) {
            JsonObject pod = condemned.get(i);
            if (Json.meta(pod).has("deletionTimestamp")) {
                done = monotonic;
                continue;
            }
            if (monotonic && !runningAndReady(pod) && pod != firstUnhealthy) {
                done = true;
                continue;
            }
            deletePod(set, pod);
            done = monotonic;
        }
        JsonObject rollingUpdate = Json.obj(Json.obj(spec, "updateStrategy"), "rollingUpdate");
        int partition = rollingUpdate != null ? intOf(rollingUpdate, "partition") : 0;
        int deletedForUpdate = 0;
        if (!done && rolling(spec)) {
            for (int target = count - 1; target >= partition; target--) {
                JsonObject pod = replicas[target];
                if (pod == null) {
                    break;
                }
                if (!updateName.equals(revision(pod))
                        && !Json.meta(pod).has("deletionTimestamp")) {
                    deletePod(set, pod);
                    deletedForUpdate = 1;
                    break;
                }
                if (!healthy(pod)) {
                    break;
                }
            }
        }
        writeStatus(set, count, minReady, currentName, updateName, collisions[0], replicas, condemned,
                deletedForUpdate);
    }

    // ---- revisions ----

    /**
     * {@code getStatefulSetRevisions}: the revision of the set's template as it is now, made or reused. A name taken
     * by a revision that is not this set's, or holds other data, is a collision: the count goes up and the hash
     * changes ({@code CreateControllerRevision}).
     */
    private JsonObject updateRevision(JsonObject set, List<JsonObject> revisions, int[] collisions) {
        JsonObject data = Json.object("spec", Json.object("template", templateWithReplace(set)));
        long next = revisions.isEmpty() ? 1 : revisions.get(revisions.size() - 1).get("revision").getAsLong() + 1;
        JsonObject equal = null;
        for (JsonObject r : revisions) {
            if (Json.same(r.get("data"), data)) {
                equal = r;
            }
        }
        if (equal != null && equal == revisions.get(revisions.size() - 1)) {
            return equal;
        }
        ResourceType t = type("apps", "controllerrevisions");
        JsonObject m = Json.meta(set);
        if (equal != null) {
            equal.addProperty("revision", next);
            return store.update(t, Json.str(m, "namespace"), Json.str(Json.meta(equal), "name"), equal, false, opts);
        }
        JsonObject template = Json.obj(Json.obj(set, "spec"), "template");
        String prefix = Json.str(m, "name");
        while (true) {
            String hash = hash(Json.text(data), collisions[0]);
            JsonObject labels = Json.obj(Json.obj(template, "metadata"), "labels") == null ? new JsonObject()
                    : Json.obj(Json.obj(template, "metadata"), "labels").deepCopy();
            labels.addProperty(REVISION_LABEL, hash);
            String name = (prefix.length() > 223 ? prefix.substring(0, 223) : prefix) + "-" + hash;
            JsonObject revision = Json.object("apiVersion", "apps/v1", "kind", "ControllerRevision",
                    "metadata", Json.object("name", name, "labels", labels, "annotations", Json.obj(m, "annotations"),
                            "ownerReferences", Json.array(owner(set))),
                    "data", data, "revision", next);
            try {
                return store.create(t, Json.str(m, "namespace"), revision, opts);
            } catch (ApiError e) {
                if (e.code != 409) {
                    throw e;
                }
                JsonObject exists = store.get(t, Json.str(m, "namespace"), name);
                if (controller(exists).equals(Json.str(m, "uid")) && Json.same(exists.get("data"), data)) {
                    return exists;
                }
                collisions[0]++;
            }
        }
    }

    private static JsonObject templateWithReplace(JsonObject set) {
        JsonObject template = Json.obj(Json.obj(set, "spec"), "template").deepCopy();
        template.addProperty("$patch", "replace");
        return template;
    }

    private static JsonObject template(JsonObject revision) {
        JsonObject template = Json.obj(Json.obj(revision, "data"), "spec") == null ? null
                : Json.obj(Json.obj(Json.obj(revision, "data"), "spec"), "template");
        if (template == null) {
            return new JsonObject();
        }
        JsonObject copy = template.deepCopy();
        copy.remove("$patch");
        return copy;
    }

    /**
     * {@code controller.HashControllerRevision} (and, with no collisions, {@code controller.ComputeHash}): FNV-32a of
     * the data and the collision count, written with {@code rand.SafeEncodeString}.
     */
    static String hash(String data, int collisions) {
        int h = 0x811c9dc5;
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x01000193;
        }
        if (collisions > 0) {
            for (int i = 0; i < 4; i++) {
                h ^= (collisions >>> (8 * i)) & 0xff;
                h *= 0x01000193;
            }
        }
        StringBuilder out = new StringBuilder();
        for (char c : Integer.toUnsignedString(h).toCharArray()) {
            out.append(ALPHANUMS.charAt(c % ALPHANUMS.length()));
        }
        return out.toString();
    }

    // ---- pods and claims ----

    /**
     * {@code newVersionedStatefulSetPod}, its claims, then the pod ({@code CreateStatefulPod}); null when the server
     * refused either, which is evented.
     */
    private JsonObject create(JsonObject set, JsonObject current, JsonObject update, JsonObject status, int ordinal) {
        JsonObject spec = Json.obj(set, "spec");
        int start = startOrdinal(spec);
        JsonObject rollingUpdate = Json.obj(Json.obj(spec, "updateStrategy"), "rollingUpdate");
        boolean atCurrent = rolling(spec) && (rollingUpdate == null && ordinal < start + intOf(status, "currentReplicas")
                || rollingUpdate != null && ordinal < start + intOf(rollingUpdate, "partition"));
        JsonObject revision = atCurrent ? current : update;
        JsonObject m = Json.meta(set);
        String ns = Json.str(m, "namespace");
        String podName = Json.str(m, "name") + "-" + ordinal;
        JsonObject template = template(revision);
        JsonObject meta = Json.obj(template, "metadata") == null ? new JsonObject()
                : Json.obj(template, "metadata").deepCopy();
        meta.remove("name");
        meta.remove("generateName");
        meta.addProperty("name", podName);
        JsonObject labels = Json.child(meta, "labels");
        labels.addProperty(POD_NAME_LABEL, podName);
        labels.addProperty(POD_INDEX_LABEL, Integer.toString(ordinal));
        labels.addProperty(REVISION_LABEL, Json.str(Json.meta(revision), "name"));
        meta.add("ownerReferences", Json.array(owner(set)));
        JsonObject podSpec = Json.obj(template, "spec") == null ? new JsonObject() : Json.obj(template, "spec");
        podSpec.addProperty("hostname", podName);
        if (Json.str(spec, "serviceName") != null && !Json.str(spec, "serviceName").isEmpty()) {
            podSpec.addProperty("subdomain", Json.str(spec, "serviceName"));
        }
        JsonArray volumes = new JsonArray();
        JsonArray claims = Json.arr(spec, "volumeClaimTemplates");
        Set<String> claimed = new HashSet<>();
        for (JsonElement c : claims == null ? new JsonArray() : claims) {
            JsonObject claimTemplate = c.getAsJsonObject();
            String templateName = Json.str(Json.meta(claimTemplate), "name");
            String claimName = templateName + "-" + Json.str(m, "name") + "-" + ordinal;
            if (!createClaim(set, claimTemplate, claimName, podName)) {
                return null;
            }
            claimed.add(templateName);
            volumes.add(Json.object("name", templateName, "persistentVolumeClaim",
                    Json.object("claimName", claimName)));
        }
        JsonArray own = Json.arr(podSpec, "volumes");
        for (JsonElement v : own == null ? new JsonArray() : own) {
            if (!claimed.contains(Json.str(v.getAsJsonObject(), "name"))) {
                volumes.add(v);
            }
        }
        if (!volumes.isEmpty()) {
            podSpec.add("volumes", volumes);
        }
        JsonObject pod = Json.object("apiVersion", "v1", "kind", "Pod", "metadata", meta, "spec", podSpec);
        try {
            return store.create(type("", "pods"), ns, pod, opts);
        } catch (ApiError e) {
            if (e.code != 409) {
                refused(set, "create Pod " + podName + " in StatefulSet " + Json.str(m, "name") + " failed error: "
                        + e.getMessage());
            }
            return null;
        }
    }

    /** {@code createPersistentVolumeClaims}: the claim unless it exists; false when refused or being deleted. */
    private boolean createClaim(JsonObject set, JsonObject template, String claimName, String podName) {
        JsonObject m = Json.meta(set);
        String ns = Json.str(m, "namespace");
        ResourceType claims = type("", "persistentvolumeclaims");
        String what = "create Claim " + claimName + " for Pod " + podName + " in StatefulSet " + Json.str(m, "name");
        try {
            JsonObject existing = store.get(claims, ns, claimName);
            if (Json.meta(existing).has("deletionTimestamp")) {
                refused(set, what + " failed error: pvc " + claimName + " is being deleted");
                return false;
            }
            return true;
        } catch (ApiError e) {
            if (e.code != 404) {
                return false;
            }
        }
        JsonObject meta = Json.meta(template) == null ? new JsonObject() : Json.meta(template).deepCopy();
        meta.addProperty("name", claimName);
        JsonObject labels = Json.child(meta, "labels");
        JsonObject matchLabels = Json.obj(Json.obj(Json.obj(set, "spec"), "selector"), "matchLabels");
        if (matchLabels != null) {
            matchLabels.entrySet().forEach(e -> labels.add(e.getKey(), e.getValue()));
        }
        JsonObject policy = Json.obj(Json.obj(set, "spec"), "persistentVolumeClaimRetentionPolicy");
        if (policy != null && "Delete".equals(Json.str(policy, "whenDeleted"))) {
            meta.add("ownerReferences", Json.array(owner(set)));
        }
        JsonObject claim = Json.object("apiVersion", "v1", "kind", "PersistentVolumeClaim", "metadata", meta,
                "spec", Json.obj(template, "spec") == null ? new JsonObject() : Json.obj(template, "spec").deepCopy());
        try {
            store.create(claims, ns, claim, opts);
            return true;
        } catch (ApiError e) {
            if (e.code == 409) {
                return true;
            }
            refused(set, what + " failed error: " + e.getMessage());
            return false;
        }
    }

    private void deletePod(JsonObject set, JsonObject pod) {
        JsonObject m = Json.meta(pod);
        store.delete(type("", "pods"), Json.str(m, "namespace"), Json.str(m, "name"),
                Json.object("preconditions", Json.object("uid", Json.str(m, "uid"))), opts);
    }

    // ---- status ----

    private void writeStatus(JsonObject set, int count, int minReady, String currentRevision, String updateRevision,
                             int collisions, JsonObject[] replicas, List<JsonObject> condemned, int deletedForUpdate) {
        int created = 0;
        int ready = 0;
        int available = 0;
        int current = 0;
        int updated = 0;
        List<JsonObject> all = new ArrayList<>(condemned);
        for (JsonObject pod : replicas) {
            if (pod != null) {
                all.add(pod);
            }
        }
        for (JsonObject pod : all) {
            boolean made = phase(pod) != null && !phase(pod).isEmpty();
            created += made ? 1 : 0;
            if (runningAndReady(pod)) {
                ready++;
                available += available(pod, minReady) ? 1 : 0;
            }
            if (made && !Json.meta(pod).has("deletionTimestamp")) {
                String revision = revision(pod);
                current += currentRevision.equals(revision) ? 1 : 0;
                updated += updateRevision.equals(revision) ? 1 : 0;
            }
        }
        current -= deletedForUpdate;
        if (rolling(Json.obj(set, "spec")) && updated == count && ready == count && created == count) {
            current = updated;
            currentRevision = updateRevision;
        }
        JsonObject before = Json.obj(set, "status");
        JsonObject status = Json.object("observedGeneration", Json.meta(set).get("generation").getAsLong(),
                "replicas", created, "readyReplicas", ready, "currentReplicas", current, "updatedReplicas", updated,
                "currentRevision", currentRevision, "updateRevision", updateRevision, "collisionCount", collisions,
                "availableReplicas", available);
        if (before != null && Json.arr(before, "conditions") != null) {
            status.add("conditions", Json.arr(before, "conditions"));
        }
        if (!Json.same(status, before)) {
            JsonObject next = set.deepCopy();
            next.add("status", status);
            JsonObject m = Json.meta(set);
            store.update(type("apps", "statefulsets"), Json.str(m, "namespace"), Json.str(m, "name"), next, true,
                    opts);
        }
    }

    // ---- events ----

    /** A Warning Event on the set, as upstream's recorder writes one for a failed create; once per message. */
    private void refused(JsonObject set, String message) {
        JsonObject m = Json.meta(set);
        if (!evented.add(Json.str(m, "uid") + "\n" + message)) {
            return;
        }
        String now = DateTimeFormatter.ISO_INSTANT.format(Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
        JsonObject event = Json.object("apiVersion", "v1", "kind", "Event",
                "metadata", Json.object("name", Json.str(m, "name") + "." + Long.toHexString(
                        Instant.now(clock).toEpochMilli() * 1_000_000L + evented.size())),
                "involvedObject", Json.object("kind", "StatefulSet", "namespace", Json.str(m, "namespace"),
                        "name", Json.str(m, "name"), "uid", Json.str(m, "uid"), "apiVersion", "apps/v1",
                        "resourceVersion", Json.str(m, "resourceVersion")),
                "reason", "FailedCreate", "message", message, "source", Json.object("component", COMPONENT),
                "firstTimestamp", now, "lastTimestamp", now, "count", 1, "type", "Warning",
                "reportingComponent", COMPONENT, "reportingInstance", "");
        try {
            store.create(type("", "events"), Json.str(m, "namespace"), event, opts);
        } catch (ApiError e) {
            evented.remove(Json.str(m, "uid") + "\n" + message);
        }
    }

    // ---- helpers ----

    /** {@code getParentNameAndOrdinal}: the pod's ordinal when its name is {@code <set>-<n>}, else -1. */
    static int ordinal(String set, JsonObject pod) {
        Matcher matcher = ORDINAL.matcher(Json.str(Json.meta(pod), "name"));
        if (!matcher.matches() || !matcher.group(1).equals(set) || matcher.group(2).length() > 9) {
            return -1;
        }
        return Integer.parseInt(matcher.group(2));
    }

    /** {@code getStartOrdinal}: {@code spec.ordinals.start}, else 0. */
    private static int startOrdinal(JsonObject spec) {
        return intOf(Json.obj(spec, "ordinals"), "start");
    }

    /** Whether the set updates its pods by {@code RollingUpdate} (the default), not {@code OnDelete}. */
    private static boolean rolling(JsonObject spec) {
        JsonObject strategy = Json.obj(spec, "updateStrategy");
        return strategy == null || "RollingUpdate".equals(Json.str(strategy, "type"));
    }

    private static String revision(JsonObject pod) {
        return Json.str(Json.obj(Json.meta(pod), "labels"), REVISION_LABEL);
    }

    private static String phase(JsonObject pod) {
        return Json.str(Json.obj(pod, "status"), "phase");
    }

    private static boolean runningAndReady(JsonObject pod) {
        return "Running".equals(phase(pod)) && readySince(pod) != null;
    }

    private static boolean healthy(JsonObject pod) {
        return runningAndReady(pod) && !Json.meta(pod).has("deletionTimestamp");
    }

    /** {@code podutil.IsPodAvailable}: ready for at least {@code minReadySeconds}. */
    private boolean available(JsonObject pod, int minReadySeconds) {
        Instant since = readySince(pod);
        if (since == null) {
            return false;
        }
        return minReadySeconds == 0 || !since.plus(Duration.ofSeconds(minReadySeconds)).isAfter(clock.instant());
    }

    /** When the pod's Ready condition turned True, or null while it is not ready. */
    static Instant readySince(JsonObject pod) {
        JsonArray conditions = Json.arr(Json.obj(pod, "status"), "conditions");
        if (conditions == null) {
            return null;
        }
        for (JsonElement c : conditions) {
            JsonObject o = c.getAsJsonObject();
            if ("Ready".equals(Json.str(o, "type")) && "True".equals(Json.str(o, "status"))) {
                String at = Json.str(o, "lastTransitionTime");
                try {
                    return at == null ? Instant.EPOCH : Instant.parse(at);
                } catch (java.time.format.DateTimeParseException e) {
                    return Instant.EPOCH;
                }
            }
        }
        return null;
    }

    private static JsonObject owner(JsonObject set) {
        JsonObject m = Json.meta(set);
        return Json.object("apiVersion", "apps/v1", "kind", "StatefulSet", "name", Json.str(m, "name"),
                "uid", Json.str(m, "uid"), "controller", true, "blockOwnerDeletion", true);
    }

    /**
     * The set's pods ({@code getPodsForStatefulSet}): those it controls, and orphans of its name whose labels match
     * its selector, adopted by adding the set as their controller ({@code ClaimPods} with {@code isMemberOf}).
     */
    private List<JsonObject> pods(JsonObject set) {
        String name = Json.str(Json.meta(set), "name");
        return claim(set, type("", "pods"), pod -> ordinal(name, pod) >= 0);
    }

    /**
     * The objects of {@code t} the set controls, with the orphans that match its selector and {@code member} adopted
     * ({@code ClaimObject} of {@code controller_ref_manager.go}; {@code adoptOrphanRevisions} for revisions). A set
     * being deleted adopts nothing.
     */
    private List<JsonObject> claim(JsonObject set, ResourceType t, java.util.function.Predicate<JsonObject> member) {
        JsonObject m = Json.meta(set);
        String ns = Json.str(m, "namespace");
        String uid = Json.str(m, "uid");
        String selector = Selectors.format(Json.obj(Json.obj(set, "spec"), "selector"));
        java.util.function.Predicate<JsonObject> selected = Selectors.labels(selector);
        List<JsonObject> out = new ArrayList<>();
        // Listed by the selector: a set's own pods and revisions carry its template's labels, which match it.
        for (JsonObject o : list(t, ns, selector)) {
            JsonObject om = Json.meta(o);
            String controller = controller(o);
            if (uid.equals(controller)) {
                out.add(o);
            } else if (controller.isEmpty() && !m.has("deletionTimestamp") && !om.has("deletionTimestamp")
                    && member.test(o) && selected.test(Json.obj(om, "labels"))) {
                JsonArray refs = Json.arr(om, "ownerReferences");
                JsonArray adopted = refs == null ? new JsonArray() : refs.deepCopy();
                adopted.add(owner(set));
                om.add("ownerReferences", adopted);
                out.add(store.update(t, ns, Json.str(om, "name"), o, false, opts));
            }
        }
        return out;
    }

    /** The uid of the object's controller, empty when it has none. */
    private static String controller(JsonObject o) {
        JsonArray refs = Json.arr(Json.meta(o), "ownerReferences");
        for (JsonElement r : refs == null ? new JsonArray() : refs) {
            if (Json.bool(r.getAsJsonObject(), "controller")) {
                return Json.str(r.getAsJsonObject(), "uid");
            }
        }
        return "";
    }

    private List<JsonObject> list(ResourceType t, String ns, String labelSelector) {
        List<JsonObject> out = new ArrayList<>();
        store.list(t, ns, labelSelector, null, 0, null).items().forEach(o -> out.add(o.deepCopy()));
        return out;
    }

    private static int intOf(JsonObject o, String key) {
        return o != null && o.has(key) && !o.get(key).isJsonNull() ? o.get(key).getAsInt() : 0;
    }

    private ResourceType type(String group, String plural) {
        return registry.find(group, "v1", plural);
    }
}
