package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The LimitRanger and ResourceQuota admission plugins, and the API defaults they depend on.
 *
 * <ul>
 *   <li>Defaults ({@code pkg/apis/core/v1/defaults.go}): {@code SetDefaults_LimitRangeItem} (a Container item's
 *       default limit from its max, its default request from its default limit, else from its min) and
 *       {@code SetDefaults_Pod} (a container's requests from its limits where unset).</li>
 *   <li>LimitRanger ({@code plugin/pkg/admission/limitranger/admission.go}) on Pod create, never on update or a
 *       subresource ({@code SupportsAttributes}): {@code Admit} sets each container's unset requests and limits from
 *       the Container items' defaults ({@code mergeContainerResources}) and records them in the
 *       {@code kubernetes.io/limit-ranger} annotation; {@code Validate} checks min, max and
 *       maxLimitRequestRatio per Container and, summed, per Pod ({@code PodValidateLimitFunc}, {@code minConstraint},
 *       {@code maxConstraint}, {@code limitRequestRatioConstraint}), refusing with 403 and every message.</li>
 *   <li>ResourceQuota ({@code staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go},
 *       {@code checkRequest}; evaluators in {@code pkg/quota/v1/evaluator/core}): on create of any namespaced object
 *       and on update of a Service or a claim, each quota of the namespace whose hard limits name a resource the
 *       object uses must hold it: a pod must name every compute resource the quota tracks ({@code must specify
 *       limits.cpu for: c}), and the usage after the write must stay within the limits ({@code exceeded quota: q,
 *       requested: pods=1, used: pods=2, limited: pods=2}), both 403.</li>
 * </ul>
 *
 * <p>Usage is counted from the stored objects at the time of the request, as a quota controller that is never behind
 * would; quotas with scopes or scope selectors are not enforced.
 */
final class ResourceAdmission {

    static final String LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger";
    /** {@code validationSet} of the pod evaluator: the resources every container must name when a quota tracks them. */
    private static final Set<String> MUST_NAME = Set.of("cpu", "memory", "requests.cpu", "requests.memory",
            "limits.cpu", "limits.memory");
    /** Object counts the quota system knows by their legacy names ({@code pkg/quota/v1/evaluator/core/registry.go}). */
    private static final Map<String, String> LEGACY_COUNTS = Map.of("pods", "pods", "services", "services",
            "configmaps", "configmaps", "secrets", "secrets", "replicationcontrollers", "replicationcontrollers",
            "resourcequotas", "resourcequotas", "persistentvolumeclaims", "persistentvolumeclaims");

    private ResourceAdmission() {
    }

    // ------------------------------------------------------------------ defaults

    /** {@code SetDefaults_LimitRangeItem} for each item of a LimitRange spec. */
    static void limitRangeDefaults(JsonObject spec) {
        JsonArray limits = Json.arr(spec, "limits");
        if (limits == null) {
            return;
        }
        for (JsonElement e : limits) {
            JsonObject item = Json.asObject(e);
            if (!"Container".equals(Json.str(item, "type"))) {
                continue;
            }
            JsonObject def = Json.child(item, "default");
            JsonObject defReq = Json.child(item, "defaultRequest");
            copyMissing(Json.obj(item, "max"), def);
            copyMissing(def, defReq);
            copyMissing(Json.obj(item, "min"), defReq);
            // Empty lists are left out of the JSON (omitempty), as Go's encoder leaves the empty maps.
            for (String f : List.of("default", "defaultRequest")) {
                if (Json.obj(item, f).isEmpty()) {
                    item.remove(f);
                }
            }
        }
    }

    /** {@code SetDefaults_Pod}: each container's and init container's requests from its limits where unset. */
    static void podRequestsFromLimits(JsonObject spec) {
        eachContainer(spec, (list, c) -> {
            JsonObject resources = Json.obj(c, "resources");
            JsonObject limits = Json.obj(resources, "limits");
            if (limits != null) {
                copyMissing(limits, Json.child(resources, "requests"));
            }
        });
    }

    /** Each container and init container of a pod spec, with the list it is in. */
    private static void eachContainer(JsonObject spec, java.util.function.BiConsumer<String, JsonObject> visit) {
        for (String list : List.of("containers", "initContainers")) {
            JsonArray cs = Json.arr(spec, list);
            if (cs != null) {
                cs.forEach(e -> visit.accept(list, Json.asObject(e)));
            }
        }
    }

    private static void copyMissing(JsonObject from, JsonObject to) {
        if (from == null) {
            return;
        }
        for (Map.Entry<String, JsonElement> e : from.entrySet()) {
            if (!to.has(e.getKey())) {
                to.add(e.getKey(), e.getValue().deepCopy());
            }
        }
    }

    // ------------------------------------------------------------------ LimitRanger

    /** {@code Admit}: the Container items' defaults into each container that lacks them, recorded in an annotation. */
    static void limitRangerAdmit(JsonObject pod, List<JsonObject> limitRanges) {
        JsonObject defLimits = new JsonObject();
        JsonObject defRequests = new JsonObject();
        for (JsonObject lr : limitRanges) {
            JsonArray items = Json.arr(Json.obj(lr, "spec"), "limits");
            if (items == null) {
                continue;
            }
            for (JsonElement e : items) {
                JsonObject item = Json.asObject(e);
                if ("Container".equals(Json.str(item, "type"))) {
                    // defaultContainerResourceRequirements: the first LimitRange's item is used, as upstream
                    // iterates the items and each later default overwrites the map entry.
                    copyAll(Json.obj(item, "default"), defLimits);
                    copyAll(Json.obj(item, "defaultRequest"), defRequests);
                }
            }
        }
        if (defLimits.isEmpty() && defRequests.isEmpty()) {
            return;
        }
        List<String> notes = new ArrayList<>();
        eachContainer(Json.obj(pod, "spec"), (list, c) -> {
            JsonObject resources = Json.child(c, "resources");
            List<String> setLimits = setMissing(defLimits, Json.child(resources, "limits"));
            List<String> setRequests = setMissing(defRequests, Json.child(resources, "requests"));
            if (Json.obj(resources, "limits").isEmpty()) {
                resources.remove("limits");
            }
            if (Json.obj(resources, "requests").isEmpty()) {
                resources.remove("requests");
            }
            String name = Json.str(c, "name");
            String kind = list.equals("containers") ? "container" : "init container";
            if (!setRequests.isEmpty()) {
                notes.add(String.join(", ", setRequests) + " request for " + kind + " " + name);
            }
            if (!setLimits.isEmpty()) {
                notes.add(String.join(", ", setLimits) + " limit for " + kind + " " + name);
            }
        });
        if (!notes.isEmpty()) {
            Json.child(Json.meta(pod), "annotations").addProperty(LIMIT_RANGER_ANNOTATION,
                    "LimitRanger plugin set: " + String.join("; ", notes));
        }
    }

    private static void copyAll(JsonObject from, JsonObject to) {
        if (from != null) {
            from.entrySet().forEach(e -> to.add(e.getKey(), e.getValue().deepCopy()));
        }
    }

    private static List<String> setMissing(JsonObject defaults, JsonObject target) {
        List<String> set = new ArrayList<>();
        for (String key : new TreeSet<>(defaults.keySet())) {
            if (!target.has(key)) {
                target.add(key, defaults.get(key).deepCopy());
                set.add(key);
            }
        }
        return set;
    }

    /** {@code Validate}: min, max and ratio per Container and per Pod; every failure, 403 as one aggregate. */
    static void limitRangerValidate(ResourceType pods, String name, JsonObject pod, List<JsonObject> limitRanges) {
        List<String> errs = new ArrayList<>();
        JsonObject spec = Json.obj(pod, "spec");
        for (JsonObject lr : limitRanges) {
            JsonArray items = Json.arr(Json.obj(lr, "spec"), "limits");
            if (items == null) {
                continue;
            }
            for (JsonElement e : items) {
                JsonObject item = Json.asObject(e);
                String type = Json.str(item, "type");
                if ("Container".equals(type)) {
                    eachContainer(spec, (list, c) -> {
                        JsonObject resources = Json.obj(c, "resources");
                        check("Container", item, quantities(Json.obj(resources, "requests")),
                                quantities(Json.obj(resources, "limits")), errs);
                    });
                } else if ("Pod".equals(type)) {
                    check("Pod", item, podTotal(spec, "requests"), podTotal(spec, "limits"), errs);
                }
            }
        }
        if (!errs.isEmpty()) {
            throw ApiError.forbidden(pods, name, errs.size() == 1 ? errs.get(0) : "[" + String.join(", ", errs) + "]");
        }
    }

    private static void check(String limitType, JsonObject item, Map<String, Quantity> req, Map<String, Quantity> lim,
                              List<String> errs) {
        for (Map.Entry<String, Quantity> min : quantities(Json.obj(item, "min")).entrySet()) {
            String r = min.getKey();
            Quantity enforced = min.getValue();
            Quantity rq = req.get(r);
            Quantity lq = lim.get(r);
            String head = "minimum " + r + " usage per " + limitType + " is " + enforced.canonical();
            if (rq == null) {
                errs.add(head + ".  No request is specified");
            } else if (rq.compareTo(enforced) < 0) {
                errs.add(head + ", but request is " + rq.canonical());
            } else if (lq != null && lq.compareTo(enforced) < 0) {
                errs.add(head + ", but limit is " + lq.canonical());
            }
        }
        for (Map.Entry<String, Quantity> max : quantities(Json.obj(item, "max")).entrySet()) {
            String r = max.getKey();
            Quantity enforced = max.getValue();
            Quantity rq = req.get(r);
            Quantity lq = lim.get(r);
            String head = "maximum " + r + " usage per " + limitType + " is " + enforced.canonical();
            if (lq == null) {
                errs.add(head + ".  No limit is specified");
            } else if (lq.compareTo(enforced) > 0) {
                errs.add(head + ", but limit is " + lq.canonical());
            } else if (rq != null && rq.compareTo(enforced) > 0) {
                errs.add(head + ", but request is " + rq.canonical());
            }
        }
        for (Map.Entry<String, Quantity> ratio : quantities(Json.obj(item, "maxLimitRequestRatio")).entrySet()) {
            String r = ratio.getKey();
            String head = r + " max limit to request ratio per " + limitType + " is " + ratio.getValue().canonical();
            Quantity rq = req.get(r);
            Quantity lq = lim.get(r);
            if (rq == null || rq.value().signum() == 0) {
                errs.add(head + ", but no request is specified or request is 0");
            } else if (lq == null || lq.value().signum() == 0) {
                errs.add(head + ", but no limit is specified or limit is 0");
            } else {
                double observed = lq.value().doubleValue() / rq.value().doubleValue();
                if (observed > ratio.getValue().value().doubleValue()) {
                    errs.add(head + ", but provided ratio is " + String.format(java.util.Locale.ROOT, "%f", observed));
                }
            }
        }
    }

    private static Map<String, Quantity> podTotal(JsonObject spec, String field) {
        Map<String, BigDecimal> sum = new TreeMap<>();
        Map<String, Boolean> binary = new TreeMap<>();
        JsonArray cs = Json.arr(spec, "containers");
        if (cs != null) {
            for (JsonElement c : cs) {
                quantities(Json.obj(Json.obj(Json.asObject(c), "resources"), field)).forEach((k, q) -> {
                    sum.merge(k, q.value(), BigDecimal::add);
                    binary.putIfAbsent(k, q.binary());
                });
            }
        }
        JsonArray init = Json.arr(spec, "initContainers");
        if (init != null) {
            for (JsonElement c : init) {
                quantities(Json.obj(Json.obj(Json.asObject(c), "resources"), field)).forEach((k, q) -> {
                    if (sum.get(k) == null || q.value().compareTo(sum.get(k)) > 0) {
                        sum.put(k, q.value());
                        binary.putIfAbsent(k, q.binary());
                    }
                });
            }
        }
        Map<String, Quantity> out = new LinkedHashMap<>();
        sum.forEach((k, v) -> out.put(k, new Quantity(v, Quantity.canonical(v, binary.get(k)))));
        return out;
    }

    private static Map<String, Quantity> quantities(JsonObject list) {
        Map<String, Quantity> out = new TreeMap<>();
        if (list != null) {
            for (Map.Entry<String, JsonElement> e : list.entrySet()) {
                if (e.getValue().isJsonPrimitive() && Quantity.isQuantity(e.getValue().getAsString())) {
                    out.put(e.getKey(), Quantity.parse(e.getValue().getAsString()));
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ ResourceQuota

    /**
     * {@code checkRequest} for an object of {@code t} being created ({@code old} null) or updated: {@code listed}
     * gives the stored objects of its resource in its namespace, the object itself left out.
     */
    static void quota(ResourceType t, String name, JsonObject obj, JsonObject old, List<JsonObject> quotas,
                      java.util.function.Supplier<List<JsonObject>> listed) {
        if (quotas.isEmpty()) {
            return;
        }
        boolean pods = t.is("", "pods");
        Map<String, BigDecimal> delta = usage(t, obj);
        if (old != null) {
            Map<String, BigDecimal> before = usage(t, old);
            before.forEach((k, v) -> delta.merge(k, v.negate(), BigDecimal::add));
            delta.values().removeIf(v -> v.signum() <= 0);
        }
        for (JsonObject q : quotas) {
            JsonObject spec = Json.obj(q, "spec");
            if (spec == null || !matchesScopes(spec, t, obj)) {
                continue;
            }
            Map<String, Quantity> hard = quantities(Json.obj(spec, "hard"));
            String quotaName = Json.str(Json.meta(q), "name");
            Set<String> tracked = new TreeSet<>();
            for (String r : hard.keySet()) {
                if (tracks(t, r)) {
                    tracked.add(r);
                }
            }
            if (tracked.isEmpty()) {
                continue;
            }
            if (pods && old == null) {
                String missing = mustSpecify(Json.obj(obj, "spec"), tracked);
                if (missing != null) {
                    throw ApiError.forbidden(t, name, "failed quota: " + quotaName + ": must specify " + missing);
                }
            }
            Map<String, BigDecimal> requested = new TreeMap<>();
            for (String r : tracked) {
                BigDecimal d = delta.get(r);
                if (d != null && d.signum() != 0) {
                    requested.put(r, d);
                }
            }
            if (requested.isEmpty()) {
                continue;
            }
            Map<String, BigDecimal> used = new TreeMap<>();
            for (JsonObject other : listed.get()) {
                if (matchesScopes(spec, t, other)) {
                    usage(t, other).forEach((k, v) -> used.merge(k, v, BigDecimal::add));
                }
            }
            List<String> exceeded = new ArrayList<>();
            for (Map.Entry<String, BigDecimal> r : requested.entrySet()) {
                BigDecimal after = used.getOrDefault(r.getKey(), BigDecimal.ZERO).add(r.getValue());
                if (after.compareTo(hard.get(r.getKey()).value()) > 0) {
                    exceeded.add(r.getKey());
                }
            }
            if (!exceeded.isEmpty()) {
                throw ApiError.forbidden(t, name, "exceeded quota: " + quotaName + ", requested: "
                        + pretty(exceeded, requested, hard) + ", used: " + pretty(exceeded, used, hard)
                        + ", limited: " + pretty(exceeded, hardValues(hard), hard));
            }
        }
    }

    private static Map<String, BigDecimal> hardValues(Map<String, Quantity> hard) {
        Map<String, BigDecimal> out = new TreeMap<>();
        hard.forEach((k, q) -> out.put(k, q.value()));
        return out;
    }

    /** {@code prettyPrint}: {@code name=quantity} sorted, in the hard limit's format. */
    private static String pretty(List<String> keys, Map<String, BigDecimal> values, Map<String, Quantity> hard) {
        List<String> parts = new ArrayList<>();
        for (String k : new TreeSet<>(keys)) {
            parts.add(k + "=" + Quantity.canonical(values.getOrDefault(k, BigDecimal.ZERO), hard.get(k).binary()));
        }
        return String.join(",", parts);
    }

    /** Whether a quota's hard limit {@code r} counts objects of {@code t} ({@code MatchingResources}). */
    static boolean tracks(ResourceType t, String r) {
        String count = "count/" + t.plural() + (t.group().isEmpty() ? "" : "." + t.group());
        if (r.equals(count) || (t.group().isEmpty() && r.equals(LEGACY_COUNTS.get(t.plural())))) {
            return true;
        }
        if (t.is("", "pods")) {
            return r.equals("cpu") || r.equals("memory") || r.equals("ephemeral-storage")
                    || r.startsWith("requests.") || r.startsWith("limits.");
        }
        if (t.is("", "services")) {
            return r.equals("services.nodeports") || r.equals("services.loadbalancers");
        }
        if (t.is("", "persistentvolumeclaims")) {
            return r.equals("requests.storage");
        }
        return false;
    }

    /**
     * Whether a quota with {@code spec}'s scopes and scope selector counts {@code o} ({@code quota.Matches} with the
     * pod evaluator's {@code podMatchesScopeFunc}; every other kind matches no scope, {@code MatchesNoScopeFunc}).
     */
    static boolean matchesScopes(JsonObject spec, ResourceType t, JsonObject o) {
        if (!scoped(spec)) {
            return true;
        }
        JsonArray scopes = Json.arr(spec, "scopes");
        JsonArray expressions = Json.arr(Json.obj(spec, "scopeSelector"), "matchExpressions");
        if (!t.is("", "pods")) {
            return false;
        }
        for (JsonElement s : scopes == null ? new JsonArray() : scopes) {
            if (!podMatchesScope(s.getAsString(), "Exists", null, o)) {
                return false;
            }
        }
        for (JsonElement e : expressions == null ? new JsonArray() : expressions) {
            JsonObject req = e.getAsJsonObject();
            if (!podMatchesScope(Json.str(req, "scopeName"), Json.str(req, "operator"), Json.arr(req, "values"), o)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a quota with {@code spec} has scopes or scope selector expressions. */
    static boolean scoped(JsonObject spec) {
        JsonArray scopes = Json.arr(spec, "scopes");
        JsonArray expressions = Json.obj(spec, "scopeSelector") == null ? null
                : Json.arr(Json.obj(spec, "scopeSelector"), "matchExpressions");
        return scopes != null && !scopes.isEmpty() || expressions != null && !expressions.isEmpty();
    }

    /** {@code podMatchesScopeFunc} ({@code pkg/quota/v1/evaluator/core/pods.go}). */
    private static boolean podMatchesScope(String scope, String operator, JsonArray values, JsonObject pod) {
        JsonObject spec = Json.obj(pod, "spec") == null ? new JsonObject() : Json.obj(pod, "spec");
        JsonElement deadline = spec.get("activeDeadlineSeconds");
        boolean terminating = deadline != null && deadline.isJsonPrimitive() && deadline.getAsLong() >= 0;
        boolean bestEffort = "BestEffort".equals(KindRules.qosClass(spec));
        return switch (String.valueOf(scope)) {
            case "Terminating" -> terminating;
            case "NotTerminating" -> !terminating;
            case "BestEffort" -> bestEffort;
            case "NotBestEffort" -> !bestEffort;
            case "PriorityClass" -> {
                String priorityClass = Json.str(spec, "priorityClassName");
                boolean has = priorityClass != null && !priorityClass.isEmpty();
                List<String> vs = new ArrayList<>();
                (values == null ? new JsonArray() : values).forEach(v -> vs.add(v.getAsString()));
                yield switch (String.valueOf(operator)) {
                    case "Exists" -> has;
                    case "DoesNotExist" -> !has;
                    case "In" -> has && vs.contains(priorityClass);
                    case "NotIn" -> !has || !vs.contains(priorityClass);
                    default -> false;
                };
            }
            case "CrossNamespacePodAffinity" -> crossNamespaceAffinity(Json.obj(spec, "affinity"));
            default -> false;
        };
    }

    /** {@code usesCrossNamespacePodAffinity}: a pod (anti-)affinity term with namespaces or a namespace selector. */
    private static boolean crossNamespaceAffinity(JsonObject affinity) {
        for (String kind : List.of("podAffinity", "podAntiAffinity")) {
            JsonObject a = Json.obj(affinity, kind);
            JsonArray required = Json.arr(a, "requiredDuringSchedulingIgnoredDuringExecution");
            for (JsonElement term : required == null ? new JsonArray() : required) {
                if (crossNamespaceTerm(term.getAsJsonObject())) {
                    return true;
                }
            }
            JsonArray preferred = Json.arr(a, "preferredDuringSchedulingIgnoredDuringExecution");
            for (JsonElement w : preferred == null ? new JsonArray() : preferred) {
                if (crossNamespaceTerm(Json.obj(w.getAsJsonObject(), "podAffinityTerm"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean crossNamespaceTerm(JsonObject term) {
        JsonArray namespaces = Json.arr(term, "namespaces");
        return namespaces != null && !namespaces.isEmpty() || Json.obj(term, "namespaceSelector") != null;
    }

    /** What one object uses, by quota resource name (the core evaluators' {@code Usage}). */
    static Map<String, BigDecimal> usage(ResourceType t, JsonObject o) {
        Map<String, BigDecimal> u = new TreeMap<>();
        u.put("count/" + t.plural() + (t.group().isEmpty() ? "" : "." + t.group()), BigDecimal.ONE);
        if (t.group().isEmpty() && LEGACY_COUNTS.containsKey(t.plural())) {
            u.put(LEGACY_COUNTS.get(t.plural()), BigDecimal.ONE);
        }
        if (t.is("", "pods")) {
            String phase = Json.str(Json.obj(o, "status"), "phase");
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
                // QuotaV1Pod: a terminal pod uses no compute and no "pods"; count/pods counts every stored pod.
                u.remove("pods");
                return u;
            }
            JsonObject spec = Json.obj(o, "spec");
            Map<String, Quantity> req = podTotal(spec, "requests");
            Map<String, Quantity> lim = podTotal(spec, "limits");
            req.forEach((k, q) -> {
                if (k.equals("cpu") || k.equals("memory") || k.equals("ephemeral-storage")) {
                    u.put(k, q.value());
                }
                u.put("requests." + k, q.value());
            });
            lim.forEach((k, q) -> u.put("limits." + k, q.value()));
        } else if (t.is("", "services")) {
            JsonObject spec = Json.obj(o, "spec");
            String type = Json.str(spec, "type");
            JsonArray ports = Json.arr(spec, "ports");
            int n = ports == null ? 0 : ports.size();
            if ("LoadBalancer".equals(type)) {
                u.put("services.loadbalancers", BigDecimal.ONE);
                JsonElement allocate = spec.get("allocateLoadBalancerNodePorts");
                if (allocate == null || allocate.isJsonNull() || allocate.getAsBoolean()) {
                    u.put("services.nodeports", BigDecimal.valueOf(n));
                }
            } else if ("NodePort".equals(type)) {
                u.put("services.nodeports", BigDecimal.valueOf(n));
            }
        } else if (t.is("", "persistentvolumeclaims")) {
            String storage = Json.str(Json.obj(Json.obj(Json.obj(o, "spec"), "resources"), "requests"), "storage");
            if (storage != null && Quantity.isQuantity(storage)) {
                u.put("requests.storage", Quantity.parse(storage).value());
            }
        }
        return u;
    }

    /** The pod evaluator's {@code Constraints}: each container names every compute resource the quota tracks. */
    private static String mustSpecify(JsonObject spec, Set<String> tracked) {
        Set<String> required = new TreeSet<>(tracked);
        required.retainAll(MUST_NAME);
        if (required.isEmpty()) {
            return null;
        }
        Map<String, TreeSet<String>> missing = new TreeMap<>();
        eachContainer(spec, (list, c) -> {
            JsonObject resources = Json.obj(c, "resources");
            Set<String> has = new TreeSet<>();
            for (String r : quantities(Json.obj(resources, "requests")).keySet()) {
                if (r.equals("cpu") || r.equals("memory")) {
                    has.add(r);
                    has.add("requests." + r);
                }
            }
            for (String r : quantities(Json.obj(resources, "limits")).keySet()) {
                if (r.equals("cpu") || r.equals("memory")) {
                    has.add("limits." + r);
                }
            }
            for (String r : required) {
                if (!has.contains(r)) {
                    missing.computeIfAbsent(r, k -> new TreeSet<>()).add(Json.str(c, "name"));
                }
            }
        });
        if (missing.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        missing.forEach((r, names) -> parts.add(r + " for: " + String.join(",", names)));
        return String.join("; ", parts);
    }
}
