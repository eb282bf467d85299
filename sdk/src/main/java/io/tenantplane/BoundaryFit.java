package io.tenantplane;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.custom.Quantity;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.transform.TransformOptions;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a tenant's own pods fit in the boundary its profile draws around them. tenantplane renders the tenant's
 * control plane (a StatefulSet), its DNS (a Deployment) and, in private mode, its agents into the host namespace whose
 * ResourceQuota and LimitRange the profile also renders; the host admits those pods as it admits any other
 * ({@code plugin/pkg/admission/limitranger}, {@code pkg/quota/v1/evaluator/core}). A profile whose LimitRange refuses
 * one of them, or whose quota has no room for all of them, makes a tenant that can never become Ready (or whose pods
 * cannot resolve its Services); that is a problem of the spec, named with the profile's field before anything is
 * written, rather than a pod the host refuses for ever.
 *
 * <p>Each pod is taken as the host will admit it: a container's limits and requests filled in from the profile's
 * defaults as the LimitRanger fills them (a request a container names no request or limit for is the default request; a
 * request it names a limit for only is that limit). Only the tenant's own objects are counted: in a shared namespace
 * other tenants' pods and the platform's use the quota too, so passing this check is needed, not sufficient.
 */
final class BoundaryFit {
    /** Quota resources counted from the rendered objects, with the kind each counts. */
    private static final Map<String, String> OBJECT_COUNTS = Map.of("services", "Service", "secrets", "Secret",
            "configmaps", "ConfigMap", "persistentvolumeclaims", "PersistentVolumeClaim");

    private BoundaryFit() {
    }

    /** The problems with {@code profile} for {@code tc}, each at the profile's field that refuses a rendered pod. */
    static List<Problem> problems(TenantCluster tc, IsolationProfile profile, List<JsonObject> rendered) {
        String source = "IsolationProfile " + profile.name();
        IsolationProfile.Spec spec = profile.spec();
        IsolationProfile.Quota quota = spec == null ? null : spec.quota();
        TransformOptions.ContainerLimits limits = TransformOptions.ContainerLimits.of(
                spec == null ? null : spec.limits(), quota);
        String boundaryNs = namespaceOf(rendered, "ResourceQuota");
        if (boundaryNs == null) {
            boundaryNs = namespaceOf(rendered, "LimitRange");
        }
        List<Problem> out = new ArrayList<>();
        Map<String, BigDecimal> used = new LinkedHashMap<>();
        Map<String, List<String>> users = new LinkedHashMap<>();
        for (JsonObject o : rendered) {
            if (boundaryNs == null || !boundaryNs.equals(Json.string(o, "metadata", "namespace"))) {
                continue;
            }
            String kind = Json.string(o, "kind");
            String name = Json.string(o, "metadata", "name");
            for (Map.Entry<String, String> count : OBJECT_COUNTS.entrySet()) {
                if (count.getValue().equals(kind)) {
                    add(used, users, count.getKey(), BigDecimal.ONE, kind + " " + name);
                }
            }
            if ("Service".equals(kind)) {
                String type = Json.string(o, "spec", "type");
                if ("NodePort".equals(type) || "LoadBalancer".equals(type)) {
                    add(used, users, "services.nodeports", BigDecimal.ONE, "Service " + name);
                }
                if ("LoadBalancer".equals(type)) {
                    add(used, users, "services.loadbalancers", BigDecimal.ONE, "Service " + name);
                }
            }
            if (!"StatefulSet".equals(kind) && !"Deployment".equals(kind)) {
                continue;
            }
            JsonObject template = Json.object(o, "spec", "template");
            long replicas = Json.number(o, 1, "spec", "replicas");
            if (template == null || replicas < 1) {
                continue;
            }
            String what = kind + " " + name;
            for (Problem p : limits.refusals(template)) {
                out.add(Problem.of(limitField(p), "refuses the pods of tenant " + tc.tenant() + "'s own " + what
                        + " (" + p.field() + "): " + p.message()).withSource(source));
            }
            BigDecimal n = BigDecimal.valueOf(replicas);
            add(used, users, "pods", n, what + " ×" + replicas);
            add(used, users, "count/pods", n, what + " ×" + replicas);
            for (Map.Entry<String, BigDecimal> r : podResources(template, limits).entrySet()) {
                add(used, users, r.getKey(), r.getValue().multiply(n), what + " ×" + replicas);
            }
            JsonArray claims = Json.array(Json.object(o, "spec"), "volumeClaimTemplates");
            for (JsonElement c : claims == null ? new JsonArray() : claims) {
                add(used, users, "persistentvolumeclaims", n, what + " ×" + replicas);
                String storage = Json.string(c.getAsJsonObject(), "spec", "resources", "requests", "storage");
                BigDecimal bytes = number(storage);
                if (bytes != null) {
                    add(used, users, "requests.storage", bytes.multiply(n), what + " ×" + replicas);
                }
            }
        }
        if (quota == null) {
            return out;
        }
        for (Map.Entry<String, String> hard : quota.hard().entrySet()) {
            BigDecimal allowed = number(hard.getValue());
            BigDecimal need = used.get(hard.getKey());
            if (allowed == null || need == null || need.compareTo(allowed) <= 0) {
                continue;
            }
            out.add(Problem.of("spec.quota.hard[" + hard.getKey() + "]", hard.getValue() + " leaves no room for "
                    + "what tenantplane runs for tenant " + tc.tenant() + " in namespace " + boundaryNs + ", which "
                    + "needs " + format(hard.getKey(), need) + " (" + String.join(", ", users.get(hard.getKey()))
                    + "): the host would refuse it and the tenant would never be Ready; raise it to at least "
                    + format(hard.getKey(), need) + " plus what the tenant's workloads need").withSource(source));
        }
        return out;
    }

