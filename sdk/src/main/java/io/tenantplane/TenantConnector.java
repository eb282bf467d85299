package io.tenantplane;

import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.model.TenantCluster;

/**
 * Gives the client of a tenant's own API. The default ({@link #kubeconfigSecret(ApiClient)}) reads the kubeconfig
 * Secret the tenant's control plane writes; supply your own to reach tenant APIs another way (a gateway, a different
 * credential, or, in tests, a second in-process API server per tenant).
 *
 * <p>Called once per pass and once when a {@code Syncer} starts watching a tenant, from any thread: implementations
 * must be thread-safe and should cache clients (an {@link ApiClient} owns a connection pool).
 */
@FunctionalInterface
public interface TenantConnector {

    /**
     * The client of {@code tenantCluster}'s API.
     *
     * @throws TenantApiUnavailableException when the tenant API cannot be reached yet (it is tried again later)
     */
    ApiClient connect(TenantCluster tenantCluster);

    /**
     * Reads the Secret named by {@code status.kubeconfigSecretRef} of the TenantCluster (by default, and before the
     * status names one, {@code <tenant>-kubeconfig} in its namespace, key {@code config}) with {@code hostClient} and
     * builds a client from that kubeconfig with client-java's {@code KubeConfig}. Clients are cached per tenant until
     * the Secret changes.
     */
    static TenantConnector kubeconfigSecret(ApiClient hostClient) {
        return new KubeconfigSecretConnector(java.util.Objects.requireNonNull(hostClient, "hostClient"));
    }
}
