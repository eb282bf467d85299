package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * The parts of {@code ValidateService} ({@code pkg/apis/core/validation/validation.go}) beyond ports, ClusterIPs and
 * node ports (which {@code KindRules} checks as it allocates them), in upstream's order: the type-dependent fields (a
 * NodePort or LoadBalancer Service is not headless; an ExternalName Service has no ClusterIPs, IP families or family
 * policy, and a CNAME that is a DNS subdomain, a trailing dot allowed), the selector's labels, session affinity and
 * its ClientIP timeout, load balancer source ranges and {@code allocateLoadBalancerNodePorts} only for a
 * LoadBalancer, the external traffic policy only for externally reachable Services, the health-check node port only
 * for a LoadBalancer with {@code externalTrafficPolicy: Local} (and unchanged on update,
 * {@code validateServiceExternalTrafficFieldsUpdate}), and the internal traffic policy; with {@code SetDefaults_Service}'s
 * ClientIP timeout of 10800 s.
 */
final class ServiceSpecs {

    /** {@code core.MaxClientIPServiceAffinitySeconds}. */
    private static final int MAX_AFFINITY_SECONDS = 86400;
    private static final String CIDR_EXAMPLE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

    private ServiceSpecs() {
    }

    /** {@code SetDefaults_Service}: a ClientIP affinity's timeout, 10800 s where unset. */
    static void defaults(JsonObject spec) {
        if ("ClientIP".equals(Json.str(spec, "sessionAffinity"))) {
            JsonObject clientIp = Json.child(Json.child(spec, "sessionAffinityConfig"), "clientIP");
            if (!clientIp.has("timeoutSeconds") || clientIp.get("timeoutSeconds").isJsonNull()) {
                clientIp.addProperty("timeoutSeconds", 10800);
            }
        }
    }

    /**
     * {@code dropTypeDependentFields} ({@code pkg/registry/core/service/storage/storage.go}), on update: a field the
     * old type used and the new one does not is cleared when the update left it as it was (a change to it is the
     * user's and goes to validation): the ClusterIPs, IP families and family policy when leaving for ExternalName;
     * the node ports when leaving NodePort and LoadBalancer and naming no node port the stored Service did not hold
     * ({@code sameNodePorts}); {@code allocateLoadBalancerNodePorts} when leaving LoadBalancer; the health-check node
     * port when the Service no longer needs one; the external traffic policy when leaving NodePort and LoadBalancer;
     * the load balancer class when leaving LoadBalancer ({@code canSetLoadBalancerClass}, {@code sameLoadBalancerClass}).
     */
    static void dropTypeDependentFields(JsonObject spec, JsonObject oldSpec) {
        if (oldSpec == null) {
            return;
        }
        if (!"ExternalName".equals(Json.str(oldSpec, "type")) && "ExternalName".equals(Json.str(spec, "type"))) {
            if (Json.same(spec.get("clusterIP"), oldSpec.get("clusterIP"))
                    && Json.same(spec.get("clusterIPs"), oldSpec.get("clusterIPs"))) {
                spec.remove("clusterIP");
                spec.remove("clusterIPs");
            }
            for (String f : List.of("ipFamilies", "ipFamilyPolicy")) {
                if (Json.same(spec.get(f), oldSpec.get(f))) {
                    spec.remove(f);
                }
            }
        }
        if (needsNodePorts(oldSpec) && !needsNodePorts(spec)
                && NodePorts.ofPorts(oldSpec).containsAll(NodePorts.ofPorts(spec))) {
            JsonArray ports = Json.arr(spec, "ports");
            for (int i = 0; ports != null && i < ports.size(); i++) {
                if (ports.get(i).isJsonObject()) {
                    ports.get(i).getAsJsonObject().remove("nodePort");
                }
            }
        }
        if ("LoadBalancer".equals(Json.str(oldSpec, "type")) && !"LoadBalancer".equals(Json.str(spec, "type"))
                && spec.has("allocateLoadBalancerNodePorts")
                && Json.same(spec.get("allocateLoadBalancerNodePorts"), oldSpec.get("allocateLoadBalancerNodePorts"))) {
            spec.remove("allocateLoadBalancerNodePorts");
        }
        if (needsHealthCheck(oldSpec) && !needsHealthCheck(spec)
                && Json.same(spec.get("healthCheckNodePort"), oldSpec.get("healthCheckNodePort"))) {
            spec.remove("healthCheckNodePort");
        }
        if (needsNodePorts(oldSpec) && !needsNodePorts(spec)
                && Json.same(spec.get("externalTrafficPolicy"), oldSpec.get("externalTrafficPolicy"))) {
            spec.remove("externalTrafficPolicy");
        }
        if ("LoadBalancer".equals(Json.str(oldSpec, "type")) && !"LoadBalancer".equals(Json.str(spec, "type"))
                && Json.same(spec.get("loadBalancerClass"), oldSpec.get("loadBalancerClass"))) {
            spec.remove("loadBalancerClass");
        }
    }

