package io.tenantplane.model;

import io.tenantplane.model.IsolationProfile.Allowance;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** The rules of an IsolationProfile. */
final class IsolationProfileValidation {

    private static final Pattern PSS_VERSION = Pattern.compile("latest|v1\\.(0|[1-9][0-9]*)");
    /** What a ResourceQuota limits by a name without a prefix ({@code standardQuotaResources} upstream). */
    private static final java.util.Set<String> QUOTA_RESOURCES = java.util.Set.of("cpu", "memory",
            "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage", "requests.ephemeral-storage",
            "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
            "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports",
            "services.loadbalancers");
    /** Quota resources that count objects, so take whole numbers ({@code integerResources} upstream). */
    private static final java.util.Set<String> COUNTED = java.util.Set.of("pods", "resourcequotas", "services",
            "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "services.nodeports",
            "services.loadbalancers");

    private IsolationProfileValidation() {
    }

    static List<Problem> validate(IsolationProfile p) {
        List<Problem> out = new ArrayList<>();
        ObjectValidation.identity(p.apiVersion(), p.kind(), IsolationProfile.API_VERSION, IsolationProfile.KIND, out);
        ObjectValidation.metadata(p.metadata(), IsolationProfile.KIND, out);
        if (p.metadata() != null) {
            Checks.subdomain("metadata.name", p.metadata().name(), "a valid IsolationProfile name", out);
        }
        out.addAll(Structure.missingRequired(p));
        IsolationProfile.Spec s = p.spec();
        if (s != null) {
            if (s.network() != null) {
                network(s.network(), out);
            }
            if (s.quota() != null) {
                quota(s.quota(), out);
            }
            if (s.limits() != null) {
                limits(s.limits(), out);
            }
            if (s.podSecurity() != null && s.podSecurity().version() != null
                    && !PSS_VERSION.matcher(s.podSecurity().version()).matches()) {
                out.add(Problem.of("spec.podSecurity.version", "\"" + s.podSecurity().version() + "\" is not a Pod "
                        + "Security version: use latest (the default) or a Kubernetes minor version such as v1.31"));
            }
            if (s.nodePlacement() != null) {
                nodePlacement(s.nodePlacement(), out);
            }
            if (s.services() != null && s.services().allowedTypes() != null) {
                services(s.services().allowedTypes(), out);
            }
            Checks.subdomain("spec.serviceAccountName", s.serviceAccountName(), "a valid ServiceAccount name", out);
        }
        if (p.status() != null) {
            ObjectValidation.conditions("status.conditions", p.status().conditions(), out);
        }
        return out;
    }

    static List<Problem> validateFor(IsolationProfile p, TenantCluster tc) {
        List<Problem> out = new ArrayList<>();
        String wanted = tc.spec() == null || tc.spec().isolationProfileRef() == null
                ? null : tc.spec().isolationProfileRef().name();
        if (wanted != null && !wanted.equals(p.name())) {
            out.add(Problem.of("spec.isolationProfileRef.name", "references IsolationProfile " + wanted + ", but "
                    + "IsolationProfile " + p.name() + " was given"));
        }
        String ns = p.metadata() == null ? null : p.metadata().namespace();
        if (ns != null && tc.namespace() != null && !ns.equals(tc.namespace())) {
            out.add(Problem.of("spec.isolationProfileRef.name", "IsolationProfile " + p.id() + " is in another namespace; "
                    + "a TenantCluster uses a profile in its own namespace (" + tc.namespace() + ")"));
        }
        IsolationProfile d = p.withDefaults();
        if (tc.mode() == TenantCluster.Mode.PRIVATE && Boolean.TRUE.equals(d.spec().network().defaultDeny().egress())) {
            List<Allowance> allow = d.spec().network().allow();
            for (Allowance needed : List.of(Allowance.TENANT_API, Allowance.SAME_TENANT)) {
                if (!allow.contains(needed)) {
                    out.add(Problem.of("spec.mode", "private mode runs k3s agents that join the tenant API and reach "
                            + "each other, but IsolationProfile " + p.name() + " denies egress without the "
                            + needed.value() + " allowance; add " + needed.value() + " to spec.network.allow of the "
                            + "profile, or use another mode"));
                }
            }
        }
        return out;
    }

