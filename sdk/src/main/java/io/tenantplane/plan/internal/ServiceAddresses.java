package io.tenantplane.plan.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The addresses a Service create asks the host for, decided before the write and again after the host refused them:
 * its ClusterIP and its node ports. Two writers ask for a ClusterIP: the provisioning, which re-creates a tenant's API
 * or DNS Service with the address its running Pods already use ({@link Kept}), and the sync, which gives a tenant
 * Service's host copy the tenant's own ClusterIP; the sync also asks for the node ports the tenant API gave a NodePort
 * or LoadBalancer Service. Either may be refused (taken on the host, or outside its range); the create is then made
 * again without it and the host allocates it ({@link #clusterIpAllocatedByHost}, {@link #nodePortsAllocatedByHost}),
 * and the tenant Service takes what the host chose ({@link FlowBack}). Pure: functions of the decision and what was
 * read.
 */
public final class ServiceAddresses {

    private ServiceAddresses() {
    }

    /**
     * The address a tenant's running host Pods took from one of its control plane's Services when they were created:
     * the tenant API Service's ClusterIP is their {@code KUBERNETES_SERVICE_HOST}, the DNS Service's their
     * {@code dnsConfig} nameserver. A Pod cannot change either, so when such a Service is gone (deleted by hand, lost
     * in a restore) it is created again with that address rather than a new one that no running Pod uses.
     */
    public enum Kept {
        API("KUBERNETES_SERVICE_HOST"), DNS("spec.dnsConfig.nameservers[0]");

        private final String usedAs;

        Kept(String usedAs) {
            this.usedAs = usedAs;
        }

        /** Where a Pod holds the address. */
        public String usedAs() {
            return usedAs;
        }

        /**
         * Which of the two {@code rendered} is, given the names of the tenant's API and DNS Services; null for anything
         * else. Only a shared or dedicated tenant's host Pods use them (a private tenant's run on its own agents).
         */
        public static Kept of(JsonObject rendered, String apiService, String dnsService) {
            if (!"Service".equals(Json.string(rendered, "kind"))) {
                return null;
            }
            String name = Json.string(rendered, "metadata", "name");
            return apiService.equals(name) ? API : dnsService.equals(name) ? DNS : null;
        }

        /** The address most of {@code pods} use (the lowest of a tie), or null when none uses one. */
        public String inUse(List<JsonObject> pods) {
            Map<String, Integer> seen = new TreeMap<>();
            for (JsonObject pod : pods) {
                String ip = this == API ? apiHost(pod) : nameserver(pod);
                if (HostNames.isIpAddress(ip)) {
                    seen.merge(ip, 1, Integer::sum);
                }
            }
            return seen.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
        }

        private static String apiHost(JsonObject pod) {
            JsonArray containers = Json.array(Json.object(pod, "spec"), "containers");
            for (int i = 0; containers != null && i < containers.size(); i++) {
                JsonArray env = containers.get(i).isJsonObject()
                        ? Json.array(containers.get(i).getAsJsonObject(), "env") : null;
                for (int j = 0; env != null && j < env.size(); j++) {
                    if (env.get(j).isJsonObject() && "KUBERNETES_SERVICE_HOST".equals(
                            Json.string(env.get(j).getAsJsonObject(), "name"))) {
                        return Json.string(env.get(j).getAsJsonObject(), "value");
                    }
                }
            }
            return null;
        }

        private static String nameserver(JsonObject pod) {
            if (!"None".equals(Json.string(pod, "spec", "dnsPolicy"))) {
                return null;
            }
            JsonArray ns = Json.array(Json.object(pod, "spec", "dnsConfig"), "nameservers");
            return ns == null || ns.isEmpty() || !ns.get(0).isJsonPrimitive() ? null : ns.get(0).getAsString();
        }
    }

    /**
     * The create of a rendered Service made again with the address {@code kept} its running Pods use; any other
     * decision as it is (an existing Service keeps the address it has).
     */
    public static Decision keeping(Decision d, String kept, Kept by) {
        if (kept == null || d.action() != Action.CREATE) {
            return d;
        }
        JsonObject desired = d.desired().deepCopy();
        JsonObject spec = Json.child(desired, "spec");
        spec.addProperty("clusterIP", kept);
        JsonArray ips = new JsonArray();
        ips.add(kept);
        spec.add("clusterIPs", ips);
        return d.withMessage(d.message() + " again with the ClusterIP " + kept + " its running Pods use ("
                + by.usedAs() + "), which they cannot change").withObjects(desired, null);
    }

    /**
     * True when the host refused, as invalid at {@code spec.clusterIP}, a Service create that asked for an address:
     * the one refusal a create without the address cures.
     */
    public static boolean clusterIpRefused(Decision d, int code, String hostMessage) {
        return d.action() == Action.CREATE && d.kind().equals("Service") && code == 422 && d.desired() != null
                && Json.string(d.desired(), "spec", "clusterIP") != null
                && !"None".equals(Json.string(d.desired(), "spec", "clusterIP"))
                && hostMessage != null && hostMessage.contains("spec.clusterIP");
    }

    /**
     * The refused create again without the address (nor {@code clusterIPs}), so that the host allocates one; its
     * message adds what was asked ({@code whose} ClusterIP), what the host said and, in {@code then}, what follows
     * for whoever used the address.
     */
    public static Decision clusterIpAllocatedByHost(Decision refused, String hostMessage, String whose,
                                                    String then) {
        JsonObject desired = refused.desired().deepCopy();
        String asked = Json.string(desired, "spec", "clusterIP");
        Json.object(desired, "spec").remove("clusterIP");
        Json.object(desired, "spec").remove("clusterIPs");
        return refused.withMessage(refused.message() + "; the host refused " + whose + "ClusterIP " + asked + " ("
                + hostMessage + "), so it allocates one" + then).withObjects(desired, refused.observed());
    }

    /**
     * True when the host refused, as invalid at a {@code nodePort}, a Service create that asked for node ports: taken
     * on the host by another Service, or outside the host's node port range.
     */
    public static boolean nodePortsRefused(Decision d, int code, String hostMessage) {
        return d.action() == Action.CREATE && d.kind().equals("Service") && code == 422 && d.desired() != null
                && !nodePorts(d.desired()).isEmpty() && hostMessage != null && hostMessage.contains(".nodePort");
    }

    /**
     * The refused create again without node ports, so that the host allocates them; its message adds the ports asked
     * for and what the host said.
     */
    public static Decision nodePortsAllocatedByHost(Decision refused, String hostMessage) {
        JsonObject desired = refused.desired().deepCopy();
        List<Integer> asked = nodePorts(desired);
        JsonArray ports = Json.array(Json.object(desired, "spec"), "ports");
        for (int i = 0; ports != null && i < ports.size(); i++) {
            if (ports.get(i).isJsonObject()) {
                ports.get(i).getAsJsonObject().remove("nodePort");
            }
        }
        return refused.withMessage(refused.message() + "; the host refused the tenant's node port"
                + (asked.size() == 1 ? " " : "s ") + asked.stream().map(String::valueOf)
                .collect(java.util.stream.Collectors.joining(", ")) + " (" + hostMessage + "), so it allocates "
                + (asked.size() == 1 ? "one" : "them") + " and the tenant Service takes "
                + (asked.size() == 1 ? "it" : "them")).withObjects(desired, refused.observed());
    }

    /** The node ports a Service names, in the order of its ports. */
    public static List<Integer> nodePorts(JsonObject service) {
        List<Integer> out = new java.util.ArrayList<>();
        JsonArray ports = Json.array(Json.object(service, "spec"), "ports");
        for (int i = 0; ports != null && i < ports.size(); i++) {
            var n = ports.get(i).isJsonObject() ? ports.get(i).getAsJsonObject().get("nodePort") : null;
            if (n != null && n.isJsonPrimitive() && n.getAsJsonPrimitive().isNumber() && n.getAsInt() != 0) {
                out.add(n.getAsInt());
            }
        }
        return out;
    }
}
