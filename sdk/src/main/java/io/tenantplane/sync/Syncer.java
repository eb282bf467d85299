package io.tenantplane.sync;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.controlplane.internal.TenantDns;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.errors.TenantPlaneException;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.observe.TenantKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Keeps every tenant converged from watches: a change on either side reaches the host (or flows back) within seconds,
 * without re-listing.
 *
 * <ul>
 *   <li>Watches TenantClusters, SyncPolicies and IsolationProfiles on the host (all namespaces, or
 *       {@link SyncerOptions#namespaces()}); a change queues a full pass over the tenant (provisioning first, when
 *       {@link SyncerOptions#provision()} is on), and a change of a SyncPolicy or IsolationProfile over every tenant
 *       whose TenantCluster references it, whether or not its last pass succeeded.</li>
 *   <li>Watches the control-plane StatefulSets and tenant DNS Deployments tenantplane rendered in those namespaces:
 *       when one becomes ready or stops being ready, or is deleted, its tenant gets a full pass, so its status turns
 *       Ready as soon as its control plane and DNS are.</li>
 *   <li>For each tenant it can reach, watches every kind its policy sends to the host, in the tenant API (all virtual
 *       namespaces) and in the host namespace (objects labelled {@code tenantplane.io/managed-by}, shared by all
 *       tenants of that namespace). A change queues a pass over that one object.</li>
 *   <li>A keyed work queue (per tenant, per object) deduplicates bursts, never runs one key twice at once, and retries
 *       failing keys with exponential backoff; every tenant also gets a full pass every
 *       {@link SyncerOptions#resyncPeriod()}. When {@link SyncerOptions#queueCapacity()} object keys wait, a further
 *       object change is folded into one full pass over its tenant instead of being dropped.</li>
 *   <li>A tenant whose {@code spec.mode} changed is migrating: its full pass ({@link TenantPlane#ensure}) runs one
 *       migration pass, and it gets another after {@link SyncerOptions#migrationRecheck()}, or as soon as one of its
 *       objects changes on either side, until the migration has completed. Meanwhile it is not converged.</li>
 * </ul>
 *
 * <p><b>Threads.</b> Every thread comes from {@link SyncerOptions#threads()} (virtual by default): one per watch
 * (4 per watched host namespace scope, 1 per synced kind per tenant, 1 per synced kind per host namespace), one per
 * worker, one resync timer and one retry timer. They do not grow with the number of objects. Each tenant's
 * {@code ApiClient} also keeps an OkHttp connection pool, whose cleanup thread exits when its connections are idle.
 * client-java's own {@code SharedInformerFactory} was not used: each of its informers runs three to four platform
 * threads (controller, reflector and resync executors, listener dispatch), which would be tens per tenant, and it
 * keeps one informer per Java type, while dynamic objects of many kinds share one type.
 *
 * <p>{@link #close()} stops the watches, the workers and the timers and waits for them to end. Thread-safe.
 */
public final class Syncer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Syncer.class.getName());
    private static final String MANAGED = ReverseMapping.MANAGED_BY + "=" + ReverseMapping.MANAGED_BY_VALUE;
    private static final String CONTROL_PLANES = MANAGED + "," + ControlPlaneRenderer.COMPONENT_LABEL + "="
            + ControlPlaneRenderer.COMPONENT;
    private static final String DNS = MANAGED + "," + ControlPlaneRenderer.COMPONENT_LABEL + "=" + TenantDns.COMPONENT;

    /** How long {@link #close()} waits for the observers to deliver what the last passes reported. */
    static final Duration FLUSH_ON_CLOSE = Duration.ofSeconds(5);

    private final TenantPlane plane;
    private final SyncerOptions options;
    private final ApiClient host;
    private final WorkQueue<Work> queue;
    private final Map<TenantKey, TenantState> tenants = new ConcurrentHashMap<>();
    private final Map<TenantKey, String> tenantClusterVersions = new ConcurrentHashMap<>();
    /** What each watched TenantCluster references, whatever became of its last pass. */
    private final Map<TenantKey, References> references = new ConcurrentHashMap<>();
    /**
     * Whether each tenant's control-plane StatefulSet had all its replicas ready, and whether its DNS Deployment had
     * one available, as last watched: provisioning's readiness check, judged again on every change of either.
     */
    private final Map<TenantKey, Boolean> controlPlaneReadiness = new ConcurrentHashMap<>();
    private final Map<TenantKey, Boolean> dnsReadiness = new ConcurrentHashMap<>();
    /** Tenants whose TenantCluster, as last watched, records a migration in status.migration. */
    private final Set<TenantKey> moving = ConcurrentHashMap.newKeySet();
    /** Tenants whose TenantCluster is being deleted: no object pass may write for them any more. */
    private final Set<TenantKey> deleting = ConcurrentHashMap.newKeySet();
    /**
     * Object passes of a tenant hold its read lock; the pass that removes a deleted tenant holds the write lock, so it
     * starts only after every object pass in flight has written, and no object pass writes after it.
     */
    private final Map<TenantKey, java.util.concurrent.locks.ReadWriteLock> passLocks = new ConcurrentHashMap<>();
    private final Object watchLock = new Object();
    private final Map<HostScope, Watcher> hostWatchers = new HashMap<>();
    private final Map<HostScope, Set<TenantKey>> hostWatcherUsers = new HashMap<>();
    private final List<Watcher> clusterWatchers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /** The workers running a pass now, by tenant; guarded by itself. */
    private final Map<TenantKey, Set<Thread>> running = new HashMap<>();
    private volatile boolean started;
    private volatile boolean closed;

    private Syncer(TenantPlane plane, SyncerOptions options) {
        this.plane = plane;
        this.options = options;
        this.host = plane.hostClient().orElseThrow(() ->
                new IllegalStateException("a Syncer needs a TenantPlane built with hostClient(ApiClient)"));
        // A full pass over a tenant converges every one of its objects: it stands in for any object key that finds
        // the queue full, and tenant keys (one per tenant) are never refused.
        this.queue = new WorkQueue<>(options.queueCapacity(), options.maxRetries(), options.retryDelay(),
                options.maxRetryDelay(), depth -> plane.observer().queueDepth(depth),
                w -> {
                    if (w instanceof TenantWork) {
                        return w;
                    }
                    plane.observer().queueOverflowed(w.tenant());
                    return new TenantWork(w.tenant());
                });
    }

    /**
     * A Syncer over {@code plane}, not started yet: the one way to make one (the sync package builds on the front
     * door; the front door does not know it).
     *
     * @throws IllegalStateException when the plane has no host client
     */
    public static Syncer create(TenantPlane plane, SyncerOptions options) {
        return new Syncer(Objects.requireNonNull(plane, "plane"), Objects.requireNonNull(options, "options"));
    }

    /** What a worker does: a full pass over a tenant, or a pass over one of its objects. */
    private sealed interface Work {
        TenantKey tenant();
    }

    private record TenantWork(TenantKey tenant) implements Work {
    }

    private record ObjectWork(TenantKey tenant, TenantObjectRef object) implements Work {
    }

    /** The IsolationProfile and SyncPolicy a TenantCluster names (in its namespace); null when it names none. */
    private record References(String isolationProfile, String syncPolicy) {
        String of(String kind) {
            return IsolationProfile.KIND.equals(kind) ? isolationProfile : syncPolicy;
        }
    }

    /** A host namespace and kind watched for the tenants synced into it. */
    private record HostScope(String namespace, String kind, String apiVersion) {
    }

    /** What the Syncer knows of one tenant. */
    private static final class TenantState {
        volatile TenantContext context;
        volatile ApiClient client;
        final Map<String, Watcher> watchers = new HashMap<>();
        final Set<HostScope> hostScopes = new HashSet<>();
    }

    /**
     * Starts watching and working; returns at once.
     *
     * @throws IllegalStateException when already started or closed
     */
    public synchronized Syncer start() {
        if (started || closed) {
            throw new IllegalStateException(closed ? "the Syncer is closed" : "the Syncer is already started");
        }
        started = true;
        List<String> scopes = options.namespaces().isEmpty() ? java.util.Collections.singletonList(null)
                : options.namespaces();
        for (String ns : scopes) {
            clusterWatchers.add(watch(kind(TenantCluster.API_VERSION, TenantCluster.KIND), ns, null,
                    this::tenantClusterChanged, false));
            clusterWatchers.add(watch(kind(SyncPolicy.API_VERSION, SyncPolicy.KIND), ns, null,
                    (type, o) -> referencedChanged(SyncPolicy.KIND, o), true));
            clusterWatchers.add(watch(kind(IsolationProfile.API_VERSION, IsolationProfile.KIND), ns, null,
                    (type, o) -> referencedChanged(IsolationProfile.KIND, o), true));
            clusterWatchers.add(watch(kind("apps/v1", "StatefulSet"), ns, CONTROL_PLANES,
                    (type, o) -> readinessChanged(type, o, controlPlaneReadiness,
                            (tenant, n) -> new ControlPlaneNames(tenant, n).statefulSet(),
                            sts -> Json.number(sts, 0, "status", "readyReplicas")
                                    >= Json.number(sts, 1, "spec", "replicas")), true));
            clusterWatchers.add(watch(kind("apps/v1", "Deployment"), ns, DNS,
                    (type, o) -> readinessChanged(type, o, dnsReadiness,
                            (tenant, n) -> new ControlPlaneNames(tenant, n).dnsService(),
                            d -> Json.number(d, 0, "status", "availableReplicas") >= 1), true));
        }
        for (int i = 0; i < options.workers(); i++) {
            spawn(this::work);
        }
        spawn(this::resync);
        return this;
    }

    /** Waits until the TenantCluster, SyncPolicy, IsolationProfile, control-plane and DNS watches have listed once. */
    public boolean awaitStarted(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Watcher w : List.copyOf(clusterWatchers)) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !w.awaitSynced(Duration.ofNanos(left))) {
                return false;
            }
        }
        return true;
    }

    /** The tenants the Syncer currently knows. */
    public Set<TenantKey> tenants() {
        return Set.copyOf(tenants.keySet());
    }

    /** Keys waiting in the work queue now. */
    public int queueDepth() {
        return queue.depth();
    }

    /** True after {@link #start()} and before {@link #close()}. */
    public boolean isRunning() {
        return started && !closed;
    }

    // ------------------------------------------------------------------ events

    /**
     * Queues a full pass when a TenantCluster's spec changed or its deletion began; changes of its status and
     * finalizers (written by the passes themselves) are not a reason for another pass.
     */
    private void tenantClusterChanged(String type, JsonObject tc) {
        String ns = Json.string(tc, "metadata", "namespace");
        String name = Json.string(tc, "metadata", "name");
        if (ns == null || name == null) {
            return;
        }
        TenantKey key = new TenantKey(ns, name);
        JsonObject meta = Json.object(tc, "metadata");
        String seen = type.equals("DELETED") ? null : String.valueOf(meta.get("generation")) + "|"
                + Json.string(tc, "metadata", "deletionTimestamp");
        String before = seen == null ? tenantClusterVersions.remove(key) : tenantClusterVersions.put(key, seen);
        if (seen == null) {
            references.remove(key);
            controlPlaneReadiness.remove(key);
            dnsReadiness.remove(key);
        } else {
            references.put(key, new References(Json.string(tc, "spec", "isolationProfileRef", "name"),
                    Json.string(tc, "spec", "syncPolicyRef", "name")));
        }
        // Status changes are no reason for a pass, except the start and end of a migration: from its start no object
        // pass may sync from a context read before it, and at its end the tenant is converged in its new place.
        if (seen != null && Json.string(tc, "metadata", "deletionTimestamp") != null) {
            deleting.add(key);
        }
        boolean migrating = seen != null && Json.object(tc, "status", "migration") != null;
        boolean changed = migrating ? moving.add(key) : moving.remove(key);
        if (seen == null || !seen.equals(before) || changed && !migrating) {
            enqueue(new TenantWork(key));
        }
    }

    /**
     * Queues a full pass over every tenant whose TenantCluster references the changed (or created, or deleted)
     * SyncPolicy or IsolationProfile: also those the Syncer does not sync yet because their last pass failed, e.g.
     * on this very object being missing.
     */
    private void referencedChanged(String kind, JsonObject o) {
        String ns = Json.string(o, "metadata", "namespace");
        String name = Json.string(o, "metadata", "name");
        if (ns == null || name == null) {
            return;
        }
        for (Map.Entry<TenantKey, References> e : references.entrySet()) {
            if (e.getKey().namespace().equals(ns) && name.equals(e.getValue().of(kind))) {
                enqueue(new TenantWork(e.getKey()));
            }
        }
    }

    /**
     * Queues a full pass over a tenant when its control-plane StatefulSet or its DNS Deployment became ready (as
     * provisioning judges them: every control-plane replica ready, one DNS replica available) or stopped being ready,
     * or was deleted. One first seen not ready (just created by a pass, which wrote that status already) brings no
     * pass. The tenant label alone picks no tenant: the object must also carry the name rendered for that tenant
     * ({@code named}) in the TenantCluster's namespace and no source annotations (a copy synced from a tenant has
     * them, its tenantplane.io labels are the Syncer's own, and its name is a mapped one), and the TenantCluster must
     * exist.
     *
     * @param seen  each tenant's readiness of this object as last watched
     * @param named the rendered name of this object for a tenant and namespace
     * @param ready the readiness of this object
     */
    private void readinessChanged(String type, JsonObject o, Map<TenantKey, Boolean> seen,
                                  java.util.function.BiFunction<String, String, String> named,
                                  Predicate<JsonObject> ready) {
        String ns = Json.string(o, "metadata", "namespace");
        String name = Json.string(o, "metadata", "name");
        String tenant = Json.labels(o).get(ReverseMapping.TENANT);
        if (ns == null || name == null || tenant == null || tenant.isEmpty()
                || Json.annotations(o).containsKey(ReverseMapping.SOURCE_KIND)
                || !name.equals(named.apply(tenant, ns))) {
            return;
        }
        TenantKey key = new TenantKey(ns, tenant);
        if (!tenantClusterVersions.containsKey(key)) {
            return;
        }
        if (type.equals("DELETED")) {
            seen.remove(key);
            enqueue(new TenantWork(key));
            return;
        }
        boolean now = ready.test(o);
        Boolean before = seen.put(key, now);
        if (before == null ? now : before != now) {
            enqueue(new TenantWork(key));
        }
    }

    private void tenantObjectChanged(TenantKey tenant, String kind, JsonObject o) {
        String ns = Json.string(o, "metadata", "namespace");
        if (ns != null && SyncPolicy.SYSTEM_NAMESPACES.contains(ns)) {
            return;
        }
        enqueue(new ObjectWork(tenant, new TenantObjectRef(tenant.name(), kind, ns,
                Json.string(o, "metadata", "name"), null)));
    }

    private void hostObjectChanged(String hostNamespace, JsonObject o) {
        Map<String, String> labels = Json.labels(o);
        Map<String, String> ann = Json.annotations(o);
        String tenant = labels.get(ReverseMapping.TENANT);
        String kind = ann.get(ReverseMapping.SOURCE_KIND);
        String name = ann.get(ReverseMapping.SOURCE_NAME);
        if (tenant == null || kind == null || name == null) {
            return;
        }
        for (Map.Entry<TenantKey, TenantState> e : tenants.entrySet()) {
            TenantContext ctx = e.getValue().context;
            if (ctx != null && ctx.tenant().equals(tenant) && ctx.hostNamespace().equals(hostNamespace)) {
                enqueue(new ObjectWork(e.getKey(), new TenantObjectRef(tenant, kind,
                        ann.get(ReverseMapping.SOURCE_NAMESPACE), name, null)));
            }
        }
    }

    // ------------------------------------------------------------------ work

    private void work() {
        while (!closed) {
            Work w;
            try {
                w = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (w == null) {
                return;
            }
            // Registered before ownership is asked: release() either sees this pass and waits for it, or this pass
            // sees the ownership release() was called after.
            enter(w.tenant());
            try {
                if (!options.owns().test(w.tenant())) {
                    queue.forget(w);
                    continue;
                }
                boolean ok = switch (w) {
                    case TenantWork t -> tenantPass(t.tenant());
                    case ObjectWork o -> objectPass(o);
                };
                if (!options.owns().test(w.tenant())) {
                    // Ownership moved during the pass: its outcome is not trusted, the new owner passes again.
                    queue.forget(w);
                } else if (ok) {
                    queue.forget(w);
                } else if (!closed && !queue.retry(w)) {
                    LOG.log(System.Logger.Level.WARNING, "giving up on " + w + " until the next resync");
                }
            } catch (Exception e) {
                // Not only RuntimeExceptions: OkHttp rethrows the interrupt of close() or release() as
                // InterruptedException.
                if (!closed && options.owns().test(w.tenant())) {
                    LOG.log(System.Logger.Level.WARNING, "pass for " + w + " failed", e);
                    queue.retry(w);
                } else {
                    queue.forget(w);
                }
            } finally {
                leave(w.tenant());
                queue.done(w);
            }
        }
    }

    private boolean tenantPass(TenantKey key) {
        // Provisioning (which may be a deleted tenant's removal or a migration step) and the refresh of the cached
        // context run while no object pass of the tenant is in flight: an object pass never writes from a context
        // that provisioning has just made stale (a gone tenant, or a tenant that moved to another namespace).
        var lock = passLock(key).writeLock();
        lock.lock();
        Optional<TenantContext> ctx;
        TenantState state;
        try {
            ProvisionReport p = null;
            if (options.provision()) {
                p = plane.ensure(key);
                if (p.gone()) {
                    forget(key);
                    return true;
                }
            }
            try {
                // What ensure read is the context, unless it had none to give (being deleted, invalid).
                ctx = p != null && p.context() != null ? Optional.of(p.context()) : plane.context(key);
            } catch (TenantPlaneException e) {
                // The TenantCluster or what it references is invalid: ensure() has said so in its status.
                LOG.log(System.Logger.Level.DEBUG, "tenant " + key + " cannot be synced: " + e.getMessage());
                return true;
            }
            if (ctx.isEmpty() || ctx.get().cluster().metadata().deletionTimestamp() != null) {
                if (ctx.isEmpty()) {
                    forget(key);
                } else {
                    deleting.add(key);
                }
                return true;
            }
            state = tenants.computeIfAbsent(key, k -> new TenantState());
            state.context = ctx.get();
        } finally {
            lock.unlock();
        }
        ApiClient client;
        try {
            client = plane.tenantClient(ctx.get().cluster());
        } catch (TenantApiUnavailableException e) {
            LOG.log(System.Logger.Level.DEBUG, "tenant " + key + " not reachable yet: " + e.getMessage());
            return false;
        }
        configureWatches(key, state, ctx.get(), client);
        ConvergenceReport report = plane.converge(ctx.get());
        if (migrating(report)) {
            // The migration waits for the cluster (Pods becoming Ready, agents joining): look again soon; watch
            // events on the tenant's objects bring the next pass sooner.
            if (options.owns().test(key)) {
                queue.addAfter(new TenantWork(key), options.migrationRecheck());
            }
            return true;
        }
        return report.failure() == null && report.failures().isEmpty();
    }

    private boolean objectPass(ObjectWork w) {
        ConvergenceReport report;
        var lock = passLock(w.tenant()).readLock();
        lock.lock();
        try {
            TenantState state = tenants.get(w.tenant());
            TenantContext ctx = state == null ? null : state.context;
            if (ctx == null || moving.contains(w.tenant())) {
                // Unknown yet, gone, or migrating (the cached context may predate it): the tenant's full pass looks.
                enqueue(new TenantWork(w.tenant()));
                return true;
            }
            if (deleting.contains(w.tenant())) {
                // Its removal collects the host copies; writing one now would leave an orphan behind.
                return true;
            }
            report = plane.converge(ctx, w.object());
        } finally {
            lock.unlock();
        }
        if (migrating(report)) {
            // A change during a migration (e.g. a copy in the new place became Ready) may let it move on.
            enqueue(new TenantWork(w.tenant()));
            return true;
        }
        return report.failure() == null && report.failures().isEmpty();
    }

    private static boolean migrating(ConvergenceReport report) {
        return report.failure() != null
                && ConvergenceReport.MIGRATION_IN_PROGRESS.equals(report.failure().reason());
    }

    private void enqueue(Work w) {
        if (options.owns().test(w.tenant())) {
            queue.add(w);
        }
    }

    private void enter(TenantKey tenant) {
        synchronized (running) {
            running.computeIfAbsent(tenant, k -> new HashSet<>()).add(Thread.currentThread());
        }
    }

    private void leave(TenantKey tenant) {
        synchronized (running) {
            Set<Thread> ts = running.get(tenant);
            if (ts != null) {
                ts.remove(Thread.currentThread());
                if (ts.isEmpty()) {
                    running.remove(tenant);
                }
            }
            running.notifyAll();
        }
        // An interrupt from release() that came after the pass ended must not end this worker; close() ends it by
        // closing the queue.
        Thread.interrupted();
    }

    /**
     * Queues a full pass over every known tenant {@code tenants} accepts (those with a TenantCluster, and those whose
     * last pass failed before they could be synced), e.g. the tenants of a shard this process has just taken over.
     * Only tenants the ownership predicate accepts are queued.
     */
    public void adopt(Predicate<TenantKey> tenants) {
        Set<TenantKey> all = new HashSet<>(this.tenants.keySet());
        all.addAll(tenantClusterVersions.keySet());
        for (TenantKey k : all) {
            if (tenants.test(k)) {
                enqueue(new TenantWork(k));
            }
        }
    }

    /**
     * Stops writing for the tenants {@code tenants} accepts, e.g. those of a shard this process is handing over; call
     * it after the ownership predicate stopped accepting them. Their passes in flight are interrupted (an HTTP call
     * in flight ends at its client's timeout) and awaited, and their tenant watches stopped. After it returns true no
     * pass of theirs writes again until the predicate accepts them again.
     *
     * @return false when a pass was still running at the timeout
     */
    public boolean release(Predicate<TenantKey> tenants, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (running) {
            for (var e : running.entrySet()) {
                if (tenants.test(e.getKey())) {
                    e.getValue().forEach(Thread::interrupt);
                }
            }
            while (running.keySet().stream().anyMatch(tenants)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                running.wait(Math.max(1, left / 1_000_000));
            }
        }
        for (TenantKey k : Set.copyOf(this.tenants.keySet())) {
            if (tenants.test(k)) {
                forget(k);
            }
        }
        return true;
    }

    private void resync() {
        while (!closed) {
            try {
                Thread.sleep(options.resyncPeriod());
            } catch (InterruptedException e) {
                return;
            }
            // Every tenant with a TenantCluster, also one whose last pass failed before the Syncer could sync it.
            adopt(k -> true);
        }
    }

    // ------------------------------------------------------------------ watches

    private void configureWatches(TenantKey key, TenantState state, TenantContext ctx, ApiClient client) {
        Map<String, ResourceKind> wanted = new HashMap<>();
        Resources tenantResources = Resources.of(client);
        // In private mode nothing is synced: the tenant's own agents run its workloads.
        boolean synced = ctx.cluster().mode() != TenantCluster.Mode.PRIVATE;
        for (SyncPolicy.KindRule r : ctx.policy().spec() == null || !synced ? List.<SyncPolicy.KindRule>of()
                : ctx.policy().spec().kinds()) {
            if (r != null && r.kind() != null && r.toHost()) {
                try {
                    wanted.putIfAbsent(r.kind(), tenantResources.resolve(r.effectiveApiVersion(), r.kind()));
                } catch (io.tenantplane.apply.UnknownKindException e) {
                    if (!r.custom()) {
                        throw e;
                    }
                    // A custom kind the tenant has not installed: nothing to watch; full passes look again.
                }
            }
        }
        List<Watcher> started = new ArrayList<>();
        List<Watcher> stopped = new ArrayList<>();
        synchronized (watchLock) {
            if (closed) {
                return;
            }
            if (state.client != client) {
                stopped.addAll(state.watchers.values());
                state.watchers.clear();
                state.client = client;
            }
            for (var it = state.watchers.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (!wanted.containsKey(e.getKey())) {
                    stopped.add(e.getValue());
                    it.remove();
                }
            }
            for (var e : wanted.entrySet()) {
                if (!state.watchers.containsKey(e.getKey())) {
                    String kind = e.getKey();
                    Watcher w = new Watcher(client, e.getValue(), null, null,
                            (type, o) -> tenantObjectChanged(key, kind, o), options.threads(), true);
                    state.watchers.put(kind, w);
                    started.add(w);
                }
            }
            Set<HostScope> scopes = new HashSet<>();
            for (ResourceKind k : wanted.values()) {
                if (!hostWatchable(k)) {
                    continue;
                }
                scopes.add(new HostScope(k.namespaced() ? ctx.hostNamespace() : null, k.kind(), k.apiVersion()));
            }
            for (HostScope s : state.hostScopes) {
                if (!scopes.contains(s)) {
                    stopped.addAll(releaseHostScope(s, key));
                }
            }
            for (HostScope s : scopes) {
                Set<TenantKey> users = hostWatcherUsers.computeIfAbsent(s, x -> new HashSet<>());
                users.add(key);
                if (!hostWatchers.containsKey(s)) {
                    ResourceKind k = kind(s.apiVersion(), s.kind());
                    Watcher w = new Watcher(host, k, s.namespace(), MANAGED,
                            (type, o) -> hostObjectChanged(s.namespace() == null
                                    ? Json.string(o, "metadata", "namespace") : s.namespace(), o),
                            options.threads(), true);
                    hostWatchers.put(s, w);
                    started.add(w);
                }
            }
            state.hostScopes.clear();
            state.hostScopes.addAll(scopes);
            started.forEach(Watcher::start);
        }
        stopped.forEach(Watcher::close);
        for (Watcher w : started) {
            try {
                if (!w.awaitSynced(Duration.ofSeconds(10))) {
                    LOG.log(System.Logger.Level.DEBUG, w + " has not listed within 10 s; the pass goes on");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private List<Watcher> releaseHostScope(HostScope s, TenantKey key) {
        Set<TenantKey> users = hostWatcherUsers.get(s);
        if (users == null) {
            return List.of();
        }
        users.remove(key);
        if (!users.isEmpty()) {
            return List.of();
        }
        hostWatcherUsers.remove(s);
        Watcher w = hostWatchers.remove(s);
        return w == null ? List.of() : List.of(w);
    }

    private java.util.concurrent.locks.ReadWriteLock passLock(TenantKey key) {
        return passLocks.computeIfAbsent(key, k -> new java.util.concurrent.locks.ReentrantReadWriteLock());
    }

    private void forget(TenantKey key) {
        deleting.remove(key);
        passLocks.remove(key);
        List<Watcher> stopped = new ArrayList<>();
        synchronized (watchLock) {
            TenantState state = tenants.remove(key);
            if (state == null) {
                return;
            }
            stopped.addAll(state.watchers.values());
            for (HostScope s : state.hostScopes) {
                stopped.addAll(releaseHostScope(s, key));
            }
        }
        stopped.forEach(Watcher::close);
    }

    private Watcher watch(ResourceKind kind, String namespace, String selector, Watcher.Handler handler,
                          boolean quietFirstList) {
        Watcher w = new Watcher(host, kind, namespace, selector, handler, options.threads(), quietFirstList);
        w.start();
        return w;
    }

    private void spawn(Runnable r) {
        Thread t = options.threads().newThread(r);
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
    }

    /**
     * True when host copies of {@code k} can be watched: a built-in kind, or a custom kind the installation allows
     * and the host serves, namespaced (anything else is never written to the host).
     */
    private boolean hostWatchable(ResourceKind k) {
        if (ResourceKind.wellKnown(k.apiVersion(), k.kind()).isPresent()) {
            return true;
        }
        if (!io.tenantplane.transform.HostFacts.allowed(plane.allowedKinds(), k.kind(), k.apiVersion())) {
            return false;
        }
        try {
            return kind(k.apiVersion(), k.kind()).namespaced();
        } catch (io.tenantplane.apply.UnknownKindException e) {
            return false;
        }
    }

    private ResourceKind kind(String apiVersion, String kind) {
        return ResourceKind.wellKnown(apiVersion, kind).orElseGet(() -> Resources.of(host).resolve(apiVersion, kind));
    }

    /**
     * Stops every watch, worker and timer and waits for them to end (a pass in progress is interrupted at its next
     * wait and abandoned; the next start converges again), then gives the plane's observers up to 5 s to deliver
     * what is buffered (Events written in the background). Idempotent.
     */
    @Override
    public void close() {
        List<Watcher> all = new ArrayList<>();
        synchronized (watchLock) {
            if (closed) {
                return;
            }
            closed = true;
            all.addAll(clusterWatchers);
            all.addAll(hostWatchers.values());
            tenants.values().forEach(s -> all.addAll(s.watchers.values()));
            hostWatchers.clear();
            hostWatcherUsers.clear();
        }
        queue.close();
        all.forEach(Watcher::close);
        List<Thread> mine;
        synchronized (threads) {
            mine = List.copyOf(threads);
        }
        mine.forEach(Thread::interrupt);
        for (Thread t : mine) {
            try {
                if (!t.join(Duration.ofSeconds(10))) {
                    LOG.log(System.Logger.Level.WARNING, "thread " + t + " did not stop within 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        tenants.clear();
        // Events are written in the background; those of the last passes would be lost with the process.
        if (!plane.observer().flush(FLUSH_ON_CLOSE)) {
            LOG.log(System.Logger.Level.WARNING, "decisions still undelivered (Events not written) "
                    + FLUSH_ON_CLOSE.toSeconds() + " s after close");
        }
    }
}
