package io.tenantplane.reliability;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Kubernetes NetworkPolicy semantics, evaluated on policies as data: may one pod open a connection to another on a
 * port. Written from the API reference, independently of the renderer, as the oracle of the isolation tests:
 * <ul>
 *   <li>A pod is isolated for a direction when some policy in its namespace selects it and lists that direction in
 *       {@code policyTypes} (default: Ingress, plus Egress when the policy has egress rules). An isolated pod allows
 *       only what some selecting policy's rule of that direction admits; a pod that is not isolated allows all.</li>
 *   <li>A connection needs both the source's egress and the destination's ingress.</li>
 *   <li>A rule admits a peer when its peer list is absent or empty, or any peer matches, and its port list is absent or
 *       empty, or any port matches (protocol TCP by default; {@code endPort} ranges; named ports never match a number).</li>
 *   <li>A peer with {@code ipBlock} matches by address ({@code except} excluded); with {@code namespaceSelector}, pods of
 *       the selected namespaces (and the {@code podSelector}, when present); with only {@code podSelector}, pods of the
 *       policy's own namespace.</li>
 *   <li>Label selectors: {@code matchLabels} and {@code matchExpressions} (In, NotIn, Exists, DoesNotExist) ANDed;
 *       an empty selector selects everything.</li>
 * </ul>
 */
public final class NetworkPolicies {

    /** A pod as the network sees it. */
    public record Pod(String name, String namespace, Map<String, String> labels, String ip) {
        public Pod {
            labels = Map.copyOf(labels);
        }

        @Override
        public String toString() {
            return namespace + "/" + name + labels;
        }
    }

    private final List<JsonObject> policies;
    private final Map<String, Map<String, String>> namespaceLabels;

    /**
     * @param policies        every NetworkPolicy of the cluster
     * @param namespaceLabels the labels of each namespace (include {@code kubernetes.io/metadata.name}, which the API
     *                        server sets on every namespace)
     */
    public NetworkPolicies(List<JsonObject> policies, Map<String, Map<String, String>> namespaceLabels) {
        this.policies = policies.stream().filter(p -> "NetworkPolicy".equals(Json.string(p, "kind"))).toList();
        this.namespaceLabels = Map.copyOf(namespaceLabels);
    }

    /** True when {@code from} may connect to {@code to} on {@code protocol}/{@code port}. */
    public boolean allows(Pod from, Pod to, String protocol, int port) {
        return admits(from, to, "Egress", protocol, port) && admits(to, from, "Ingress", protocol, port);
    }

    /** The policies whose rules admit the connection in the given direction, for failure messages. */
    public List<String> admitting(Pod from, Pod to, String protocol, int port) {
        List<String> out = new ArrayList<>();
        for (JsonObject p : policies) {
            if (selectsFor(p, from, "Egress") && ruleAdmits(p, "Egress", to, protocol, port)) {
                out.add("egress " + Json.string(p, "metadata", "namespace") + "/" + Json.string(p, "metadata", "name"));
            }
            if (selectsFor(p, to, "Ingress") && ruleAdmits(p, "Ingress", from, protocol, port)) {
                out.add("ingress " + Json.string(p, "metadata", "namespace") + "/" + Json.string(p, "metadata", "name"));
            }
        }
        return out;
    }

    private boolean admits(Pod subject, Pod peer, String direction, String protocol, int port) {
        boolean isolated = false;
        for (JsonObject p : policies) {
            if (!selectsFor(p, subject, direction)) {
                continue;
            }
            isolated = true;
            if (ruleAdmits(p, direction, peer, protocol, port)) {
                return true;
            }
        }
        return !isolated;
    }

    private boolean selectsFor(JsonObject policy, Pod pod, String direction) {
        if (!Objects.equals(Json.string(policy, "metadata", "namespace"), pod.namespace())) {
            return false;
        }
        JsonObject spec = Json.object(policy, "spec");
        if (spec == null || !matches(Json.object(spec, "podSelector"), pod.labels())) {
            return false;
        }
        return types(spec).contains(direction);
    }

    private static List<String> types(JsonObject spec) {
        JsonArray declared = array(spec, "policyTypes");
        List<String> out = new ArrayList<>();
        if (declared != null) {
            declared.forEach(t -> out.add(t.getAsString()));
            return out;
        }
        out.add("Ingress");
        if (spec.has("egress")) {
            out.add("Egress");
        }
        return out;
    }

