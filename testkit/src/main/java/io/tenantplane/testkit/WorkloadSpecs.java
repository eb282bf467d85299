package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The spec validation of the {@code apps/v1} workloads ({@code pkg/apis/apps/validation/validation.go}), run on the
 * defaulted object on create and update, each check in upstream's order: {@code ValidateStatefulSetSpec},
 * {@code ValidateDeploymentSpec}, {@code ValidateReplicaSetSpec} and {@code ValidateDaemonSetSpec} with their
 * strategies ({@code validateRollingUpdateStatefulSet}, {@code ValidateDeploymentStrategy},
 * {@code ValidateRollingUpdateDeployment}, {@code ValidateDaemonSetUpdateStrategy},
 * {@code ValidateRollingUpdateDaemonSet}, {@code ValidatePositiveIntOrPercent}, {@code IsNotMoreThan100Percent}),
 * selectors and pod templates ({@code ValidatePodTemplateSpecForReplicaSet}, {@code
 * ValidatePodTemplateSpecForStatefulSet}: a StatefulSet's pod spec is left to the Pods its controller makes, since
 * they mount the claim templates).
 *
 * <p>A value upstream prints with Go's {@code %#v} is printed as it does for {@code intstr.IntOrString}
 * ({@code intstr.IntOrString{Type:1, IntVal:0, StrVal:"5"}}) and abbreviated for the strategy structs
 * ({@code apps.DeploymentStrategy{...}}), whose pointers upstream prints as addresses.
 */
final class WorkloadSpecs {

    private static final String NEGATIVE = "must be greater than or equal to 0";
    /** {@code IsValidPercent}: the pattern and message of {@code staging/.../util/validation/validation.go}. */
    private static final Pattern PERCENT = Pattern.compile("[0-9]+%");
    private static final String PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an "
            + "ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

    private WorkloadSpecs() {
    }

    /**
     * {@code dropStatefulSetDisabledFields} ({@code pkg/registry/apps/statefulset/strategy.go}) on create and update:
     * a StatefulSet's {@code updateStrategy.rollingUpdate.maxUnavailable} is dropped unless the stored one uses it,
     * as the {@code MaxUnavailableStatefulSet} feature gate is off by default in 1.32 (alpha); what is dropped is
     * never validated.
     */
    static void dropDisabledFields(String plural, JsonObject spec, JsonObject oldSpec) {
        if (!plural.equals("statefulsets") || spec == null) {
            return;
        }
        JsonObject rolling = Json.obj(Json.obj(spec, "updateStrategy"), "rollingUpdate");
        JsonElement oldMax = Json.obj(Json.obj(oldSpec, "updateStrategy"), "rollingUpdate") == null ? null
                : Json.obj(Json.obj(oldSpec, "updateStrategy"), "rollingUpdate").get("maxUnavailable");
        if (rolling != null && (oldMax == null || oldMax.isJsonNull())) {
            rolling.remove("maxUnavailable");
        }
    }

    /** The checks of the workload {@code plural}'s spec, {@code spec} defaulted. */
    static void validate(String plural, JsonObject spec, List<ApiError.Cause> causes) {
        if (spec == null) {
            causes.add(ApiError.Cause.required("spec"));
            return;
        }
        switch (plural) {
            case "statefulsets" -> statefulSet(spec, causes);
            case "deployments" -> deployment(spec, causes);
            case "replicasets" -> replicaSet(spec, causes);
            case "daemonsets" -> daemonSet(spec, causes);
            default -> throw new IllegalArgumentException("not a workload: " + plural);
        }
    }