    private static final java.util.regex.Pattern PROFILE_FIELD = java.util.regex.Pattern.compile(
            "spec\\.(limits\\.[A-Za-z]+\\.[A-Za-z]+|quota\\.hard\\[[^\\]]+])");

    /** The profile field a container's refusal comes from: the first the message names, else the limits. */
    private static String limitField(Problem p) {
        java.util.regex.Matcher m = PROFILE_FIELD.matcher(p.message());
        return m.find() ? m.group() : "spec.limits";
    }

    /**
     * The requests and limits a pod of {@code template} counts against a quota, as the host admits it: per container
     * the named value, else (for a request) the named limit, else the profile's default; init containers counted as
     * the quota counts them, the largest of them against the sum of the others.
     */
    private static Map<String, BigDecimal> podResources(JsonObject template, TransformOptions.ContainerLimits limits) {
        Map<String, BigDecimal> containers = new LinkedHashMap<>();
        Map<String, BigDecimal> inits = new LinkedHashMap<>();
        for (String list : List.of("containers", "initContainers")) {
            JsonArray cs = Json.array(Json.object(template, "spec"), list);
            for (JsonElement e : cs == null ? new JsonArray() : cs) {
                boolean regular = list.equals("containers");
                for (Map.Entry<String, String> r : limits.admitted(e.getAsJsonObject()).entrySet()) {
                    BigDecimal value = number(r.getValue());
                    if (value != null && r.getKey().contains(".")) {
                        merge(regular ? containers : inits, r.getKey(), value, regular);
                    }
                }
            }
        }
        inits.forEach((k, v) -> containers.merge(k, v, BigDecimal::max));
        Map<String, BigDecimal> out = new LinkedHashMap<>(containers);
        for (String r : List.of("cpu", "memory")) {
            if (containers.containsKey("requests." + r)) {
                out.put(r, containers.get("requests." + r));
            }
        }
        return out;
    }

    private static void merge(Map<String, BigDecimal> into, String key, BigDecimal value, boolean sum) {
        into.merge(key, value, sum ? BigDecimal::add : BigDecimal::max);
    }

    private static void add(Map<String, BigDecimal> used, Map<String, List<String>> users, String key,
                            BigDecimal amount, String who) {
        used.merge(key, amount, BigDecimal::add);
        List<String> list = users.computeIfAbsent(key, k -> new ArrayList<>());
        if (!list.contains(who)) {
            list.add(who);
        }
    }

    private static String namespaceOf(List<JsonObject> rendered, String kind) {
        return rendered.stream().filter(o -> kind.equals(Json.string(o, "kind")))
                .map(o -> Json.string(o, "metadata", "namespace")).findFirst().orElse(null);
    }

    private static BigDecimal number(String quantity) {
        if (quantity == null) {
            return null;
        }
        try {
            return Quantity.fromString(quantity.trim()).getNumber();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** {@code need} as a quantity of {@code resource}: bytes in binary units, cpu in milli-cores, counts plain. */
    private static String format(String resource, BigDecimal need) {
        if (resource.endsWith("memory") || resource.endsWith("storage")) {
            return new Quantity(need, Quantity.Format.BINARY_SI).toSuffixedString();
        }
        if (resource.endsWith("cpu")) {
            return new Quantity(need, Quantity.Format.DECIMAL_SI).toSuffixedString();
        }
        return need.stripTrailingZeros().toPlainString();
    }
}
