package io.tenantplane;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.Retries;
import io.tenantplane.controlplane.internal.ServiceRange;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.events.EventObserver;
import io.tenantplane.explain.Explainer;
import io.tenantplane.explain.Explanation;
import io.tenantplane.explain.TraceResult;
import io.tenantplane.json.Json;
import io.tenantplane.migration.MigrationPlan;
import io.tenantplane.migration.MigrationPlanner;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.MigrationRunner;
import io.tenantplane.migration.MigrationSnapshot;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.Problem;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.observe.DecisionRing;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.RecordedDecision;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.transform.TransformOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The front door of the tenantplane SDK. Build one with {@link #builder()}; the result is immutable and thread-safe,
 * and one instance serves every tenant.
 *
 * <p><b>Offline</b> operations need no cluster: {@link #validate}, {@link #render}, {@link #plan},
 * {@link #planMigration(MigrationSnapshot)}, {@link #explainSync} and {@link #trace}. <b>Live</b> operations need a
 * {@linkplain Builder#hostClient host client}: {@link #ensure} provisions a tenant (and moves it on when its
 * {@code spec.mode} changed), {@link #converge} syncs its workloads, {@link #decisions} answers what was done and why,
 * and a {@link io.tenantplane.sync.Syncer} ({@code Syncer.create(plane, options)}) keeps every tenant converged
 * from watches.
 *
 * <p><b>Mode changes.</b> Changing {@code spec.mode} of a provisioned tenant is a migration (see
 * {@link io.tenantplane.migration}). Each {@link #ensure} runs one migration pass before provisioning and reports it
 * in {@link ProvisionReport#migration()}; call it again while {@link ProvisionReport#migrationPending()} (the
 * {@link io.tenantplane.sync.Syncer} does). While a migration is recorded in {@code status.migration},
 * {@link #converge} does not sync the tenant (the migration moves its workloads and syncs what the move needs) and
 * reports {@link ConvergenceReport#MIGRATION_IN_PROGRESS}; a migration that has not started, or was rejected, leaves
 * the tenant converged where it runs now ({@code status.mode}, {@code status.hostNamespace}).
 *
 * <pre>{@code
 * TenantPlane plane = TenantPlane.builder()
 *         .hostClient(ClientBuilder.defaultClient())
 *         .build();
 * plane.ensure(tenantCluster);
 * ConvergenceReport report = plane.converge(new TenantKey("team-dev", "dev"));
 * plane.decisions(new TenantKey("team-dev", "dev"), 20).forEach(System.out::println);
 * }</pre>
 */
public final class TenantPlane {

    private final ApiClient hostClient;
    private final Set<String> allowedKinds;
    private final io.tenantplane.kubelet.KubeletEndpoint kubeletEndpoint;
    private final TenantConnector connector;
    private final Clock clock;
    private final Observer observer;
    private final DecisionRing ring;
    private final Explainer explainer = new Explainer();
    private final Planner planner = new Planner();
    private final Converger converger;
    private final Provisioner provisioner;
    private final MigrationRunner migrationRunner;
    /** The host's Service range, found by the first provisioning that needs it; null without a host client. */
    private final HostServiceRange serviceRange;
    private final Reader hostReader;
    private final EventObserver events;

    private TenantPlane(Builder b) {
        this.hostClient = b.hostClient;
        this.allowedKinds = Set.copyOf(b.allowedKinds);
        this.kubeletEndpoint = b.kubeletEndpoint;
        this.clock = b.clock;
        this.ring = new DecisionRing(b.ringCapacity, b.clock);
        List<Observer> all = new ArrayList<>();
        all.add(ring);
        if (b.hostClient != null && b.recordEvents) {
            this.events = EventObserver.builder().client(b.hostClient).clock(b.clock).retries(b.retries)
                    .reportingInstance(b.reportingInstance).shards(b.shards).build();
            all.add(events);
        } else {
            this.events = null;
        }
        all.addAll(b.observers);
        this.observer = Observer.composite(all.toArray(Observer[]::new));
        if (b.hostClient != null) {
            Retries retries = b.retries;
            java.util.function.Function<ApiClient, Applier> appliers = client -> Applier.builder().client(client)
                    .observer(observer).retries(retries).build();
            this.connector = b.connector != null ? b.connector : TenantConnector.kubeconfigSecret(b.hostClient);
            this.hostReader = new Reader(b.hostClient, retries);
            this.converger = new Converger(b.hostClient, appliers, observer, b.clock, b.writeConcurrency,
                    b.hostWriteRate, b.kubeletEndpoint, b.allowedKinds);
            Reader caReader = hostReader;
            HostServiceRange serviceRange = new HostServiceRange(hostReader);
            this.serviceRange = serviceRange;
            this.migrationRunner = MigrationRunner.builder().hostClient(b.hostClient).observer(observer).clock(clock)
                    .retries(retries).tenantCa(tc -> KubeconfigSecretConnector.caCertificate(caReader, tc))
                    .onHost(serviceRange::onHost).build();
            TenantConnector tenants = this.connector;
            MigrationRunner runner = this.migrationRunner;
            this.provisioner = new Provisioner(b.hostClient, appliers.apply(b.hostClient), hostReader, observer, clock,
                    (key, tc) -> {
                        ApiClient tenantClient;
                        try {
                            tenantClient = tenants.connect(tc);
                        } catch (TenantApiUnavailableException e) {
                            return new MigrationProgress.Failed(null, "TenantApiUnavailable", e.getMessage(),
                                    List.of());
                        }
                        return runner.resume(key, tenantClient);
                    }, b.kubeletEndpoint, serviceRange);
        } else {
            this.connector = b.connector;
            this.hostReader = null;
            this.converger = null;
            this.provisioner = null;
            this.migrationRunner = null;
            this.serviceRange = null;
        }
    }

    /**
     * A {@link io.tenantplane.kubelet.KubeletServer} builder with this plane's host client, observers (Events on the
     * TenantCluster, metrics) and the CA of the configured kubelet endpoint; add the serving credential and start it.
     *
     * @throws IllegalStateException without a host client or a kubelet endpoint
     */
    public io.tenantplane.kubelet.KubeletServer.Builder kubeletServer() {
        if (hostClient == null || kubeletEndpoint == null) {
            throw new IllegalStateException("a kubelet server needs the host client and the kubelet endpoint "
                    + "(TenantPlane.builder().hostClient(...).kubeletEndpoint(...))");
        }
        return io.tenantplane.kubelet.KubeletServer.builder().hostClient(hostClient)
                .ca(kubeletEndpoint.ca().orElseThrow(() -> new IllegalStateException("the kubelet CA is not loaded")))
                .observer(observer);
    }

    /** A builder with no clients: enough for the offline operations. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- offline

    /**
     * Every problem with the tenantplane custom resources among {@code objects} (other objects are ignored): each
     * object on its own and the rules across them (references resolve, tenant names are unique, ...). Empty when all
     * is well.
     */
    public List<Problem> validate(Collection<io.tenantplane.model.LoadedObject> objects) {
        Objects.requireNonNull(objects, "objects");
        Parsed<io.tenantplane.model.CustomResources> parsed =
                io.tenantplane.model.CustomResources.from(objects);
        List<Problem> out = new java.util.ArrayList<>(parsed.problems());
        if (out.isEmpty() && parsed instanceof Parsed.Ok<io.tenantplane.model.CustomResources> ok) {
            // The tenant's own pods against the boundary its profile draws: only for inputs that are valid otherwise.
            for (TenantCluster tc : ok.value().tenantClusters()) {
                ok.value().isolationProfileFor(tc).ifPresent(ip -> {
                    TenantCluster place = Placement.of(tc).cluster();
                    String file = objects.stream().filter(o -> IsolationProfile.KIND.equals(o.kind())
                            && Objects.equals(ip.name(), o.name()) && Objects.equals(tc.namespace(), o.namespace()))
                            .map(io.tenantplane.model.LoadedObject::describe).findFirst().orElse(null);
                    BoundaryFit.problems(place, ip, TenantRendering.of(place, ip)).forEach(p -> out.add(
                            file == null ? p : p.withSource(file)));
                });
            }
        }
        return List.copyOf(out);
    }

    /**
     * What {@link #ensure} writes to the host for {@code tenantCluster}: the isolation boundary (NetworkPolicies,
     * ResourceQuota, LimitRange, namespace labels, workload ServiceAccount) and the control plane (StatefulSet,
     * Services, Secret, RBAC), in the order they are applied. A TenantCluster that names no Service range is rendered
     * with the host's once a provisioning of this plane has found it (and it differs from the default); never asks
     * the host itself, so without a host client, or before, the default is rendered.
     *
     * @throws io.tenantplane.model.InvalidResourceException listing every problem when either object is invalid, or
     *         when the profile's LimitRange or quota would refuse the tenant's own control plane or DNS pods
     */
    public List<JsonObject> render(TenantCluster tenantCluster, IsolationProfile profile) {
        return render(tenantCluster, profile, serviceRange == null ? null : serviceRange.range());
    }

    /**
     * What {@link #ensure} writes for {@code tenantCluster} on the host {@code hostObjects} come from: as
     * {@link #render(TenantCluster, IsolationProfile)}, with the Service range read from the host's
     * {@code default/kubernetes} Service when it is among them (e.g. {@code kubectl get service kubernetes -n default
     * -o yaml}), as provisioning reads it; without it, as the two-argument form.
     *
     * @throws io.tenantplane.model.InvalidResourceException as {@link #render(TenantCluster, IsolationProfile)}
     */
    public List<JsonObject> render(TenantCluster tenantCluster, IsolationProfile profile,
                                   Collection<JsonObject> hostObjects) {
        Objects.requireNonNull(hostObjects, "hostObjects");
        String block = hostObjects.stream().filter(o -> "Service".equals(Json.string(o, "kind"))
                        && "default".equals(Json.string(o, "metadata", "namespace"))
                        && "kubernetes".equals(Json.string(o, "metadata", "name")))
                .findFirst()
                .flatMap(o -> ServiceRange.fromKubernetesServiceIp(
                        Json.string(o, "spec", "clusterIP")))
                .orElse(null);
        return block == null ? render(tenantCluster, profile) : render(tenantCluster, profile, block);
    }

    private List<JsonObject> render(TenantCluster tenantCluster, IsolationProfile profile, String hostBlock) {
        Objects.requireNonNull(tenantCluster, "tenantCluster");
        Objects.requireNonNull(profile, "profile");
        List<JsonObject> rendered = TenantRendering.of(
                ServiceRange.onHost(tenantCluster, hostBlock), profile);
        List<Problem> misfits = BoundaryFit.problems(tenantCluster, profile, rendered);
        if (!misfits.isEmpty()) {
            throw new io.tenantplane.model.InvalidResourceException("TenantCluster " + tenantCluster.id()
                    + " does not fit in IsolationProfile " + profile.name(), misfits);
        }
        return rendered;
    }

    /** The decisions a pass would make for {@code request}, without any cluster. */
    public Plan plan(PlanRequest request) {
        Objects.requireNonNull(request, "request");
        return planner.plan(snapshot(request, allowedKinds));
    }

    /**
     * The migration a tenant's mode change asks for, without any cluster: its steps with their decisions and waits,
     * what is deleted and what each workload sees, or why it is rejected. Not needed (no steps) when the snapshot's
     * TenantCluster has no {@code status.mode} or runs in its {@code spec.mode} already.
     */
    public MigrationPlan planMigration(MigrationSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        // Made per call: the planner holds no state, and offline users (the CLI) should not load it unless asked.
        return new MigrationPlanner().plan(snapshot);
    }

    /**
     * Where a tenant object would land on the host and why, given the real context of {@code request} (its policy,
     * profile, objects and host objects).
     *
     * @param virtualNamespace null for a cluster-scoped kind
     */
    public Explanation explainSync(PlanRequest request, String virtualNamespace, String kind, String name) {
        Objects.requireNonNull(request, "request");
        return explainer.explainSync(snapshot(request, allowedKinds), virtualNamespace, kind, name);
    }

    /**
     * Where a tenant object of {@code kind} named {@code name} would land if its kind were synced: naming and
     * reverse-mapping metadata only, no objects needed.
     *
     * @param hostNamespace    the tenant's host namespace
     * @param virtualNamespace null for a cluster-scoped kind
     */
    public Explanation explainSync(String tenant, String hostNamespace, String virtualNamespace, String kind,
                                   String name) {
        return explainer.explainSync(tenant, hostNamespace, virtualNamespace, kind, name);
    }

    /**
     * What a pass over the tenant {@code context} would decide for its {@code kind} {@code virtualNamespace/name},
     * read live as the pass reads it: the same lists of the tenant and the host, the same host copies, CRDs, mirrored
     * classes and tenant API and DNS Services, so the answer cannot drift from the pass ({@link #explainSync(PlanRequest,
     * String, String, String)} over that read, which predicts a Syncer pass: one that provisions before it syncs).
     * Nothing is written.
     *
     * @param virtualNamespace null for a cluster-scoped kind
     * @throws IllegalStateException                         when the plane has no host client
     * @throws io.tenantplane.errors.TenantApiUnavailableException when the tenant's API cannot be reached
     * @throws io.tenantplane.errors.ReadFailedException    when a read fails (an answer never rests on a partial view)
     */
    public Explanation explainLive(TenantContext context, io.tenantplane.apply.ResourceKind kind,
                                   String virtualNamespace, String name) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(kind, "kind");
        requireLive("explainLive");
        PlanRequest request = converger.planRequest(context, tenantClient(context.cluster()), kind, virtualNamespace,
                name);
        return explainSync(request, virtualNamespace, kind.kind(), name);
    }

    /** The tenant source of a host object, from its reverse-mapping metadata, or why it has none. */
    public TraceResult trace(JsonObject hostObject) {
        Objects.requireNonNull(hostObject, "hostObject");
        return explainer.trace(hostObject);
    }

    /**
     * The tenant source of the host object {@code hostNamespace/hostName} of {@code kind}, looked up in
     * {@code hostObjects} (e.g. read from files), or why it has none.
     */
    public TraceResult trace(String kind, String hostNamespace, String hostName, Collection<JsonObject> hostObjects) {
        return explainer.trace(kind, hostNamespace, hostName, hostObjects);
    }

    /** The custom kinds ({@code Kind.group}) policies may sync: {@link Builder#allowedKinds}. */
    public Set<String> allowedKinds() {
        return allowedKinds;
    }

    /**
     * The snapshot a pass would plan {@code r} with: in private mode an empty policy (the pass syncs nothing there);
     * the custom kinds of its policy judged against {@code allowedKinds} and the CustomResourceDefinitions among its
     * host objects.
     */
    static Snapshot snapshot(PlanRequest r, Set<String> allowedKinds) {
        TenantCluster tc = r.tenantCluster();
        TransformOptions options = Options.from(tc, r.profile(), r.policy())
                .withTenantApi(Options.tenantApi(tc, r.hostObjects(), true))
                .withHostFacts(Options.hostFacts(allowedKinds, r.policy(), r.hostObjects()));
        options = options.withEndpointAddresses(options.endpointAddresses()
                .withPodIps(Options.hostPodIps(tc, r.hostObjects())));
        // As the pass: a private tenant syncs nothing (its own agents run its workloads).
        return new Snapshot(tc.tenant(), tc.hostNamespace(), Converger.syncedPolicy(tc, r.policy()), options,
                r.tenantObjects(), r.hostObjects());
    }

    // ---------------------------------------------------------------- live

    /**
     * Provisions {@code tenantCluster} on the host and writes its status. Creates the TenantCluster when it does not
     * exist; an existing one is provisioned as stored (its spec belongs to whoever wrote it). Then validates it (an invalid spec gets
     * {@code Ready=False}/{@code InvalidSpec} naming the field, and nothing else is written), applies the isolation
     * boundary and the control plane conflict-checked (a foreign object holding a name is a {@code Conflict} and
     * makes the tenant {@code Degraded}; it is never overwritten), adds the {@code tenantplane.io/cleanup} finalizer,
     * and writes {@code status} (observedGeneration, hostNamespace, phase, conditions Ready, ControlPlaneReady,
     * IsolationApplied, Synced, Degraded) only when it changed. When the TenantCluster is being deleted, deletes
     * exactly what tenantplane created for it and then removes the finalizer.
     *
     * <p>When {@code spec.mode} differs from {@code status.mode}, or a migration is recorded in
     * {@code status.migration}, it first runs one migration pass ({@link ProvisionReport#migration()}): while the
     * migration is under way the target is provisioned and phase, {@code Ready}, {@code status.mode} and
     * {@code status.hostNamespace} are left to the migration; a migration that was rejected, or could not start,
     * leaves the tenant provisioned where it runs now. {@code status.mode} is set from {@code spec.mode} only when the
     * tenant is first provisioned; afterwards only a migration switches it.
     *
     * @throws IllegalStateException when the plane has no host client
     */
    public ProvisionReport ensure(TenantCluster tenantCluster) {
        Objects.requireNonNull(tenantCluster, "tenantCluster");
        requireLive("ensure");
        return provisioner.ensure(tenantCluster);
    }

    /**
     * Provisions the TenantCluster {@code tenant} as it is stored on the host (see {@link #ensure(TenantCluster)});
     * unlike that method it never creates the TenantCluster: when it does not exist the report says
     * {@link ProvisionReport#gone()}.
     *
     * @throws IllegalStateException when the plane has no host client
     */
    public ProvisionReport ensure(TenantKey tenant) {
        Objects.requireNonNull(tenant, "tenant");
        requireLive("ensure");
        return provisioner.ensure(tenant);
    }

    /**
     * The TenantCluster {@code tenant} with the SyncPolicy and IsolationProfile it references, read from the host.
     * While {@code spec.mode} is not in effect and no migration is recorded (the migration has not started, or was
     * rejected), the context's cluster is the tenant where it runs now: its {@code spec.mode} and
     * {@code spec.hostNamespace} are those of {@code status}, so that passes keep it converged there.
     *
     * @return empty when the TenantCluster does not exist
     * @throws io.tenantplane.model.InvalidResourceException when it or what it references is invalid or missing
     * @throws ReadFailedException when the host does not answer
     */
    public Optional<TenantContext> context(TenantKey tenant) {
        Objects.requireNonNull(tenant, "tenant");
        requireLive("context");
        return provisioner.context(tenant);
    }

    /**
     * One full convergence pass over {@code tenant}: for every kind its SyncPolicy sends to the host, list the tenant's
     * objects and the host's, plan, apply (create, conflict-checked update, uid-preconditioned delete of orphans),
     * then copy host status back and bind tenant Pods to mirrored nodes. Every decision goes to the observers. A pass
     * over a converged tenant writes nothing. Also records the result as the TenantCluster's {@code Synced}
     * condition (written only when it changed). While a migration is recorded it syncs nothing and fails with
     * {@link ConvergenceReport#MIGRATION_IN_PROGRESS}; a tenant in private mode has nothing synced, so its pass only
     * collects host copies left behind.
     *
     * @throws IllegalStateException when the plane has no host client
     */
    public ConvergenceReport converge(TenantKey tenant) {
        Objects.requireNonNull(tenant, "tenant");
        requireLive("converge");
        Optional<TenantContext> ctx;
        try {
            ctx = provisioner.context(tenant);
        } catch (io.tenantplane.model.InvalidResourceException e) {
            return failed(tenant, "InvalidSpec", e.getMessage());
        } catch (ReadFailedException e) {
            return failed(tenant, "ReadFailed", e.getMessage());
        }
        if (ctx.isEmpty()) {
            return failed(tenant, "TenantClusterNotFound", "TenantCluster " + tenant + " does not exist");
        }
        return converge(ctx.get());
    }

    /**
     * A full pass over the tenant of {@code context} (see {@link #converge(TenantKey)}), without reading the
     * TenantCluster, policy and profile again. Hand it a context read for this pass ({@link ProvisionReport#context()}
     * of the {@code ensure} just before, or {@link #context}): the {@code Synced} condition is written only when it
     * differs from the one in the context's status, so a context kept from an earlier pass may leave a newer
     * condition in place.
     */
    public ConvergenceReport converge(TenantContext context) {
        Objects.requireNonNull(context, "context");
        requireLive("converge");
        switch (Placement.of(context.cluster())) {
            case Placement.Moving m -> {
                ConvergenceReport r = moving(context, m);
                provisioner.recordSynced(context.cluster(), r);
                return r;
            }
            case Placement.InPlace p -> context = inPlace(context, p);
        }
        ApiClient tenantClient;
        try {
            tenantClient = connector.connect(context.cluster());
        } catch (TenantApiUnavailableException e) {
            ConvergenceReport r = failed(context.key(), "TenantApiUnavailable", e.getMessage());
            provisioner.recordSynced(context.cluster(), r);
            return r;
        }
        ConvergenceReport report = converger.converge(context, tenantClient);
        provisioner.recordSynced(context.cluster(), report);
        return report;
    }

    /**
     * A pass over one tenant object and its host copy: what a watch event about either asks for. Plans only that
     * object (create, update, delete of the copy when the source is gone) and lets its status flow back.
     */
    public ConvergenceReport converge(TenantContext context, TenantObjectRef object) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(object, "object");
        requireLive("converge");
        if (!object.tenant().equals(context.tenant())) {
            throw new IllegalArgumentException("object " + object.describe() + " is not of tenant "
                    + context.tenant());
        }
        switch (Placement.of(context.cluster())) {
            case Placement.Moving m -> {
                return moving(context, m);
            }
            case Placement.InPlace p -> context = inPlace(context, p);
        }
        ApiClient tenantClient;
        try {
            tenantClient = connector.connect(context.cluster());
        } catch (TenantApiUnavailableException e) {
            return failed(context.key(), "TenantApiUnavailable", e.getMessage());
        }
        return converger.converge(context, tenantClient, object);
    }

    /**
     * The client of the tenant's API, from the {@link TenantConnector}.
     *
     * @throws TenantApiUnavailableException when it cannot be reached yet
     */
    public ApiClient tenantClient(TenantCluster tenantCluster) {
        Objects.requireNonNull(tenantCluster, "tenantCluster");
        requireLive("tenantClient");
        return connector.connect(tenantCluster);
    }

    /**
     * The most recent decisions about {@code tenant}, newest first: every write, and each decision that wrote nothing
     * once while it repeats (see {@link DecisionRing}).
     *
     * @param limit at most this many
     */
    public List<RecordedDecision> decisions(TenantKey tenant, int limit) {
        return ring.recent(tenant, limit);
    }

    /** The host client, when the plane was built with one. */
    public Optional<ApiClient> hostClient() {
        return Optional.ofNullable(hostClient);
    }

    /**
     * Decisions whose Event was dropped because the Events waiting to be written had reached their bound (the pass
     * never waits for Events); 0 when Events are not recorded. Every decision is still in {@link #decisions}.
     */
    public long eventsDropped() {
        return events == null ? 0 : events.dropped();
    }

    /** The observer every decision goes to: the decision ring, the Events observer and the builder's observers. */
    public Observer observer() {
        return observer;
    }

    /** The clock the plane stamps conditions and Events with. */
    public Clock clock() {
        return clock;
    }

    /**
     * The live migration plan of {@code tenant}: what the next {@link #ensure} would move, read from the host and the
     * tenant API but written nowhere. Not needed when the tenant runs in its {@code spec.mode}.
     *
     * @throws IllegalStateException         when the plane has no host client
     * @throws TenantApiUnavailableException when the tenant API cannot be reached
     * @throws ReadFailedException           when the host or the tenant API refuses a read (e.g. the TenantCluster
     *                                       does not exist)
     */
    public MigrationPlan planMigration(TenantKey tenant) {
        Objects.requireNonNull(tenant, "tenant");
        requireLive("planMigration");
        TenantCluster tc = context(tenant).orElseThrow(() -> new ReadFailedException("get TenantCluster " + tenant,
                404, "not found")).cluster();
        return migrationRunner.plan(tenant, connector.connect(tc));
    }

    private static TenantContext inPlace(TenantContext context, Placement.InPlace p) {
        return context.withCluster(p.cluster());
    }

    private static ConvergenceReport moving(TenantContext context, Placement.Moving m) {
        TenantCluster.Migration mig = m.migration();
        return new ConvergenceReport(context.key(), List.of(), Duration.ZERO, new ConvergenceReport.PassFailure(
                ConvergenceReport.MIGRATION_IN_PROGRESS, "Tenant " + context.tenant() + " is migrating from "
                + mig.from().value() + " to " + mig.to().value() + " mode; the migration syncs what the move needs, "
                + "and convergence resumes when it has completed."));
    }

    private ConvergenceReport failed(TenantKey tenant, String reason, String message) {
        return new ConvergenceReport(tenant, List.of(), Duration.ZERO,
                new ConvergenceReport.PassFailure(reason, message));
    }

    private void requireLive(String operation) {
        if (hostClient == null) {
            throw new IllegalStateException(operation + " needs a host cluster: build the TenantPlane with "
                    + "hostClient(ApiClient)");
        }
    }

    /**
     * Configures a {@link TenantPlane}. Setters check their argument at once and name it in the message;
     * {@link #build()} copies the configuration, so a builder can be reused. Not thread-safe.
     */
    public static final class Builder {
        private ApiClient hostClient;
        private TenantConnector connector;
        private Clock clock = Clock.systemUTC();
        private final List<Observer> observers = new ArrayList<>();
        private int ringCapacity = 200;
        private boolean recordEvents = true;
        private String reportingInstance = "tenantplane";
        private int shards;
        private Retries retries = Retries.DEFAULT;
        private int writeConcurrency = 1;
        private io.tenantplane.apply.WriteRate hostWriteRate = io.tenantplane.apply.WriteRate.unlimited();
        private io.tenantplane.kubelet.KubeletEndpoint kubeletEndpoint;
        private Set<String> allowedKinds = Set.of();

        private Builder() {
        }

        /**
         * The custom kinds a SyncPolicy may send to the host (or mirror from it), each as {@code Kind.group}, e.g.
         * {@code Certificate.cert-manager.io} (default none). Built-in kinds are always allowed; a policy naming a
         * custom kind not listed here gets {@code KindNotAllowed} skips, and tenantplane neither reads nor writes
         * that kind on the host. Grant the controller RBAC for each kind listed.
         *
         * @throws IllegalArgumentException naming the entry when one is not {@code Kind.group}
         */
        public Builder allowedKinds(java.util.Collection<String> kinds) {
            Set<String> out = new java.util.TreeSet<>();
            for (String k : Objects.requireNonNull(kinds, "kinds")) {
                String t = k == null ? "" : k.strip();
                int dot = t.indexOf('.');
                if (dot < 1 || !t.substring(0, dot).matches("[A-Z][A-Za-z0-9]*")
                        || !io.tenantplane.naming.HostNames.isDns1123Subdomain(t.substring(dot + 1))) {
                    throw new IllegalArgumentException("allowed kind '" + k + "' is not Kind.group: write the kind "
                            + "and its API group, e.g. Certificate.cert-manager.io");
                }
                out.add(t);
            }
            this.allowedKinds = Set.copyOf(out);
            return this;
        }

        /**
         * tenantplane's kubelet endpoint (default none): the node mirrors of shared and dedicated tenants point at it,
         * and each such tenant's API server gets a client certificate for it (Secret {@code <tenant>-kubelet-client}),
         * so {@code kubectl logs} works inside the tenant. Serve it with {@link #kubeletServer()}'s builder. Without
         * it, mirrors carry their host node's addresses and the tenant API cannot reach a kubelet for them.
         */
        public Builder kubeletEndpoint(io.tenantplane.kubelet.KubeletEndpoint endpoint) {
            this.kubeletEndpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /** The host cluster: where TenantClusters live and tenant workloads run. Needed for live operations. */
        public Builder hostClient(ApiClient hostClient) {
            this.hostClient = Objects.requireNonNull(hostClient, "hostClient");
            return this;
        }

        /**
         * How to reach each tenant's API; default {@link TenantConnector#kubeconfigSecret(ApiClient)} over the host
         * client.
         */
        public Builder tenantConnector(TenantConnector tenantConnector) {
            this.connector = Objects.requireNonNull(tenantConnector, "tenantConnector");
            return this;
        }

        /** Stamps conditions, Events and recorded decisions; default the system UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * An observer that also receives every decision (metrics, spans, logs). May be called more than once; the
         * observers are called in the order added, after the decision ring and the Events observer.
         */
        public Builder observer(Observer observer) {
            this.observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        /**
         * How many decisions per tenant {@link TenantPlane#decisions} remembers (default 200).
         *
         * @throws IllegalArgumentException when less than 1
         */
        public Builder decisionRingCapacity(int capacity) {
            if (capacity < 1) {
                throw new IllegalArgumentException("decisionRingCapacity must be at least 1, got " + capacity);
            }
            this.ringCapacity = capacity;
            return this;
        }

        /** Whether decisions become Events on the TenantCluster (default true; needs the host client). */
        public Builder recordEvents(boolean recordEvents) {
            this.recordEvents = recordEvents;
            return this;
        }

        /**
         * Labels the decision Events with their tenant's shard among {@code count} ({@code tenantplane.io/shard}, as
         * {@link io.tenantplane.sync.ShardLeases} assigns them); default 0, no label.
         */
        public Builder shards(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("shards must not be negative, got " + count);
            }
            this.shards = count;
            return this;
        }

        /** The Events' {@code reportingInstance}, e.g. the pod name (default {@code tenantplane}). */
        public Builder reportingInstance(String reportingInstance) {
            if (reportingInstance == null || reportingInstance.isBlank()) {
                throw new IllegalArgumentException("reportingInstance must not be blank, got '" + reportingInstance
                        + "'");
            }
            this.reportingInstance = reportingInstance;
            return this;
        }

        /**
         * Retries of a write the server refused with a conflict, throttling or a server error: at most
         * {@code maxAttempts} attempts, waiting {@code initialBackoff} doubled each time up to {@code maxBackoff}
         * (defaults 5, 100 ms, 2 s).
         *
         * @throws IllegalArgumentException when {@code maxAttempts} is less than 1, a duration is negative, or
         *                                  {@code maxBackoff} is less than {@code initialBackoff}
         */
        public Builder retries(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
            this.retries = new Retries(maxAttempts, initialBackoff, maxBackoff);
            return this;
        }

        /**
         * How many host writes one tenant's pass keeps in flight (default 1: one after another). Above 1, a pass
         * writes in two waves, every other kind first and then the Pods that need them, each wave with up to this
         * many writes at once; a tenant's first sync then goes at the host's write rate rather than one round trip
         * per object.
         *
         * @throws IllegalArgumentException when {@code writers} is outside 1..64
         */
        public Builder writeConcurrency(int writers) {
            if (writers < 1 || writers > 64) {
                throw new IllegalArgumentException("writeConcurrency must be from 1 to 64, got " + writers);
            }
            this.writeConcurrency = writers;
            return this;
        }

        /**
         * A client-side limit on the requests convergence passes send the host, shared fairly by all tenants (see
         * {@link io.tenantplane.apply.WriteRate}); default unlimited.
         */
        public Builder hostWriteRate(io.tenantplane.apply.WriteRate rate) {
            this.hostWriteRate = Objects.requireNonNull(rate, "rate");
            return this;
        }

        /** A TenantPlane with this configuration. */
        public TenantPlane build() {
            return new TenantPlane(this);
        }
    }
}