    /** {@code ValidateStatefulSetSpec}. */
    private static void statefulSet(JsonObject spec, List<ApiError.Cause> causes) {
        String policy = Json.str(spec, "podManagementPolicy");
        if (policy == null || policy.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.podManagementPolicy"));
        } else if (!policy.equals("OrderedReady") && !policy.equals("Parallel")) {
            causes.add(ApiError.Cause.invalid("spec.podManagementPolicy", Validation.quote(policy),
                    "must be 'OrderedReady' or 'Parallel'"));
        }
        JsonObject strategy = Json.obj(spec, "updateStrategy");
        String type = Json.str(strategy, "type");
        JsonObject rolling = Json.obj(strategy, "rollingUpdate");
        if (type == null || type.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.updateStrategy"));
        } else if (type.equals("OnDelete")) {
            if (rolling != null) {
                causes.add(ApiError.Cause.invalid("spec.updateStrategy.rollingUpdate",
                        "apps.RollingUpdateStatefulSetStrategy{...}", "only allowed for updateStrategy 'RollingUpdate'"));
            }
        } else if (type.equals("RollingUpdate")) {
            if (rolling != null) {
                nonNegative(rolling, "partition", "spec.updateStrategy.rollingUpdate.partition", causes);
            }
        } else {
            causes.add(ApiError.Cause.invalid("spec.updateStrategy", "apps.StatefulSetUpdateStrategy{...}",
                    "must be 'RollingUpdate' or 'OnDelete'"));
        }
        JsonObject retention = Json.obj(spec, "persistentVolumeClaimRetentionPolicy");
        if (retention != null) {
            for (String f : List.of("whenDeleted", "whenScaled")) {
                String v = Json.str(retention, f);
                if (!"Retain".equals(v) && !"Delete".equals(v)) {
                    causes.add(ApiError.Cause.notSupported("spec.persistentVolumeClaimRetentionPolicy." + f,
                            Validation.quote(v == null ? "" : v), List.of("Retain", "Delete")));
                }
            }
        }
        nonNegative(spec, "replicas", "spec.replicas", causes);
        nonNegative(spec, "minReadySeconds", "spec.minReadySeconds", causes);
        JsonObject ordinals = Json.obj(spec, "ordinals");
        if (ordinals != null) {
            nonNegative(ordinals, "start", "spec.ordinals.start", causes);
        }
        if (selector(spec, "statefulset", "", causes)) {
            templateLabels(spec, causes);
        }
        restartAlways(spec, "StatefulSet", causes);
    }

    /** {@code ValidateDeploymentSpec}. */
    private static void deployment(JsonObject spec, List<ApiError.Cause> causes) {
        nonNegative(spec, "replicas", "spec.replicas", causes);
        if (selector(spec, "deployment", "invalid label selector", causes)) {
            replicaSetTemplate(spec, causes);
        }
        JsonObject strategy = Json.obj(spec, "strategy");
        String type = Json.str(strategy, "type");
        JsonObject rolling = Json.obj(strategy, "rollingUpdate");
        if ("Recreate".equals(type)) {
            if (rolling != null) {
                causes.add(ApiError.Cause.forbidden("spec.strategy.rollingUpdate",
                        "may not be specified when strategy `type` is 'Recreate'"));
            }
        } else if ("RollingUpdate".equals(type)) {
            if (rolling == null) {
                causes.add(ApiError.Cause.required("spec.strategy.rollingUpdate",
                        "this should be defaulted and never be nil"));
            } else {
                String at = "spec.strategy.rollingUpdate";
                JsonElement unavailable = rolling.get("maxUnavailable");
                JsonElement surge = rolling.get("maxSurge");
                positiveIntOrPercent(unavailable, at + ".maxUnavailable", causes);
                positiveIntOrPercent(surge, at + ".maxSurge", causes);
                if (intOrPercentValue(unavailable) == 0 && intOrPercentValue(surge) == 0) {
                    causes.add(ApiError.Cause.invalid(at + ".maxUnavailable", intOrString(unavailable),
                            "may not be 0 when `maxSurge` is 0"));
                }
                notMoreThan100Percent(unavailable, at + ".maxUnavailable", causes);
            }
        } else {
            causes.add(ApiError.Cause.notSupported("spec.strategy", "apps.DeploymentStrategy{...}",
                    List.of("Recreate", "RollingUpdate")));
        }
        nonNegative(spec, "minReadySeconds", "spec.minReadySeconds", causes);
        nonNegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", causes);
        JsonElement deadline = spec.get("progressDeadlineSeconds");
        if (deadline != null && deadline.isJsonPrimitive() && deadline.getAsJsonPrimitive().isNumber()) {
            nonNegative(spec, "progressDeadlineSeconds", "spec.progressDeadlineSeconds", causes);
            if (deadline.getAsLong() <= number(spec, "minReadySeconds")) {
                causes.add(ApiError.Cause.invalid("spec.progressDeadlineSeconds", deadline.getAsString(),
                        "must be greater than minReadySeconds"));
            }
        }
    }

