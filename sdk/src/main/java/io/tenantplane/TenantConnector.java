package io.tenantplane;

import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.model.TenantCluster;

/**
 * Gives the client of a tenant's own API. The default ({@link #kubeconfigSecret(ApiClient)}) reads the kubeconfig
 * Secret the tenant's control plane writes; supply your own to reach tenant APIs another way (a gateway, a different
 * credential, or, in tests, a second in-process API server per tenant).
 *
 * <p>Called once per pass and once when a {@code Syncer} starts watching a tenant, from any thread: implementations
 * must be thread-safe and should cache clients.
 *
 * <p>Speak HTTP/1.1 to tenant APIs and share one OkHttp connection pool and dispatcher across the tenant clients.
 * Over HTTP/2 (what k3s and most API servers offer) OkHttp keeps one platform thread per connection reading its
 * frames for as long as the connection lives, so platform threads would grow with the number of tenants; over
 * HTTP/1.1 a request or watch is read by the thread that made it, which in a {@code Syncer} is a virtual thread.
 * Keep each tenant's TLS and credentials and change only the protocols, pool and dispatcher:
 *
 * <pre>{@code
 * OkHttpClient base = new OkHttpClient();  // one per connector
 * ApiClient client = ClientBuilder.kubeconfig(config).build();
 * client.setHttpClient(client.getHttpClient().newBuilder().protocols(List.of(Protocol.HTTP_1_1))
 *         .connectionPool(base.connectionPool()).dispatcher(base.dispatcher()).build());
 * }</pre>
 *
 * {@link #kubeconfigSecret(ApiClient)} does this. Do not derive tenant clients from the host client's
 * {@code OkHttpClient} with all its settings: its interceptors may carry the host's credentials.
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
     * the Secret changes, and share one OkHttp connection pool and dispatcher (per connector), each keeping the TLS
     * settings and credentials of its own kubeconfig.
     */
    static TenantConnector kubeconfigSecret(ApiClient hostClient) {
        return new KubeconfigSecretConnector(java.util.Objects.requireNonNull(hostClient, "hostClient"));
    }
}
