package io.tenantplane.controlplane.internal;

import static io.tenantplane.json.Build.arr;
import static io.tenantplane.json.Build.obj;

import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A shared or dedicated tenant's own cluster DNS: CoreDNS answering {@code cluster.local} from the tenant API (its
 * {@code kubernetes} plugin reads Services, EndpointSlices, Namespaces and Pods through a read-only credential
 * of its own) and forwarding every other name to the host's resolver. Rendered beside the control plane, in the
 * TenantCluster's namespace:
 * <ol>
 *   <li>ConfigMap {@code <tenant>-dns} with the Corefile;</li>
 *   <li>Deployment {@code <tenant>-dns}: {@value #REPLICAS} replicas of CoreDNS ({@value #IMAGE}, the build k3s 1.32
 *       ships) as UID 65532 on port {@value #PORT}, no capabilities, read-only root, RuntimeDefault seccomp (passes
 *       {@code restricted}); its credential is mounted from Secret {@code <tenant>-dns-kubeconfig}, so the pods start
 *       once the control plane has published it;</li>
 *   <li>Service {@code <tenant>-dns}: port 53 UDP and TCP; its ClusterIP is the nameserver synced pods get;</li>
 *   <li>NetworkPolicy {@code <tenant>-dns}: queries only from this tenant's workload pods (in its host namespace),
 *       and out only to the tenant API (port {@value ControlPlaneRenderer#API_PORT}) and the host's DNS in
 *       {@code kube-system}: another tenant can neither query nor enumerate this tenant's names.</li>
 * </ol>
 * The DNS pods carry {@value ControlPlaneRenderer#COMPONENT_LABEL}={@value #COMPONENT}, so neither the control-plane
 * selector (the tenant API Service) nor the workload NetworkPolicies of the boundary select them.
 *
 * <p>CoreDNS reads the tenant API as the tenant ServiceAccount {@code kube-system/tenantplane-dns}, which may only list
 * and watch endpoints, services, pods, namespaces and endpointslices (CoreDNS's own {@code system:coredns} rules): the
 * control plane's kubeconfig-publisher creates that account and its ClusterRole in the tenant, mints a 24 h token
 * every hour and publishes it with a kubeconfig whose user reads the token from a file, which client-go re-reads.
 * Never the tenant admin's credential.
 */
public final class TenantDns {

    /** {@value ControlPlaneRenderer#COMPONENT_LABEL} of the DNS objects and pods. */
    public static final String COMPONENT = ReverseMapping.DNS_COMPONENT;
    /** The CoreDNS image (k3s 1.32 ships this CoreDNS release as {@code rancher/mirrored-coredns-coredns}). */
    public static final String IMAGE = "docker.io/rancher/mirrored-coredns-coredns:1.12.3";
    /** The port CoreDNS listens on in the pod (unprivileged). */
    public static final int PORT = 1053;
    /** DNS replicas per tenant. */
    public static final int REPLICAS = 2;
    /** The tenant's cluster domain (k3s's default {@code --cluster-domain}). */
    public static final String CLUSTER_DOMAIN = io.tenantplane.transform.Transformer.CLUSTER_DOMAIN;

    /**
     * Where the DNS credential is mounted: beside, not inside, the read-only Corefile mount, since a container
     * runtime cannot create a mount point inside a read-only volume.
     */
    private static final String CREDENTIAL_DIR = "/var/run/tenantplane/dns";
    private static final String KUBECONFIG_PATH = CREDENTIAL_DIR + "/kubeconfig";
    /** Where the DNS pods find their token; the kubeconfig's user reads it from here ({@code tokenFile}). */
    public static final String TOKEN_PATH = ControlPlaneNames.DNS_TOKEN_PATH;

    private TenantDns() {
    }

    /** The Corefile: tenant names from the tenant API, the rest from the host's resolver. */
    public static String corefile() {
        return String.join("\n",
                ".:" + PORT + " {",
                "    errors",
                "    health :8080",
                "    ready :8181",
                "    kubernetes " + CLUSTER_DOMAIN + " in-addr.arpa ip6.arpa {",
                "        kubeconfig " + KUBECONFIG_PATH,
                "        pods insecure",
                "        fallthrough in-addr.arpa ip6.arpa",
                "        ttl 30",
                "    }",
                "    forward . /etc/resolv.conf",
                "    cache 30",
                "    loop",
                "    reload",
                "    loadbalance",
                "}",
                "");
    }

    /** The DNS objects of {@code tc} (shared or dedicated mode), in apply order. */
    public static List<JsonObject> render(TenantCluster tc) {
        TenantCluster d = tc.withDefaults();
        ControlPlaneNames n = ControlPlaneNames.of(d);
        String t = d.tenant();
        String name = n.dnsService();
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(ReverseMapping.TENANT, t);
        selector.put(ControlPlaneRenderer.COMPONENT_LABEL, COMPONENT);
        JsonObject container = obj("name", "coredns", "image", IMAGE,
                "args", arr("-conf", "/etc/coredns/Corefile"),
                "ports", arr(obj("name", "dns", "containerPort", PORT, "protocol", "UDP"),
                        obj("name", "dns-tcp", "containerPort", PORT, "protocol", "TCP")),
                "resources", obj("requests", obj("cpu", "50m", "memory", "64Mi"), "limits", obj("memory", "170Mi")),
                "securityContext", obj("runAsNonRoot", true, "runAsUser", 65532, "runAsGroup", 65532,
                        "allowPrivilegeEscalation", false, "readOnlyRootFilesystem", true,
                        "capabilities", obj("drop", arr("ALL"))),
                "livenessProbe", obj("httpGet", obj("path", "/health", "port", 8080), "initialDelaySeconds", 60,
                        "periodSeconds", 10, "failureThreshold", 3),
                "readinessProbe", obj("httpGet", obj("path", "/ready", "port", 8181), "periodSeconds", 2),
                "volumeMounts", arr(obj("name", "config", "mountPath", "/etc/coredns", "readOnly", true),
                        obj("name", "kubeconfig", "mountPath", CREDENTIAL_DIR, "readOnly", true)));
        JsonObject podSpec = obj("automountServiceAccountToken", false, "enableServiceLinks", false,
                "securityContext", obj("seccompProfile", obj("type", "RuntimeDefault")),
                "containers", arr(container),
                "volumes", arr(obj("name", "config", "configMap", obj("name", name,
                                "items", arr(obj("key", "Corefile", "path", "Corefile")))),
                        obj("name", "kubeconfig", "secret", obj("secretName", n.dnsKubeconfigSecret(),
                                "items", arr(obj("key", ControlPlaneNames.KUBECONFIG_KEY, "path", "kubeconfig"),
                                        obj("key", ControlPlaneNames.DNS_TOKEN_KEY, "path", "token"))))));
        Map<String, String> podLabels = new LinkedHashMap<>(labels(t));
        JsonObject tenantPods = obj("namespaceSelector", obj("matchLabels",
                        Map.of("kubernetes.io/metadata.name", d.hostNamespace())),
                "podSelector", obj("matchLabels", Map.of(ReverseMapping.TENANT, t)));
        JsonObject controlPlane = obj("podSelector", obj("matchLabels", ControlPlaneRenderer.selectorLabels(t)));
        JsonObject kubeSystem = obj("namespaceSelector", obj("matchLabels",
                Map.of("kubernetes.io/metadata.name", "kube-system")));
        return List.of(
                obj("apiVersion", "v1", "kind", "ConfigMap",
                        "metadata", meta(d, name, "the Corefile of tenant " + t + "'s DNS: names under "
                                + CLUSTER_DOMAIN + " from the tenant API, the rest from the host's resolver"),
                        "data", obj("Corefile", corefile())),
                obj("apiVersion", "apps/v1", "kind", "Deployment",
                        "metadata", meta(d, name, "tenant " + t + "'s cluster DNS (CoreDNS over the tenant API); "
                                + "synced pods with dnsPolicy ClusterFirst use it"),
                        "spec", obj("replicas", REPLICAS, "selector", obj("matchLabels", selector),
                                "template", obj("metadata", obj("labels", podLabels), "spec", podSpec))),
                obj("apiVersion", "v1", "kind", "Service",
                        "metadata", meta(d, name, "the nameserver address of tenant " + t + "'s pods"),
                        "spec", obj("type", "ClusterIP", "selector", selector,
                                "ports", arr(obj("name", "dns", "port", 53, "targetPort", PORT, "protocol", "UDP"),
                                        obj("name", "dns-tcp", "port", 53, "targetPort", PORT, "protocol", "TCP")))),
                obj("apiVersion", "networking.k8s.io/v1", "kind", "NetworkPolicy",
                        "metadata", meta(d, name, "tenant " + t + "'s DNS answers only tenant " + t + "'s pods and "
                                + "reaches only its tenant API and the host's DNS"),
                        "spec", obj("podSelector", obj("matchLabels", selector),
                                "policyTypes", arr("Ingress", "Egress"),
                                "ingress", arr(obj("from", arr(tenantPods), "ports", arr(
                                        obj("protocol", "UDP", "port", PORT), obj("protocol", "TCP", "port", PORT)))),
                                "egress", arr(obj("to", arr(controlPlane), "ports", arr(obj("protocol", "TCP",
                                                "port", ControlPlaneRenderer.API_PORT))),
                                        obj("to", arr(kubeSystem), "ports", arr(obj("protocol", "UDP", "port", 53),
                                                obj("protocol", "TCP", "port", 53)))))));
    }

    private static Map<String, String> labels(String tenant) {
        return ControlPlaneRenderer.renderedLabels(tenant, COMPONENT);
    }

    private static JsonObject meta(TenantCluster tc, String name, String reason) {
        return obj("name", name, "namespace", tc.namespace(), "labels", labels(tc.tenant()),
                "annotations", Map.of(ReverseMapping.REASON, reason));
    }
}
