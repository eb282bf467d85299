package io.tenantplane.isolation;

import static io.tenantplane.json.Build.arr;
import static io.tenantplane.json.Build.obj;

import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.controlplane.internal.Agents;
import io.tenantplane.controlplane.internal.TenantDns;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.IsolationProfile.Allowance;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Renders the host-side boundary of one tenant from its TenantCluster and IsolationProfile, as manifests for the
 * tenant's {@linkplain TenantCluster#hostNamespace() host namespace}:
 * <ol>
 *   <li>the Namespace with its Pod Security labels ({@code pod-security.kubernetes.io/enforce}, {@code audit},
 *       {@code warn} and their {@code -version}s);</li>
 *   <li>the host ServiceAccount {@code <tenant>-workload} tenant pods run as, without token automount (unless the
 *       profile names an existing one, or the mode is private);</li>
 *   <li>NetworkPolicies: {@code <tenant>-default-deny}, then one per allowance or opening;</li>
 *   <li>ResourceQuota {@code <tenant>-quota} and LimitRange {@code <tenant>-limits}, when the profile sets them.</li>
 * </ol>
 *
 * <p><b>Network.</b> Every NetworkPolicy selects only this tenant's workload pods: label
 * {@code tenantplane.io/tenant=<tenant>} and not the control-plane or DNS component, so several tenants share a namespace
 * safely and the tenant's control plane stays reachable for the tenantplane controller. {@code <tenant>-default-deny}
 * is always there; allowances add exactly what they name. Pods of another tenant are never admitted: same-tenant rules
 * match this tenant's label only, and where a direction is left open ({@code defaultDeny.ingress/egress: false}) it
 * is opened to pods without any tenant label, to the tenant's own pods, and to public addresses, never to pods
 * labelled with another tenant. CIDR rules ({@code internet-egress}, the extra CIDR lists) match addresses, not
 * labels: keep them off the cluster's pod ranges, as the built-in ones do by leaving out private, shared
 * (100.64.0.0/10) and link-local ranges, which also keeps the cloud metadata endpoint out of reach.
 *
 * <p><b>Namespace-wide parts.</b> ResourceQuota, LimitRange and Pod Security labels act on the whole namespace.
 * In dedicated and private modes the namespace is the tenant's own, and tenantplane owns the Namespace object. In
 * shared mode the namespace belongs to the platform team and holds several tenants (and their control planes):
 * its ResourceQuota caps the sum of everything in it, so the profile's quota is <em>the namespace's</em> quota,
 * shared by its tenants, and validation requires tenants in one namespace to use the same quota, limits and Pod
 * Security (see {@link io.tenantplane.model.CustomResources}). Each tenant still renders its own identical
 * {@code <tenant>-quota} and {@code <tenant>-limits} (identical quotas and LimitRanges act as one), so each object has
 * one owner. The shared Namespace is rendered with the Pod Security labels only and without tenant labels: it is an
 * apply intent for those labels, not an object tenantplane owns.
 *
 * <p><b>Private mode.</b> The tenant's workloads run inside its k3s agent pods, which need privileged containers, so
 * the host namespace enforces {@code privileged}; the profile's level then applies inside the tenant, not on the host.
 *
 * <p>Every object carries {@code tenantplane.io/reason}; all but the shared Namespace carry
 * {@code tenantplane.io/managed-by=tenantplane}, {@code tenantplane.io/tenant} and
 * {@value ControlPlaneRenderer#COMPONENT_LABEL}={@value #COMPONENT}. Pure and thread-safe.
 */
public final class IsolationRenderer {

    /** {@value ControlPlaneRenderer#COMPONENT_LABEL} value of isolation objects. */
    public static final String COMPONENT = ReverseMapping.ISOLATION_COMPONENT;
    /**
     * Address ranges that public-internet rules leave out: RFC 1918 private ranges, RFC 6598 shared space (used for
     * pod networks too), link-local (including the 169.254.169.254 metadata endpoint) and loopback.
     */
    public static final List<String> NON_PUBLIC_IPV4 = List.of("10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
            "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16");
    /** The Pod Security label prefix. */
    public static final String POD_SECURITY_PREFIX = "pod-security.kubernetes.io/";

    /** A renderer; it holds no state. */
    public IsolationRenderer() {
    }

    /**
     * The pod selector of a tenant's workload pods: the tenant label, and not the tenant's control plane.
     * In private mode this selects the tenant's k3s agent pods, where its workloads run.
     */
    public static JsonObject workloadSelector(String tenant) {
        return obj("matchLabels", Map.of(ReverseMapping.TENANT, tenant),
                "matchExpressions", arr(obj("key", ControlPlaneRenderer.COMPONENT_LABEL, "operator", "NotIn",
                        "values", arr(ControlPlaneRenderer.COMPONENT, TenantDns.COMPONENT))));
    }

    /**
     * The host manifests isolating {@code tenantCluster}'s workloads as {@code profile} says.
     *
     * @throws InvalidResourceException listing every problem when either object does not pass validation, or the
     *                                  profile is not the one the TenantCluster references
     */
    public List<JsonObject> render(TenantCluster tenantCluster, IsolationProfile profile) {
        Objects.requireNonNull(tenantCluster, "tenantCluster");
        Objects.requireNonNull(profile, "profile");
        List<Problem> problems = new ArrayList<>();
        tenantCluster.validate().forEach(p -> problems.add(p.withSource("TenantCluster " + tenantCluster.id())));
        profile.validate().forEach(p -> problems.add(p.withSource("IsolationProfile " + profile.id())));
        profile.validateFor(tenantCluster).forEach(p -> problems.add(p.withSource("TenantCluster " + tenantCluster.id())));
        if (!problems.isEmpty()) {
            throw new InvalidResourceException("cannot render the isolation of TenantCluster " + tenantCluster.id()
                    + " with IsolationProfile " + profile.id(), problems);
        }
        Context c = new Context(tenantCluster.withDefaults(), profile.withDefaults());
        List<JsonObject> out = new ArrayList<>();
        out.add(namespace(c));
        if (c.tc.mode() != Mode.PRIVATE && c.spec().serviceAccountName() == null) {
            out.add(obj("apiVersion", "v1", "kind", "ServiceAccount",
                    "metadata", c.metadata(c.profile.workloadServiceAccountName(c.tenant), "host identity of tenant "
                            + c.tenant + "'s pods: no API token is mounted and no role is bound"),
                    "automountServiceAccountToken", false));
        }
        out.addAll(networkPolicies(c));
        // The LimitRange before the ResourceQuota: a quota on requests or limits makes the host refuse every pod
        // that does not name them, and the LimitRange's defaults are what name them for pods that do not. Applied in
        // this order, no pod meets the quota without the defaults, not even one created between the two writes.
        IsolationProfile.Limits limits = c.spec().limits();
        if (limits != null && !(limits.defaultRequest().isEmpty() && limits.defaultLimit().isEmpty()
                && limits.max().isEmpty())) {
            JsonObject item = obj("type", "Container",
                    "defaultRequest", limits.defaultRequest().isEmpty() ? null : limits.defaultRequest(),
                    "default", limits.defaultLimit().isEmpty() ? null : limits.defaultLimit(),
                    "max", limits.max().isEmpty() ? null : limits.max());
            out.add(obj("apiVersion", "v1", "kind", "LimitRange",
                    "metadata", c.metadata(c.tenant + "-limits", "container defaults and maximums of IsolationProfile "
                            + c.profile.name() + " for host namespace " + c.host
                            + (c.tc.mode() == Mode.SHARED ? " (namespace-wide: every pod there gets them)" : "")),
                    "spec", obj("limits", arr(item))));
        }
        IsolationProfile.Quota quota = c.spec().quota();
        if (quota != null && !quota.hard().isEmpty()) {
            out.add(obj("apiVersion", "v1", "kind", "ResourceQuota",
                    "metadata", c.metadata(c.tenant + "-quota", c.tc.mode() == Mode.SHARED
                            ? "quota of IsolationProfile " + c.profile.name() + " for host namespace " + c.host
                            + "; a ResourceQuota counts everything in the namespace, so in shared mode its tenants "
                            + "(and their control planes) share it"
                            : "quota of IsolationProfile " + c.profile.name() + " for tenant " + c.tenant
                            + "'s own host namespace"),
                    "spec", obj("hard", quota.hard())));
        }
        return List.copyOf(out);
    }

    private static JsonObject namespace(Context c) {
        IsolationProfile.PodSecurity ps = c.spec().podSecurity();
        boolean isPrivate = c.tc.mode() == Mode.PRIVATE;
        String level = isPrivate ? IsolationProfile.Level.PRIVILEGED.value() : ps.level().value();
        String version = isPrivate ? "latest" : ps.version();
        Map<String, String> pss = new LinkedHashMap<>();
        for (String mode : List.of("enforce", "audit", "warn")) {
            pss.put(POD_SECURITY_PREFIX + mode, level);
            pss.put(POD_SECURITY_PREFIX + mode + "-version", version);
        }
        if (c.tc.mode() == Mode.SHARED) {
            return obj("apiVersion", "v1", "kind", "Namespace",
                    "metadata", obj("name", c.host, "labels", pss, "annotations", Map.of(ReverseMapping.REASON,
                            "Pod Security level " + level + " (version " + version + ") for the tenant workloads in "
                                    + "this namespace, from their IsolationProfile; the namespace belongs to the "
                                    + "platform team, tenantplane sets only these labels")));
        }
        Map<String, String> labels = new LinkedHashMap<>(c.labels());
        labels.putAll(pss);
        String reason = isPrivate
                ? "tenant " + c.tenant + "'s own host namespace (private mode); Pod Security privileged because its "
                + "k3s agents need privileged containers, IsolationProfile " + c.profile.name() + "'s level "
                + ps.level().value() + " applies inside the tenant"
                : "tenant " + c.tenant + "'s own host namespace (dedicated mode), Pod Security level " + level
                + " (version " + version + ") from IsolationProfile " + c.profile.name();
        return obj("apiVersion", "v1", "kind", "Namespace",
                "metadata", obj("name", c.host, "labels", labels, "annotations", Map.of(ReverseMapping.REASON, reason)));
    }

    private static List<JsonObject> networkPolicies(Context c) {
        List<JsonObject> out = new ArrayList<>();
        IsolationProfile.Network n = c.spec().network();
        out.add(policy(c, "default-deny", "baseline for tenant " + c.tenant + "'s pods: no traffic in or out except "
                + "what the other NetworkPolicies of tenant " + c.tenant + " admit; pods of other tenants are never "
                + "admitted", List.of("Ingress", "Egress"), null, null));
        JsonObject nonTenantPodsAnywhere = obj("namespaceSelector", obj(), "podSelector", obj("matchExpressions",
                arr(obj("key", ReverseMapping.TENANT, "operator", "DoesNotExist"))));
        JsonObject ownPodsAnywhere = obj("namespaceSelector", obj(), "podSelector", sameTenant(c));
        JsonObject publicAddresses = obj("ipBlock", obj("cidr", "0.0.0.0/0", "except", NON_PUBLIC_IPV4));
        if (!n.defaultDeny().ingress()) {
            out.add(policy(c, "open-ingress", "IsolationProfile " + c.profile.name() + " does not deny ingress by "
                    + "default: admit pods that belong to no tenant, tenant " + c.tenant + "'s own pods and public "
                    + "addresses, never pods of other tenants", List.of("Ingress"),
                    arr(obj("from", arr(nonTenantPodsAnywhere, ownPodsAnywhere, publicAddresses))), null));
        }
        if (!n.defaultDeny().egress()) {
            out.add(policy(c, "open-egress", "IsolationProfile " + c.profile.name() + " does not deny egress by "
                    + "default: allow traffic to pods that belong to no tenant, to tenant " + c.tenant + "'s own pods "
                    + "and to public addresses, never to pods of other tenants", List.of("Egress"), null,
                    arr(obj("to", arr(nonTenantPodsAnywhere, ownPodsAnywhere, publicAddresses)))));
        }
        for (Allowance a : Allowance.values()) {
            if (n.allow().contains(a)) {
                out.add(allowance(c, a));
            }
        }
        if (!n.ingressFromCIDRs().isEmpty() || !n.ingressFromNamespaces().isEmpty() || !n.egressToCIDRs().isEmpty()) {
            out.add(extra(c, n));
        }
        if (c.tc.mode() == Mode.PRIVATE) {
            out.add(agents(c));
        }
        return out;
    }

    /**
     * Private mode: what the tenant's k3s agents need and nothing more, whatever the profile says of workloads:
     * their tenant API (to register and run pods), the cluster resolver (to find it), and the API server's calls to
     * their kubelets (logs, exec, port-forward).
     */
    private static JsonObject agents(Context c) {
        JsonObject controlPlane = obj(
                "namespaceSelector", obj("matchLabels", Map.of("kubernetes.io/metadata.name", c.tc.namespace())),
                "podSelector", obj("matchLabels", ControlPlaneRenderer.selectorLabels(c.tenant)));
        JsonObject kubeSystem = obj("namespaceSelector", obj("matchLabels",
                Map.of("kubernetes.io/metadata.name", "kube-system")));
        Map<String, String> agentLabels = new LinkedHashMap<>();
        agentLabels.put(ReverseMapping.TENANT, c.tenant);
        agentLabels.put(ControlPlaneRenderer.COMPONENT_LABEL, Agents.COMPONENT);
        JsonObject np = obj("apiVersion", "networking.k8s.io/v1", "kind", "NetworkPolicy",
                "metadata", c.metadata(c.tenant + "-agents", "tenant " + c.tenant + "'s k3s agents (private "
                        + "mode) may reach their tenant API (port " + ControlPlaneRenderer.API_PORT + " in namespace "
                        + c.tc.namespace() + ") and cluster DNS, and take the API server's kubelet calls (port "
                        + "10250); nothing else"),
                "spec", obj("podSelector", obj("matchLabels", agentLabels),
                        "policyTypes", arr("Ingress", "Egress"),
                        "ingress", arr(obj("from", arr(controlPlane),
                                "ports", arr(obj("protocol", "TCP", "port", 10250)))),
                        "egress", arr(obj("to", arr(controlPlane),
                                        "ports", arr(obj("protocol", "TCP", "port", ControlPlaneRenderer.API_PORT))),
                                obj("to", arr(kubeSystem),
                                        "ports", arr(obj("protocol", "UDP", "port", 53),
                                                obj("protocol", "TCP", "port", 53))))));
        return np;
    }

    private static JsonObject allowance(Context c, Allowance a) {
        String from = "allowance " + a.value() + " of IsolationProfile " + c.profile.name() + ": ";
        return switch (a) {
            case DNS -> {
                JsonObject kubeSystem = obj("namespaceSelector", obj("matchLabels",
                        Map.of("kubernetes.io/metadata.name", "kube-system")));
                JsonObject rule = obj("to", arr(kubeSystem),
                        "ports", arr(obj("protocol", "UDP", "port", 53), obj("protocol", "TCP", "port", 53)));
                if (c.tc.mode() == Mode.PRIVATE) {
                    yield policy(c, "allow-dns", from + "tenant " + c.tenant + "'s pods may query cluster DNS (port "
                            + "53 in kube-system)", List.of("Egress"), null, arr(rule));
                }
                Map<String, String> dnsLabels = new LinkedHashMap<>();
                dnsLabels.put(ReverseMapping.TENANT, c.tenant);
                dnsLabels.put(ControlPlaneRenderer.COMPONENT_LABEL, TenantDns.COMPONENT);
                JsonObject tenantDns = obj("to", arr(obj(
                        "namespaceSelector", obj("matchLabels", Map.of("kubernetes.io/metadata.name", c.tc.namespace())),
                        "podSelector", obj("matchLabels", dnsLabels))),
                        "ports", arr(obj("protocol", "UDP", "port", TenantDns.PORT),
                                obj("protocol", "TCP", "port", TenantDns.PORT)));
                yield policy(c, "allow-dns", from + "tenant " + c.tenant + "'s pods may query their own DNS ("
                        + c.tenant + "-dns in namespace " + c.tc.namespace() + ", port " + TenantDns.PORT
                        + ") and the host's cluster DNS (port 53 in kube-system)", List.of("Egress"), null,
                        arr(tenantDns, rule));
            }
            case TENANT_API -> {
                JsonObject controlPlane = obj(
                        "namespaceSelector", obj("matchLabels", Map.of("kubernetes.io/metadata.name", c.tc.namespace())),
                        "podSelector", obj("matchLabels", ControlPlaneRenderer.selectorLabels(c.tenant)));
                JsonObject rule = obj("to", arr(controlPlane),
                        "ports", arr(obj("protocol", "TCP", "port", ControlPlaneRenderer.API_PORT)));
                yield policy(c, "allow-tenant-api", from + "tenant " + c.tenant + "'s pods may reach their own "
                        + "control plane in namespace " + c.tc.namespace() + " (port " + ControlPlaneRenderer.API_PORT
                        + ")", List.of("Egress"), null, arr(rule));
            }
            case SAME_TENANT -> policy(c, "allow-same-tenant", from + "tenant " + c.tenant + "'s pods may talk to each "
                            + "other; only pods labelled " + ReverseMapping.TENANT + "=" + c.tenant + " match",
                    List.of("Ingress", "Egress"),
                    arr(obj("from", arr(obj("podSelector", sameTenant(c))))),
                    arr(obj("to", arr(obj("podSelector", sameTenant(c))))));
            case INTERNET_EGRESS -> {
                JsonObject internet = obj("ipBlock", obj("cidr", "0.0.0.0/0", "except", NON_PUBLIC_IPV4));
                yield policy(c, "allow-internet-egress", from + "tenant " + c.tenant + "'s pods may reach public "
                        + "addresses (not private, shared, loopback or link-local ranges)", List.of("Egress"), null,
                        arr(obj("to", arr(internet))));
            }
        };
    }

    private static JsonObject extra(Context c, IsolationProfile.Network n) {
        List<Object> from = new ArrayList<>();
        n.ingressFromCIDRs().forEach(cidr -> from.add(obj("ipBlock", obj("cidr", cidr))));
        n.ingressFromNamespaces().forEach(ns -> from.add(obj(
                "namespaceSelector", obj("matchLabels", Map.of("kubernetes.io/metadata.name", ns)),
                "podSelector", obj("matchExpressions", arr(obj("key", ReverseMapping.TENANT, "operator",
                        "DoesNotExist"))))));
        List<Object> to = new ArrayList<>();
        n.egressToCIDRs().forEach(cidr -> to.add(obj("ipBlock", obj("cidr", cidr))));
        List<String> types = new ArrayList<>();
        if (!from.isEmpty()) {
            types.add("Ingress");
        }
        if (!to.isEmpty()) {
            types.add("Egress");
        }
        List<String> parts = new ArrayList<>();
        if (!n.ingressFromCIDRs().isEmpty()) {
            parts.add("ingress from " + String.join(", ", n.ingressFromCIDRs()));
        }
        if (!n.ingressFromNamespaces().isEmpty()) {
            parts.add("ingress from non-tenant pods in namespaces " + String.join(", ", n.ingressFromNamespaces()));
        }
        if (!n.egressToCIDRs().isEmpty()) {
            parts.add("egress to " + String.join(", ", n.egressToCIDRs()));
        }
        return policy(c, "allow-extra", "extra openings of IsolationProfile " + c.profile.name() + " for tenant "
                        + c.tenant + ": " + String.join("; ", parts), types,
                from.isEmpty() ? null : arr(obj("from", from)), to.isEmpty() ? null : arr(obj("to", to)));
    }

    private static JsonObject sameTenant(Context c) {
        return obj("matchLabels", Map.of(ReverseMapping.TENANT, c.tenant));
    }

    private static JsonObject policy(Context c, String suffix, String reason, List<String> types, Object ingress,
                                     Object egress) {
        return obj("apiVersion", "networking.k8s.io/v1", "kind", "NetworkPolicy",
                "metadata", c.metadata(c.tenant + "-" + suffix, reason),
                "spec", obj("podSelector", workloadSelector(c.tenant), "policyTypes", types,
                        "ingress", ingress, "egress", egress));
    }

    /** The inputs with defaults applied, and what every object needs from them. */
    private static final class Context {
        final TenantCluster tc;
        final IsolationProfile profile;
        final String tenant;
        final String host;

        Context(TenantCluster tc, IsolationProfile profile) {
            this.tc = tc;
            this.profile = profile;
            this.tenant = tc.tenant();
            this.host = tc.hostNamespace();
        }

        IsolationProfile.Spec spec() {
            return profile.spec();
        }

        Map<String, String> labels() {
            return ControlPlaneRenderer.renderedLabels(tenant, COMPONENT);
        }

        JsonObject metadata(String name, String reason) {
            return obj("name", name, "namespace", host, "labels", labels(),
                    "annotations", Map.of(ReverseMapping.REASON, reason));
        }
    }
}
