package io.tenantplane;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.apply.internal.TokenRequests;
import io.tenantplane.apply.internal.TokenSecrets;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.HostMirrors;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.plan.internal.PodLifecycle;
import io.tenantplane.plan.internal.ServiceAddresses;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.transform.SyncRules;
import io.tenantplane.transform.TransformOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * One convergence pass: read, plan, apply, let status flow back. The reading and the flowing back live here; the
 * deciding is the {@link Planner}'s and the writing the {@link Applier}'s.
 *
 * <p>Reads per pass, per synced kind: one list of the tenant's objects (all virtual namespaces; the planner skips the
 * system ones),
 * and one list of the host objects labelled with this tenant in the host namespace. Kinds tenantplane can sync but the
 * policy does not are listed on the host with the tenant's labels only, so their copies are collected when a policy
 * drops a kind.
 *
 * <p>A name the plan would create may be held by an object these lists do not show (a foreign object, which carries
 * no tenant label). It is not looked up beforehand: a create never overwrites, so the host answers
 * {@code AlreadyExists}, and the {@link Applier} reads that object and plans it again, which gives the same
 * {@code Conflict} ({@code ForeignObject}) decision a lookup would have given, without a request per created object.
 */
final class Converger {

    private final Planner planner = new Planner();
    private final Reader hostReader;
    private final Resources hostResources;
    private final Applier hostApplier;
    private final Function<ApiClient, Applier> appliers;
    private final Observer observer;
    private final Clock clock;
    /** The tenant API and DNS Services each tenant's last full pass read (none read: an empty list). */
    private final Map<TenantKey, List<JsonObject>> controlPlaneServices =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The installation's allow-list of custom kinds ({@code Kind.group}). */
    private final Set<String> allowedKinds;
    /** What the last full pass found about each tenant's custom kinds on the host; watch-driven passes reuse it. */
    private final Map<TenantKey, io.tenantplane.transform.HostFacts> hostFacts =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The host's objects of the kinds each tenant's policy mirrors, as the last full pass read them: a pass over one
     * Pod judges its PriorityClass and RuntimeClass against them, as the full pass does.
     */
    private final Map<TenantKey, List<JsonObject>> hostClasses = new java.util.concurrent.ConcurrentHashMap<>();
    /** Private tenants whose shared- or dedicated-mode metrics.k8s.io registration has been looked at (and retired). */
    private final Set<TenantKey> metricsRetired = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Where node mirrors send the tenant API's kubelet calls; null: to their host node's addresses. */
    private final io.tenantplane.kubelet.KubeletEndpoint kubelet;
    /** Host writes of one pass in flight at once (1: one after another). */
    private final int writeConcurrency;
    /** The client-side limit on host requests, shared by every tenant's passes. */
    private final io.tenantplane.apply.WriteRate writeRate;

    Converger(ApiClient host, Function<ApiClient, Applier> appliers, Observer observer, Clock clock,
              int writeConcurrency, io.tenantplane.apply.WriteRate writeRate) {
        this(host, appliers, observer, clock, writeConcurrency, writeRate, null);
    }

    Converger(ApiClient host, Function<ApiClient, Applier> appliers, Observer observer, Clock clock,
              int writeConcurrency, io.tenantplane.apply.WriteRate writeRate,
              io.tenantplane.kubelet.KubeletEndpoint kubelet) {
        this(host, appliers, observer, clock, writeConcurrency, writeRate, kubelet, Set.of());
    }

    Converger(ApiClient host, Function<ApiClient, Applier> appliers, Observer observer, Clock clock,
              int writeConcurrency, io.tenantplane.apply.WriteRate writeRate,
              io.tenantplane.kubelet.KubeletEndpoint kubelet, Set<String> allowedKinds) {
        this.allowedKinds = Set.copyOf(allowedKinds);
        this.kubelet = kubelet;
        if (writeConcurrency < 1) {
            throw new IllegalArgumentException("writeConcurrency must be at least 1, got " + writeConcurrency);
        }
        this.writeConcurrency = writeConcurrency;
        this.writeRate = java.util.Objects.requireNonNull(writeRate, "writeRate");
        this.clock = clock;
        this.hostResources = Resources.of(host);
        this.appliers = appliers;
        this.hostApplier = appliers.apply(host);
        this.hostReader = hostApplier.reader();
        this.observer = observer;
    }

    /** True when the installation's allow-list holds this custom kind. */
    private boolean allowed(String kind, String apiVersion) {
        return io.tenantplane.transform.HostFacts.allowed(allowedKinds, kind, apiVersion);
    }

