package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import java.util.logging.Logger;

/**
 * Start-up order: validate the configuration (a bad one stops start-up with one message naming every bad key),
 * register the metrics, start the informers, join leader election, then report started. Runs before the HTTP server
 * opens its port. Shut-down order: stop reconciling first, then leave the election (releasing the Lease), so a
 * standby never starts while this replica still writes.
 */
@ApplicationScoped
class Lifecycle {

    private static final Logger LOG = Logger.getLogger(Lifecycle.class.getName());

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object event, ServiceSettings settings,
                 ServiceMetrics metrics, Leadership leadership, ServiceStatus status, Reconciler reconciler) {
        LOG.info(() -> "tenantplane service starting as " + settings.lease().identity() + "; watching "
                + (settings.watchesAllNamespaces() ? "all namespaces" : settings.watchNamespaces())
                + "; Lease " + settings.lease().namespace() + "/" + settings.lease().name());
        metrics.leader(false);
        metrics.tenantsByPhase(reconciler::countInPhase);
        reconciler.start();
        leadership.start();
        status.markStarted();
    }

    void onStop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object event, Reconciler reconciler,
                Leadership leadership) {
        reconciler.close();
        leadership.stop();
    }
}