    private static void network(IsolationProfile.Network n, List<Problem> out) {
        Set<Allowance> seen = new HashSet<>();
        for (int i = 0; i < n.allow().size(); i++) {
            if (!seen.add(n.allow().get(i))) {
                out.add(Problem.of("spec.network.allow[" + i + "]", n.allow().get(i).value() + " is listed twice; "
                        + "remove the duplicate"));
            }
        }
        cidrs("spec.network.ingressFromCIDRs", n.ingressFromCIDRs(), out);
        cidrs("spec.network.egressToCIDRs", n.egressToCIDRs(), out);
        for (int i = 0; i < n.ingressFromNamespaces().size(); i++) {
            Checks.label("spec.network.ingressFromNamespaces[" + i + "]", n.ingressFromNamespaces().get(i),
                    "a valid namespace name", out);
        }
    }

    private static void cidrs(String field, List<String> cidrs, List<Problem> out) {
        for (int i = 0; i < cidrs.size(); i++) {
            if (!Checks.isCidr(cidrs.get(i))) {
                out.add(Problem.of(field + "[" + i + "]", "\"" + cidrs.get(i) + "\" is not a CIDR: write an address and "
                        + "a prefix length, e.g. 10.20.0.0/16 or fd00::/8"));
            }
        }
    }

    /**
     * The hard limits as a ResourceQuota takes them ({@code ValidateResourceQuotaSpec}): a name without a {@code /} is
     * one the quota system tracks ({@code standardQuotaResources}, or huge pages), any other a qualified name such as
     * {@code requests.nvidia.com/gpu} or {@code count/deployments.apps}; counted and extended resources (those with a
     * prefix outside {@code kubernetes.io} and without {@code requests.}) are whole numbers.
     */
    private static void quota(IsolationProfile.Quota q, List<Problem> out) {
        for (String k : q.hard().keySet()) {
            boolean hugePages = k.startsWith("hugepages-") || k.startsWith("requests.hugepages-");
            if (!Checks.isQualifiedName(k)) {
                out.add(Problem.of("spec.quota.hard[" + k + "]", "\"" + k + "\" is not a resource name: use names such "
                        + "as requests.cpu, limits.memory, pods, services, count/deployments.apps"));
            } else if (!k.contains("/") && !QUOTA_RESOURCES.contains(k) && !hugePages) {
                out.add(Problem.of("spec.quota.hard[" + k + "]", "\"" + k + "\" is not a resource a ResourceQuota "
                        + "limits: use one of " + String.join(", ", new java.util.TreeSet<>(QUOTA_RESOURCES))
                        + ", hugepages-<size>, or a qualified name such as requests.nvidia.com/gpu or "
                        + "count/deployments.apps"));
            }
        }
        Checks.quantities("spec.quota.hard", q.hard(), out).forEach((k, v) -> {
            boolean extended = k.contains("/") && !k.contains("kubernetes.io/") && !k.startsWith("requests.");
            if ((COUNTED.contains(k) || extended) && v.stripTrailingZeros().scale() > 0) {
                out.add(Problem.of("spec.quota.hard[" + k + "]", "\"" + q.hard().get(k) + "\" is not a whole number: "
                        + k + (extended ? " is an extended resource or an object count" : " counts objects")
                        + ", so a ResourceQuota takes whole numbers only"));
            }
        });
    }