    /** A full pass over every kind the tenant's policy syncs. */
    ConvergenceReport converge(TenantContext ctx, ApiClient tenantClient) {
        return run(ctx, exec -> new Pass(ctx, tenantClient, exec, true).full());
    }

    /** A pass over one tenant object and its host copy: what a watch event on either side asks for. */
    ConvergenceReport converge(TenantContext ctx, ApiClient tenantClient, TenantObjectRef ref) {
        return run(ctx, exec -> new Pass(ctx, tenantClient, exec, false).one(ref));
    }

    /**
     * Runs a pass inside the observers' pass scope, reporting through one {@link Execution}; a read that fails ends
     * the pass as a failed report (and is recorded on the scope), anything else propagates.
     */
    private ConvergenceReport run(TenantContext ctx, Function<Execution, List<Outcome>> pass) {
        long start = System.nanoTime();
        try {
            List<Outcome> outcomes = Execution.scoped(ctx.key(), observer, observer::passStarted, pass);
            return new ConvergenceReport(ctx.key(), outcomes, Duration.ofNanos(System.nanoTime() - start), null);
        } catch (ReadFailedException e) {
            return new ConvergenceReport(ctx.key(), List.of(), Duration.ofNanos(System.nanoTime() - start),
                    new ConvergenceReport.PassFailure("ReadFailed", e.getMessage()));
        }
    }

    /**
     * Where tenant pods reach their tenant API and DNS ({@link Options#tenantApi}), from the tenant API and DNS
     * Services on the host.
     * A full pass reads the Services ({@link PassReader#controlPlaneServices}, and keeps them for {@link #planRequest});
     * a pass over one object uses what the last full pass read (a ClusterIP never changes while its Service exists),
     * so watch-driven passes cost no extra request.
     */
    private TransformOptions.TenantApi tenantApi(TenantContext ctx, PassReader reader, boolean full) {
        if (ctx.cluster().mode() == TenantCluster.Mode.PRIVATE) {
            return null;
        }
        List<JsonObject> services = controlPlaneServices.get(ctx.key());
        if (full || services == null) {
            services = reader.controlPlaneServices();
            controlPlaneServices.put(ctx.key(), services);
        }
        return Options.tenantApi(ctx.cluster(), services, false);
    }

    /**
     * The policy a pass follows: the tenant's, except in private mode, where nothing is synced (the tenant's own
     * agents run its workloads), so that a pass only collects host copies left in its namespace.
     */
    static SyncPolicy syncedPolicy(TenantContext ctx) {
        return syncedPolicy(ctx.cluster(), ctx.policy());
    }

    /** {@link #syncedPolicy(TenantContext)} for a TenantCluster and its policy (an offline plan, explain). */
    static SyncPolicy syncedPolicy(TenantCluster cluster, SyncPolicy policy) {
        if (cluster.mode() != TenantCluster.Mode.PRIVATE) {
            return policy;
        }
        return new SyncPolicy(SyncPolicy.API_VERSION, SyncPolicy.KIND, policy.metadata(),
                new SyncPolicy.Spec(List.of()), null);
    }

