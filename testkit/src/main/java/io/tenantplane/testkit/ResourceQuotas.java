package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A ResourceQuota's {@code spec.hard} checked as the API server checks it ({@code ValidateResourceQuotaSpec},
 * {@code ValidateResourceQuotaResourceName}, {@code validateResourceName} and {@code ValidateResourceQuantityValue} in
 * {@code pkg/apis/core/validation/validation.go}, with the name lists of {@code pkg/apis/core/helper/helpers.go}): a
 * resource name is a qualified name, and one without a {@code /} must be a standard resource and one the quota
 * system tracks (so {@code gpu} is refused where {@code requests.nvidia.com/gpu} or {@code count/deployments.apps}
 * is taken); a quantity is not negative, and a whole number for the counted resources ({@code pods},
 * {@code services}, ...). Scopes and scope selectors as {@code validateResourceQuotaScopes} and
 * {@code validateScopedResourceSelectorRequirement} check them: standard scopes only, each valid for every standard
 * hard resource ({@code BestEffort} counts only {@code pods}; the others pods and their compute), no conflicting pair,
 * operators with or without values as they need them.
 */
final class ResourceQuotas {

    /** {@code standardResources}. */
    private static final Set<String> STANDARD = Set.of("cpu", "memory", "ephemeral-storage", "requests.cpu",
            "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
            "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
            "configmaps", "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
            "services.loadbalancers");
    /** {@code standardQuotaResources}. */
    private static final Set<String> QUOTA = Set.of("cpu", "memory", "ephemeral-storage", "requests.cpu",
            "requests.memory", "requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
            "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
            "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers");
    /** {@code integerResources}. */
    private static final Set<String> INTEGER = Set.of("pods", "resourcequotas", "services", "replicationcontrollers",
            "secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers");

    /** {@code standardResourceQuotaScopes}. */
    static final Set<String> SCOPES = Set.of("Terminating", "NotTerminating", "BestEffort", "NotBestEffort",
            "PriorityClass", "CrossNamespacePodAffinity");
    private static final Set<String> POD_COMPUTE = Set.of("cpu", "memory", "limits.cpu", "limits.memory",
            "requests.cpu", "requests.memory");
    private static final List<List<String>> CONFLICTING = List.of(List.of("BestEffort", "NotBestEffort"),
            List.of("Terminating", "NotTerminating"));

    private ResourceQuotas() {
    }

    static void validate(JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject hard = Json.obj(spec, "hard");
        scopes(spec, hard, causes);
        scopeSelector(spec, hard, causes);
        if (hard == null) {
            return;
        }
        for (Map.Entry<String, JsonElement> e : hard.entrySet()) {
            String name = e.getKey();
            String field = "spec.hard[" + name + "]";
            resourceName(name, field, causes);
            String text = e.getValue().isJsonPrimitive() ? e.getValue().getAsString() : "";
            Quantity q;
            try {
                q = Quantity.parse(text);
            } catch (IllegalArgumentException bad) {
                causes.add(ApiError.Cause.invalid(field, Validation.quote(text), bad.getMessage()));
                continue;
            }
            if (q.value().signum() < 0) {
                causes.add(ApiError.Cause.invalid(field, Validation.quote(q.toString()),
                        "must be greater than or equal to 0"));
            }
            boolean integer = INTEGER.contains(name) || extended(name);
            if (integer && q.value().movePointRight(3).remainder(BigDecimal.valueOf(1000)).signum() != 0) {
                causes.add(ApiError.Cause.invalid(field, Validation.quote(q.toString()), "must be an integer"));
            }
        }
    }

