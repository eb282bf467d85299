package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A NetworkPolicy's spec checked as the API server checks it on create and update ({@code ValidateNetworkPolicySpec}
 * in {@code pkg/apis/networking/validation/validation.go}): the pod selector and every peer's selectors as
 * {@code ValidateLabelSelector} checks them ({@code apimachinery/pkg/apis/meta/v1/validation/validation.go}); ports
 * ({@code ValidateNetworkPolicyPort}: protocol, a port number or IANA name, {@code endPort} only after a numeric port
 * and not below it); peers ({@code ValidateNetworkPolicyPeer}: at least one of podSelector, namespaceSelector and
 * ipBlock, an ipBlock alone); ip blocks ({@code ValidateIPBlock}: a CIDR, each {@code except} a strict subset of it);
 * at most two policy types, each {@code Ingress} or {@code Egress}. CIDRs are parsed as the default (non-strict)
 * {@code IsValidCIDRForLegacyField} parses them: address bits beyond the prefix are accepted (but not, as
 * {@code ParseCIDRSloppy} would, IPv4 octets with leading zeros or IPv4-mapped IPv6 prefixes).
 */
final class NetworkPolicySpecs {

    private static final String CIDR_EXAMPLE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
    private static final List<String> PROTOCOLS = List.of("TCP", "UDP", "SCTP");

    private NetworkPolicySpecs() {
    }

    static void validate(JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject podSelector = Json.obj(spec, "podSelector");
        labelSelector(podSelector, "spec.podSelector", causes);
        for (String direction : List.of("ingress", "egress")) {
            JsonArray rules = Json.arr(spec, direction);
            if (rules == null) {
                continue;
            }
            String peers = direction.equals("ingress") ? "from" : "to";
            for (int i = 0; i < rules.size(); i++) {
                JsonObject rule = Json.asObject(rules.get(i));
                String at = "spec." + direction + "[" + i + "]";
                JsonArray ports = Json.arr(rule, "ports");
                if (ports != null) {
                    for (int j = 0; j < ports.size(); j++) {
                        port(Json.asObject(ports.get(j)), at + ".ports[" + j + "]", causes);
                    }
                }
                JsonArray list = Json.arr(rule, peers);
                if (list != null) {
                    for (int j = 0; j < list.size(); j++) {
                        peer(Json.asObject(list.get(j)), at + "." + peers + "[" + j + "]", causes);
                    }
                }
            }
        }
        JsonArray types = Json.arr(spec, "policyTypes");
        if (types != null) {
            if (types.size() > 2) {
                causes.add(ApiError.Cause.invalid("spec.policyTypes", Json.render(types),
                        "may not specify more than two policyTypes"));
                return;
            }
            for (int i = 0; i < types.size(); i++) {
                String type = types.get(i).getAsString();
                if (!type.equals("Ingress") && !type.equals("Egress")) {
                    causes.add(ApiError.Cause.notSupported("spec.policyTypes[" + i + "]", Validation.quote(type),
                            List.of("Ingress", "Egress")));
                }
            }
        }
    }

    /** {@code ValidateNetworkPolicyPort}. */
    private static void port(JsonObject p, String path, List<ApiError.Cause> causes) {
        String protocol = Json.str(p, "protocol");
        if (protocol != null && !PROTOCOLS.contains(protocol)) {
            causes.add(ApiError.Cause.notSupported(path + ".protocol", Validation.quote(protocol), PROTOCOLS));
        }
        JsonElement port = p.get("port");
        JsonElement end = p.get("endPort");
        boolean hasEnd = end != null && !end.isJsonNull();
        if (port == null || port.isJsonNull()) {
            if (hasEnd) {
                causes.add(ApiError.Cause.invalid(path + ".endPort", end.getAsString(),
                        "may not be specified when `port` is not specified"));
            }
        } else if (port.isJsonPrimitive() && port.getAsJsonPrimitive().isNumber()) {
            long n = port.getAsLong();
            if (n < 1 || n > 65535) {
                causes.add(ApiError.Cause.invalid(path + ".port", Long.toString(n),
                        "must be between 1 and 65535, inclusive"));
            }
            if (hasEnd) {
                long e = end.getAsLong();
                if (e < n) {
                    causes.add(ApiError.Cause.invalid(path + ".endPort", Long.toString(e),
                            "must be greater than or equal to `port`"));
                }
                if (e < 1 || e > 65535) {
                    causes.add(ApiError.Cause.invalid(path + ".endPort", Long.toString(e),
                            "must be between 1 and 65535, inclusive"));
                }
            }
        } else {
            if (hasEnd) {
                causes.add(ApiError.Cause.invalid(path + ".endPort", end.getAsString(),
                        "may not be specified when `port` is non-numeric"));
            }
            String name = port.getAsString();
            PodSpecs.portNameProblems(name).forEach(m ->
                    causes.add(ApiError.Cause.invalid(path + ".port", Validation.quote(name), m)));
        }
    }