    /**
     * What a full pass over {@code ctx} plans with, read as the pass reads it ({@link PassReader#read}), with the tenant API
     * and DNS Services the pass reads for its pods, for a question about {@code kind} {@code virtualNamespace/name}:
     * the tenant's objects of {@code kind} too when the pass does not list them (a kind the policy does not send, a
     * private tenant), and whatever holds the object's host name when the pass's lists do not hold it (a foreign
     * object there is a Conflict). Nothing is written; the read counts as no pass.
     */
    PlanRequest planRequest(TenantContext ctx, ApiClient tenantClient, ResourceKind kind, String virtualNamespace,
                            String name) {
        // Only reads: an execution that would report to no observer, and reports nothing.
        Pass pass = new Pass(ctx, tenantClient, Execution.of(ctx.key(), Observer.NOOP, Observer.PassScope.NOOP), true);
        PassReader.Reads r = pass.reader.read(false);
        List<JsonObject> tenantObjects = new ArrayList<>(r.tenantObjects());
        List<JsonObject> hostObjects = new ArrayList<>(r.hostObjects());
        hostObjects.addAll(r.crds());
        if (tenantObjects.stream().noneMatch(o -> kind.kind().equals(Json.string(o, "kind")))) {
            tenantObjects.addAll(pass.tenantReader.list(kind, null, null));
        }
        boolean custom = SyncPolicy.SUPPORTED_KINDS.stream().noneMatch(k -> k.kind().equals(kind.kind()));
        if (!custom || allowed(kind.kind(), kind.apiVersion())) {
            String hostName = virtualNamespace == null ? HostNames.clusterScopedHostName(name, ctx.tenant())
                    : HostNames.hostName(name, virtualNamespace, ctx.tenant());
            boolean held = hostObjects.stream().anyMatch(o -> kind.kind().equals(Json.string(o, "kind"))
                    && hostName.equals(Json.string(o, "metadata", "name")));
            if (!held) {
                try {
                    ResourceKind hk = hostResources.resolve(kind.apiVersion(), kind.kind());
                    hostReader.get(hk, hk.namespaced() ? ctx.hostNamespace() : null, hostName)
                            .ifPresent(hostObjects::add);
                } catch (io.tenantplane.apply.UnknownKindException notOnHost) {
                    // The host does not serve the kind: nothing can hold the name.
                }
            }
        }
        // The tenant API and DNS Services this pass read for its pods (Pass's constructor), not read again.
        for (JsonObject svc : controlPlaneServices.getOrDefault(ctx.key(), List.of())) {
            boolean held = hostObjects.stream().anyMatch(o -> "Service".equals(Json.string(o, "kind"))
                    && Json.string(svc, "metadata", "name").equals(Json.string(o, "metadata", "name"))
                    && ctx.cluster().namespace().equals(Json.string(o, "metadata", "namespace")));
            if (!held) {
                hostObjects.add(svc);
            }
        }
        return new PlanRequest(ctx.cluster(), ctx.profile(), ctx.policy(), tenantObjects, hostObjects);
    }

    /** The state of one pass. */
    private final class Pass {
        private final TenantContext ctx;
        private final TenantKey key;
        private final String tenant;
        private final String hostNs;
        private final SyncPolicy policy;
        private final SyncRules rules;
        private final TransformOptions options;
        private final Reader tenantReader;
        private final Resources tenantResources;
        private final Applier tenantApplier;
        private final ApiClient tenantClient;
        /** Where every outcome of the pass is reported, and listed for its report. */
        private final Execution exec;
        /** The pass's node-mirror step. */
        private final NodeMirrorTending mirrors;
        /** The pass's flow-back step. */
        private final FlowBackTending flowBack;
        /** The host applier of this tenant's passes, behind the shared client-side rate limit. */
        private final Applier hostWrites;
        /** The pass's read step. */
        private final PassReader reader;

        Pass(TenantContext ctx, ApiClient tenantClient, Execution exec, boolean full) {
            this.ctx = ctx;
            this.tenantClient = tenantClient;
            this.key = ctx.key();
            this.tenant = ctx.tenant();
            this.hostNs = ctx.hostNamespace();
            this.policy = syncedPolicy(ctx);
            this.rules = SyncRules.of(policy);
            this.tenantResources = Resources.of(tenantClient);
            this.tenantApplier = appliers.apply(tenantClient);
            this.tenantReader = tenantApplier.reader();
            this.reader = new PassReader(ctx, policy, tenantReader, tenantResources, hostReader, hostResources,
                    Converger.this::allowed, writeConcurrency);
            this.options = Options.from(ctx.cluster(), ctx.profile(), policy)
                    .withTenantApi(tenantApi(ctx, reader, full));
            this.exec = exec;
            this.hostWrites = hostApplier.throttled(writeRate, ctx.key());
            this.mirrors = new NodeMirrorTending(tenant, ctx.cluster().mode(), tenantReader, tenantApplier,
                    hostReader, kubelet, exec);
            this.flowBack = new FlowBackTending(tenant, rules, tenantReader, tenantApplier, exec, mirrors);
        }

