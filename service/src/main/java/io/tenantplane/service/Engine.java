package io.tenantplane.service;

import io.tenantplane.TenantConnector;
import io.tenantplane.TenantPlane;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;

/**
 * The one {@link TenantPlane} of the service, configured from the settings: the host client, the tenant connector,
 * the clock, the decision ring size, Events reported as this replica, and the {@link ServiceObserver} for metrics
 * and traces.
 */
@ApplicationScoped
public class Engine {

    private final ServiceSettings settings;
    private final HostClients clients;
    private final TenantConnector connector;
    private final Clock clock;
    private final ServiceObserver observer;
    private final ServiceMetrics metrics;
    private final KubeletEndpoints kubelet;
    private volatile TenantPlane plane;

    @Inject
    Engine(ServiceSettings settings, HostClients clients, TenantConnector connector, Clock clock,
           ServiceObserver observer, ServiceMetrics metrics, KubeletEndpoints kubelet) {
        this.kubelet = kubelet;
        this.settings = settings;
        this.clients = clients;
        this.connector = connector;
        this.clock = clock;
        this.observer = observer;
        this.metrics = metrics;
    }

    /** For CDI proxies only. */
    protected Engine() {
        this.settings = null;
        this.clients = null;
        this.connector = null;
        this.clock = null;
        this.observer = null;
        this.metrics = null;
        this.kubelet = null;
    }

    /** The plane; built on first use. */
    public TenantPlane plane() {
        TenantPlane p = plane;
        if (p == null) {
            synchronized (this) {
                p = plane;
                if (p == null) {
                    TenantPlane.Builder b = TenantPlane.builder()
                            // Default OkHttp timeouts bound every call; the Syncer lifts the read timeout for its
                            // watch streams itself.
                            .hostClient(clients.newClient())
                            .tenantConnector(connector)
                            .clock(clock)
                            .observer(observer)
                            .decisionRingCapacity(settings.decisionRingSize())
                            .reportingInstance(settings.lease().identity())
                            .shards(settings.lease().shards())
                            .writeConcurrency(settings.writeConcurrency())
                            .hostWriteRate(io.tenantplane.apply.WriteRate.of(settings.hostQps(),
                                    settings.hostBurst()));
                    kubelet.endpoint().ifPresent(b::kubeletEndpoint);
                    b.allowedKinds(settings.allowedKinds());
                    p = b.build();
                    metrics.eventsDropped(p::eventsDropped);
                    plane = p;
                }
            }
        }
        return p;
    }
}