    /**
     * {@code ValidateResourceQuotaResourceName}: {@code validateResourceName} (a qualified name; without a {@code /} a
     * standard resource), then, without a {@code /}, a resource the quota system tracks; both may be reported.
     */
    private static void resourceName(String name, String field, List<ApiError.Cause> causes) {
        boolean unqualified = !name.contains("/");
        boolean hugePages = name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
        if (!NamedFormat.qualifiedName(name).isEmpty()) {
            Validation.qualifiedName(name, field, causes);
        } else if (unqualified && !STANDARD.contains(name) && !hugePages) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(name),
                    "must be a standard resource type or fully qualified"));
        }
        if (unqualified && !QUOTA.contains(name) && !hugePages) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(name), "must be a standard resource for quota"));
        }
    }

    /** {@code IsExtendedResourceName}: outside {@code kubernetes.io}, and not a {@code requests.} quota name. */
    private static boolean extended(String name) {
        return name.contains("/") && !name.contains("kubernetes.io/") && !name.startsWith("requests.");
    }

    /** {@code validateResourceQuotaScopes}. */
    private static void scopes(JsonObject spec, JsonObject hard, List<ApiError.Cause> causes) {
        JsonArray scopes = Json.arr(spec, "scopes");
        if (scopes == null || scopes.isEmpty()) {
            return;
        }
        List<String> names = new ArrayList<>();
        scopes.forEach(e -> names.add(e.isJsonPrimitive() ? e.getAsString() : ""));
        String value = goSlice("core.ResourceQuotaScope", names);
        for (String scope : names) {
            if (!SCOPES.contains(scope)) {
                causes.add(ApiError.Cause.invalid("spec.scopes", value, "unsupported scope"));
            }
            for (String k : hardNames(hard)) {
                if (QUOTA.contains(k) && !validFor(scope, k)) {
                    causes.add(ApiError.Cause.invalid("spec.scopes", value, "unsupported scope applied to resource"));
                }
            }
        }
        for (List<String> pair : CONFLICTING) {
            if (names.containsAll(pair)) {
                causes.add(ApiError.Cause.invalid("spec.scopes", value, "conflicting scopes"));
            }
        }
    }

    /** {@code validateScopedResourceSelectorRequirement}. */
    private static void scopeSelector(JsonObject spec, JsonObject hard, List<ApiError.Cause> causes) {
        JsonObject selector = Json.obj(spec, "scopeSelector");
        if (selector == null) {
            return;
        }
        String field = "spec.scopeSelector.matchExpressions";
        JsonArray expressions = Json.arr(selector, "matchExpressions");
        List<String> seen = new ArrayList<>();
        for (JsonElement e : expressions == null ? new JsonArray() : expressions) {
            JsonObject req = e.getAsJsonObject();
            String scope = String.valueOf(Json.str(req, "scopeName"));
            String op = String.valueOf(Json.str(req, "operator"));
            JsonArray values = Json.arr(req, "values");
            if (!SCOPES.contains(scope)) {
                causes.add(ApiError.Cause.invalid(field + ".scopeName", Validation.quote(scope), "unsupported scope"));
            }
            for (String k : hardNames(hard)) {
                if (QUOTA.contains(k) && !validFor(scope, k)) {
                    causes.add(ApiError.Cause.invalid(field, "core.ScopeSelector{...}",
                            "unsupported scope applied to resource"));
                }
            }
            if (List.of("BestEffort", "NotBestEffort", "Terminating", "NotTerminating").contains(scope)
                    && !op.equals("Exists")) {
                causes.add(ApiError.Cause.invalid(field + ".operator", Validation.quote(op), "must be 'Exist' only "
                        + "operator when scope is any of ResourceQuotaScopeTerminating, "
                        + "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and "
                        + "ResourceQuotaScopeNotBestEffort"));
            }
            switch (op) {
                case "In", "NotIn" -> {
                    if (values == null || values.isEmpty()) {
                        causes.add(ApiError.Cause.required(field + ".values", "must be at least one value when "
                                + "`operator` is 'In' or 'NotIn' for scope selector"));
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (values != null && !values.isEmpty()) {
                        List<String> vs = new ArrayList<>();
                        values.forEach(v -> vs.add(v.getAsString()));
                        causes.add(ApiError.Cause.invalid(field + ".values", goSlice("string", vs), "must be no value "
                                + "when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
                    }
                }
                default -> causes.add(ApiError.Cause.invalid(field + ".operator", Validation.quote(op),
                        "not a valid selector operator"));
            }
            seen.add(scope);
        }
        for (List<String> pair : CONFLICTING) {
            if (seen.containsAll(pair)) {
                causes.add(ApiError.Cause.invalid(field, "[]core.ResourceQuotaScope(nil)", "conflicting scopes"));
            }
        }
    }

    /** {@code IsResourceQuotaScopeValidForResource}. */
    private static boolean validFor(String scope, String resource) {
        return switch (scope) {
            case "Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity" ->
                    resource.equals("pods") || POD_COMPUTE.contains(resource);
            case "BestEffort" -> resource.equals("pods");
            default -> true;
        };
    }

    private static List<String> hardNames(JsonObject hard) {
        return hard == null ? List.of() : new java.util.TreeSet<>(hard.keySet()).stream().toList();
    }

    /** A Go slice as {@code %#v} prints it in a field error: {@code []core.ResourceQuotaScope{"BestEffort"}}. */
    private static String goSlice(String type, List<String> values) {
        return "[]" + type + "{" + String.join(", ", values.stream().map(Validation::quote).toList()) + "}";
    }
}
