package io.tenantplane.kubelet;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import javax.security.auth.x500.X500Principal;

/**
 * The tenant API servers' aggregators, as this endpoint recognises them: each shared or dedicated tenant's k3s signs
 * the client certificate its aggregator presents to aggregated API servers with its own request-header CA
 * (kube-apiserver's {@code --proxy-client-cert-file}, k3s's {@code client-auth-proxy.crt}, common name
 * {@value #ALLOWED_NAME}: {@code k3s-io/k3s} {@code pkg/daemons/control/server.go} sets
 * {@code requestheader-allowed-names} to {@code deps.RequestHeaderCN}). The control plane publishes that CA into its
 * kubeconfig Secret on the host ({@link ControlPlaneNames#REQUEST_HEADER_CA_KEY}), from k3s's files: a tenant cannot
 * change it through its own API.
 *
 * <p>A certificate is a tenant's aggregator when it is valid now and signed by exactly one known tenant's CA. The CAs
 * are read from the host when a certificate's issuer is not known (a new tenant, a control plane with new certificates),
 * at most once per {@link #REFRESH_INTERVAL_NANOS}: every TenantCluster (of the namespaces served, or all), then the
 * kubeconfig Secret of each shared and dedicated one. One certificate per tenant is kept in memory. A certificate that two tenants' CAs would both accept
 * (a tenant cannot make that happen, since neither CA's key leaves its control plane) is refused.
 */
final class FrontProxies {

    /** The common name of k3s's aggregator client certificate, the one name kube-apiserver allows for it. */
    static final String ALLOWED_NAME = "system:auth-proxy";
    static final long REFRESH_INTERVAL_NANOS = 30_000_000_000L;
    /** The extended key usage a request-header client certificate needs, as kube-apiserver verifies it. */
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final ResourceKind SECRETS = ResourceKind.wellKnown("v1", "Secret").orElseThrow();

    /** A tenant's aggregator CA. */
    record Tenant(TenantKey key, String uid, X509Certificate ca) {
    }

    private final Reader host;
    /** Where TenantClusters are listed; empty: all namespaces. */
    private final List<String> namespaces;
    private final LongSupplier nanos;
    private volatile Map<X500Principal, List<Tenant>> byIssuer = Map.of();
    private long lastRefresh;
    private boolean refreshed;

    FrontProxies(Reader host, List<String> namespaces, LongSupplier nanos) {
        this.host = host;
        this.namespaces = List.copyOf(namespaces);
        this.nanos = nanos;
    }

    /**
     * The tenant whose aggregator presented {@code certificate}, reading the CAs from the host when its issuer is not
     * known and the last read is old enough; empty when no tenant's CA signed it or it is not valid now.
     */
    Optional<Tenant> identify(X509Certificate certificate) {
        Optional<Tenant> known = match(certificate);
        if (known.isPresent() || !refreshDue()) {
            return known;
        }
        refresh();
        return match(certificate);
    }

    private Optional<Tenant> match(X509Certificate certificate) {
        List<Tenant> candidates = byIssuer.getOrDefault(certificate.getIssuerX500Principal(), List.of());
        Tenant found = null;
        for (Tenant t : candidates) {
            try {
                certificate.verify(t.ca().getPublicKey());
                certificate.checkValidity();
                List<String> usages = certificate.getExtendedKeyUsage();
                if (usages != null && !usages.contains(CLIENT_AUTH)) {
                    continue;
                }
            } catch (GeneralSecurityException e) {
                continue;
            }
            if (found != null) {
                return Optional.empty();
            }
            found = t;
        }
        return Optional.ofNullable(found);
    }

    private synchronized boolean refreshDue() {
        long now = nanos.getAsLong();
        if (refreshed && now - lastRefresh < REFRESH_INTERVAL_NANOS) {
            return false;
        }
        refreshed = true;
        lastRefresh = now;
        return true;
    }

    /** Reads every shared and dedicated tenant's aggregator CA from the host; keeps the old ones when it cannot. */
    void refresh() {
        Map<X500Principal, List<Tenant>> next = new HashMap<>();
        try {
            List<JsonObject> tenants = new ArrayList<>();
            if (namespaces.isEmpty()) {
                tenants.addAll(host.list(TenantPlace.TENANT_CLUSTERS, null, null));
            } else {
                for (String ns : namespaces) {
                    tenants.addAll(host.list(TenantPlace.TENANT_CLUSTERS, ns, null));
                }
            }
            for (JsonObject o : tenants) {
                if (!(TenantCluster.fromJson(o) instanceof Parsed.Ok<TenantCluster> ok)) {
                    continue;
                }
                TenantCluster tc = ok.value();
                if (TenantPlace.mode(tc) == TenantCluster.Mode.PRIVATE) {
                    continue;
                }
                ControlPlaneNames names = ControlPlaneNames.of(tc);
                Optional<JsonObject> secret;
                try {
                    secret = host.get(SECRETS, names.namespace(), names.kubeconfigSecret());
                } catch (ReadFailedException e) {
                    continue;
                }
                String data = secret.map(s -> Json.string(s, "data", ControlPlaneNames.REQUEST_HEADER_CA_KEY))
                        .orElse(null);
                if (data == null) {
                    continue;
                }
                X509Certificate ca;
                try {
                    ca = certificate(new String(Base64.getDecoder().decode(data), StandardCharsets.US_ASCII));
                } catch (IllegalArgumentException | CertificateException e) {
                    continue;
                }
                Tenant t = new Tenant(new TenantKey(Json.string(o, "metadata", "namespace"),
                        Json.string(o, "metadata", "name")), Json.string(o, "metadata", "uid"), ca);
                next.computeIfAbsent(ca.getSubjectX500Principal(), k -> new ArrayList<>()).add(t);
            }
        } catch (ReadFailedException e) {
            return;
        }
        byIssuer = Map.copyOf(next);
    }

    /**
     * The trust of the endpoint's TLS server: a certificate {@code kubeletCa} trusts (a tenant API server's kubelet
     * client certificate), or a tenant aggregator's ({@link #identify}).
     */
    javax.net.ssl.X509ExtendedTrustManager trust(javax.net.ssl.X509TrustManager kubeletCa) {
        return new javax.net.ssl.X509ExtendedTrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                try {
                    kubeletCa.checkClientTrusted(chain, authType);
                } catch (CertificateException e) {
                    if (chain == null || chain.length == 0 || identify(chain[0]).isEmpty()) {
                        throw e;
                    }
                }
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, java.net.Socket socket)
                    throws CertificateException {
                checkClientTrusted(chain, authType);
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine)
                    throws CertificateException {
                checkClientTrusted(chain, authType);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("the kubelet endpoint is a server only");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, java.net.Socket socket)
                    throws CertificateException {
                checkServerTrusted(chain, authType);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine)
                    throws CertificateException {
                checkServerTrusted(chain, authType);
            }

            /**
             * None named: the server's certificate request then lists no authorities, so a client presents its one
             * certificate whatever its issuer (client-go does so anyway), and the request does not grow with the
             * number of tenants.
             */
            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
    }

    private static X509Certificate certificate(String pem) throws CertificateException {
        var all = CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
        if (all.size() != 1 || !(all.iterator().next() instanceof X509Certificate c)) {
            throw new CertificateException("expected one certificate, found " + all.size());
        }
        return c;
    }
}
