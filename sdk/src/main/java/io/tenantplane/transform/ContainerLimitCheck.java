package io.tenantplane.transform;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.custom.Quantity;
import io.tenantplane.json.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The maximum check of the host's LimitRanger admission ({@code plugin/pkg/admission/limitranger/admission.go},
 * {@code maxConstraint}), run before a pod is written so that the plan shows the problem with its field instead of the
 * host refusing the pod (403). Each container's requests and limits are taken as the host will see them: a limit the
 * container does not name is the LimitRange's default; a request it does not name is its own limit
 * ({@code SetDefaults_Pod}), else the default request. Neither may exceed the maximum, and a request may not exceed
 * the default limit a container gets for naming no limit (the host's validation refuses requests above limits).
 */
final class ContainerLimitCheck {

    private static final List<String> LISTS = List.of("containers", "initContainers");

    private ContainerLimitCheck() {
    }

    static List<PodSecurity.Violation> check(JsonObject pod, TransformOptions.ContainerLimits limits) {
        List<PodSecurity.Violation> out = new ArrayList<>();
        if (limits.max().isEmpty() && limits.defaultLimit().isEmpty()) {
            return out;
        }
        eachContainer(pod, (path, requests, limitsSet) -> {
            for (Map.Entry<String, String> max : limits.max().entrySet()) {
                String r = max.getKey();
                BigDecimal most = number(max.getValue());
                String limit = Json.string(limitsSet, r);
                String request = Json.string(requests, r);
                if (most == null) {
                    continue;
                }
                if (limit != null && above(limit, most)) {
                    out.add(new PodSecurity.Violation(path + "limits." + r,
                            problem(r, "limit", limit, max.getValue())));
                } else if (request != null && above(request, most)) {
                    out.add(new PodSecurity.Violation(path + "requests." + r,
                            problem(r, "request", request, max.getValue())));
                }
            }
            // A request above the default limit the container gets for naming none: the host's validation then
            // refuses the pod (requests must not exceed limits, 422).
            for (Map.Entry<String, String> def : limits.defaultLimit().entrySet()) {
                String r = def.getKey();
                String request = Json.string(requests, r);
                BigDecimal given = number(def.getValue());
                if (Json.string(limitsSet, r) == null && request != null && given != null && above(request, given)
                        && out.stream().noneMatch(v -> v.fieldPath().equals(path + "requests." + r))) {
                    out.add(new PodSecurity.Violation(path + "requests." + r, "a " + r + " request of " + request
                            + " is more than the " + r + " limit of " + def.getValue() + " the host's LimitRange "
                            + "gives a container that names none (the isolation profile's spec.limits.default."
                            + r + "), so the host would refuse the pod; name a " + r + " limit of at least "
                            + request + ", or lower the request"));
                }
            }
        });
        return out;
    }

    /**
     * The quota's {@code Constraints} ({@code pkg/quota/v1/evaluator/core/pods.go}): when the host namespace's
     * ResourceQuota counts a compute resource, every container must have it, named or filled in by the LimitRange's
     * defaults, or the host refuses the pod (403 {@code failed quota: ...: must specify ...}).
     */
    static List<PodSecurity.Violation> required(JsonObject pod, TransformOptions.ContainerLimits limits) {
        List<PodSecurity.Violation> out = new ArrayList<>();
        if (limits.quotaRequires().isEmpty()) {
            return out;
        }
        eachContainer(pod, (path, requests, limitsSet) -> {
            java.util.Set<String> has = admitted(requests, limitsSet, limits).keySet();
            for (String q : limits.quotaRequires()) {
                if (!has.contains(q)) {
                    String r = q.contains(".") ? q.substring(q.indexOf('.') + 1) : q;
                    String where = q.startsWith("limits.") ? "limits" : "requests";
                    String defaults = where.equals("limits") ? "spec.limits.default." + r
                            : "spec.limits.defaultRequest." + r;
                    out.add(new PodSecurity.Violation(path + where + "." + r,
                            "the isolation profile's quota counts " + q + " (spec.quota.hard[" + q + "]), so the "
                                    + "host refuses a pod whose containers do not all have one, and the profile "
                                    + "gives none by default; name a " + r + " " + (where.equals("limits")
                                    ? "limit" : "request") + " here, or give the profile " + defaults));
                }
            }
        });
        return out;
    }

    /**
     * A container's cpu and memory as the host admits it, by quota resource name ({@code requests.cpu}, {@code cpu}
     * for the request too, {@code limits.cpu}): a limit is the named one, else the LimitRange's default; a request is
     * the named one, else the container's limit ({@code SetDefaults_Pod}), else the default request. A resource it
     * gets neither way is absent.
     */
    static java.util.Map<String, String> admitted(JsonObject requests, JsonObject limitsSet,
                                                  TransformOptions.ContainerLimits limits) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (String r : List.of("cpu", "memory")) {
            String limit = Json.string(limitsSet, r) != null ? Json.string(limitsSet, r) : limits.defaultLimit().get(r);
            String request = Json.string(requests, r) != null ? Json.string(requests, r)
                    : Json.string(limitsSet, r) != null ? Json.string(limitsSet, r) : limits.defaultRequest().get(r);
            if (request != null) {
                out.put(r, request);
                out.put("requests." + r, request);
            }
            if (limit != null) {
                out.put("limits." + r, limit);
            }
        }
        return out;
    }

    /** What a check reads of one container: its field path prefix ({@code spec.containers[0].resources.}). */
    private interface ContainerResources {
        void accept(String path, JsonObject requests, JsonObject limits);
    }

    /** Each container and init container of {@code pod} with its requests and limits (null when it names none). */
    private static void eachContainer(JsonObject pod, ContainerResources visit) {
        JsonObject spec = Json.object(pod, "spec");
        for (String list : LISTS) {
            JsonElement e = spec == null ? null : spec.get(list);
            if (e == null || !e.isJsonArray()) {
                continue;
            }
            JsonArray containers = e.getAsJsonArray();
            for (int i = 0; i < containers.size(); i++) {
                if (containers.get(i).isJsonObject()) {
                    JsonObject c = containers.get(i).getAsJsonObject();
                    visit.accept("spec." + list + "[" + i + "].resources.", Json.object(c, "resources", "requests"),
                            Json.object(c, "resources", "limits"));
                }
            }
        }
    }

    private static String problem(String resource, String what, String value, String max) {
        return "a " + resource + " " + what + " of " + value + " is more than the host's LimitRange lets one container "
                + "have (" + max + ", the isolation profile's spec.limits.max." + resource + "), so the host would "
                + "refuse the pod; lower it, or raise the profile's maximum";
    }

    private static boolean above(String value, BigDecimal most) {
        BigDecimal v = number(value);
        return v != null && v.compareTo(most) > 0;
    }

    private static BigDecimal number(String quantity) {
        try {
            return Quantity.fromString(quantity.trim()).getNumber();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
