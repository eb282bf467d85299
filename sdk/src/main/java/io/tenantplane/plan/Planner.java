package io.tenantplane.plan;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.LabelSelector;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.plan.internal.PodLifecycle;
import io.tenantplane.transform.HostFacts;
import io.tenantplane.transform.SyncRules;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.TransformResult;
import io.tenantplane.transform.Transformer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides, for one tenant, what should happen to every host object: a pure function from a {@link Snapshot} to a
 * {@link Plan}. No I/O, no clock, no state; the same snapshot always gives the same plan, ordered by kind, then host
 * namespace, then host name.
 *
 * <p>For each tenant object, in this order: a malformed object is an {@code Error} ({@code InvalidSource}); an object
 * being deleted has no copy ({@code SourceTerminating}); system namespaces, kinds the policy does not sync, excluded
 * namespaces and selector mismatches are {@code Skip}s; Endpoints and EndpointSlices of Services with a selector are
 * left to the host's controllers ({@code ManagedByHost}); then the {@link Transformer} runs and may reject
 * ({@code Error}) or skip. A transformed object is then compared with the host object of its host name:
 * <ul>
 *   <li>absent: {@code Create} ({@code NotOnHost});</li>
 *   <li>not managed by this tenant (see {@link ReverseMapping}): {@code Conflict} ({@code ForeignObject});</li>
 *   <li>managed, for another source, or two tenant objects wanting one name: {@code Conflict} ({@code NameCollision});</li>
 *   <li>managed: {@code Unchanged} ({@code InSync}) when the {@link ReverseMapping#SOURCE_HASH source hash} matches and
 *       {@link Differences} finds nothing; {@code Update} ({@code DriftCorrected}) when the hash matches but the host
 *       copy was edited; {@code Update} ({@code SourceChanged}) when the hash differs; for a Pod whose tenant uid
 *       changed, {@code Delete} ({@code SourceReplaced}).</li>
 * </ul>
 * A skipped object whose host copy exists is deleted when the policy no longer wants it (the skip's reason becomes
 * the delete's); a rejected or reference-skipped object's host copy is left as it is.
 * Garbage collection then deletes every remaining host object <em>managed by this tenant</em> whose source is gone
 * ({@code SourceDeleted}) or whose kind is no longer synced ({@code KindNotSynced}); foreign objects and other
 * tenants' objects are never touched.
 *
 * <p>Decisions that write carry the desired object (with {@code tenantplane.io/reason} set to their reason) and the
 * observed object, whose {@code resourceVersion} and {@code uid} are the write's preconditions.
 */
public final class Planner {

    /** The order of decisions in a plan: kind, host namespace, host name, then source and action. */
    public static final Comparator<Decision> ORDER = Comparator
            .comparing(Decision::kind)
            .thenComparing(d -> d.host() == null ? null : d.host().namespace(), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(d -> d.host() == null ? null : d.host().name(), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(d -> d.source() == null ? null : d.source().virtualNamespace(), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(d -> d.source() == null ? null : d.source().name(), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(Decision::action);

    private static final int MAX_DIFFS_IN_MESSAGE = 3;

    private final boolean podsVanish;

    /** A planner; it holds no state, so one instance can serve every tenant and thread. */
    public Planner() {
        this(true);
    }

    private Planner(boolean podsVanish) {
        this.podsVanish = podsVanish;
    }

    /**
     * A planner for moving a tenant's host copies into a new place (a migration between modes): a Pod that ran in the
     * old place is created in the new one, where the default planner would report its host copy gone
     * ({@link Reasons#HOST_POD_GONE}).
     */
    public static Planner forMove() {
        return new Planner(false);
    }

    /** The plan for {@code snapshot}. */
    public Plan plan(Snapshot snapshot) {
        return new Run(snapshot, podsVanish).plan();
    }

    /**
     * The decision for one host object, re-planned from a snapshot holding fresh copies (e.g. after a 409 on write:
     * re-read the host object, {@link Snapshot#withHostObject} it, and call this). Gives the same decision
     * {@link #plan} would give for that object.
     *
     * @param kind     the host object's kind
     * @param hostName the host object's name
     * @return empty when the plan has no decision for that object (e.g. a foreign object nobody asks for)
     */
    public Optional<Decision> planObject(Snapshot snapshot, String kind, String hostName) {
        Transformer t = new Transformer(snapshot.tenant(), snapshot.hostNamespace(), snapshot.policy(),
                options(snapshot));
        List<JsonObject> tenants = snapshot.tenantObjects().stream().filter(o -> {
            String k = Json.string(o, "kind");
            if ("Service".equals(k) && (kind.equals("Endpoints") || kind.equals("EndpointSlice"))) {
                return true;
            }
            if (!kind.equals(k)) {
                return false;
            }
            TenantObjectRef ref = t.identify(o);
            return ref == null || ref.hostName().equals(hostName);
        }).toList();
        List<JsonObject> hosts = snapshot.hostObjects().stream()
                .filter(o -> (kind.equals(Json.string(o, "kind")) && hostName.equals(Json.string(o, "metadata", "name")))
                        || mirrorOf(snapshot, o))
                .toList();
        Snapshot narrowed = new Snapshot(snapshot.tenant(), snapshot.hostNamespace(), snapshot.policy(),
                snapshot.options(), tenants, hosts);
        return plan(narrowed).decisions().stream()
                .filter(d -> d.kind().equals(kind) && d.host() != null && hostName.equals(d.host().name()))
                .findFirst();
    }

    /**
     * The snapshot's options with the names of the host classes its policy mirrors into the tenant, read from the
     * snapshot's host objects, so that a Pod naming one is judged the same by every caller.
     */
    static TransformOptions options(Snapshot s) {
        if (s.policy().mirrors().isEmpty()) {
            return s.options();
        }
        return s.options().withHostFacts(s.options().hostFacts()
                .withMirrored(HostFacts.mirroredNames(s.policy(), s.hostObjects())));
    }

    /** True for a cluster-scoped host object of a kind the snapshot's policy mirrors. */
    private static boolean mirrorOf(Snapshot s, JsonObject o) {
        String kind = Json.string(o, "kind");
        return Json.string(o, "metadata", "namespace") == null
                && s.policy().mirrors().stream().anyMatch(m -> m.kind() != null && m.kind().equals(kind));
    }

    /** Identity of a host object within one plan. */
    private record HostKey(String kind, String namespace, String name) {
        // Written out: a record's generated equals and hashCode go through method handles, and every object of a
        // plan is looked up by its key a few times.
        @Override
        public boolean equals(Object o) {
            return o instanceof HostKey k && name.equals(k.name) && kind.equals(k.kind)
                    && Objects.equals(namespace, k.namespace);
        }

        @Override
        public int hashCode() {
            return (kind.hashCode() * 31 + Objects.hashCode(namespace)) * 31 + name.hashCode();
        }
    }

    /** Identity of a tenant object within one plan. */
    private record SourceKey(String kind, String virtualNamespace, String name) {
        static SourceKey of(TenantObjectRef r) {
            return new SourceKey(r.kind(), r.virtualNamespace(), r.name());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SourceKey k && name.equals(k.name) && kind.equals(k.kind)
                    && Objects.equals(virtualNamespace, k.virtualNamespace);
        }

        @Override
        public int hashCode() {
            return (kind.hashCode() * 31 + Objects.hashCode(virtualNamespace)) * 31 + name.hashCode();
        }
    }

    /** A transformed tenant object that wants its host copy. */
    private record Want(TenantObjectRef source, HostKey key, Host host, TransformResult.Transformed result,
                        Decision decision) {
    }

    /** A host object of the snapshot, and whether some tenant object's decision has accounted for it. */
    private static final class Host {
        final JsonObject object;
        boolean claimed;

        Host(JsonObject object) {
            this.object = object;
        }
    }

    /** One planning pass; holds the indexes of a snapshot. */
    private static final class Run {
        private final Snapshot s;
        private final Transformer transformer;
        private final SyncRules rules;
        private final Map<HostKey, Host> hostByKey = new LinkedHashMap<>();
        /** Every identified tenant object; indexed by {@link #presentSources} only if garbage collection asks. */
        private final List<TenantObjectRef> sources = new ArrayList<>();
        private Set<SourceKey> presentSources;
        private final Map<String, Boolean> serviceHasSelector = new HashMap<>();
        private final List<Decision> out = new ArrayList<>();

        private final boolean podsVanish;

        Run(Snapshot s, boolean podsVanish) {
            this.s = s;
            this.podsVanish = podsVanish;
            this.transformer = new Transformer(s.tenant(), s.hostNamespace(), s.policy(), options(s));
            this.rules = transformer.rules();
        }

        Plan plan() {
            for (JsonObject h : s.hostObjects()) {
                String ns = Json.string(h, "metadata", "namespace");
                String name = Json.string(h, "metadata", "name");
                String kind = Json.string(h, "kind");
                if (kind != null && name != null && (ns == null || ns.equals(s.hostNamespace()))) {
                    hostByKey.putIfAbsent(new HostKey(kind, ns, name), new Host(h));
                }
            }
            // One pass identifies, transforms and decides each object while it is fresh in the cache. Endpoints and
            // EndpointSlices wait for the end: whether their Service has a selector must be known first.
            Map<HostKey, List<Want>> wants = new LinkedHashMap<>();
            List<JsonObject> endpoints = new ArrayList<>();
            List<TenantObjectRef> endpointRefs = new ArrayList<>();
            for (JsonObject o : s.tenantObjects()) {
                TenantObjectRef r = transformer.identify(o);
                if (r != null) {
                    sources.add(r);
                    if (r.kind().equals("Service")) {
                        JsonObject sel = Json.object(o, "spec", "selector");
                        serviceHasSelector.put(r.virtualNamespace() + "/" + r.name(), sel != null && !sel.isEmpty());
                    } else if (r.kind().equals("Endpoints") || r.kind().equals("EndpointSlice")) {
                        endpoints.add(o);
                        endpointRefs.add(r);
                        continue;
                    }
                }
                want(consider(o, r), wants);
            }
            for (int i = 0; i < endpoints.size(); i++) {
                want(consider(endpoints.get(i), endpointRefs.get(i)), wants);
            }
            wants.forEach(this::decideWants);
            collectGarbage();
            List<Decision> sorted = new ArrayList<>(out);
            sorted.sort(ORDER);
            return new Plan(sorted);
        }

        private static void want(Want w, Map<HostKey, List<Want>> wants) {
            if (w != null) {
                wants.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w);
            }
        }

        /** Decides a tenant object that does not want a host copy, or returns what it wants. */
        private Want consider(JsonObject o, TenantObjectRef src) {
            if (src == null) {
                TransformResult.Rejected r = (TransformResult.Rejected) transformer.transform(o);
                String kind = Json.string(o, "kind");
                out.add(Decision.error(kind == null || kind.isEmpty() ? "Unknown" : kind,
                        Decision.SourceRef.of(s.tenant(), o),
                        null, r.reason(), r.message()));
                return null;
            }
            String hostName = src.hostName();
            HostKey key = new HostKey(src.kind(), src.virtualNamespace() == null ? null : s.hostNamespace(), hostName);
            String what = src.describe();
            if (Json.string(o, "metadata", "deletionTimestamp") != null) {
                if (src.kind().equals("Pod")) {
                    return terminatingPod(o, src, key);
                }
                return noWant(src, key, Action.SKIP, Reasons.SOURCE_TERMINATING,
                        what + " is being deleted in the tenant; it gets no host copy", Reasons.SOURCE_DELETED);
            }
            if (src.virtualNamespace() != null && SyncPolicy.SYSTEM_NAMESPACES.contains(src.virtualNamespace())) {
                return noWant(src, key, Action.SKIP, Reasons.SYSTEM_NAMESPACE, what + " is in the tenant system namespace "
                        + src.virtualNamespace() + ", which is never synced", Reasons.SYSTEM_NAMESPACE);
            }
            Optional<SyncPolicy.KindRule> rule = rules.rule(src.kind());
            if (rule.isEmpty() || !rule.get().toHost()) {
                return noWant(src, key, Action.SKIP, Reasons.KIND_NOT_SYNCED, what + " is not synced: the SyncPolicy "
                        + (rule.isEmpty() ? "has no rule for kind " + src.kind() : "sets toHost: false for kind " + src.kind()),
                        Reasons.KIND_NOT_SYNCED);
            }
            if (rule.get().custom() && customKindRefused(src, key, rule.get())) {
                return null;
            }
            SyncPolicy.NamespaceFilter filter = rule.get().namespaces();
            if (src.virtualNamespace() != null && filter != null && !filter.allows(src.virtualNamespace())) {
                return noWant(src, key, Action.SKIP, Reasons.NAMESPACE_EXCLUDED, what + " is not synced: the SyncPolicy's "
                        + src.kind() + " rule " + describe(filter) + ", which leaves out namespace " + src.virtualNamespace(),
                        Reasons.NAMESPACE_EXCLUDED);
            }
            LabelSelector selector = rule.get().selector();
            if (selector != null && !selector.matches(Json.labels(o))) {
                return noWant(src, key, Action.SKIP, Reasons.SELECTOR_MISMATCH, what + " is not synced: its labels "
                        + Json.labels(o) + " do not match the SyncPolicy's " + src.kind() + " selector "
                        + describe(selector), Reasons.SELECTOR_MISMATCH);
            }
            String service = endpointsService(src, o);
            if (service != null && serviceHasSelector.getOrDefault(src.virtualNamespace() + "/" + service, false)) {
                return noWant(src, key, Action.SKIP, Reasons.MANAGED_BY_HOST, what + " belongs to Service "
                        + src.virtualNamespace() + "/" + service + ", which has a selector: the host's controllers "
                        + "maintain its endpoints from the synced pods", null);
            }
            if (podsVanish && src.kind().equals("Pod") && hostByKey.get(key) == null) {
                String gone = PodLifecycle.vanished(o);
                if (gone != null) {
                    return noWant(src, key, Action.SKIP, Reasons.HOST_POD_GONE, what + " " + gone, null);
                }
            }
            TransformResult r = transformer.transform(o, src, hostName);
            return switch (r) {
                case TransformResult.Transformed t -> {
                    Want w = new Want(src, key, hostByKey.get(key), t, null);
                    yield new Want(src, key, w.host(), t, decideAlone(key, w));
                }
                case TransformResult.Rejected rej -> noWant(src, key, Action.ERROR, rej.reason(),
                        what + " cannot be synced: " + rej.message(), null);
                case TransformResult.Skipped skip -> noWant(src, key, Action.SKIP, skip.reason(),
                        what + " is not synced: " + skip.message(), null);
            };
        }

        /**
         * Records a Skip when the installation does not allow the custom kind of {@code rule}, or the host does not
         * serve it (as the snapshot's host facts say); its host copy, if any, is left as it is: writing or deleting
         * is what is not allowed.
         */
        private boolean customKindRefused(TenantObjectRef src, HostKey key, SyncPolicy.KindRule rule) {
            HostFacts facts = s.options().hostFacts();
            String what = src.describe();
            String qualified = HostFacts.qualified(rule.kind(), rule.effectiveApiVersion());
            if (!facts.allows(rule.kind(), rule.effectiveApiVersion())) {
                noWant(src, key, Action.SKIP, Reasons.KIND_NOT_ALLOWED, what + " is not synced: the installation "
                        + "does not allow custom kind " + qualified + " (its allow-list of kinds tenantplane may write "
                        + "is " + (facts.allowedKinds().isEmpty() ? "empty" : String.join(", ",
                        new java.util.TreeSet<>(facts.allowedKinds()))) + "); the platform team adds it to "
                        + "tenantplane.sync.allowed-kinds and grants the controller RBAC for it", null);
                return true;
            }
            HostFacts.KindOnHost on = facts.kind(rule.kind()).orElse(new HostFacts.Served());
            switch (on) {
                case HostFacts.NotServed n -> noWant(src, key, Action.SKIP, Reasons.KIND_NOT_SERVED_ON_HOST,
                        what + " is not synced: " + n.message(), null);
                case HostFacts.ClusterScoped c -> noWant(src, key, Action.SKIP, Reasons.KIND_NOT_ALLOWED,
                        what + " is not synced: " + c.message(), null);
                case HostFacts.Served ok -> {
                    return false;
                }
            }
            return true;
        }

        private static String endpointsService(TenantObjectRef src, JsonObject o) {
            if (src.kind().equals("Endpoints")) {
                return src.name();
            }
            if (src.kind().equals("EndpointSlice")) {
                return Json.labels(o).get("kubernetes.io/service-name");
            }
            return null;
        }

        /**
         * Records a Skip or Error for a tenant object; when {@code deleteReason} is set and the object's host copy is
         * managed by this tenant for this source, the copy is deleted with that reason instead.
         */
        private Want noWant(TenantObjectRef src, HostKey key, Action action, String reason, String message,
                            String deleteReason) {
            Host host = hostByKey.get(key);
            JsonObject observed = host == null ? null : host.object;
            boolean ours = observed != null && ownedFor(observed, src);
            if (ours) {
                host.claimed = true;
            }
            if (ours && deleteReason != null) {
                out.add(Decision.delete(src.kind(), sourceRef(src), hostRef(key), deleteReason,
                        message + "; its host copy " + where(key) + " is deleted", null, observed));
            } else {
                String suffix = ours ? "; its host copy " + where(key) + " is left as it is" : "";
                JsonObject left = ours ? observed : null;
                out.add(action == Action.SKIP
                        ? Decision.skip(src.kind(), sourceRef(src), hostRef(key), reason, message + suffix, left)
                        : Decision.error(src.kind(), sourceRef(src), hostRef(key), reason, message + suffix, left));
            }
            return null;
        }

        /**
         * A tenant Pod being deleted: its host copy is deleted with the tenant's grace period (so the containers get
         * the same time to stop as in a real cluster), once; while the host copy terminates nothing more is written.
         */
        private Want terminatingPod(JsonObject o, TenantObjectRef src, HostKey key) {
            Host host = hostByKey.get(key);
            JsonObject observed = host == null ? null : host.object;
            String what = src.describe();
            if (observed == null || !ownedFor(observed, src)) {
                return noWant(src, key, Action.SKIP, Reasons.SOURCE_TERMINATING,
                        what + " is being deleted in the tenant; it gets no host copy", null);
            }
            host.claimed = true;
            JsonElement grace = Json.object(o, "metadata").get("deletionGracePeriodSeconds");
            long seconds = grace == null || grace.isJsonNull() ? 0 : Math.max(0, grace.getAsLong());
            if (Json.string(observed, "metadata", "deletionTimestamp") != null) {
                out.add(Decision.unchanged(src.kind(), sourceRef(src), hostRef(key),
                        Reasons.HOST_COPY_TERMINATING, what + " is being deleted in the tenant; its host copy "
                                + where(key) + " is terminating already", null, observed));
                return null;
            }
            JsonObject options = new JsonObject();
            options.addProperty("gracePeriodSeconds", seconds);
            out.add(Decision.delete(src.kind(), sourceRef(src), hostRef(key), Reasons.SOURCE_DELETED,
                    what + " is being deleted in the tenant; its host copy " + where(key) + " is deleted with the "
                            + "same grace period (" + seconds + " s)", options, observed));
            return null;
        }

        private void decideWants(HostKey key, List<Want> group) {
            Host host = group.get(0).host();
            JsonObject observed = host == null ? null : host.object;
            if (host != null) {
                host.claimed = true;
            }
            if (group.size() > 1) {
                for (Want w : group) {
                    String others = group.stream().filter(x -> x != w).map(x -> x.source().describe())
                            .collect(Collectors.joining(", "));
                    out.add(Decision.conflict(key.kind(), sourceRef(w.source()), hostRef(key),
                            Reasons.NAME_COLLISION, w.source().describe() + " and " + others + " both map to host name "
                            + key.name() + "; nothing is written for either", observed));
                }
                return;
            }
            out.add(group.get(0).decision());
        }

        /**
         * The decision for {@code w} when it is the only tenant object wanting its host name. Made right after the
         * transform, while the object is fresh in the cache, and dropped when another object wants the same name.
         */
        /**
         * A Service's ClusterIP is the host's once allocated (it never changes in place): the desired copy is compared
         * with the host's IP, and a tenant Service with another IP takes the host's (the pass's ClusterIPFromHost).
         */
        private static JsonObject withHostClusterIp(JsonObject desired, JsonObject observed) {
            JsonObject obsSpec = Json.object(observed, "spec");
            JsonObject spec = Json.object(desired, "spec");
            if (obsSpec == null || spec == null || !obsSpec.has("clusterIP") || !spec.has("clusterIP")) {
                return desired;
            }
            JsonObject copy = desired.deepCopy();
            JsonObject s = Json.object(copy, "spec");
            s.add("clusterIP", obsSpec.get("clusterIP").deepCopy());
            if (obsSpec.has("clusterIPs")) {
                s.add("clusterIPs", obsSpec.get("clusterIPs").deepCopy());
            } else {
                s.remove("clusterIPs");
            }
            return copy;
        }

        private Decision decideAlone(HostKey key, Want w) {
            JsonObject observed = w.host() == null ? null : w.host().object;
            TenantObjectRef src = w.source();
            String what = src.describe();
            if (observed == null) {
                return Decision.create(key.kind(), sourceRef(src), hostRef(key), Reasons.NOT_ON_HOST,
                        what + " is not on the host yet; it will be created as " + where(key) + notes(w),
                        desired(w, Reasons.NOT_ON_HOST));
            }
            Ownership own = ReverseMapping.inspect(observed, s.tenant(), s.hostNamespace());
            if (own instanceof Ownership.NotManaged nm) {
                return Decision.conflict(key.kind(), sourceRef(src), hostRef(key), Reasons.FOREIGN_OBJECT,
                        "host name " + where(key) + " for " + what + " is taken by an object tenantplane does not "
                                + "manage for tenant " + s.tenant() + " (" + nm.why() + "); it is left alone and "
                                + "nothing is written", observed);
            }
            TenantObjectRef holder = ((Ownership.Managed) own).source();
            if (!SourceKey.of(holder).equals(SourceKey.of(src))) {
                return Decision.conflict(key.kind(), sourceRef(src), hostRef(key), Reasons.NAME_COLLISION,
                        what + " maps to host name " + where(key) + ", which already holds the copy of "
                                + holder.describe() + "; nothing is written", observed);
            }
            if (src.kind().equals("Pod") && src.uid() != null && holder.uid() != null && !src.uid().equals(holder.uid())) {
                return Decision.delete(key.kind(), sourceRef(src), hostRef(key), Reasons.SOURCE_REPLACED,
                        what + " was recreated in the tenant (uid " + holder.uid() + " is now " + src.uid()
                                + "); the old host Pod " + where(key) + " is deleted and will be created again",
                        null, observed);
            }
            JsonObject desired = w.result().host();
            if (key.kind().equals("Service")) {
                desired = withHostClusterIp(desired, observed);
            }
            String desiredHash = Json.string(desired, "metadata", "annotations", ReverseMapping.SOURCE_HASH);
            String observedHash = Json.string(observed, "metadata", "annotations", ReverseMapping.SOURCE_HASH);
            List<Differences.Difference> diffs = Differences.of(desired, observed);
            List<String> fixed = key.kind().equals("Pod") ? immutablePodFields(diffs) : List.of();
            List<String> added = fixed.isEmpty() ? List.of() : PodLifecycle.addedEphemeralContainers(desired, observed);
            if (!added.isEmpty() && fixed.stream().allMatch(p -> p.startsWith("spec.ephemeralContainers"))) {
                return Decision.update(key.kind(), sourceRef(src), hostRef(key), Reasons.EPHEMERAL_CONTAINERS_ADDED,
                        what + " got ephemeral container(s) " + String.join(", ", added) + "; they are added to its "
                                + "host copy " + where(key) + " through the ephemeralcontainers subresource",
                        desired(w, Reasons.EPHEMERAL_CONTAINERS_ADDED), observed);
            }
            if (!fixed.isEmpty()) {
                return Decision.unchanged(key.kind(), sourceRef(src), hostRef(key),
                        Reasons.POD_SPEC_IMMUTABLE, "the host copy " + where(key) + " of " + what + " keeps the spec "
                        + "it was created with: a Pod's spec cannot change (" + String.join(", ", fixed.subList(0,
                        Math.min(fixed.size(), MAX_DIFFS_IN_MESSAGE))) + (fixed.size() > MAX_DIFFS_IN_MESSAGE
                        ? ", ..." : "") + "); it gets the new one when the tenant Pod is replaced", null, observed);
            }
            if (Objects.equals(desiredHash, observedHash)) {
                if (diffs.isEmpty()) {
                    // Nothing is written, so the host copy keeps the reason of the write that made it: that is what
                    // the desired object (and explain with --host) must show.
                    String kept = Json.string(observed, "metadata", "annotations", ReverseMapping.REASON);
                    // A custom kind's notes say which fields were rewritten and that the rest is copied as it is.
                    boolean custom = rules.rule(src.kind()).map(SyncPolicy.KindRule::custom).orElse(false);
                    return Decision.unchanged(key.kind(), sourceRef(src), hostRef(key), Reasons.IN_SYNC,
                            what + " is in sync with its host copy " + where(key) + (custom ? notes(w) : ""),
                            desired(w, kept == null ? Reasons.IN_SYNC : kept), observed);
                } else {
                    return Decision.update(key.kind(), sourceRef(src), hostRef(key), Reasons.DRIFT_CORRECTED,
                            "the host copy " + where(key) + " of " + what + " was edited on the host; restoring "
                                    + Differences.summary(diffs, MAX_DIFFS_IN_MESSAGE),
                            desired(w, Reasons.DRIFT_CORRECTED), observed);
                }
            }
            String detail = diffs.isEmpty()
                    ? "the desired object no longer has fields or metadata the host copy has (source hash "
                            + observedHash + " is now " + desiredHash + ")"
                    : Differences.summary(diffs, MAX_DIFFS_IN_MESSAGE);
            return Decision.update(key.kind(), sourceRef(src), hostRef(key), Reasons.SOURCE_CHANGED,
                    what + " changed; updating its host copy " + where(key) + ": " + detail + notes(w),
                    desired(w, Reasons.SOURCE_CHANGED), observed);
        }

        /**
         * The spec fields among {@code diffs} that an API server refuses to change on a Pod
         * ({@code ValidatePodUpdate}: only container images, {@code activeDeadlineSeconds}, added tolerations and
         * removed scheduling gates may change). A host copy made by an earlier version of the transform keeps such
         * fields; an update would only be refused.
         */
        private static List<String> immutablePodFields(List<Differences.Difference> diffs) {
            List<String> out = new ArrayList<>();
            for (Differences.Difference d : diffs) {
                String p = d.path();
                boolean mutable = !p.startsWith("spec") || p.matches("spec\\.(init|ephemeral)?[cC]ontainers\\[\\d+]\\.image")
                        || p.startsWith("spec.activeDeadlineSeconds") || p.startsWith("spec.tolerations")
                        || p.startsWith("spec.schedulingGates");
                if (!mutable) {
                    out.add(p);
                }
            }
            return out;
        }

        /**
         * The desired object of {@code w} with {@code tenantplane.io/reason} set. The transform made that object for
         * this run alone, so it is completed in place rather than copied.
         */
        private static JsonObject desired(Want w, String reason) {
            JsonObject host = w.result().host();
            Json.child(host, "metadata", "annotations").addProperty(ReverseMapping.REASON, reason);
            return host;
        }

        private void collectGarbage() {
            for (var e : hostByKey.entrySet()) {
                if (e.getValue().claimed) {
                    continue;
                }
                JsonObject observed = e.getValue().object;
                if (!(ReverseMapping.inspect(observed, s.tenant(), s.hostNamespace()) instanceof Ownership.Managed m)) {
                    continue;
                }
                TenantObjectRef src = m.source();
                HostKey key = e.getKey();
                if (!rules.syncsToHost(src.kind())) {
                    out.add(Decision.delete(key.kind(), sourceRef(src), hostRef(key), Reasons.KIND_NOT_SYNCED,
                            "the SyncPolicy no longer syncs kind " + src.kind() + "; the host copy " + where(key) + " of "
                                    + src.describe() + " is deleted", null, observed));
                } else if (!presentSources().contains(SourceKey.of(src))) {
                    out.add(Decision.delete(key.kind(), sourceRef(src), hostRef(key), Reasons.SOURCE_DELETED,
                            src.describe() + " no longer exists; its host copy " + where(key) + " is deleted",
                            null, observed));
                }
            }
        }

        private Set<SourceKey> presentSources() {
            if (presentSources == null) {
                presentSources = new HashSet<>();
                sources.forEach(r -> presentSources.add(SourceKey.of(r)));
            }
            return presentSources;
        }

        private boolean ownedFor(JsonObject observed, TenantObjectRef src) {
            return ReverseMapping.inspect(observed, s.tenant(), s.hostNamespace()) instanceof Ownership.Managed m
                    && SourceKey.of(m.source()).equals(SourceKey.of(src));
        }

        private Decision.SourceRef sourceRef(TenantObjectRef r) {
            return new Decision.SourceRef(r.tenant(), r.virtualNamespace(), r.name(), r.uid());
        }

        private static Decision.HostRef hostRef(HostKey k) {
            return new Decision.HostRef(k.namespace(), k.name());
        }

        private static String where(HostKey k) {
            return k.namespace() == null ? k.name() : k.namespace() + "/" + k.name();
        }

        private static String notes(Want w) {
            return w.result().notes().isEmpty() ? "" : " (" + String.join("; ", w.result().notes()) + ")";
        }

        private static String describe(SyncPolicy.NamespaceFilter f) {
            List<String> parts = new ArrayList<>();
            if (!f.include().isEmpty()) {
                parts.add("includes only " + String.join(", ", f.include()));
            }
            if (!f.exclude().isEmpty()) {
                parts.add("excludes " + String.join(", ", f.exclude()));
            }
            return String.join(" and ", parts);
        }

        private static String describe(LabelSelector sel) {
            List<String> parts = new ArrayList<>();
            sel.matchLabels().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(en -> parts.add(en.getKey() + "=" + en.getValue()));
            sel.matchExpressions().forEach(r -> parts.add(r.key() + " " + r.operator()
                    + (r.values().isEmpty() ? "" : " (" + String.join(", ", r.values()) + ")")));
            return "{" + String.join(", ", parts) + "}";
        }
    }
}
