package io.tenantplane.kubelet;

import io.tenantplane.plan.internal.MetricsRegistration;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where tenant API servers reach tenantplane's kubelet endpoint, and the CA that vouches for it. Given to
 * {@code TenantPlane.builder().kubeletEndpoint(...)}: the node mirrors of every shared and dedicated tenant then point
 * at {@code host:port} ({@code status.addresses} and {@code status.daemonEndpoints.kubeletEndpoint.Port}, what
 * kube-apiserver dials, {@code pkg/kubelet/client/kubelet_client.go} {@code GetConnectionInfo}), and each such tenant
 * gets a client certificate from {@code ca} in its {@code <tenant>-kubelet-client} Secret.
 *
 * @param host           a DNS name or IP address in the serving certificate, reachable from the tenant control plane
 *                       pods, e.g. {@code tenantplane-kubelet.tenantplane-system.svc}
 * @param port           the endpoint's port
 * @param authority      the installation's kubelet CA, empty while it is not loaded yet (a service that reads it from
 *                       the host API); tenants' client certificates are issued once it is there
 * @param clientValidity how long a tenant's client certificate is valid; renewed when a third of it is left
 */
public record KubeletEndpoint(String host, int port, Supplier<Optional<KubeletCa>> authority,
                              Duration clientValidity) {

    /**
     * The name a tenant's aggregator verifies the endpoint's serving certificate against when it proxies
     * {@code metrics.k8s.io} ({@code <service>.<namespace>.svc} of the tenant Service that APIService
     * {@code v1beta1.metrics.k8s.io} names: {@code kube-aggregator} {@code handler_proxy.go}); every serving certificate
     * {@link KubeletCa#issueServing} issues carries it.
     */
    public static final String METRICS_SERVER_NAME = MetricsRegistration.SERVING_NAME;

    /** Tenant client certificates are valid for a year unless said otherwise. */
    public static final Duration DEFAULT_CLIENT_VALIDITY = Duration.ofDays(365);

    public KubeletEndpoint {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("kubelet endpoint host must not be blank");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("kubelet endpoint port must be 1..65535, got " + port);
        }
        Objects.requireNonNull(authority, "authority");
        clientValidity = clientValidity == null ? DEFAULT_CLIENT_VALIDITY : clientValidity;
        if (clientValidity.compareTo(Duration.ofHours(1)) < 0) {
            throw new IllegalArgumentException("clientValidity must be at least 1h, got " + clientValidity);
        }
    }

    /** The endpoint at {@code host:port} with client certificates valid for {@link #DEFAULT_CLIENT_VALIDITY}. */
    public KubeletEndpoint(String host, int port, KubeletCa ca) {
        this(host, port, constant(ca), DEFAULT_CLIENT_VALIDITY);
    }

    /** The CA, when loaded. */
    public Optional<KubeletCa> ca() {
        return authority.get();
    }

    private static Supplier<Optional<KubeletCa>> constant(KubeletCa ca) {
        Optional<KubeletCa> o = Optional.of(Objects.requireNonNull(ca, "ca"));
        return () -> o;
    }

    /**
     * The k3s config drop-in that points the tenant's kube-apiserver at the credential mounted in {@code dir}. k3s
     * passes {@code kube-apiserver-arg} over its own defaults ({@code pkg/daemons/control/server.go}: it sets
     * {@code kubelet-certificate-authority} to its server CA and {@code kubelet-client-certificate}/{@code -key} to
     * its own client certificate, then {@code config.GetArgs(argsMap, cfg.ExtraAPIArgs)} lets extra args replace them).
     */
    public static String k3sDropIn(String dir) {
        return "# written by tenantplane: the tenant API server calls tenantplane's kubelet endpoint for node mirrors\n"
                + "kube-apiserver-arg+:\n"
                + "  - kubelet-certificate-authority=" + dir + "/ca.crt\n"
                + "  - kubelet-client-certificate=" + dir + "/tls.crt\n"
                + "  - kubelet-client-key=" + dir + "/tls.key\n";
    }
}
