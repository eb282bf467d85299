package io.tenantplane.service;

import com.google.gson.JsonObject;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The reconcile loop: keeps every TenantCluster provisioned and its workloads synced, each by the replica that owns
 * its shard.
 *
 * <ul>
 *   <li>On every replica, informers on the host keep a cache of TenantClusters, IsolationProfiles and SyncPolicies
 *       (all namespaces, or {@code tenantplane.watch.namespaces}); the REST API and the {@code tenantplane_tenants}
 *       gauge read it, and readiness waits for its first list (gate {@value #GATE}).</li>
 *   <li>The SDK's {@link Syncer} runs on every replica, writing only for the tenants whose shard this replica owns
 *       (the ownership predicate given to {@link #start}, asked before and after every pass): for each it provisions
 *       ({@code ensure}: boundary, control plane, status; the finalizer path when the TenantCluster is being deleted)
 *       and converges its workloads, then follows changes on both sides by watches. Its work queue is keyed per
 *       tenant and per object, runs {@code tenantplane.concurrency} passes at once, retries failures with
 *       exponential backoff and resyncs every owned tenant each {@code tenantplane.resync.interval}; a change to an
 *       IsolationProfile or SyncPolicy queues a pass over every owned tenant that references it.</li>
 *   <li>A shard acquired is {@linkplain #adopt adopted} (a pass over each of its tenants); a shard handed over or lost
 *       is {@linkplain #release released}: its passes are interrupted and awaited before the Lease may move.</li>
 * </ul>
 *
 * <p>A daemon thread ({@value #LOOP}) beats the liveness heartbeat, keeps the readiness gate current and restarts
 * the Syncer should it have stopped.
 */
@ApplicationScoped
public class Reconciler {

    /** Name of the readiness gate that waits for the informers' first list. */
    static final String GATE = "informers";
    /** Name of the work loop in the liveness check. */
    static final String LOOP = "reconciler";

    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());
    private static final Duration TICK = Duration.ofSeconds(1);
    private static final Duration FIRST_LIST_TICK = Duration.ofMillis(100);
    private static final Duration STALL = Duration.ofSeconds(30);

    private final ServiceSettings settings;
    private final ApiClient watchClient;
    private final TenantPlane plane;
    private final ServiceStatus status;
    // Filled once by start(), read by REST and metrics threads.
    private final List<SharedInformerFactory> factories = new CopyOnWriteArrayList<>();
    private final List<Cache> tenantClusters = new CopyOnWriteArrayList<>();
    private final List<Cache> profiles = new CopyOnWriteArrayList<>();
    private final List<Cache> policies = new CopyOnWriteArrayList<>();
    private volatile String listError;
    private volatile Predicate<TenantKey> owns;
    private volatile boolean closed;
    private volatile Syncer syncer;
    private Thread loop;
    private ServiceStatus.Gate gate;
    private ServiceStatus.Heartbeat heartbeat;

    @Inject
    Reconciler(ServiceSettings settings, HostClients clients, Engine engine, ServiceStatus status) {
        this(settings, clients.newWatchClient(), engine.plane(), status);
    }

    /**
     * A reconciler outside CDI (e.g. two replicas in one test).
     *
     * @param watchClient a host client without read timeout, for the informers
     * @param plane       the plane the Syncer runs on (its host client is the one that writes)
     */
    Reconciler(ServiceSettings settings, ApiClient watchClient, TenantPlane plane, ServiceStatus status) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.watchClient = Objects.requireNonNull(watchClient, "watchClient");
        this.plane = Objects.requireNonNull(plane, "plane");
        this.status = Objects.requireNonNull(status, "status");
    }

    /** For CDI proxies only. */
    protected Reconciler() {
        this.settings = null;
        this.watchClient = null;
        this.plane = null;
        this.status = null;
    }

    /** A cache of one kind in one namespace (null: all namespaces). */
    private record Cache(String namespace, SharedIndexInformer<DynamicKubernetesObject> informer) {
        Optional<JsonObject> get(String ns, String name) {
            if (namespace != null && !namespace.equals(ns)) {
                return Optional.empty();
            }
            DynamicKubernetesObject o = informer.getIndexer().getByKey(ns + "/" + name);
            return o == null ? Optional.empty() : Optional.of(o.getRaw());
        }
    }

    /**
     * Starts the informers, the Syncer and the loop.
     *
     * @param owns which tenants this replica may write for now (its shards)
     */
    synchronized void start(Predicate<TenantKey> owns) {
        if (loop != null || closed) {
            return;
        }
        this.owns = Objects.requireNonNull(owns, "owns");
        gate = status.readinessGate(GATE, "waiting for the first list of TenantClusters, IsolationProfiles and"
                + " SyncPolicies");
        heartbeat = status.heartbeat(LOOP, STALL);
        List<String> scopes = settings.watchesAllNamespaces() ? Collections.singletonList(null)
                : settings.watchNamespaces();
        for (String ns : scopes) {
            tenantClusters.add(informer(TenantCluster.PLURAL, ns));
            profiles.add(informer(IsolationProfile.PLURAL, ns));
            policies.add(informer(SyncPolicy.PLURAL, ns));
        }
        factories.forEach(SharedInformerFactory::startAllRegisteredInformers);
        loop = Thread.ofPlatform().daemon().name("tenantplane-" + LOOP).start(this::run);
    }

    private Cache informer(String plural, String namespace) {
        var api = new DynamicKubernetesApi(TenantCluster.GROUP, "v1alpha1", plural, watchClient);
        // One factory per informer: a factory keeps one informer per Java type, and all three kinds are dynamic.
        var factory = new SharedInformerFactory(watchClient);
        SharedIndexInformer<DynamicKubernetesObject> informer = factory.sharedIndexInformerFor(api,
                DynamicKubernetesObject.class, 0, namespace == null ? "" : namespace,
                (type, error) -> listFailed(plural, namespace, error));
        factories.add(factory);
        return new Cache(namespace, informer);
    }

    private void listFailed(String plural, String namespace, Throwable error) {
        String why = "cannot list or watch " + plural + (namespace == null ? "" : " in " + namespace) + ": "
                + describe(error);
        listError = why;
        LOG.log(Level.FINE, why, error);
    }

    /** Queues a pass over every known tenant {@code tenants} accepts: a shard this replica has just acquired. */
    void adopt(Predicate<TenantKey> tenants) {
        Syncer s = syncer;
        if (s != null) {
            s.adopt(tenants);
        }
    }

    /**
     * Stops writing for the tenants {@code tenants} accepts (a shard handed over or lost; the ownership predicate
     * already refuses them): interrupts their passes and waits for them to end.
     *
     * @return false when a pass was still running at the timeout (the shard is not handed over yet)
     */
    boolean release(Predicate<TenantKey> tenants, Duration timeout) throws InterruptedException {
        Syncer s = syncer;
        return s == null || s.release(tenants, timeout);
    }

    private void startSyncer() {
        if (syncer != null && syncer.isRunning()) {
            return;
        }
        SyncerOptions options = SyncerOptions.defaults()
                .withNamespaces(settings.watchNamespaces())
                .withWorkers(settings.concurrency())
                .withResyncPeriod(settings.resyncInterval())
                .withThreads(Thread.ofVirtual().name("tenantplane-sync-", 0).factory())
                .withOwnership(owns);
        try {
            syncer = Syncer.create(plane, options).start();
            LOG.info(() -> "Reconciling the TenantClusters of this replica's shards in " + (settings.watchesAllNamespaces()
                    ? "all namespaces" : String.join(", ", settings.watchNamespaces())) + " with "
                    + settings.concurrency() + " workers");
        } catch (RuntimeException e) {
            // The loop tries again at its next tick.
            LOG.log(Level.WARNING, "Could not start reconciling; retrying", e);
            syncer = null;
        }
    }

    private void stopSyncer() {
        Syncer s = syncer;
        syncer = null;
        if (s != null) {
            s.close();
            plane.observer().queueDepth(0);
            LOG.info("Stopped reconciling");
        }
    }

    private void run() {
        while (!closed) {
            boolean synced = informersSynced();
            if (synced) {
                gate.ready();
            } else {
                String error = listError;
                gate.notReady("waiting for the first list of TenantClusters, IsolationProfiles and SyncPolicies"
                        + (error == null ? "" : "; last error: " + error));
            }
            synchronized (this) {
                if (!closed && (syncer == null || !syncer.isRunning())) {
                    startSyncer();
                }
            }
            heartbeat.beat();
            try {
                // Until the first list is in, look often: readiness should open as soon as it can.
                Thread.sleep(synced ? TICK : FIRST_LIST_TICK);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops the Syncer, the informers and the loop. Idempotent. */
    @PreDestroy
    void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            stopSyncer();
            t = loop;
        }
        factories.forEach(f -> f.stopAllRegisteredInformers(true));
        if (t != null) {
            t.interrupt();
            try {
                t.join(TICK.multipliedBy(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (gate != null) {
            gate.close();
        }
        if (heartbeat != null) {
            heartbeat.close();
        }
    }

    // ------------------------------------------------------------------ the cache, for REST and metrics

    /** True once every informer has listed. */
    boolean informersSynced() {
        for (List<Cache> caches : List.of(tenantClusters, profiles, policies)) {
            for (Cache c : caches) {
                if (!c.informer().hasSynced()) {
                    return false;
                }
            }
        }
        return !tenantClusters.isEmpty();
    }

    /** True while this replica's Syncer runs. */
    boolean reconciling() {
        Syncer s = syncer;
        return s != null && s.isRunning();
    }

    /** Every TenantCluster in the cache, by namespace and name; copies the caller may change. */
    List<JsonObject> tenantClusters() {
        List<JsonObject> out = new ArrayList<>();
        for (Cache c : tenantClusters) {
            for (DynamicKubernetesObject o : c.informer().getIndexer().list()) {
                out.add(o.getRaw().deepCopy());
            }
        }
        out.sort(Comparator.comparing((JsonObject o) -> Json.string(o, "metadata", "namespace"))
                .thenComparing(o -> Json.string(o, "metadata", "name")));
        return out;
    }

    /** The TenantCluster from the cache, a copy. */
    Optional<JsonObject> tenantCluster(TenantKey key) {
        return find(tenantClusters, key.namespace(), key.name());
    }

    /** The IsolationProfile from the cache, a copy. */
    Optional<JsonObject> isolationProfile(String namespace, String name) {
        return find(profiles, namespace, name);
    }

    /** The SyncPolicy from the cache, a copy. */
    Optional<JsonObject> syncPolicy(String namespace, String name) {
        return find(policies, namespace, name);
    }

    /** How many cached TenantClusters are in {@code phase}; those without a phase yet count as Pending. */
    long countInPhase(String phase) {
        long n = 0;
        for (Cache c : tenantClusters) {
            for (DynamicKubernetesObject o : c.informer().getIndexer().list()) {
                String p = Json.string(o.getRaw(), "status", "phase");
                if (phase.equals(p == null ? TenantCluster.Phase.PENDING.value() : p)) {
                    n++;
                }
            }
        }
        return n;
    }

    private static Optional<JsonObject> find(List<Cache> caches, String namespace, String name) {
        for (Cache c : caches) {
            Optional<JsonObject> o = c.get(namespace, name);
            if (o.isPresent()) {
                return Optional.of(o.get().deepCopy());
            }
        }
        return Optional.empty();
    }

    private static String describe(Throwable error) {
        if (error instanceof io.kubernetes.client.openapi.ApiException e && e.getCode() != 0) {
            return "HTTP " + e.getCode() + (e.getCode() == 404 ? " (are the tenantplane CRDs installed?)" : "");
        }
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
}
