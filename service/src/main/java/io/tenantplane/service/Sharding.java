package io.tenantplane.service;

import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.ShardLeases;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;

/**
 * Which replica writes for which tenant: the SDK's {@link ShardLeases} on the Leases named by
 * {@code tenantplane.lease.*}, {@code tenantplane.shards} of them. A shard this replica acquires is adopted by the
 * {@link Reconciler} (a pass over each of its tenants); a shard it hands over or loses is released by the Reconciler
 * (its passes interrupted and awaited) before the Lease is given up. With one replica it holds every shard; with
 * {@code tenantplane.shards=1} it is leader election.
 */
@ApplicationScoped
public class Sharding {

    private static final Logger LOG = Logger.getLogger(Sharding.class.getName());

    private final ServiceSettings settings;
    private final HostClients clients;
    private final ServiceStatus status;
    private final ServiceMetrics metrics;
    private final Reconciler reconciler;
    private volatile ShardLeases leases;
    private volatile ServiceStatus.Heartbeat heartbeat;
    private Thread releaseOnExit;

    @Inject
    Sharding(ServiceSettings settings, HostClients clients, ServiceStatus status, ServiceMetrics metrics,
             Reconciler reconciler) {
        this.settings = settings;
        this.clients = clients;
        this.status = status;
        this.metrics = metrics;
        this.reconciler = reconciler;
    }

    /** For CDI proxies only. */
    protected Sharding() {
        this.settings = null;
        this.clients = null;
        this.status = null;
        this.metrics = null;
        this.reconciler = null;
    }

    /**
     * The shard Leases of one replica wired to its reconciler, outside CDI (e.g. several replicas in one test).
     *
     * @param api the host API the Leases are written through
     */
    static ShardLeases leases(ServiceSettings settings, CoordinationV1Api api, Reconciler reconciler,
                              ShardLeases.Listener also) {
        ServiceSettings.Lease lease = settings.lease();
        return ShardLeases.builder()
                .api(api)
                .namespace(lease.namespace())
                .name(lease.name())
                .identity(lease.identity())
                .count(lease.shards())
                .timing(lease.duration(), lease.renewDeadline(), lease.retryPeriod())
                .listener(new ShardLeases.Listener() {
                    @Override
                    public void acquired(int shard) {
                        reconciler.adopt(t -> t.shard(lease.shards()) == shard);
                        also.acquired(shard);
                    }

                    @Override
                    public boolean released(int shard, boolean lost) throws InterruptedException {
                        boolean stopped = reconciler.release(t -> t.shard(lease.shards()) == shard,
                                lease.renewDeadline());
                        if (stopped) {
                            also.released(shard, lost);
                        }
                        return stopped;
                    }

                    @Override
                    public void apiAnswered() {
                        also.apiAnswered();
                    }

                    @Override
                    public void apiFailed(int code, String detail) {
                        also.apiFailed(code, detail);
                    }
                })
                .build();
    }

    /** True while this replica owns {@code tenant}'s shard: the Reconciler's ownership predicate. */
    public boolean owns(TenantKey tenant) {
        ShardLeases l = leases;
        return l != null && l.owns(tenant);
    }

    /** The shard of {@code tenant}. */
    public int shardOf(TenantKey tenant) {
        return tenant.shard(settings.lease().shards());
    }

    /** This replica's identity in the Leases (pod name, or a random id outside a pod). */
    public String identity() {
        return settings.lease().identity();
    }

    /** This replica's view of the shards; before start, none held. */
    public ShardLeases.View view() {
        ShardLeases l = leases;
        return l == null ? new ShardLeases.View(identity(), List.of(), settings.lease().shards(),
                List.of()) : l.view();
    }

    synchronized void start() {
        if (leases != null) {
            return;
        }
        ServiceSettings.Lease lease = settings.lease();
        heartbeat = status.heartbeat("shard-leases", stallLimit(lease));
        var api = new CoordinationV1Api(clients.newClient(lease.renewDeadline()));
        ShardLeases l = leases(settings, api, reconciler, new ShardLeases.Listener() {
            @Override
            public void apiAnswered() {
                status.hostApiAnswered();
                heartbeat.beat();
            }

            @Override
            public void apiFailed(int code, String detail) {
                status.hostApiFailed(detail);
                metrics.apiError(code);
                heartbeat.beat();
            }
        });
        metrics.shards(lease.shards(), () -> view().owned(), () -> view().members().size(), l::ownsShard);
        leases = l;
        // SIGTERM can arrive before the runtime has finished starting and can shut the container down; the shards
        // are handed over either way, so no other replica waits for them to expire.
        releaseOnExit = Thread.ofPlatform().unstarted(this::stop);
        releaseOnExit.setName("tenantplane-shard-release");
        Runtime.getRuntime().addShutdownHook(releaseOnExit);
        l.start();
        LOG.info(() -> "Sharing " + lease.shards() + " shards as " + lease.identity() + " (Leases "
                + lease.namespace() + "/" + lease.name() + "-shard-*)");
    }

    @PreDestroy
    synchronized void stop() {
        ShardLeases l = leases;
        if (l == null) {
            return;
        }
        l.close();
        heartbeat.close();
        if (releaseOnExit != null && Thread.currentThread() != releaseOnExit) {
            try {
                Runtime.getRuntime().removeShutdownHook(releaseOnExit);
            } catch (IllegalStateException shuttingDown) {
                // The JVM is exiting and the hook may run too; stopping twice is harmless.
            }
        }
    }

    /**
     * A round takes a list, a member renewal and up to one write per shard, each bounded by renewDeadline; allow a
     * good margin beyond the retry period.
     */
    static Duration stallLimit(ServiceSettings.Lease lease) {
        Duration worstRound = lease.renewDeadline().multipliedBy(2).plus(lease.retryPeriod().multipliedBy(2));
        Duration limit = worstRound.multipliedBy(2);
        return limit.compareTo(Duration.ofSeconds(30)) < 0 ? Duration.ofSeconds(30) : limit;
    }
}