    /** {@code ValidateReplicaSetSpec}; its empty-selector message names a deployment, as upstream's does. */
    private static void replicaSet(JsonObject spec, List<ApiError.Cause> causes) {
        nonNegative(spec, "replicas", "spec.replicas", causes);
        nonNegative(spec, "minReadySeconds", "spec.minReadySeconds", causes);
        if (selector(spec, "deployment", "invalid label selector", causes)) {
            replicaSetTemplate(spec, causes);
        }
    }

    /** {@code ValidateDaemonSetSpec}. */
    private static void daemonSet(JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject selector = Json.obj(spec, "selector");
        int before = causes.size();
        NetworkPolicySpecs.labelSelector(selector, "spec.selector", causes);
        boolean parsed = causes.size() == before;
        if (parsed && (selector == null || !KindRules.selects(selector, labels(spec)))) {
            causes.add(ApiError.Cause.invalid("spec.template.metadata.labels", Json.render(labels(spec)),
                    "`selector` does not match template `labels`"));
        }
        if (selector != null && empty(selector)) {
            causes.add(ApiError.Cause.invalid("spec.selector", Json.render(selector),
                    "empty selector is invalid for daemonset"));
        }
        PodSpecs.validate(Json.obj(Json.obj(spec, "template"), "spec"), "spec.template.spec", causes);
        restartAlways(spec, "DaemonSet", causes);
        nonNegative(spec, "minReadySeconds", "spec.minReadySeconds", causes);
        nonNegative(spec, "templateGeneration", "spec.templateGeneration", causes);
        JsonObject strategy = Json.obj(spec, "updateStrategy");
        String type = Json.str(strategy, "type");
        if ("RollingUpdate".equals(type)) {
            JsonObject rolling = Json.obj(strategy, "rollingUpdate");
            String at = "spec.updateStrategy.rollingUpdate";
            if (rolling == null) {
                causes.add(ApiError.Cause.required(at));
            } else {
                JsonElement unavailable = rolling.get("maxUnavailable");
                JsonElement surge = rolling.get("maxSurge");
                positiveIntOrPercent(unavailable, at + ".maxUnavailable", causes);
                positiveIntOrPercent(surge, at + ".maxSurge", causes);
                notMoreThan100Percent(unavailable, at + ".maxUnavailable", causes);
                notMoreThan100Percent(surge, at + ".maxSurge", causes);
                boolean hasUnavailable = intOrPercentValue(unavailable) != 0;
                boolean hasSurge = intOrPercentValue(surge) != 0;
                if (hasUnavailable && hasSurge) {
                    causes.add(ApiError.Cause.invalid(at + ".maxSurge", intOrString(surge),
                            "may not be set when maxUnavailable is non-zero"));
                } else if (!hasUnavailable && !hasSurge) {
                    causes.add(ApiError.Cause.required(at + ".maxUnavailable", "cannot be 0 when maxSurge is 0"));
                }
            }
        } else if (!"OnDelete".equals(type)) {
            causes.add(ApiError.Cause.notSupported("spec.updateStrategy", "apps.DaemonSetUpdateStrategy{...}",
                    List.of("RollingUpdate", "OnDelete")));
        }
        nonNegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", causes);
    }

