package io.tenantplane;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.model.Condition;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.internal.ServiceAddresses;
import io.tenantplane.plan.internal.ProvisionPlan;
import io.tenantplane.plan.internal.Removal;
import io.tenantplane.plan.internal.TenantStatus;
import io.tenantplane.plan.internal.TenantTokens;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Provisioning and removal of a tenant on the host, and the TenantCluster's status. Decisions come from
 * {@link ProvisionPlan} (pure); writes go through the {@link Applier}.
 *
 * <p>When {@code spec.mode} differs from the mode in effect ({@code status.mode}), or a migration is recorded, a
 * provisioning pass first lets the {@link MigrationPass} move the tenant on, then provisions it where its
 * {@link Placement} says: in the target while the migration is under way (the runner and provisioning render the
 * same objects for it), where it runs now while the migration has not started or was rejected.
 */
final class Provisioner {

    /** The finalizer that makes the deletion of a TenantCluster wait for the removal of what was created for it. */
    static final String FINALIZER = "tenantplane.io/cleanup";

    private static final ResourceKind STATEFUL_SETS = kind("apps/v1", "StatefulSet");
    private static final ResourceKind DEPLOYMENTS = kind("apps/v1", "Deployment");
    private static final ResourceKind SECRETS = kind("v1", "Secret");
    private static final ResourceKind PODS = kind("v1", "Pod");
    private static final ResourceKind EVENTS = kind("v1", "Event");
    private final Applier applier;
    private final Reader reader;
    /** The read step of a TenantCluster and what it references. */
    private final TenantReader tenants;
    private final Resources resources;
    private final Observer observer;
    private final Clock clock;
    private final MigrationPass migrations;
    /** tenantplane's kubelet endpoint, or null when none is configured. */
    private final io.tenantplane.kubelet.KubeletEndpoint kubelet;
    /** The host's Service range, for TenantClusters that name none. */
    private final HostServiceRange serviceRange;

    /** One migration pass over a tenant: {@code MigrationRunner.resume} with the tenant's API client. */
    @FunctionalInterface
    interface MigrationPass {
        /** Never throws for an unreachable tenant API: that is a {@link MigrationProgress.Failed}. */
        MigrationProgress resume(TenantKey key, TenantCluster tenantCluster);
    }

    Provisioner(ApiClient host, Applier applier, Reader reader, Observer observer, Clock clock,
                MigrationPass migrations) {
        this(host, applier, reader, observer, clock, migrations, null, new HostServiceRange(reader));
    }

    Provisioner(ApiClient host, Applier applier, Reader reader, Observer observer, Clock clock,
                MigrationPass migrations, io.tenantplane.kubelet.KubeletEndpoint kubelet,
                HostServiceRange serviceRange) {
        this.kubelet = kubelet;
        this.serviceRange = serviceRange;
        this.migrations = migrations;
        this.applier = applier;
        this.reader = reader;
        this.tenants = new TenantReader(reader);
        this.resources = Resources.of(host);
        this.observer = observer;
        this.clock = clock;
    }

    // ------------------------------------------------------------ reading a tenant

    /** The TenantCluster {@code key} with what it references, for a pass ({@link TenantReader#context}). */
    Optional<TenantContext> context(TenantKey key) {
        return tenants.context(key);
    }

    // ------------------------------------------------------------ ensure

    ProvisionReport ensure(TenantCluster given) {
        if (given.metadata() == null || given.namespace() == null || given.tenant() == null) {
            throw new IllegalArgumentException("tenantCluster needs metadata.namespace and metadata.name");
        }
        TenantKey key = new TenantKey(given.namespace(), given.tenant());
        return traced(key, exec -> {
            Optional<JsonObject> stored = tenants.stored(key);
            if (stored.isEmpty()) {
                if (given.metadata().deletionTimestamp() != null) {
                    return new ProvisionReport(key, exec.outcomes(), null, false, true);
                }
                JsonObject desired = given.toJson();
                desired.remove("status");
                Json.child(desired, "metadata").remove("resourceVersion");
                Decision create = ProvisionPlan.createTenantCluster(key.namespace(), key.name(), desired);
                if (!(exec.apply(applier, create, Applier.Replanner.NONE) instanceof Outcome.Applied a)) {
                    return new ProvisionReport(key, exec.outcomes(), null, false, false);
                }
                stored = Optional.of(a.result());
            }
            return provision(exec, stored.get());
        });
    }

