package io.tenantplane.explain;

import io.tenantplane.naming.NameDerivation;
import io.tenantplane.plan.Decision;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where one tenant object lands on the host, and why.
 *
 * @param tenant           the tenant
 * @param kind             the object's kind
 * @param virtualNamespace its namespace in the tenant (null for cluster-scoped kinds)
 * @param name             its name in the tenant
 * @param hostResource     the host namespace and name
 * @param labels           the labels the host object carries (or would carry)
 * @param annotations      the annotations the host object carries (or would carry)
 * @param decision         the planner's decision for it
 * @param naming           how the host name was derived
 * @param hypothetical     true when the tenant object was not given: the decision is the one it would get if it
 *                         existed as a bare object of its kind
 */
public record Explanation(String tenant, String kind, String virtualNamespace, String name,
                          Decision.HostRef hostResource, Map<String, String> labels, Map<String, String> annotations,
                          Decision decision, NameDerivation naming, boolean hypothetical) {

    public Explanation {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
    }

    /** The decision's action in CamelCase, e.g. {@code Create}. */
    public String action() {
        return decision.action().display();
    }

    /** The decision's machine reason, e.g. {@code NotOnHost}. */
    public String reason() {
        return decision.reason();
    }

    /** The decision's human sentence. */
    public String message() {
        return decision.message();
    }

    /**
     * The explanation as ordered maps and scalars, for YAML or JSON output: {@code source}, {@code hostResource}
     * ({@code namespace}, {@code name}), {@code action}, {@code reason}, {@code message}, {@code hypothetical},
     * {@code labels}, {@code annotations} (sorted) and {@code naming} ({@code plainForm}, {@code hashed}, and for a
     * hashed name {@code hashReason}, {@code hashInput}, {@code sha256}; then {@code hostName}).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("tenant", tenant);
        source.put("kind", kind);
        if (virtualNamespace != null) {
            source.put("virtualNamespace", virtualNamespace);
        }
        source.put("name", name);
        m.put("source", source);
        Map<String, Object> host = new LinkedHashMap<>();
        if (hostResource.namespace() != null) {
            host.put("namespace", hostResource.namespace());
        }
        host.put("name", hostResource.name());
        m.put("hostResource", host);
        m.put("action", action());
        m.put("reason", reason());
        m.put("message", message());
        m.put("hypothetical", hypothetical);
        m.put("labels", new java.util.TreeMap<>(labels));
        m.put("annotations", new java.util.TreeMap<>(annotations));
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("plainForm", naming.plainForm());
        n.put("hashed", naming.hashed());
        if (naming.hashed()) {
            n.put("hashReason", naming.hashReason());
            n.put("hashInput", naming.hashInput());
            n.put("sha256", naming.sha256());
        }
        n.put("hostName", naming.hostName());
        m.put("naming", n);
        return m;
    }
}
