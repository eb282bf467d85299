package io.tenantplane;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;

/**
 * {@link TenantConnector#kubeconfigSecret}: the tenant's kubeconfig Secret, read from the host.
 *
 * <p>Every tenant client keeps the TLS settings, credentials and timeouts of its own kubeconfig, speaks HTTP/1.1, and
 * shares this connector's OkHttp {@link ConnectionPool} and {@link okhttp3.Dispatcher}. HTTP/1.1 because OkHttp reads
 * each HTTP/2 connection on a platform thread of its own for the connection's life: one per tenant API. Over
 * HTTP/1.1 each request and watch is read by the thread that made it (a virtual thread in a {@code Syncer}), so
 * platform threads do not grow with tenants; a tenant costs a few idle connections instead.
 */
final class KubeconfigSecretConnector implements TenantConnector {

    static final String DEFAULT_KEY = ControlPlaneNames.KUBECONFIG_KEY;
    /** Idle connections the shared pool keeps, across all tenants (sockets only: no thread waits on them). */
    static final int IDLE_CONNECTIONS = 256;

    private final Reader host;
    private final OkHttpClient base = new OkHttpClient.Builder()
            .connectionPool(new ConnectionPool(IDLE_CONNECTIONS, 5, TimeUnit.MINUTES)).build();
    private final Map<TenantKey, Cached> clients = new ConcurrentHashMap<>();

    KubeconfigSecretConnector(ApiClient hostClient) {
        this.host = new Reader(hostClient);
    }

    /**
     * Where the tenant's kubeconfig is: {@code status.kubeconfigSecretRef}, with its namespace and key defaulted; before
     * the first status write, where the control plane renderer puts it.
     */
    static TenantCluster.SecretKeyRef secretRef(TenantCluster tc) {
        TenantCluster.SecretKeyRef ref = tc.status() == null ? null : tc.status().kubeconfigSecretRef();
        if (ref == null || ref.name() == null) {
            return new TenantCluster.SecretKeyRef(ControlPlaneNames.of(tc).kubeconfigSecret(), tc.namespace(),
                    ControlPlaneNames.KUBECONFIG_KEY);
        }
        return new TenantCluster.SecretKeyRef(ref.name(), ref.namespace() == null ? tc.namespace() : ref.namespace(),
                ref.key() == null ? DEFAULT_KEY : ref.key());
    }

    /**
     * The CA certificate (PEM) the tenant's kubeconfig trusts, read from its Secret; empty when the Secret is not
     * there yet or the kubeconfig names no CA data (a plain-HTTP API).
     */
    static String caCertificate(Reader host, TenantCluster tc) {
        TenantCluster.SecretKeyRef ref = secretRef(tc);
        String encoded = host.get(ResourceKind.wellKnown("v1", "Secret").orElseThrow(), ref.namespace(), ref.name())
                .map(s -> Json.string(s, "data", ref.key())).orElse(null);
        if (encoded == null) {
            return "";
        }
        try {
            KubeConfig config = KubeConfig.loadKubeConfig(new StringReader(
                    new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8)));
            String ca = config.getCertificateAuthorityData();
            return ca == null ? "" : new String(Base64.getDecoder().decode(ca), StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            return "";
        }
    }

    @Override
    public ApiClient connect(TenantCluster tc) {
        TenantCluster.SecretKeyRef ref = secretRef(tc);
        String ns = ref.namespace();
        String key = ref.key();
        Optional<JsonObject> secret;
        try {
            secret = host.get(ResourceKind.wellKnown("v1", "Secret").orElseThrow(), ns, ref.name());
        } catch (ReadFailedException e) {
            throw new TenantApiUnavailableException("cannot read the kubeconfig Secret " + ns + "/" + ref.name()
                    + " of TenantCluster " + tc.id() + ": " + e.getMessage(), e);
        }
        if (secret.isEmpty()) {
            throw new TenantApiUnavailableException("the kubeconfig Secret " + ns + "/" + ref.name()
                    + " of TenantCluster " + tc.id() + " does not exist yet");
        }
        String rv = Json.string(secret.get(), "metadata", "resourceVersion");
        TenantKey tenant = new TenantKey(tc.namespace(), tc.tenant());
        Cached cached = clients.get(tenant);
        if (cached != null && cached.secretVersion().equals(rv)) {
            return cached.client();
        }
        String encoded = Json.string(secret.get(), "data", key);
        if (encoded == null) {
            throw new TenantApiUnavailableException("the kubeconfig Secret " + ns + "/" + ref.name()
                    + " has no key " + key + "; set status.kubeconfigSecretRef.key to the key that holds it");
        }
        ApiClient client = build(new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8),
                ns + "/" + ref.name());
        clients.put(tenant, new Cached(rv == null ? "" : rv, client));
        return client;
    }

    private ApiClient build(String kubeconfig, String secret) {
        try {
            KubeConfig config = KubeConfig.loadKubeConfig(new StringReader(kubeconfig));
            ApiClient client = ClientBuilder.kubeconfig(config).build();
            client.setHttpClient(sharing(client.getHttpClient(), base));
            return client;
        } catch (IOException | RuntimeException e) {
            throw new TenantApiUnavailableException("the kubeconfig in Secret " + secret + " is not usable: "
                    + e.getMessage(), e);
        }
    }

    /**
     * {@code own} (a tenant's TLS, credentials, interceptors, timeouts) over HTTP/1.1 and {@code base}'s pool and
     * dispatcher.
     */
    static OkHttpClient sharing(OkHttpClient own, OkHttpClient base) {
        return own.newBuilder().protocols(List.of(Protocol.HTTP_1_1)).connectionPool(base.connectionPool())
                .dispatcher(base.dispatcher()).build();
    }

    /** The client every tenant client shares its connection pool and dispatcher with. */
    OkHttpClient base() {
        return base;
    }

    private record Cached(String secretVersion, ApiClient client) {
    }
}