    /** Provisions the TenantCluster as stored; nothing when it does not exist. */
    ProvisionReport ensure(TenantKey key) {
        return traced(key, exec -> {
            Optional<JsonObject> stored = tenants.stored(key);
            if (stored.isEmpty()) {
                return new ProvisionReport(key, List.of(), null, false, true);
            }
            return provision(exec, stored.get());
        });
    }

    /**
     * Runs one provisioning of {@code key} inside the observers' provisioning scope (a span, when traced): every
     * decision it makes is reported through the one {@link Execution}, and a failure is recorded on the scope.
     */
    private ProvisionReport traced(TenantKey key, java.util.function.Function<Execution, ProvisionReport> work) {
        return Execution.scoped(key, observer, observer::provisionStarted, work);
    }

    private ProvisionReport provision(Execution exec, JsonObject json) {
        TenantKey key = exec.tenant();
        Long generation = generation(json);
        Parsed<TenantCluster> parsed = TenantCluster.fromJson(json);
        if (parsed instanceof Parsed.Invalid<TenantCluster> invalid) {
            return invalid(exec, invalid.problems(), generation, null);
        }
        TenantCluster tc = ((Parsed.Ok<TenantCluster>) parsed).value();
        if (tc.metadata().deletionTimestamp() != null) {
            return remove(exec, tc);
        }
        // Problems of the place the tenant runs in now stop everything; problems of a target it is not in yet are the
        // migration's to reject (with Migrating=False), and the tenant stays where it is.
        TenantReader.Resolved r = tenants.resolve(Placement.of(tc).cluster());
        if (!r.problems().isEmpty()) {
            return invalid(exec, r.problems(), generation, null);
        }
        if (!tc.metadata().finalizers().contains(FINALIZER)) {
            exec.apply(applier, finalizer(json, true), (stale, current) ->
                    current == null ? null : finalizerOrNull(current, true));
        }
        if (!Placement.migrationWanted(tc)) {
            return provisionAt(exec, tc, json, generation, r, null);
        }
        MigrationProgress migration = migrations.resume(key, tc);
        // The pass wrote status (and maybe switched the mode): provision from what it left.
        Optional<JsonObject> fresh = tenants.stored(key);
        if (fresh.isEmpty()) {
            return new ProvisionReport(key, exec.outcomes(), null, false, true, migration);
        }
        Long freshGeneration = generation(fresh.get());
        Parsed<TenantCluster> again = TenantCluster.fromJson(fresh.get());
        if (again instanceof Parsed.Invalid<TenantCluster> invalid) {
            return invalid(exec, invalid.problems(), freshGeneration, migration);
        }
        TenantCluster now = ((Parsed.Ok<TenantCluster>) again).value();
        TenantReader.Resolved resolved = tenants.resolve(Placement.of(now).cluster());
        if (!resolved.problems().isEmpty()) {
            return invalid(exec, resolved.problems(), freshGeneration, migration);
        }
        return provisionAt(exec, now, fresh.get(), freshGeneration, resolved, migration);
    }

