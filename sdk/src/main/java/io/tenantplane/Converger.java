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
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
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
import io.tenantplane.plan.internal.FlowBack;
import io.tenantplane.plan.internal.PodLifecycle;
import io.tenantplane.plan.internal.ServiceAddresses;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.transform.SyncRules;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.Transformer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

    /**
     * Namespaced kinds tenantplane can sync; their host copies are listed (by the tenant's labels) and collected even
     * after the policy stops naming them.
     */
    static final List<String> COLLECTABLE_KINDS = SyncPolicy.SUPPORTED_KINDS.stream()
            .filter(SyncPolicy.SupportedKind::namespaced).map(SyncPolicy.SupportedKind::kind).toList();

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
     * A full pass reads the Services (and keeps them for {@link #planRequest}); a pass over one object uses what the
     * last full pass read (a ClusterIP never changes while its Service exists), so watch-driven passes cost no extra
     * request.
     */
    private TransformOptions.TenantApi tenantApi(TenantContext ctx, boolean full) {
        if (ctx.cluster().mode() == TenantCluster.Mode.PRIVATE) {
            return null;
        }
        List<JsonObject> services = controlPlaneServices.get(ctx.key());
        if (full || services == null) {
            ControlPlaneNames n = ControlPlaneNames.of(ctx.cluster());
            services = handedOn(ctx, n);
            if (services == null) {
                ResourceKind service = ResourceKind.wellKnown("v1", "Service").orElseThrow();
                List<JsonObject> read = new ArrayList<>();
                hostReader.get(service, n.namespace(), n.apiService()).ifPresent(read::add);
                if (!read.isEmpty()) {
                    hostReader.get(service, n.namespace(), n.dnsService()).ifPresent(read::add);
                }
                services = List.copyOf(read);
            }
            controlPlaneServices.put(ctx.key(), services);
        }
        return Options.tenantApi(ctx.cluster(), services, false);
    }

    /**
     * The tenant API and DNS Services, taken by name from the Services list the provisioning just before this pass
     * handed on (which holds every Service of the tenant there, its synced copies too, so only these two are kept for
     * the pass and its cache); null when that list was not handed on or lacks the API Service of this placement.
     */
    private static List<JsonObject> handedOn(TenantContext ctx, ControlPlaneNames n) {
        List<JsonObject> services = ctx.listed("v1", "Service", n.namespace(), ReverseMapping.TENANT + "="
                + ctx.tenant()).orElse(List.of()).stream().filter(o -> List.of(n.apiService(), n.dnsService())
                .contains(Json.string(o, "metadata", "name"))).toList();
        boolean api = services.stream().anyMatch(o -> n.apiService().equals(Json.string(o, "metadata", "name")));
        return api ? services : null;
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
        PassReader.Reads r = pass.reader.read();
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
        private final Observer.PassScope scope;
        /** Where every outcome of the pass is reported, and listed for its report. */
        private final Execution exec;
        /** The pass's node-mirror step. */
        private final NodeMirrorTending mirrors;
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
            this.options = Options.from(ctx.cluster(), ctx.profile(), policy).withTenantApi(tenantApi(ctx, full));
            this.tenantResources = Resources.of(tenantClient);
            this.tenantApplier = appliers.apply(tenantClient);
            this.tenantReader = tenantApplier.reader();
            this.exec = exec;
            this.scope = exec.scope();
            this.hostWrites = hostApplier.throttled(writeRate, ctx.key());
            this.reader = new PassReader(ctx, policy, tenantReader, tenantResources, hostReader, hostResources,
                    Converger.this::allowed, writeConcurrency);
            this.mirrors = new NodeMirrorTending(tenant, ctx.cluster().mode(), tenantReader, tenantApplier,
                    hostReader, kubelet, exec);
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
            flowBack(tenantObjects);
            finalizePods(tenantObjects, hostObjects);
            applyAll(tenantApplier, PodLifecycle.vanishedDeletes(plan, tenantObjects));
            mirrors.tend(podsListed ? tenantObjects : null);
            tendMetricsApi();
            mirrorFromHost(mirrorKinds, hostObjects);
            return exec.outcomes();
        }

        /**
         * Mirrors the host objects the policy's {@code fromHost} selects into the tenant ({@link HostMirrors}); a kind
         * the tenant does not serve is left out. An update the tenant API refuses (an immutable field of the host
         * object changed) is made by deleting and creating the mirror again.
         */
        private void mirrorFromHost(List<ResourceKind> kinds, List<JsonObject> hostObjects) {
            if (kinds.isEmpty()) {
                return;
            }
            List<JsonObject> tenantMirrors = new ArrayList<>();
            List<ResourceKind> served = new ArrayList<>();
            for (ResourceKind k : kinds) {
                try {
                    ResourceKind tk = tenantResources.resolve(k.apiVersion(), k.kind());
                    tenantMirrors.addAll(tenantReader.list(tk, null, null));
                    served.add(k);
                } catch (io.tenantplane.apply.UnknownKindException | ReadFailedException e) {
                    // Not served by (or not readable in) the tenant now: the next full pass tries again.
                }
            }
            List<SyncPolicy.HostMirror> rules = policy.mirrors().stream()
                    .filter(m -> served.stream().anyMatch(k -> k.kind().equals(m.kind()))).toList();
            for (Decision d : HostMirrors.plan(tenant, rules, hostObjects, tenantMirrors)) {
                Observer.PassScope kindScope = scope.kind(d.kind());
                try {
                    Outcome o = tenantApplier.apply(d, Applier.Replanner.NONE);
                    if (o instanceof Outcome.Failed f && f.code() == 422 && d.action() == Action.UPDATE) {
                        o = tenantApplier.recreate(d);
                    }
                    exec.in(kindScope).report(o);
                } finally {
                    kindScope.close();
                }
            }
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
            List<JsonObject> tenantObjects = new ArrayList<>();
            tenantReader.get(tk, ref.virtualNamespace(), ref.name()).ifPresent(tenantObjects::add);
            String service = endpointsService(ref, tenantObjects);
            if (service != null) {
                tenantReader.get(ResourceKind.wellKnown("v1", "Service").orElseThrow(), ref.virtualNamespace(),
                        service).ifPresent(tenantObjects::add);
            }
            List<JsonObject> hostObjects = new ArrayList<>();
            if (hk != null) {
                hostReader.get(hk, hostNs, ref.hostName()).ifPresent(hostObjects::add);
            }
            TransformOptions opts = options;
            if (service != null || ref.kind().equals("EndpointSlice")) {
                // An endpoint may name only this tenant's own pods: read them as the host has them.
                opts = withPodIps(hostReader.list(ResourceKind.wellKnown("v1", "Pod").orElseThrow(), hostNs,
                        ReverseMapping.TENANT + "=" + tenant));
            }
            io.tenantplane.transform.HostFacts facts = hostFacts.get(key);
            if (facts == null && custom) {
                // No full pass has looked at the host yet: judge the kind as a full pass would.
                facts = Options.hostFacts(allowedKinds, policy, reader.crds(rule.get()));
            }
            if (facts != null) {
                opts = opts.withHostFacts(facts);
            }
            if (ref.kind().equals("Pod") && !policy.mirrors().isEmpty()) {
                hostObjects.addAll(hostClasses.computeIfAbsent(key, k -> reader.hostClasses()));
            }
            Snapshot snapshot = new Snapshot(tenant, hostNs, policy, opts, tenantObjects, hostObjects);
            Plan plan = planner.plan(snapshot);
            List<Decision> mine = plan.decisions().stream()
                    .filter(d -> d.kind().equals(ref.kind()) && d.host() != null
                            && ref.hostName().equals(d.host().name()))
                    .toList();
            if (ref.kind().equals("Pod") && options.tenantApi() != null) {
                List<JsonObject> secrets = hostReader.get(ResourceKind.wellKnown("v1", "Secret").orElseThrow(), hostNs,
                        Transformer.tokenSecretName(ref.hostName())).stream().toList();
                issueTokens(TenantTokens.plan(tenant, hostNs, new Plan(mine), tenantObjects, hostObjects, secrets,
                        clock.instant(), false).issues());
            }
            apply(new Plan(mine), snapshot);
            applyAll(tenantApplier, PodLifecycle.vanishedDeletes(new Plan(mine), tenantObjects));
            List<JsonObject> ofKind = tenantObjects.stream().filter(o -> ref.kind().equals(Json.string(o, "kind")))
                    .toList();
            flowBack(ofKind);
            finalizePods(ofKind, hostObjects);
            return exec.outcomes();
        }

        private TransformOptions withPodIps(List<JsonObject> hostObjects) {
            return options.withEndpointAddresses(options.endpointAddresses()
                    .withPodIps(Options.hostPodIps(ctx.cluster(), hostObjects)));
        }

        private String endpointsService(TenantObjectRef ref, List<JsonObject> found) {
            if (ref.kind().equals("Endpoints")) {
                return ref.name();
            }
            if (ref.kind().equals("EndpointSlice") && !found.isEmpty()) {
                return Json.labels(found.get(0)).get("kubernetes.io/service-name");
            }
            return null;
        }

        private void apply(Plan plan, Snapshot snapshot) {
            if (writeConcurrency > 1 && plan.decisions().stream().filter(d -> d.action().writes()).limit(2).count() > 1) {
                applyConcurrently(plan.decisions(), snapshot);
                return;
            }
            String currentKind = null;
            Observer.PassScope kindScope = Observer.PassScope.NOOP;
            try {
                for (Decision d : plan.decisions()) {
                    if (!d.kind().equals(currentKind)) {
                        kindScope.close();
                        currentKind = d.kind();
                        kindScope = scope.kind(currentKind);
                    }
                    exec.in(kindScope).report(applyOne(d, snapshot));
                }
            } finally {
                kindScope.close();
            }
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

        /**
         * The plan's writes with up to {@code writeConcurrency} in flight, in two waves so that what Pods need exists
         * before them: every other kind first (ConfigMaps, Secrets, ServiceAccounts, Services, claims, ...), then the
         * Pods. Each outcome is reported as it comes (one at a time); the pass's outcomes list each wave in plan order.
         */
        private void applyConcurrently(List<Decision> decisions, Snapshot snapshot) {
            applyWave(decisions.stream().filter(d -> !d.kind().equals("Pod")).toList(), snapshot);
            applyWave(decisions.stream().filter(d -> d.kind().equals("Pod")).toList(), snapshot);
        }

        private void applyWave(List<Decision> wave, Snapshot snapshot) {
            if (wave.isEmpty()) {
                return;
            }
            Map<String, Observer.PassScope> scopes = new java.util.LinkedHashMap<>();
            for (Decision d : wave) {
                scopes.computeIfAbsent(d.kind(), scope::kind);
            }
            Outcome[] results = new Outcome[wave.size()];
            try {
                Bounded.run(wave.size(), writeConcurrency, "tenantplane-write-" + key.name(), i -> {
                    Decision d = wave.get(i);
                    Outcome o = applyOne(d, snapshot);
                    results[i] = o;
                    exec.in(scopes.get(d.kind())).announce(o);
                });
            } finally {
                scopes.values().forEach(Observer.PassScope::close);
                exec.list(java.util.Arrays.stream(results).filter(java.util.Objects::nonNull).toList());
            }
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
            Observer.PassScope kindScope = scope.kind("Secret");
            try {
                for (TenantTokens.Issue issue : issues) {
                    switch (TokenSecrets.mint(issue, requests, ca, clock.instant())) {
                        case TokenSecrets.Ready ready -> exec.in(kindScope).apply(hostWrites, ready.write(), null);
                        case TokenSecrets.Refused refused -> exec.in(kindScope).report(refused.outcome());
                    }
                }
            } finally {
                kindScope.close();
            }
        }

        /** Executes decisions of one kind through {@code applier}, reporting each outcome under that kind. */
        private void applyAll(Applier applier, List<Decision> decisions) {
            if (decisions.isEmpty()) {
                return;
            }
            Observer.PassScope kindScope = scope.kind(decisions.get(0).kind());
            try {
                for (Decision d : decisions) {
                    exec.in(kindScope).apply(applier, d, null);
                }
            } finally {
                kindScope.close();
            }
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

        /** Host status back to the tenant (kinds with {@code fromHost: status}); Pods also get bound to nodes. */
        private void flowBack(List<JsonObject> tenantObjects) {
            Map<String, JsonObject> hostCopies = new LinkedHashMap<>();
            for (Outcome o : exec.outcomes()) {
                Decision d = o.decision();
                if (d.host() == null || d.source() == null) {
                    continue;
                }
                JsonObject host = switch (o) {
                    case Outcome.Applied a when d.action() == Action.CREATE || d.action() == Action.UPDATE ->
                            a.result();
                    case Outcome.NotWritten n when d.action() == Action.UNCHANGED -> d.observed();
                    default -> null;
                };
                if (host != null) {
                    hostCopies.put(d.kind() + "/" + d.source().virtualNamespace() + "/" + d.source().name(), host);
                }
            }
            if (hostCopies.isEmpty()) {
                return;
            }
            Observer.PassScope kindScope = scope.kind("status");
            try {
                for (JsonObject t : tenantObjects) {
                    String kind = Json.string(t, "kind");
                    if (kind == null) {
                        continue;
                    }
                    JsonObject host = hostCopies.get(kind + "/" + Json.string(t, "metadata", "namespace") + "/"
                            + Json.string(t, "metadata", "name"));
                    if (host == null) {
                        continue;
                    }
                    JsonObject tenantObject = t;
                    if (kind.equals("Service")) {
                        tenantObject = shareClusterIp(t, host, kindScope);
                        if (tenantObject == null) {
                            continue;
                        }
                        tenantObject = shareNodePorts(tenantObject, host, kindScope);
                        if (tenantObject == null) {
                            continue;
                        }
                    }
                    if (!statusFlowsBack(kind)) {
                        continue;
                    }
                    if (kind.equals("Pod")) {
                        tenantObject = bind(t, host, kindScope);
                        if (tenantObject == null) {
                            continue;
                        }
                    }
                    copyStatus(kind, tenantObject, host, kindScope);
                }
            } finally {
                kindScope.close();
            }
        }

        /**
         * Gives a tenant Service the ClusterIP of its host copy ({@link FlowBack#clusterIp}). Returns the tenant
         * Service as it is afterwards, or null when it is not known.
         */
        private JsonObject shareClusterIp(JsonObject tenantService, JsonObject hostService,
                                          Observer.PassScope kindScope) {
            Optional<Decision> d = FlowBack.clusterIp(tenant, tenantService, hostService);
            if (d.isEmpty()) {
                return tenantService;
            }
            Outcome o = tenantApplier.recreate(d.get());
            exec.in(kindScope).report(o);
            return o instanceof Outcome.Applied a ? a.result() : null;
        }

        /**
         * Gives a tenant NodePort or LoadBalancer Service the node ports of its host copy ({@link FlowBack#nodePorts});
         * returns the tenant Service as it is afterwards, or null when it is not known.
         */
        private JsonObject shareNodePorts(JsonObject tenantService, JsonObject hostService,
                                          Observer.PassScope kindScope) {
            Optional<Decision> d = FlowBack.nodePorts(tenant, tenantService, hostService);
            if (d.isEmpty()) {
                return tenantService;
            }
            Outcome o = exec.in(kindScope).report(tenantApplier.updateInPlace(d.get(),
                    fresh -> FlowBack.nodePorts(tenant, fresh, hostService).map(Decision::desired).orElse(null)));
            return o instanceof Outcome.Applied a ? a.result() : tenantService;
        }

        private boolean statusFlowsBack(String kind) {
            Optional<SyncPolicy.KindRule> rule = rules.rule(kind);
            if (rule.isEmpty() || !rule.get().toHost()) {
                return false;
            }
            return rule.get().effectiveFromHost() == SyncPolicy.FromHost.STATUS;
        }

        private void copyStatus(String kind, JsonObject tenantObject, JsonObject host, Observer.PassScope kindScope) {
            FlowBack.status(tenant, kind, tenantObject, host)
                    .ifPresent(d -> exec.in(kindScope).applyStatus(tenantApplier, d));
        }

        /**
         * Binds an unscheduled tenant Pod to the tenant Node that mirrors the host node its copy runs on; returns the
         * tenant Pod as it is afterwards (null when it is gone).
         */
        private JsonObject bind(JsonObject tenantPod, JsonObject hostPod, Observer.PassScope kindScope) {
            Optional<String> to = FlowBack.nodeToBind(tenantPod, hostPod);
            if (to.isEmpty() || !mirrors.mirrorNode(to.get(), kindScope)) {
                return tenantPod;
            }
            String node = to.get();
            Decision d = FlowBack.binding(tenant, tenantPod, hostPod, node);
            Outcome o = tenantApplier.bind(d, node);
            exec.in(kindScope).report(o);
            if (!(o instanceof Outcome.Applied)) {
                return tenantPod;
            }
            ResourceKind pods = ResourceKind.wellKnown("v1", "Pod").orElseThrow();
            return tenantReader.get(pods, Json.string(tenantPod, "metadata", "namespace"),
                    Json.string(tenantPod, "metadata", "name")).orElse(null);
        }

        /**
         * With a kubelet endpoint (and its CA loaded), keeps the tenant's {@code metrics.k8s.io} registration pointing
         * at it ({@link MetricsRegistration}) once the tenant's control plane has published its request-header CA; a
         * tenant's own registration is left alone. Read failures leave it to the next pass.
         */
        private void tendMetricsApi() {
            if (kubelet == null) {
                return;
            }
            if (ctx.cluster().mode() == TenantCluster.Mode.PRIVATE) {
                // What shared or dedicated mode registered, still pointing here, goes (MetricsRegistration.retire):
                // looked at once per private stretch of a tenant, not on every pass.
                if (metricsRetired.contains(key)) {
                    return;
                }
                boolean clean = true;
                for (String[] at : List.of(new String[] {"v1", "Service", MetricsRegistration.NAMESPACE,
                        MetricsRegistration.SERVICE}, new String[] {"apiregistration.k8s.io/v1", "APIService", null,
                        MetricsRegistration.API_SERVICE})) {
                    ResourceKind kind = ResourceKind.wellKnown(at[0], at[1]).orElseThrow();
                    Optional<Decision> retire;
                    try {
                        retire = tenantReader.get(kind, at[2], at[3]).flatMap(current -> MetricsRegistration.retire(
                                tenant, current));
                    } catch (ReadFailedException e) {
                        return;
                    }
                    if (retire.isPresent()) {
                        // Looked at again next pass, which finds it gone (or deletes it then).
                        applyAll(tenantApplier, List.of(retire.get()));
                        clean = false;
                    }
                }
                if (clean) {
                    metricsRetired.add(key);
                }
                return;
            }
            metricsRetired.remove(key);
            Optional<io.tenantplane.kubelet.KubeletCa> ca = kubelet.ca();
            if (ca.isEmpty()) {
                return;
            }
            // Registered once the endpoint can admit the tenant's aggregator (its control plane published its
            // request-header CA): an APIService the aggregator cannot reach would make every kubectl in the tenant
            // report metrics.k8s.io as unavailable.
            ControlPlaneNames n = ControlPlaneNames.of(ctx.cluster());
            boolean published;
            try {
                // The kubeconfig Secret is rendered with the tenant's label: the provisioning before this pass has
                // usually listed it already (TenantContext.listed); read on its own only when it has not.
                Optional<JsonObject> secret = ctx.listed("v1", "Secret", n.namespace(),
                        ReverseMapping.TENANT + "=" + tenant).flatMap(listed -> listed.stream()
                        .filter(o -> n.kubeconfigSecret().equals(Json.string(o, "metadata", "name"))).findFirst());
                if (secret.isEmpty()) {
                    secret = hostReader.get(ResourceKind.wellKnown("v1", "Secret").orElseThrow(), n.namespace(),
                            n.kubeconfigSecret());
                }
                published = secret.map(o -> Json.string(o, "data", ControlPlaneNames.REQUEST_HEADER_CA_KEY) != null)
                        .orElse(false);
            } catch (ReadFailedException e) {
                return;
            }
            if (!published) {
                return;
            }
            for (JsonObject desired : MetricsRegistration.desired(kubelet, ca.get())) {
                ResourceKind kind = ResourceKind.wellKnown(Json.string(desired, "apiVersion"),
                        Json.string(desired, "kind")).orElseThrow();
                JsonObject current;
                try {
                    current = tenantReader.get(kind, Json.string(desired, "metadata", "namespace"),
                            Json.string(desired, "metadata", "name")).orElse(null);
                } catch (ReadFailedException e) {
                    return;
                }
                MetricsRegistration.decide(tenant, desired, current)
                        .ifPresent(d -> applyAll(tenantApplier, List.of(d)));
            }
        }

    }
}
