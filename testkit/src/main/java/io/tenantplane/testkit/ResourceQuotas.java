package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
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
 * {@code services}, ...). Scopes and scope selectors are not checked.
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

    private ResourceQuotas() {
    }

    static void validate(JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject hard = Json.obj(spec, "hard");
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
}