    /**
     * {@code ValidatePodDisruptionBudgetSpec} ({@code pkg/apis/policy/validation/validation.go}): not both
     * {@code minAvailable} and {@code maxUnavailable}, each a count or percent of at most 100%, a valid selector, an
     * unhealthy pod eviction policy upstream knows.
     */
    static void disruptionBudget(JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject s = spec == null ? new JsonObject() : spec;
        JsonElement min = s.get("minAvailable");
        JsonElement max = s.get("maxUnavailable");
        boolean hasMin = min != null && !min.isJsonNull();
        boolean hasMax = max != null && !max.isJsonNull();
        if (hasMin && hasMax) {
            causes.add(ApiError.Cause.invalid("spec", "policy.PodDisruptionBudgetSpec{...}",
                    "minAvailable and maxUnavailable cannot be both set"));
        }
        if (hasMin) {
            positiveIntOrPercent(min, "spec.minAvailable", causes);
            notMoreThan100Percent(min, "spec.minAvailable", causes);
        }
        if (hasMax) {
            positiveIntOrPercent(max, "spec.maxUnavailable", causes);
            notMoreThan100Percent(max, "spec.maxUnavailable", causes);
        }
        NetworkPolicySpecs.labelSelector(Json.obj(s, "selector"), "spec.selector", causes);
        String policy = Json.str(s, "unhealthyPodEvictionPolicy");
        if (policy != null && !policy.equals("IfHealthyBudget") && !policy.equals("AlwaysAllow")) {
            causes.add(ApiError.Cause.notSupported("spec.unhealthyPodEvictionPolicy", Validation.quote(policy),
                    List.of("AlwaysAllow", "IfHealthyBudget")));
        }
    }

    /**
     * The selector of a StatefulSet, Deployment or ReplicaSet: required, valid, not empty; true when it parses
     * ({@code LabelSelectorAsSelector}), so that the template is checked against it. A selector that does not parse
     * is reported once more at {@code spec.selector} with {@code parseDetail}.
     */
    private static boolean selector(JsonObject spec, String kind, String parseDetail, List<ApiError.Cause> causes) {
        JsonObject selector = Json.obj(spec, "selector");
        if (selector == null) {
            causes.add(ApiError.Cause.required("spec.selector"));
            return true;
        }
        int before = causes.size();
        NetworkPolicySpecs.labelSelector(selector, "spec.selector", causes);
        boolean parsed = causes.size() == before;
        if (empty(selector)) {
            causes.add(ApiError.Cause.invalid("spec.selector", Json.render(selector),
                    "empty selector is invalid for " + kind));
        }
        if (!parsed) {
            causes.add(ApiError.Cause.invalid("spec.selector", Json.render(selector), parseDetail));
        }
        return parsed;
    }

    /**
     * The template's labels against the selector ({@code selector.Matches} unless the selector is empty; a missing
     * selector is {@code labels.Nothing()}, which matches no labels).
     */
    private static void templateLabels(JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject selector = Json.obj(spec, "selector");
        if (selector != null && empty(selector)) {
            return;
        }
        JsonObject labels = labels(spec);
        if (selector == null || !KindRules.selects(selector, labels)) {
            causes.add(ApiError.Cause.invalid("spec.template.metadata.labels", Json.render(labels),
                    "`selector` does not match template `labels`"));
        }
    }

    /** {@code ValidatePodTemplateSpecForReplicaSet} (Deployments and ReplicaSets). */
    private static void replicaSetTemplate(JsonObject spec, List<ApiError.Cause> causes) {
        templateLabels(spec, causes);
        PodSpecs.validate(Json.obj(Json.obj(spec, "template"), "spec"), "spec.template.spec", causes);
        restartAlways(spec, "ReplicaSet", causes);
    }