        List<Outcome> full() {
            PassReader.Reads r = reader.read();
            List<JsonObject> tenantObjects = r.tenantObjects();
            List<JsonObject> hostObjects = r.hostObjects();
            List<JsonObject> crds = r.crds();
            List<ResourceKind> mirrorKinds = r.mirrorKinds();
            boolean podsListed = r.podsListed();
            io.tenantplane.transform.HostFacts facts = Options.hostFacts(allowedKinds, policy, crds);
            hostFacts.put(key, facts);
            hostClasses.put(key, hostObjects.stream().filter(o -> Json.string(o, "metadata", "namespace") == null
                    && mirrorKinds.stream().anyMatch(k -> k.kind().equals(Json.string(o, "kind")))).toList());
            Snapshot snapshot = new Snapshot(tenant, hostNs, policy, withPodIps(hostObjects).withHostFacts(facts),
                    tenantObjects, hostObjects);
            Plan plan = planner.plan(snapshot);
            TenantTokens.Result tokens = TenantTokens.plan(tenant, hostNs, plan, tenantObjects, hostObjects,
                    hostObjects, clock.instant(), true);
            issueTokens(tokens.issues());
            apply(plan, snapshot);
            applyAll(hostWrites, tokens.deletes());
            flowBack.flowBack(tenantObjects);
            finalizePods(tenantObjects, hostObjects);
            applyAll(tenantApplier, PodLifecycle.vanishedDeletes(plan, tenantObjects));
            mirrors.tend(podsListed ? tenantObjects : null);
            new MetricsApiTending(ctx, tenantReader, tenantApplier, hostReader, kubelet, exec, metricsRetired).tend();
            mirrorFromHost(r, hostObjects);
            return exec.outcomes();
        }

        /**
         * Mirrors the host objects the policy's {@code fromHost} selects into the tenant ({@link HostMirrors}); a kind
         * the tenant does not serve (or could not be read in) is left out. An update the tenant API refuses (an
         * immutable field of the host object changed) is made by deleting and creating the mirror again.
         */
        private void mirrorFromHost(PassReader.Reads r, List<JsonObject> hostObjects) {
            List<SyncPolicy.HostMirror> rules = policy.mirrors().stream()
                    .filter(m -> r.mirrorsServed().stream().anyMatch(k -> k.kind().equals(m.kind()))).toList();
            if (rules.isEmpty()) {
                return;
            }
            exec.each(HostMirrors.plan(tenant, rules, hostObjects, r.tenantMirrors()), d -> {
                Outcome o = tenantApplier.apply(d, Applier.Replanner.NONE);
                return o instanceof Outcome.Failed f && f.code() == 422 && d.action() == Action.UPDATE
                        ? tenantApplier.recreate(d) : o;
            });
        }

        List<Outcome> one(TenantObjectRef ref) {
            Optional<SyncPolicy.KindRule> rule = rules.rule(ref.kind());
            String apiVersion = rule.map(SyncPolicy.KindRule::effectiveApiVersion).orElse(null);
            ResourceKind tk = tenantResources.resolve(apiVersion, ref.kind());
            boolean custom = rule.map(SyncPolicy.KindRule::custom).orElse(false);
            ResourceKind hk = null;
            if (!custom || allowed(ref.kind(), apiVersion)) {
                try {
                    hk = hostResources.resolve(tk.apiVersion(), tk.kind());
                } catch (io.tenantplane.apply.UnknownKindException notOnHost) {
                    if (!custom) {
                        throw notOnHost;
                    }
                }
            }
            io.tenantplane.transform.HostFacts facts = hostFacts.get(key);
            PassReader.One r = reader.readOne(ref, tk, hk, rule.orElse(null), facts != null, hostClasses.get(key),
                    options.tenantApi() != null);
            if (r.hostClasses() != null) {
                hostClasses.putIfAbsent(key, r.hostClasses());
            }
            // An endpoint may name only this tenant's own pods: judged against them as the host has them.
            TransformOptions opts = r.hostPods() == null ? options : withPodIps(r.hostPods());
            if (facts == null && r.crds() != null) {
                // No full pass has looked at the host yet: judge the kind as a full pass would.
                facts = Options.hostFacts(allowedKinds, policy, r.crds());
            }
            if (facts != null) {
                opts = opts.withHostFacts(facts);
            }
            List<JsonObject> tenantObjects = r.tenantObjects();
            List<JsonObject> hostObjects = r.hostObjects();
            Snapshot snapshot = new Snapshot(tenant, hostNs, policy, opts, tenantObjects, hostObjects);
            Plan mine = new Plan(planner.plan(snapshot).decisions().stream()
                    .filter(d -> d.kind().equals(ref.kind()) && d.host() != null
                            && ref.hostName().equals(d.host().name()))
                    .toList());
            if (r.tokenSecrets() != null) {
                issueTokens(TenantTokens.plan(tenant, hostNs, mine, tenantObjects, hostObjects, r.tokenSecrets(),
                        clock.instant(), false).issues());
            }
            apply(mine, snapshot);
            applyAll(tenantApplier, PodLifecycle.vanishedDeletes(mine, tenantObjects));
            List<JsonObject> ofKind = tenantObjects.stream().filter(o -> ref.kind().equals(Json.string(o, "kind")))
                    .toList();
            flowBack.flowBack(ofKind);
            finalizePods(ofKind, hostObjects);
            return exec.outcomes();
        }

