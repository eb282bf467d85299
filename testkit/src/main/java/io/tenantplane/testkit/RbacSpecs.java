package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.List;

/**
 * Roles, ClusterRoles and their bindings checked as the API server checks them
 * ({@code pkg/apis/rbac/validation/validation.go}), after the defaults {@code pkg/apis/rbac/v1/defaults.go} sets
 * (a binding's {@code roleRef.apiGroup}, a User or Group subject's {@code apiGroup}): each rule has verbs, and either
 * non-resource URLs (cluster-wide only, alone) or API groups and resources (resource names with one resource only);
 * a binding refers to a Role or ClusterRole of {@code rbac.authorization.k8s.io} by name (a ClusterRoleBinding to a
 * ClusterRole only), its subjects are ServiceAccounts (with a namespace in a ClusterRoleBinding), Users or Groups of
 * their API group, and its {@code roleRef} never changes.
 */
final class RbacSpecs {

    private static final String GROUP = "rbac.authorization.k8s.io";

    private RbacSpecs() {
    }

    /** The defaults of {@code SetDefaults_RoleBinding}, {@code SetDefaults_ClusterRoleBinding}, {@code SetDefaults_Subject}. */
    static void defaults(String plural, JsonObject o) {
        if (!plural.endsWith("bindings")) {
            return;
        }
        JsonObject ref = Json.obj(o, "roleRef");
        if (ref != null && (Json.str(ref, "apiGroup") == null || Json.str(ref, "apiGroup").isEmpty())) {
            ref.addProperty("apiGroup", GROUP);
        }
        JsonArray subjects = Json.arr(o, "subjects");
        if (subjects == null) {
            return;
        }
        subjects.forEach(e -> {
            JsonObject s = e.isJsonObject() ? e.getAsJsonObject() : null;
            if (s != null && (Json.str(s, "apiGroup") == null || Json.str(s, "apiGroup").isEmpty())
                    && ("User".equals(Json.str(s, "kind")) || "Group".equals(Json.str(s, "kind")))) {
                s.addProperty("apiGroup", GROUP);
            }
        });
    }

    static void validate(String plural, JsonObject o, JsonObject old, List<ApiError.Cause> causes) {
        boolean namespaced = plural.equals("roles") || plural.equals("rolebindings");
        if (plural.equals("roles") || plural.equals("clusterroles")) {
            JsonArray rules = Json.arr(o, "rules");
            if (rules != null) {
                for (int i = 0; i < rules.size(); i++) {
                    rule(Json.asObject(rules.get(i)), namespaced,
                            "rules[" + i + "]", causes);
                }
            }
            return;
        }
        JsonObject ref = Json.obj(o, "roleRef");
        String group = Json.str(ref, "apiGroup");
        if (!GROUP.equals(group)) {
            causes.add(ApiError.Cause.notSupported("roleRef.apiGroup", Validation.quote(group == null ? "" : group),
                    List.of(GROUP)));
        }
        String kind = Json.str(ref, "kind");
        List<String> kinds = namespaced ? List.of("Role", "ClusterRole") : List.of("ClusterRole");
        if (!kinds.contains(String.valueOf(kind))) {
            causes.add(ApiError.Cause.notSupported("roleRef.kind", Validation.quote(kind == null ? "" : kind), kinds));
        }
        String name = Json.str(ref, "name");
        if (name == null || name.isEmpty()) {
            causes.add(ApiError.Cause.required("roleRef.name"));
        } else {
            String problem = Validation.nameProblem(name, Validation.NameRule.PATH_SEGMENT);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid("roleRef.name", Validation.quote(name), problem));
            }
        }
        JsonArray subjects = Json.arr(o, "subjects");
        if (subjects != null) {
            for (int i = 0; i < subjects.size(); i++) {
                subject(Json.asObject(subjects.get(i)),
                        namespaced, "subjects[" + i + "]", causes);
            }
        }
        if (old != null && !Json.same(Json.obj(old, "roleRef"), ref)) {
            causes.add(ApiError.Cause.invalid("roleRef", Json.render(ref), "cannot change roleRef"));
        }
    }

    /** {@code validatePolicyRule}. */
    private static void rule(JsonObject rule, boolean namespaced, String path, List<ApiError.Cause> causes) {
        if (size(rule, "verbs") == 0) {
            causes.add(ApiError.Cause.required(path + ".verbs", "verbs must contain at least one value"));
        }
        if (size(rule, "nonResourceURLs") > 0) {
            String urls = Json.render(rule.get("nonResourceURLs"));
            if (namespaced) {
                causes.add(ApiError.Cause.invalid(path + ".nonResourceURLs", urls,
                        "namespaced rules cannot apply to non-resource URLs"));
            }
            if (size(rule, "apiGroups") > 0 || size(rule, "resources") > 0 || size(rule, "resourceNames") > 0) {
                causes.add(ApiError.Cause.invalid(path + ".nonResourceURLs", urls,
                        "rules cannot apply to both regular resources and non-resource URLs"));
            }
            return;
        }
        if (size(rule, "apiGroups") == 0) {
            causes.add(ApiError.Cause.required(path + ".apiGroups", "resource rules must supply at least one api group"));
        }
        if (size(rule, "resources") == 0) {
            causes.add(ApiError.Cause.required(path + ".resources", "resource rules must supply at least one resource"));
        }
        if (size(rule, "resourceNames") > 0 && size(rule, "resources") > 1) {
            causes.add(ApiError.Cause.required(path + ".resourceNames",
                    "resource names cannot apply to multiple resources"));
        }
    }

    /** {@code validateRoleBindingSubject}. */
    private static void subject(JsonObject s, boolean namespaced, String path, List<ApiError.Cause> causes) {
        String name = Json.str(s, "name");
        String group = Json.str(s, "apiGroup");
        if (name == null || name.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".name"));
        }
        String kind = Json.str(s, "kind") == null ? "" : Json.str(s, "kind");
        switch (kind) {
            case "ServiceAccount" -> {
                if (name != null && !name.isEmpty() && !Validation.isDns1123Subdomain(name)) {
                    causes.add(ApiError.Cause.invalid(path + ".name", Validation.quote(name),
                            Validation.nameProblem(name, Validation.NameRule.DNS1123_SUBDOMAIN)));
                }
                if (group != null && !group.isEmpty()) {
                    causes.add(ApiError.Cause.notSupported(path + ".apiGroup", Validation.quote(group), List.of("")));
                }
                String ns = Json.str(s, "namespace");
                if (!namespaced && (ns == null || ns.isEmpty())) {
                    causes.add(ApiError.Cause.required(path + ".namespace"));
                }
            }
            case "User", "Group" -> {
                if (name == null || name.isEmpty()) {
                    causes.add(ApiError.Cause.invalid(path + ".name", "\"\"", kind.toLowerCase(java.util.Locale.ROOT)
                            + " name cannot be empty"));
                }
                if (!GROUP.equals(group)) {
                    causes.add(ApiError.Cause.notSupported(path + ".apiGroup", Validation.quote(group == null ? ""
                            : group), List.of(GROUP)));
                }
            }
            default -> causes.add(ApiError.Cause.notSupported(path + ".kind", Validation.quote(kind),
                    List.of("ServiceAccount", "User", "Group")));
        }
    }

    private static int size(JsonObject o, String field) {
        JsonArray a = Json.arr(o, field);
        return a == null ? 0 : a.size();
    }
}
