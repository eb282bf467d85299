package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import java.util.logging.Logger;

/**
 * Start-up order: validate the configuration (a bad one stops start-up with one message naming every bad key),
 * register the metrics, join leader election, then report started. Runs before the HTTP server opens its port.
 */
@ApplicationScoped
class Lifecycle {

    private static final Logger LOG = Logger.getLogger(Lifecycle.class.getName());

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object event, ServiceSettings settings,
                 ServiceMetrics metrics, Leadership leadership, ServiceStatus status) {
        LOG.info(() -> "tenantplane service starting as " + settings.lease().identity() + "; watching "
                + (settings.watchesAllNamespaces() ? "all namespaces" : settings.watchNamespaces())
                + "; Lease " + settings.lease().namespace() + "/" + settings.lease().name());
        metrics.leader(false);
        leadership.start();
        status.markStarted();
    }
}