        private TransformOptions withPodIps(List<JsonObject> hostObjects) {
            return options.withEndpointAddresses(options.endpointAddresses()
                    .withPodIps(Options.hostPodIps(ctx.cluster(), hostObjects)));
        }

        /**
         * The plan's writes, in order; with {@code writeConcurrency} above 1, up to that many in flight, in two waves
         * so that what Pods need exists before them: every other kind first (ConfigMaps, Secrets, ServiceAccounts,
         * Services, claims, ...), then the Pods.
         */
        private void apply(Plan plan, Snapshot snapshot) {
            List<Decision> decisions = plan.decisions();
            if (writeConcurrency > 1 && decisions.stream().filter(d -> d.action().writes()).limit(2).count() > 1) {
                String threads = "tenantplane-write-" + key.name();
                exec.concurrently(decisions.stream().filter(d -> !d.kind().equals("Pod")).toList(), writeConcurrency,
                        threads, d -> applyOne(d, snapshot));
                exec.concurrently(decisions.stream().filter(d -> d.kind().equals("Pod")).toList(), writeConcurrency,
                        threads, d -> applyOne(d, snapshot));
                return;
            }
            exec.each(decisions, d -> applyOne(d, snapshot));
        }

        private Outcome applyOne(Decision d, Snapshot snapshot) {
            Outcome o = hostWrites.apply(d, (stale, current) -> replan(snapshot, stale, current));
            if (o instanceof Outcome.Failed f && ServiceAddresses.clusterIpRefused(f.decision(), f.code(),
                    f.message())) {
                // The tenant's own ClusterIP is taken on the host, or outside its range: the host allocates one and
                // the tenant Service takes it.
                o = hostWrites.apply(ServiceAddresses.clusterIpAllocatedByHost(f.decision(), f.message(),
                        "the tenant's ", " and the tenant Service takes it"), Applier.Replanner.NONE);
            }
            if (o instanceof Outcome.Failed f && ServiceAddresses.nodePortsRefused(f.decision(), f.code(),
                    f.message())) {
                // The same for the node ports the tenant API gave a NodePort or LoadBalancer Service.
                o = hostWrites.apply(ServiceAddresses.nodePortsAllocatedByHost(f.decision(), f.message()),
                        Applier.Replanner.NONE);
            }
            return o;
        }

        private Decision replan(Snapshot snapshot, Decision stale, JsonObject current) {
            if (stale.host() == null) {
                return null;
            }
            Snapshot fresh = current == null
                    ? snapshot.withoutHostObject(stale.kind(), stale.host().namespace(), stale.host().name())
                    : snapshot.withHostObject(current);
            return planner.planObject(fresh, stale.kind(), stale.host().name()).orElse(null);
        }

        /**
         * Mints the tokens of each token Secret to write (TokenRequest on the tenant API, bound to the tenant Pod) and
         * writes the Secret with them, the tenant API's CA and the virtual namespace, before the Pods that mount it.
         * A token the tenant API refuses (no such ServiceAccount, say) makes that Secret a failed outcome; the Pod is
         * still synced and its volume waits for the Secret, as a kubelet waits for a missing one.
         */
        private void issueTokens(List<TenantTokens.Issue> issues) {
            if (issues.isEmpty()) {
                return;
            }
            TokenRequests requests = new TokenRequests(tenantClient);
            String ca = KubeconfigSecretConnector.caCertificate(hostReader, ctx.cluster());
            try (Execution secrets = exec.kind("Secret")) {
                for (TenantTokens.Issue issue : issues) {
                    secrets.report(TokenSecrets.write(issue, requests, ca, clock.instant(), hostWrites));
                }
            }
        }

        /** Executes decisions through {@code applier}, reporting each outcome under its kind. */
        private void applyAll(Applier applier, List<Decision> decisions) {
            exec.each(decisions, d -> applier.apply(d, Applier.Replanner.NONE));
        }

        /**
         * The kubelet's confirmation for tenant Pods whose host copy is gone ({@link PodLifecycle}). Private tenants
         * run real kubelets (their agents), which confirm their own Pods.
         */
        private void finalizePods(List<JsonObject> tenantObjects, List<JsonObject> hostObjects) {
            if (ctx.cluster().mode() != TenantCluster.Mode.PRIVATE) {
                applyAll(tenantApplier, PodLifecycle.finalizations(tenant, hostNs, tenantObjects, hostObjects));
            }
        }
    }
}