    /** Applies the boundary and control plane where {@code tc}'s placement says, and writes status. */
    private ProvisionReport provisionAt(Execution exec, TenantCluster tc, JsonObject json, Long generation,
                                        TenantReader.Resolved r,
                                        MigrationProgress migration) {
        TenantKey key = exec.tenant();
        Placement placement = Placement.of(tc);
        // Rendered as on this host: with the host's Service range when the TenantCluster names none.
        TenantCluster place = serviceRange.onHost(placement.cluster());
        boolean moving = placement instanceof Placement.Moving;
        List<JsonObject> rendered = TenantRendering.of(place, r.profile());
        String id = key.toString();
        List<Outcome> isolation = new ArrayList<>();
        HostListing listing = new HostListing(reader, tc.tenant());
        ControlPlaneNames names = ControlPlaneNames.of(place);
        boolean keepsAddresses = place.mode() != TenantCluster.Mode.PRIVATE;
        if (kubelet != null && keepsAddresses) {
            // Before the StatefulSet: k3s reads the credential's config drop-in when it starts.
            String uid = tc.metadata().uid();
            JsonObject observed = listing.get(SECRETS, names.namespace(), names.kubeletClientSecret()).orElse(null);
            Decision d = KubeletClients.decide(key, uid, place, kubelet, observed, clock.instant());
            listing.left(exec.apply(applier, d, (stale, current) -> KubeletClients.decide(key, uid, place, kubelet,
                    current, clock.instant())));
        }
        // Read: the host objects of every name this call renders or may retire, one list per kind and namespace, and
        // the tenant's host Pods when a re-created API or DNS Service is to keep the address they use.
        List<ProvisionPlan.Retirable> retirable = moving ? List.of() : retirable(place);
        ProvisionPlan.Observed observed = listing.observe(resources, rendered, retirable);
        List<JsonObject> hostPods = ProvisionPlan.needsHostPods(rendered, observed, names.apiService(),
                names.dnsService(), keepsAddresses) ? reader.list(PODS, place.hostNamespace(),
                ReverseMapping.MANAGED_BY + "=" + ReverseMapping.MANAGED_BY_VALUE + "," + ReverseMapping.TENANT + "="
                        + tc.tenant()) : null;
        // Plan.
        ProvisionPlan.Provisioning plan = ProvisionPlan.plan(tc.tenant(), id, rendered, observed, hostPods,
                names.apiService(), names.dnsService(), keepsAddresses, retirable);
        // Execute: the rendered objects as this call leaves them on the host, for the readiness check and the pass
        // after it.
        Map<String, JsonObject> now = new HashMap<>();
        for (ProvisionPlan.Rendered step : plan.rendered()) {
            JsonObject rendering = step.rendering();
            Outcome o = write(step, tc.tenant(), id);
            exec.report(o);
            listing.left(o);
            JsonObject left = switch (o) {
                case Outcome.Applied a when a.decision().action() != Action.DELETE -> a.result();
                case Outcome.NotWritten n when n.decision().action() == Action.UNCHANGED -> n.decision().observed();
                default -> null;
            };
            if (left != null) {
                now.put(ProvisionPlan.id(rendering), left);
            }
            if (IsolationRenderer.COMPONENT.equals(Json.labels(rendering).get(ControlPlaneRenderer.COMPONENT_LABEL))
                    || !ProvisionPlan.owned(rendering, tc.tenant())) {
                isolation.add(o);
            }
        }
        for (Decision d : plan.retirements()) {
            listing.left(exec.apply(applier, d, (stale, current) -> current == null ? null
                    : stale.withObjects(null, current)));
        }
        JsonObject sts = asLeft(now, STATEFUL_SETS, names.namespace(), names.statefulSet());
        Condition controlPlane = TenantStatus.controlPlaneReady(names.statefulSet(), sts,
                TenantStatus.refusalMatters(sts) ? refusal(sts) : null, dns(place, rendered, now), generation);
        TenantStatus.Provisioned found = new TenantStatus.Provisioned(tc, place, moving,
                Placement.migrationWanted(tc), generation, controlPlane, written(isolation), written(exec.outcomes()),
                notStarted(tc, migration, generation), new TenantCluster.SecretKeyRef(names.kubeconfigSecret(),
                place.namespace(), ControlPlaneNames.KUBECONFIG_KEY));
        StatusWrite w = writeStatus(exec, json, current -> TenantStatus.provisioned(found, current, clock));
        return new ProvisionReport(key, exec.outcomes(), w.status(), w.written(), false, migration,
                context(w, r, listing.handedOn()));
    }

    /**
     * The context a pass syncs from, made of the TenantCluster as its status write left it and the host lists this
     * call read, as it left them; null when gone.
     */
    private static TenantContext context(StatusWrite w, TenantReader.Resolved r, List<TenantContext.HostList> lists) {
        if (w.object() == null || !(TenantCluster.fromJson(w.object()) instanceof Parsed.Ok<TenantCluster> ok)) {
            return null;
        }
        return new TenantContext(Placement.of(ok.value()).cluster(), r.policy(), r.profile(), lists);
    }

    /**
     * One rendered object's write: its decision through the applier, re-planned from the host object as it is now
     * when the write is stale; a create whose ClusterIP the host refuses is made again without it, and a StatefulSet
     * update refused for a field a StatefulSet cannot change becomes its replacement.
     */
    private Outcome write(ProvisionPlan.Rendered step, String tenant, String id) {
        Decision d = step.decision();
        JsonObject body = d.action() == Action.CREATE ? d.desired() : step.rendering();
        Outcome o = applier.apply(d, (stale, current) -> ProvisionPlan.decide(tenant, id, body, current));
        if (o instanceof Outcome.Failed f && ServiceAddresses.clusterIpRefused(f.decision(), f.code(), f.message())) {
            // The address was taken, or is outside the host's range: the Service gets a new one; Pods made before
            // keep the old address until they are replaced.
            o = applier.apply(ServiceAddresses.clusterIpAllocatedByHost(f.decision(), f.message(), "the ",
                    ": those Pods reach it again when they are replaced"),
                    (stale, current) -> ProvisionPlan.decide(tenant, id, step.rendering(), current));
        }
        if (immutableStatefulSetSpec(o)) {
            o = replaceStatefulSet(o.decision());
        }
        return o;
    }

