package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import java.util.logging.Logger;

/**
 * Start-up order: validate the configuration (a bad one stops start-up with one message naming every bad key),
 * register the metrics, start the informers and the Syncer, join the shard Leases, then report started. Runs before the
 * HTTP server opens its port. Shut-down order: stop reconciling first, then hand the shards over (releasing their
 * Leases), so no other replica starts on a shard while this one still writes for it.
 */
@ApplicationScoped
class Lifecycle {

    private static final Logger LOG = Logger.getLogger(Lifecycle.class.getName());

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object event, ServiceSettings settings,
                 ServiceMetrics metrics, Sharding sharding, ServiceStatus status, Reconciler reconciler,
                 Engine engine, KubeletEndpoints kubelet) {
        LOG.info(() -> "tenantplane service starting as " + settings.lease().identity() + "; watching "
                + (settings.watchesAllNamespaces() ? "all namespaces" : settings.watchNamespaces())
                + "; " + settings.lease().shards() + " shards, Leases " + settings.lease().namespace() + "/"
                + settings.lease().name() + "-*");
        metrics.tenantsByPhase(reconciler::countInPhase);
        kubelet.start(engine.plane());
        reconciler.start(sharding::owns);
        sharding.start();
        status.markStarted();
    }

    void onStop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object event, Reconciler reconciler,
                Sharding sharding, KubeletEndpoints kubelet) {
        kubelet.stop();
        reconciler.close();
        sharding.stop();
    }
}