    /** {@code ValidateNetworkPolicyPeer}. */
    private static void peer(JsonObject peer, String path, List<ApiError.Cause> causes) {
        int peers = 0;
        for (String selector : List.of("podSelector", "namespaceSelector")) {
            JsonObject s = Json.obj(peer, selector);
            if (s != null) {
                peers++;
                labelSelector(s, path + "." + selector, causes);
            }
        }
        JsonObject ipBlock = Json.obj(peer, "ipBlock");
        if (ipBlock != null) {
            peers++;
            ipBlock(ipBlock, path + ".ipBlock", causes);
        }
        if (peers == 0) {
            causes.add(ApiError.Cause.required(path, "must specify a peer"));
        } else if (peers > 1 && ipBlock != null) {
            causes.add(ApiError.Cause.forbidden(path, "may not specify both ipBlock and another peer"));
        }
    }

    /** {@code ValidateIPBlock}. */
    private static void ipBlock(JsonObject block, String path, List<ApiError.Cause> causes) {
        String cidr = Json.str(block, "cidr");
        if (cidr == null || cidr.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".cidr"));
            return;
        }
        NetAddresses.Prefix outer;
        try {
            outer = NetAddresses.parseCidr(cidr);
        } catch (IllegalArgumentException e) {
            causes.add(ApiError.Cause.invalid(path + ".cidr", Validation.quote(cidr), CIDR_EXAMPLE));
            return;
        }
        JsonArray except = Json.arr(block, "except");
        if (except == null) {
            return;
        }
        for (int i = 0; i < except.size(); i++) {
            String x = except.get(i).getAsString();
            String at = path + ".except[" + i + "]";
            NetAddresses.Prefix inner;
            try {
                inner = NetAddresses.parseCidr(x);
            } catch (IllegalArgumentException e) {
                causes.add(ApiError.Cause.invalid(at, Validation.quote(x), CIDR_EXAMPLE));
                continue;
            }
            if (!outer.contains(inner.masked().ip()) || outer.bits() >= inner.bits()) {
                causes.add(ApiError.Cause.invalid(at, Validation.quote(x), "must be a strict subset of `cidr`"));
            }
        }
    }

    /** {@code ValidateLabelSelector}: matchLabels as labels, each requirement as {@code ValidateLabelSelectorRequirement}. */
    static void labelSelector(JsonObject selector, String path, List<ApiError.Cause> causes) {
        if (selector == null) {
            return;
        }
        JsonObject matchLabels = Json.obj(selector, "matchLabels");
        if (matchLabels != null) {
            for (Map.Entry<String, JsonElement> e : matchLabels.entrySet()) {
                Validation.qualifiedName(e.getKey(), path + ".matchLabels", causes);
                Validation.labelValue(e.getValue().getAsString(), path + ".matchLabels", causes);
            }
        }
        JsonArray expressions = Json.arr(selector, "matchExpressions");
        if (expressions == null) {
            return;
        }
        for (int i = 0; i < expressions.size(); i++) {
            JsonObject r = Json.asObject(expressions.get(i));
            String at = path + ".matchExpressions[" + i + "]";
            String operator = Json.str(r, "operator");
            JsonArray values = Json.arr(r, "values");
            int count = values == null ? 0 : values.size();
            if (Set.of("In", "NotIn").contains(String.valueOf(operator))) {
                if (count == 0) {
                    causes.add(ApiError.Cause.required(at + ".values",
                            "must be specified when `operator` is 'In' or 'NotIn'"));
                }
            } else if (Set.of("Exists", "DoesNotExist").contains(String.valueOf(operator))) {
                if (count > 0) {
                    causes.add(ApiError.Cause.forbidden(at + ".values",
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                }
            } else {
                causes.add(ApiError.Cause.invalid(at + ".operator", Validation.quote(operator == null ? ""
                        : operator), "not a valid selector operator"));
            }
            Validation.qualifiedName(Json.str(r, "key") == null ? "" : Json.str(r, "key"), at + ".key", causes);
            for (int j = 0; j < count; j++) {
                Validation.labelValue(values.get(j).getAsString(), at + ".values[" + j + "]", causes);
            }
        }
    }
}