    /**
     * What a provisioning deletes when it no longer renders it: the control plane's join-token Secret (a tenant that
     * left private mode with a sqlite datastore; it holds a credential that lets agents join the tenant API), and the
     * tenant DNS (ConfigMap, Deployment, Service and NetworkPolicy {@code <tenant>-dns}) and its credential Secret (a
     * tenant in private mode runs cluster DNS on its own agents, and the Secret holds a token that reads its API).
     * Never while moving, when agents of the old place may still need the token to rejoin.
     */
    private static List<ProvisionPlan.Retirable> retirable(TenantCluster tc) {
        ControlPlaneNames names = ControlPlaneNames.of(tc);
        List<ProvisionPlan.Retirable> out = new ArrayList<>();
        out.add(new ProvisionPlan.Retirable("Secret", tc.namespace(), names.tokenSecret(), Reasons.JOIN_TOKEN_RETIRED,
                "holds the join token of tenant " + tc.tenant() + "'s k3s agents; in " + tc.mode().value()
                        + " mode no agent joins"));
        String why = "served tenant " + tc.tenant() + "'s cluster DNS; in " + tc.mode().value()
                + " mode its own agents run it";
        for (String kind : List.of("ConfigMap", "Deployment", "Service", "NetworkPolicy")) {
            out.add(new ProvisionPlan.Retirable(kind, tc.namespace(), names.dnsService(), Reasons.DNS_RETIRED, why));
        }
        out.add(new ProvisionPlan.Retirable("Secret", tc.namespace(), names.dnsKubeconfigSecret(),
                Reasons.DNS_RETIRED, why));
        return List.copyOf(out);
    }

    /**
     * The {@code Migrating} condition when a migration pass could not even start and so wrote no status of its own
     * ({@link TenantStatus#migrationNotStarted}); null otherwise.
     */
    private static Condition notStarted(TenantCluster tc, MigrationProgress migration, Long generation) {
        return migration instanceof MigrationProgress.Failed f && f.step() == null
                ? TenantStatus.migrationNotStarted(tc, f.reason(), f.message(), generation) : null;
    }

    private ProvisionReport invalid(Execution exec, List<Problem> problems, Long generation,
                                    MigrationProgress migration) {
        StatusWrite w = writeStatus(exec, current -> TenantStatus.invalid(problems, generation, current, clock));
        return new ProvisionReport(exec.tenant(), exec.outcomes(), w.status(), w.written(), false, migration);
    }

    /**
     * A rendered object as this call left it on the host ({@code now}, by {@link #id}), or as read when the call does
     * not know it (its write failed); null when it does not exist.
     */
    private JsonObject asLeft(Map<String, JsonObject> now, ResourceKind kind, String ns, String name) {
        JsonObject known = now.get(ProvisionPlan.id(kind.kind(), ns, name));
        return known != null ? known : reader.get(kind, ns, name).orElse(null);
    }

    /**
     * The tenant DNS whose readiness counts: its Deployment {@linkplain #asLeft as this call left it}; none when
     * nothing renders one (private mode).
     */
    private TenantStatus.Dns dns(TenantCluster place, List<JsonObject> rendered, Map<String, JsonObject> now) {
        String name = ControlPlaneNames.of(place).dnsService();
        String ns = ControlPlaneNames.of(place).namespace();
        boolean wanted = rendered.stream().anyMatch(o -> "Deployment".equals(Json.string(o, "kind"))
                && name.equals(Json.string(o, "metadata", "name")));
        if (!wanted) {
            return TenantStatus.NO_DNS;
        }
        return new TenantStatus.Dns(name, asLeft(now, DEPLOYMENTS, ns, name));
    }

    /** The writes of a pass as its status judges them. */
    private static List<TenantStatus.Written> written(List<Outcome> outcomes) {
        return outcomes.stream().map(o -> new TenantStatus.Written(o.decision(), o instanceof Outcome.Failed)).toList();
    }