    /** A workload's pods restart {@code Always} and have no deadline ({@code <kind>} as upstream's message says). */
    private static void restartAlways(JsonObject spec, String kind, List<ApiError.Cause> causes) {
        JsonObject podSpec = Json.obj(Json.obj(spec, "template"), "spec");
        String restart = Json.str(podSpec, "restartPolicy");
        if (restart != null && !restart.equals("Always")) {
            causes.add(ApiError.Cause.notSupported("spec.template.spec.restartPolicy", Validation.quote(restart),
                    List.of("Always")));
        }
        JsonElement deadline = podSpec == null ? null : podSpec.get("activeDeadlineSeconds");
        if (deadline != null && !deadline.isJsonNull()) {
            causes.add(ApiError.Cause.forbidden("spec.template.spec.activeDeadlineSeconds",
                    "activeDeadlineSeconds in " + kind + " is not Supported"));
        }
    }

    /** {@code ValidatePositiveIntOrPercent}: a number not negative, or a string that is a percent. */
    private static void positiveIntOrPercent(JsonElement v, String path, List<ApiError.Cause> causes) {
        if (v == null || v.isJsonNull()) {
            return;
        }
        if (isString(v)) {
            if (!PERCENT.matcher(v.getAsString()).matches()) {
                causes.add(ApiError.Cause.invalid(path, intOrString(v), PERCENT_MESSAGE));
            }
        } else if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() && v.getAsLong() < 0) {
            causes.add(ApiError.Cause.invalid(path, v.getAsString(), NEGATIVE));
        }
    }

    /** {@code IsNotMoreThan100Percent}. */
    private static void notMoreThan100Percent(JsonElement v, String path, List<ApiError.Cause> causes) {
        Integer percent = percent(v);
        if (percent != null && percent > 100) {
            causes.add(ApiError.Cause.invalid(path, intOrString(v), "must not be greater than 100%"));
        }
    }

    /** {@code getIntOrPercentValue}: the percent, else the number ({@code IntValue}: 0 for a string that is not one). */
    private static long intOrPercentValue(JsonElement v) {
        Integer percent = percent(v);
        if (percent != null) {
            return percent;
        }
        if (v == null || v.isJsonNull()) {
            return 0;
        }
        if (isString(v)) {
            try {
                return Integer.parseInt(v.getAsString());
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() ? v.getAsLong() : 0;
    }

    /** {@code getPercentValue}: the number of a valid percent string, else null. */
    private static Integer percent(JsonElement v) {
        if (v == null || !isString(v) || !PERCENT.matcher(v.getAsString()).matches()) {
            return null;
        }
        String s = v.getAsString();
        try {
            return Integer.parseInt(s.substring(0, s.length() - 1));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** Go's {@code %#v} of an {@code intstr.IntOrString}. */
    static String intOrString(JsonElement v) {
        if (v != null && isString(v)) {
            return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + Validation.quote(v.getAsString()) + "}";
        }
        long n = v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() ? v.getAsLong() : 0;
        return "intstr.IntOrString{Type:0, IntVal:" + n + ", StrVal:\"\"}";
    }

    /** {@code ValidateNonnegativeField} of a number field, when it is set. */
    private static void nonNegative(JsonObject o, String field, String path, List<ApiError.Cause> causes) {
        JsonElement v = o.get(field);
        if (v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() && v.getAsLong() < 0) {
            causes.add(ApiError.Cause.invalid(path, v.getAsString(), NEGATIVE));
        }
    }

    private static long number(JsonObject o, String field) {
        JsonElement v = o.get(field);
        return v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() ? v.getAsLong() : 0;
    }

    private static boolean isString(JsonElement v) {
        return v.isJsonPrimitive() && v.getAsJsonPrimitive().isString();
    }

    private static boolean empty(JsonObject selector) {
        JsonObject matchLabels = Json.obj(selector, "matchLabels");
        var expressions = Json.arr(selector, "matchExpressions");
        return (matchLabels == null || matchLabels.isEmpty()) && (expressions == null || expressions.isEmpty());
    }

    private static JsonObject labels(JsonObject spec) {
        JsonObject labels = Json.obj(Json.obj(Json.obj(spec, "template"), "metadata"), "labels");
        return labels == null ? new JsonObject() : labels;
    }
}
