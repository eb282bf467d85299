package io.tenantplane.service;

import io.tenantplane.TenantConnector;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

/**
 * How the service reaches each tenant's API: by default through the kubeconfig Secret the tenant's control plane
 * publishes ({@link TenantConnector#kubeconfigSecret}). A platform that reaches tenant APIs another way (a gateway,
 * other credentials) supplies its own {@link TenantConnector} as an enabled CDI alternative
 * ({@code @Alternative @Priority(...)}), which then replaces this one.
 */
@ApplicationScoped
class TenantConnectors {

    private final HostClients clients;
    private volatile TenantConnector kubeconfigSecret;

    @Inject
    TenantConnectors(HostClients clients) {
        this.clients = clients;
    }

    /** For CDI proxies only. */
    protected TenantConnectors() {
        this.clients = null;
    }

    /** One connector for the life of the service: it caches a client per tenant. */
    @Produces
    @Dependent
    TenantConnector kubeconfigSecret() {
        TenantConnector c = kubeconfigSecret;
        if (c == null) {
            synchronized (this) {
                c = kubeconfigSecret;
                if (c == null) {
                    c = TenantConnector.kubeconfigSecret(clients.newClient());
                    kubeconfigSecret = c;
                }
            }
        }
        return c;
    }
}