    /**
     * Why the host's StatefulSet controller cannot make a pod of {@code sts}: the message of the newest
     * {@code FailedCreate} Event it wrote on the set (quota, Pod Security, LimitRanger, ...), or null when there is
     * none or the Events cannot be read. Asked only while the set has fewer pods than it wants, so an old refusal of
     * a pod that exists since is never reported.
     */
    private String refusal(JsonObject sts) {
        String uid = Json.string(sts, "metadata", "uid");
        if (uid == null) {
            return null;
        }
        List<JsonObject> events;
        try {
            events = reader.listWhere(EVENTS, Json.string(sts, "metadata", "namespace"), "involvedObject.uid=" + uid
                    + ",reason=FailedCreate");
        } catch (io.tenantplane.errors.ReadFailedException e) {
            // The message is an aid; without it the condition still says how many replicas are ready.
            return null;
        }
        return events.stream().max(java.util.Comparator.comparing(Provisioner::lastSeen))
                .map(e -> Json.string(e, "message")).orElse(null);
    }

    /** When an Event was last seen: its series, its eventTime or its lastTimestamp (RFC 3339 strings sort as time). */
    private static String lastSeen(JsonObject event) {
        for (String[] path : new String[][] {{"series", "lastObservedTime"}, {"lastTimestamp"}, {"eventTime"}}) {
            String at = Json.string(event, path);
            if (at != null) {
                return at;
            }
        }
        return "";
    }

    // ------------------------------------------------------------ synced condition

    /** Records a pass as the {@code Synced} condition; written only when it changed. */
    void recordSynced(TenantCluster tc, ConvergenceReport report) {
        Condition synced = synced(report, tc.metadata().generation());
        // The pass's context was read by this pass's ensure (or just before it): when its Synced condition already
        // says this, there is nothing to write and nothing to read again.
        if (TenantStatus.knownAlready(tc, synced)) {
            return;
        }
        // After the pass's scope has closed: reported to the observers, outside any span.
        Execution afterPass = Execution.of(new TenantKey(tc.namespace(), tc.tenant()), observer,
                Observer.PassScope.NOOP);
        writeStatus(afterPass, current -> TenantStatus.with(current, synced, clock));
    }

    /** The {@code Synced} condition of the pass {@code r} reports ({@link TenantStatus#synced}). */
    static Condition synced(ConvergenceReport r, Long generation) {
        long inSync = r.outcomes().stream().filter(o -> o.decision().action() == Action.CREATE
                        || o.decision().action() == Action.UPDATE || o.decision().action() == Action.UNCHANGED)
                .filter(o -> !(o instanceof Outcome.Failed))
                // A pod's token Secret is not the host copy of a tenant object, and is written only when a token
                // is issued or refreshed: counted, it would change the message (and write status) on those passes.
                .filter(o -> !TenantTokens.ISSUED.equals(o.decision().reason())
                        && !TenantTokens.REFRESHED.equals(o.decision().reason()))
                .map(o -> o.decision().kind() + "/" + o.decision().host()).distinct().count();
        return TenantStatus.synced(new TenantStatus.Tally(r.failure() == null ? null : r.failure().reason(),
                r.failure() == null ? null : r.failure().message(), r.count(Action.CONFLICT), r.count(Action.ERROR),
                r.failures().size(), inSync), generation);
    }

    // ------------------------------------------------------------ removal

    private ProvisionReport remove(Execution exec, TenantCluster tc) {
        TenantKey key = exec.tenant();
        if (!tc.metadata().finalizers().contains(FINALIZER)) {
            return new ProvisionReport(key, exec.outcomes(), tc.status(), false, false);
        }
        StatusWrite deleting = writeStatus(exec, TenantStatus::deleting);
        // Read, plan, then execute.
        HostListing.Removable found = HostListing.removable(reader, tc);
        List<Decision> deletes = Removal.plan(tc, found.copies(), found.rendered(), found.namespaces());
        boolean complete = true;
        for (Decision d : deletes) {
            Outcome o = exec.apply(applier, d, (stale, current) -> current == null ? null : delete(current,
                    stale.message()));
            complete &= o instanceof Outcome.Applied || o instanceof Outcome.NotWritten;
        }
        if (!complete) {
            return new ProvisionReport(key, exec.outcomes(), deleting.status(), deleting.written(), false);
        }
        Optional<JsonObject> fresh = tenants.stored(key);
        if (fresh.isEmpty()) {
            return new ProvisionReport(key, exec.outcomes(), null, deleting.written(), true);
        }
        Outcome o = exec.apply(applier, finalizer(fresh.get(), false), (stale, current) ->
                current == null ? null : finalizerOrNull(current, false));
        boolean removed = o instanceof Outcome.Applied || o instanceof Outcome.NotWritten;
        return new ProvisionReport(key, exec.outcomes(), removed ? null : deleting.status(), deleting.written(),
                removed);
    }

