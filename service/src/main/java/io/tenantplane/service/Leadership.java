package io.tenantplane.service;

import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;

/**
 * Which replica reconciles: leader election on the Lease named by {@code tenantplane.lease.*}. Only the leader may
 * write to the host; standbys stay ready and take over when the leader goes. Changes are announced as
 * {@link LeadershipChanged} events and on the {@code tenantplane_leader} gauge.
 */
@ApplicationScoped
public class Leadership {

    private final ServiceSettings settings;
    private final HostClients clients;
    private final ServiceStatus status;
    private final ServiceMetrics metrics;
    private final Event<LeadershipChanged> events;
    private volatile LeaseElector elector;
    private volatile ServiceStatus.Heartbeat heartbeat;
    private Thread releaseOnExit;

    @Inject
    Leadership(ServiceSettings settings, HostClients clients, ServiceStatus status, ServiceMetrics metrics,
               Event<LeadershipChanged> events) {
        this.settings = settings;
        this.clients = clients;
        this.status = status;
        this.metrics = metrics;
        this.events = events;
    }

    /** For CDI proxies only. */
    protected Leadership() {
        this.settings = null;
        this.clients = null;
        this.status = null;
        this.metrics = null;
        this.events = null;
    }

    /** True while this replica holds the Lease within its renew deadline. */
    public boolean isLeader() {
        LeaseElector e = elector;
        return e != null && e.isLeader();
    }

    /** This replica's identity in the Lease (pod name, or a random id outside a pod). */
    public String identity() {
        return settings.lease().identity();
    }

    /** The holder seen in the Lease most recently, if any. */
    public Optional<String> holder() {
        LeaseElector e = elector;
        return e == null ? Optional.empty() : e.holder();
    }

    synchronized void start() {
        if (elector != null) {
            return;
        }
        ServiceSettings.Lease lease = settings.lease();
        heartbeat = status.heartbeat("lease-elector", stallLimit(lease));
        var api = new CoordinationV1Api(clients.newClient(lease.renewDeadline()));
        elector = new LeaseElector(api, lease, new Listener());
        // SIGTERM can arrive before the runtime has finished starting and can shut the container down; the Lease
        // is released either way, so a standby never waits for it to expire.
        releaseOnExit = Thread.ofPlatform().unstarted(this::stop);
        releaseOnExit.setName("tenantplane-lease-release");
        Runtime.getRuntime().addShutdownHook(releaseOnExit);
        elector.start();
    }

    @PreDestroy
    synchronized void stop() {
        if (elector == null) {
            return;
        }
        elector.close();
        heartbeat.close();
        if (releaseOnExit != null && Thread.currentThread() != releaseOnExit) {
            try {
                Runtime.getRuntime().removeShutdownHook(releaseOnExit);
            } catch (IllegalStateException shuttingDown) {
                // The JVM is exiting and the hook may run too; stopping twice is harmless.
            }
        }
    }

    /** A round takes at most two calls of renewDeadline each, plus the pause; allow a good margin beyond that. */
    static Duration stallLimit(ServiceSettings.Lease lease) {
        Duration worstRound = lease.renewDeadline().multipliedBy(2).plus(lease.retryPeriod().multipliedBy(2));
        Duration limit = worstRound.multipliedBy(2);
        return limit.compareTo(Duration.ofSeconds(30)) < 0 ? Duration.ofSeconds(30) : limit;
    }

    private final class Listener implements LeaseElector.Listener {
        @Override
        public void startedLeading() {
            metrics.leader(true);
            events.fire(new LeadershipChanged(true, identity()));
        }

        @Override
        public void stoppedLeading() {
            metrics.leader(false);
            events.fire(new LeadershipChanged(false, identity()));
        }

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
    }
}