    /** NodePort and LoadBalancer Services have node ports ({@code needsNodePort}) and an external traffic policy. */
    static boolean needsNodePorts(JsonObject spec) {
        String type = Json.str(spec, "type");
        return "NodePort".equals(type) || "LoadBalancer".equals(type);
    }

    /** The type-dependent checks, which come first upstream (after the ports' presence). */
    static void typeFields(JsonObject spec, List<ApiError.Cause> causes) {
        String type = Json.str(spec, "type");
        if (needsNodePorts(spec) && "None".equals(Json.str(spec, "clusterIP"))) {
            causes.add(ApiError.Cause.invalid("spec.clusterIPs[0]", "\"None\"", "may not be set to 'None' for "
                    + type + " services"));
        }
        if (!"ExternalName".equals(type)) {
            return;
        }
        JsonArray ips = Json.arr(spec, "clusterIPs");
        String ip = Json.str(spec, "clusterIP");
        if (ips != null && !ips.isEmpty() || ip != null && !ip.isEmpty()) {
            causes.add(ApiError.Cause.forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
        }
        JsonArray families = Json.arr(spec, "ipFamilies");
        if (families != null && !families.isEmpty()) {
            causes.add(ApiError.Cause.forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
        }
        if (spec.has("ipFamilyPolicy") && !spec.get("ipFamilyPolicy").isJsonNull()) {
            causes.add(ApiError.Cause.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
        }
        String name = Json.str(spec, "externalName");
        String cname = name == null ? "" : name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        if (cname.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.externalName"));
        } else {
            String problem = Validation.nameProblem(cname, Validation.NameRule.DNS1123_SUBDOMAIN);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid("spec.externalName", Validation.quote(cname), problem));
            }
        }
    }

    /** The checks that follow the ports upstream. */
    static void rest(JsonObject spec, JsonObject oldSpec, List<ApiError.Cause> causes) {
        JsonObject selector = Json.obj(spec, "selector");
        if (selector != null) {
            for (Map.Entry<String, JsonElement> e : selector.entrySet()) {
                Validation.qualifiedName(e.getKey(), "spec.selector", causes);
                if (e.getValue().isJsonPrimitive()) {
                    Validation.labelValue(e.getValue().getAsString(), "spec.selector", causes);
                }
            }
        }
        String affinity = Json.str(spec, "sessionAffinity");
        if (affinity == null || affinity.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.sessionAffinity"));
        } else if (!affinity.equals("ClientIP") && !affinity.equals("None")) {
            causes.add(ApiError.Cause.notSupported("spec.sessionAffinity", Validation.quote(affinity),
                    List.of("ClientIP", "None")));
        }
        JsonObject config = Json.obj(spec, "sessionAffinityConfig");
        if ("ClientIP".equals(affinity)) {
            clientIpAffinity(config, causes);
        } else if ("None".equals(affinity) && config != null) {
            causes.add(ApiError.Cause.forbidden("spec.sessionAffinityConfig",
                    "must not be set when session affinity is None"));
        }
        String type = Json.str(spec, "type");
        JsonArray ranges = Json.arr(spec, "loadBalancerSourceRanges");
        if (ranges != null && !ranges.isEmpty()) {
            // Upstream names this field with a capital L.
            if (!"LoadBalancer".equals(type)) {
                causes.add(ApiError.Cause.forbidden("spec.LoadBalancerSourceRanges",
                        "may only be used when `type` is 'LoadBalancer'"));
            }
            for (int i = 0; i < ranges.size(); i++) {
                String value = ranges.get(i).isJsonPrimitive() ? ranges.get(i).getAsString().strip() : "";
                if (!NetAddresses.isCidr(value)) {
                    causes.add(ApiError.Cause.invalid("spec.LoadBalancerSourceRanges[" + i + "]",
                            Validation.quote(value), CIDR_EXAMPLE));
                }
            }
        }
        if (spec.has("allocateLoadBalancerNodePorts") && !spec.get("allocateLoadBalancerNodePorts").isJsonNull()
                && !"LoadBalancer".equals(type)) {
            causes.add(ApiError.Cause.forbidden("spec.allocateLoadBalancerNodePorts",
                    "may only be used when `type` is 'LoadBalancer'"));
        }
        loadBalancerClass(spec, oldSpec, causes);
        String external = Json.str(spec, "externalTrafficPolicy");
        JsonArray externalIps = Json.arr(spec, "externalIPs");
        boolean reachable = "LoadBalancer".equals(type) || "NodePort".equals(type)
                || "ClusterIP".equals(type) && externalIps != null && !externalIps.isEmpty();
        if (!reachable) {
            if (external != null && !external.isEmpty()) {
                causes.add(ApiError.Cause.invalid("spec.externalTrafficPolicy", Validation.quote(external),
                        "may only be set for externally-accessible services"));
            }
        } else if (external == null || external.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.externalTrafficPolicy"));
        } else if (!external.equals("Cluster") && !external.equals("Local")) {
            causes.add(ApiError.Cause.notSupported("spec.externalTrafficPolicy", Validation.quote(external),
                    List.of("Cluster", "Local")));
        }
        int health = healthCheckNodePort(spec);
        if (!needsHealthCheck(spec)) {
            if (health != 0) {
                causes.add(ApiError.Cause.invalid("spec.healthCheckNodePort", String.valueOf(health),
                        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
            }
        } else if (oldSpec != null && needsHealthCheck(oldSpec) && health != healthCheckNodePort(oldSpec)) {
            causes.add(ApiError.Cause.forbidden("spec.healthCheckNodePort", "field is immutable"));
        }
        String internal = Json.str(spec, "internalTrafficPolicy");
        if (internal != null && !internal.equals("Cluster") && !internal.equals("Local")) {
            causes.add(ApiError.Cause.notSupported("spec.internalTrafficPolicy", Validation.quote(internal),
                    List.of("Cluster", "Local")));
        }
        // validateServiceTrafficDistribution as of 1.32 (gate ServiceTrafficDistribution on by default from 1.31):
        // PreferClose is the one value; PreferSameZone and PreferSameNode come with 1.33's gate.
        String distribution = Json.str(spec, "trafficDistribution");
        if (distribution != null && !distribution.equals("PreferClose")) {
            causes.add(ApiError.Cause.notSupported("spec.trafficDistribution", Validation.quote(distribution),
                    List.of("PreferClose")));
        }
    }

    /**
     * {@code validateLoadBalancerClassField}: on an update between two LoadBalancers the class may not change (an
     * unset class is a value too: set, changed or cleared, it is refused); a LoadBalancer's class is a qualified name;
     * any other type may not have one.
     */
    private static void loadBalancerClass(JsonObject spec, JsonObject oldSpec, List<ApiError.Cause> causes) {
        JsonElement cls = spec.get("loadBalancerClass");
        boolean set = cls != null && !cls.isJsonNull();
        boolean balancer = "LoadBalancer".equals(Json.str(spec, "type"));
        if (oldSpec != null && balancer && "LoadBalancer".equals(Json.str(oldSpec, "type"))
                && !Json.same(cls, oldSpec.get("loadBalancerClass"))) {
            causes.add(ApiError.Cause.invalid("spec.loadBalancerClass", set ? Json.render(cls) : "null",
                    "may not change once set"));
        }
        if (balancer) {
            if (set) {
                Validation.qualifiedName(cls.isJsonPrimitive() ? cls.getAsString() : Json.render(cls),
                        "spec.loadBalancerClass", causes);
            }
        } else if (set) {
            causes.add(ApiError.Cause.forbidden("spec.loadBalancerClass",
                    "may only be used when `type` is 'LoadBalancer'"));
        }
    }

    /** {@code validateClientIPAffinityConfig}, {@code validateAffinityTimeout}. */
    private static void clientIpAffinity(JsonObject config, List<ApiError.Cause> causes) {
        String when = "when session affinity type is ClientIP";
        if (config == null) {
            causes.add(ApiError.Cause.required("spec.sessionAffinityConfig", when));
            return;
        }
        JsonObject clientIp = Json.obj(config, "clientIP");
        if (clientIp == null) {
            causes.add(ApiError.Cause.required("spec.sessionAffinityConfig.clientIP", when));
            return;
        }
        JsonElement timeout = clientIp.get("timeoutSeconds");
        if (timeout == null || timeout.isJsonNull()) {
            causes.add(ApiError.Cause.required("spec.sessionAffinityConfig.clientIP.timeoutSeconds", when));
            return;
        }
        long t = timeout.getAsLong();
        if (t <= 0 || t > MAX_AFFINITY_SECONDS) {
            causes.add(ApiError.Cause.invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds",
                    String.valueOf(t), "must be greater than 0 and less than " + MAX_AFFINITY_SECONDS));
        }
    }

    /** {@code apiservice.NeedsHealthCheck}: a LoadBalancer with {@code externalTrafficPolicy: Local}. */
    static boolean needsHealthCheck(JsonObject spec) {
        return "LoadBalancer".equals(Json.str(spec, "type")) && "Local".equals(Json.str(spec, "externalTrafficPolicy"));
    }

    private static int healthCheckNodePort(JsonObject spec) {
        JsonElement h = spec == null ? null : spec.get("healthCheckNodePort");
        return h != null && h.isJsonPrimitive() && h.getAsJsonPrimitive().isNumber() ? h.getAsInt() : 0;
    }
}
