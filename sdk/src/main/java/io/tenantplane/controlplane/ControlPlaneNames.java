package io.tenantplane.controlplane;

import io.tenantplane.model.TenantCluster;
import java.util.Objects;

/**
 * The names of a tenant's control-plane objects, all in the TenantCluster's namespace and all derived from the
 * tenant name, so the controller, the renderer and humans agree on them.
 *
 * @param tenant    the tenant's name ({@code metadata.name})
 * @param namespace the TenantCluster's namespace, where the control plane runs in every mode
 */
public record ControlPlaneNames(String tenant, String namespace) {

    /** The key of the DNS token inside {@link #dnsKubeconfigSecret()}. */
    public static final String DNS_TOKEN_KEY = "token";
    /** The key of the kubeconfig inside {@link #kubeconfigSecret()}. */
    public static final String KUBECONFIG_KEY = "config";
    /**
     * The key of the tenant API server's front-proxy CA inside {@link #kubeconfigSecret()} (shared and dedicated
     * mode): k3s's request-header CA ({@code server/tls/request-header-ca.crt}), which signs the client certificate its
     * aggregator presents to aggregated API servers. tenantplane's kubelet endpoint trusts it for that tenant's
     * {@code metrics.k8s.io} calls.
     */
    public static final String REQUEST_HEADER_CA_KEY = "request-header-ca.crt";
    /** The key of the k3s join token inside {@link #tokenSecret()}. */
    public static final String TOKEN_KEY = "token";
    /** The key of the k3s config drop-in in {@link #kubeletClientSecret()}. */
    public static final String KUBELET_CONFIG_KEY = "kubelet.yaml";
    /**
     * Where the tenant DNS pods find their token ({@link #DNS_TOKEN_KEY} of {@link #dnsKubeconfigSecret()}): the
     * user of the kubeconfig the control plane writes for them reads it from here ({@code tokenFile}).
     */
    public static final String DNS_TOKEN_PATH = "/var/run/tenantplane/dns/token";

    public ControlPlaneNames {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(namespace, "namespace");
    }

    /** The names for {@code tenantCluster}. */
    public static ControlPlaneNames of(TenantCluster tenantCluster) {
        return new ControlPlaneNames(tenantCluster.tenant(), tenantCluster.namespace());
    }

    /** {@code <tenant>-control-plane}; its pods are {@code <tenant>-control-plane-<ordinal>}. */
    public String statefulSet() {
        return tenant + "-control-plane";
    }

    /** {@code <tenant>-control-plane-headless}: stable DNS names for the replicas (etcd peers). */
    public String headlessService() {
        return tenant + "-control-plane-headless";
    }

    /** {@code <tenant>-api}: the tenant API's ClusterIP Service, port 443. */
    public String apiService() {
        return tenant + "-api";
    }

    /** {@code <tenant>-dns}: the tenant's DNS (ConfigMap, Deployment, Service, NetworkPolicy; shared and dedicated). */
    public String dnsService() {
        return tenant + "-dns";
    }

    /** {@code <tenant>-kubeconfig}: the Secret with the tenant API's admin kubeconfig under {@value #KUBECONFIG_KEY}. */
    public String kubeconfigSecret() {
        return tenant + "-kubeconfig";
    }

    /**
     * {@code <tenant>-dns-kubeconfig}: the Secret the tenant's DNS reads the tenant API with (shared and dedicated):
     * a kubeconfig under {@value #KUBECONFIG_KEY} whose user reads its token from the file under {@value #DNS_TOKEN_KEY},
     * a token of the tenant ServiceAccount {@code kube-system/tenantplane-dns}, which may only list and watch what
     * CoreDNS reads.
     */
    public String dnsKubeconfigSecret() {
        return tenant + "-dns-kubeconfig";
    }

    /**
     * {@code <tenant>-kubelet-client}: the Secret with what the tenant API server needs to call tenantplane's kubelet
     * endpoint (shared and dedicated mode): its client certificate and key ({@code tls.crt}, {@code tls.key}), the
     * endpoint's CA ({@code ca.crt}) and the k3s config drop-in that points kube-apiserver at them
     * ({@value #KUBELET_CONFIG_KEY}). Written by tenantplane, not rendered: its data is issued at run time.
     */
    public String kubeletClientSecret() {
        return tenant + "-kubelet-client";
    }

    /** {@code <tenant>-token}: the Secret with the k3s join token (etcd datastore only). */
    public String tokenSecret() {
        return tenant + "-token";
    }

    /** {@code <tenant>-control-plane}: the ServiceAccount, Role and RoleBinding of the control plane pods. */
    public String serviceAccount() {
        return statefulSet();
    }

    /** {@code <tenant>-control-plane}: the PodDisruptionBudget (etcd datastore only). */
    public String podDisruptionBudget() {
        return statefulSet();
    }

    /** The URL in the published kubeconfig: {@code https://<tenant>-api.<namespace>.svc:443}. */
    public String apiServerUrl() {
        return "https://" + apiService() + "." + namespace + ".svc:443";
    }
}
