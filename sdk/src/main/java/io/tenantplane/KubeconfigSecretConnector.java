package io.tenantplane;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** {@link TenantConnector#kubeconfigSecret}: the tenant's kubeconfig Secret, read from the host. */
final class KubeconfigSecretConnector implements TenantConnector {

    static final String DEFAULT_KEY = ControlPlaneNames.KUBECONFIG_KEY;

    private final Reader host;
    private final Map<TenantKey, Cached> clients = new ConcurrentHashMap<>();

    KubeconfigSecretConnector(ApiClient hostClient) {
        this.host = new Reader(hostClient);
    }

    @Override
    public ApiClient connect(TenantCluster tc) {
        TenantCluster.SecretKeyRef ref = tc.status() == null ? null : tc.status().kubeconfigSecretRef();
        if (ref == null || ref.name() == null) {
            // Before the first status write the Secret is still where the control plane renderer puts it.
            ref = new TenantCluster.SecretKeyRef(ControlPlaneNames.of(tc).kubeconfigSecret(), tc.namespace(),
                    ControlPlaneNames.KUBECONFIG_KEY);
        }
        String ns = ref.namespace() == null ? tc.namespace() : ref.namespace();
        String key = ref.key() == null ? DEFAULT_KEY : ref.key();
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

    private static ApiClient build(String kubeconfig, String secret) {
        try {
            KubeConfig config = KubeConfig.loadKubeConfig(new StringReader(kubeconfig));
            return ClientBuilder.kubeconfig(config).build();
        } catch (IOException | RuntimeException e) {
            throw new TenantApiUnavailableException("the kubeconfig in Secret " + secret + " is not usable: "
                    + e.getMessage(), e);
        }
    }

    private record Cached(String secretVersion, ApiClient client) {
    }
}