    private boolean ruleAdmits(JsonObject policy, String direction, Pod peer, String protocol, int port) {
        String ns = Json.string(policy, "metadata", "namespace");
        JsonArray rules = array(Json.object(policy, "spec"), direction.equals("Ingress") ? "ingress" : "egress");
        if (rules == null) {
            return false;
        }
        for (JsonElement re : rules) {
            JsonObject rule = re.getAsJsonObject();
            JsonArray peers = array(rule, direction.equals("Ingress") ? "from" : "to");
            boolean peerOk = peers == null || peers.isEmpty();
            for (int i = 0; !peerOk && i < peers.size(); i++) {
                peerOk = peerMatches(ns, peers.get(i).getAsJsonObject(), peer);
            }
            if (peerOk && portMatches(array(rule, "ports"), protocol, port)) {
                return true;
            }
        }
        return false;
    }

    private boolean peerMatches(String policyNamespace, JsonObject peer, Pod pod) {
        JsonObject ipBlock = Json.object(peer, "ipBlock");
        if (ipBlock != null) {
            if (!inCidr(pod.ip(), Json.string(ipBlock, "cidr"))) {
                return false;
            }
            JsonArray except = array(ipBlock, "except");
            for (int i = 0; except != null && i < except.size(); i++) {
                if (inCidr(pod.ip(), except.get(i).getAsString())) {
                    return false;
                }
            }
            return true;
        }
        JsonObject nsSel = Json.object(peer, "namespaceSelector");
        JsonObject podSel = Json.object(peer, "podSelector");
        if (nsSel != null) {
            Map<String, String> nsLabels = namespaceLabels.getOrDefault(pod.namespace(),
                    Map.of("kubernetes.io/metadata.name", pod.namespace()));
            return matches(nsSel, nsLabels) && (podSel == null || matches(podSel, pod.labels()));
        }
        return pod.namespace().equals(policyNamespace) && podSel != null && matches(podSel, pod.labels());
    }

    private static boolean portMatches(JsonArray ports, String protocol, int port) {
        if (ports == null || ports.isEmpty()) {
            return true;
        }
        for (JsonElement pe : ports) {
            JsonObject p = pe.getAsJsonObject();
            String proto = p.has("protocol") ? p.get("protocol").getAsString() : "TCP";
            if (!proto.equals(protocol)) {
                continue;
            }
            JsonElement v = p.get("port");
            if (v == null) {
                return true;
            }
            if (v.getAsJsonPrimitive().isNumber()) {
                int from = v.getAsInt();
                int to = p.has("endPort") ? p.get("endPort").getAsInt() : from;
                if (port >= from && port <= to) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A label selector against labels; null matches nothing (a missing podSelector selects no pods here). */
    static boolean matches(JsonObject selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        JsonObject ml = Json.object(selector, "matchLabels");
        if (ml != null) {
            for (var e : ml.entrySet()) {
                if (!e.getValue().getAsString().equals(labels.get(e.getKey()))) {
                    return false;
                }
            }
        }
        JsonArray exprs = array(selector, "matchExpressions");
        for (int i = 0; exprs != null && i < exprs.size(); i++) {
            JsonObject x = exprs.get(i).getAsJsonObject();
            String key = Json.string(x, "key");
            List<String> values = new ArrayList<>();
            JsonArray va = array(x, "values");
            if (va != null) {
                va.forEach(v -> values.add(v.getAsString()));
            }
            String have = labels.get(key);
            boolean ok = switch (Json.string(x, "operator")) {
                case "In" -> have != null && values.contains(have);
                case "NotIn" -> have == null || !values.contains(have);
                case "Exists" -> have != null;
                case "DoesNotExist" -> have == null;
                default -> throw new IllegalArgumentException("unknown operator in " + x);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static boolean inCidr(String ip, String cidr) {
        if (ip == null || cidr == null || ip.contains(":") || cidr.contains(":")) {
            return false;
        }
        int slash = cidr.indexOf('/');
        int bits = Integer.parseInt(cidr.substring(slash + 1));
        long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
        return (ipv4(ip) & mask) == (ipv4(cidr.substring(0, slash)) & mask);
    }

    private static long ipv4(String ip) {
        String[] p = ip.split("\\.");
        long v = 0;
        for (String s : p) {
            v = (v << 8) | Integer.parseInt(s);
        }
        return v;
    }

    private static JsonArray array(JsonObject o, String key) {
        JsonElement e = o == null ? null : o.get(key);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : null;
    }
}