    private static Decision delete(JsonObject o, String what) {
        return ProvisionPlan.deleteWithTenant(o, what);
    }

    // ------------------------------------------------------------ finalizer and status

    private static Decision finalizer(JsonObject tcJson, boolean add) {
        return ProvisionPlan.finalizer(tcJson, FINALIZER, add);
    }

    /** The finalizer change for the object as it is now, or null when it is already as wanted. */
    private static Decision finalizerOrNull(JsonObject current, boolean add) {
        boolean has = false;
        JsonObject meta = Json.object(current, "metadata");
        if (meta != null && meta.has("finalizers") && meta.get("finalizers").isJsonArray()) {
            for (JsonElement f : meta.getAsJsonArray("finalizers")) {
                has |= FINALIZER.equals(f.getAsString());
            }
        }
        return has == add ? null : finalizer(current, add);
    }

    /** A status write: the status now, whether this wrote it, and the TenantCluster as it is now (null: gone). */
    private record StatusWrite(TenantCluster.Status status, boolean written, JsonObject object) {
    }

    /**
     * Writes the TenantCluster's status that {@code next} computes from the current one, through the applier's one
     * status writer (re-read and recomputed on a conflict); a write, or a failed one, is reported as a decision.
     */
    private StatusWrite writeStatus(Execution exec, UnaryOperator<TenantCluster.Status> next) {
        return writeStatus(exec, null, next);
    }

    /** As {@link #writeStatus(Execution, UnaryOperator)}, from the TenantCluster as just read (null: read it). */
    private StatusWrite writeStatus(Execution exec, JsonObject current, UnaryOperator<TenantCluster.Status> next) {
        TenantKey key = exec.tenant();
        Outcome o = exec.statusWritten(applier.writeStatus(key.namespace(), key.name(), current,
                Reasons.STATUS_UPDATED, "status of TenantCluster " + key, next));
        return switch (o) {
            case Outcome.Applied a -> new StatusWrite(status(a.decision().desired()), true, a.result());
            case Outcome.NotWritten n -> new StatusWrite(status(n.decision().desired()), false, n.decision().desired());
            case Outcome.Failed f -> f.code() == 404 ? new StatusWrite(null, false, null)
                    : new StatusWrite(status(f.decision().observed()), false, f.decision().observed());
        };
    }

    private static TenantCluster.Status status(JsonObject tc) {
        JsonElement s = tc == null ? null : tc.get("status");
        return s == null || !s.isJsonObject() ? null : Json.gson().fromJson(s, TenantCluster.Status.class);
    }

    private static Long generation(JsonObject json) {
        JsonElement g = Json.object(json, "metadata") == null ? null : json.getAsJsonObject("metadata").get("generation");
        return g == null || !g.isJsonPrimitive() ? null : g.getAsLong();
    }

    private static ResourceKind kind(String apiVersion, String kind) {
        return ResourceKind.wellKnown(apiVersion, kind).orElseThrow();
    }


    /** True when the host refused a StatefulSet update because a field it cannot change differs. */
    private static boolean immutableStatefulSetSpec(Outcome o) {
        return o instanceof Outcome.Failed f && f.code() == 422 && f.decision().action() == Action.UPDATE
                && "StatefulSet".equals(f.decision().kind()) && f.message() != null
                && f.message().contains("updates to statefulset spec for fields other than");
    }

    /**
     * Deletes a rendered StatefulSet whose immutable fields changed, orphaning its pods (they keep running, and keep
     * their volumes), with its uid and resourceVersion as preconditions; the next pass creates it as rendered and it
     * adopts the pods. Done across two passes because the host finishes an orphaning delete in the background.
     */
    private Outcome replaceStatefulSet(Decision refused) {
        return applier.apply(ProvisionPlan.replaceStatefulSet(refused), Applier.Replanner.NONE);
    }
}