    private static void limits(IsolationProfile.Limits l, List<Problem> out) {
        Map<String, Map<String, String>> all = new java.util.LinkedHashMap<>();
        all.put("defaultRequest", l.defaultRequest());
        all.put("default", l.defaultLimit());
        all.put("max", l.max());
        Map<String, Map<String, BigDecimal>> parsed = new java.util.HashMap<>();
        all.forEach((name, m) -> {
            Checks.containerResources("spec.limits." + name, m, out);
            parsed.put(name, Checks.quantities("spec.limits." + name, m, out));
        });
        // LimitRange admission rejects a default above max, and a defaultRequest above the default limit.
        order(l, parsed, "defaultRequest", "default", out);
        order(l, parsed, "default", "max", out);
        order(l, parsed, "defaultRequest", "max", out);
    }

    private static void order(IsolationProfile.Limits l, Map<String, Map<String, BigDecimal>> parsed, String lower,
                              String upper, List<Problem> out) {
        parsed.get(lower).forEach((k, v) -> {
            BigDecimal u = parsed.get(upper).get(k);
            if (u != null && v.compareTo(u) > 0) {
                out.add(Problem.of("spec.limits." + lower + "[" + k + "]", lower + " " + text(l, lower, k) + " is more "
                        + "than " + upper + " " + text(l, upper, k) + "; Kubernetes rejects such a LimitRange: lower "
                        + lower + " or raise " + upper));
            }
        });
    }

    private static String text(IsolationProfile.Limits l, String which, String key) {
        return switch (which) {
            case "defaultRequest" -> l.defaultRequest().get(key);
            case "default" -> l.defaultLimit().get(key);
            default -> l.max().get(key);
        };
    }

    private static void nodePlacement(IsolationProfile.NodePlacement np, List<Problem> out) {
        Checks.labels("spec.nodePlacement.nodeSelector", np.nodeSelector(), out);
        for (int i = 0; i < np.tolerations().size(); i++) {
            IsolationProfile.Toleration t = np.tolerations().get(i);
            String p = "spec.nodePlacement.tolerations[" + i + "]";
            if (t.key() != null && !t.key().isEmpty() && !Checks.isQualifiedName(t.key())) {
                out.add(Problem.of(p + ".key", "\"" + t.key() + "\" is not a valid taint key"));
            }
            boolean exists = t.operator() == IsolationProfile.TolerationOperator.EXISTS;
            if (exists && t.value() != null && !t.value().isEmpty()) {
                out.add(Problem.of(p + ".value", "must be empty when operator is Exists; remove the value or use "
                        + "operator Equal"));
            }
            if (!exists && t.value() != null && !Checks.isLabelValue(t.value())) {
                out.add(Problem.of(p + ".value", "\"" + t.value() + "\" is not a valid taint value (at most 63 "
                        + "letters, digits, '-', '_' or '.', starting and ending with a letter or digit), so the host "
                        + "would refuse every pod carrying it; use the value of the node taint"));
            }
            if ((t.key() == null || t.key().isEmpty()) && !exists) {
                out.add(Problem.of(p + ".operator", "an empty key matches every taint only with operator Exists; set "
                        + "the key or operator: Exists"));
            }
            if (t.tolerationSeconds() != null && t.effect() != IsolationProfile.TaintEffect.NO_EXECUTE) {
                out.add(Problem.of(p + ".tolerationSeconds", "only applies to effect NoExecute; remove it or set "
                        + "effect: NoExecute"));
            }
        }
    }

    private static void services(List<IsolationProfile.ServiceType> types, List<Problem> out) {
        if (types.isEmpty()) {
            out.add(Problem.of("spec.services.allowedTypes", "must list at least one Service type (ClusterIP, NodePort, "
                    + "LoadBalancer, ExternalName); to keep tenants from creating Services, leave Service out of "
                    + "their SyncPolicy instead"));
        }
        Set<IsolationProfile.ServiceType> seen = new HashSet<>();
        for (int i = 0; i < types.size(); i++) {
            if (!seen.add(types.get(i))) {
                out.add(Problem.of("spec.services.allowedTypes[" + i + "]", types.get(i).value() + " is listed twice; "
                        + "remove the duplicate"));
            }
        }
    }
}
