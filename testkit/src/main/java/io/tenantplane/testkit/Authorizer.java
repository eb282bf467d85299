package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code SubjectAccessReview} answered by the RBAC authorizer over the Roles, ClusterRoles and bindings in the store,
 * as {@code plugin/pkg/auth/authorizer/rbac/rbac.go} ({@code RBACAuthorizer.Authorize}, {@code RuleAllows}) and
 * {@code pkg/registry/rbac/validation/rule.go} ({@code appliesToUser}, {@code VisitRulesFor}) do: ClusterRoleBindings
 * first, then the RoleBindings of the request's namespace (to a Role there or a ClusterRole); subjects are users,
 * groups and ServiceAccounts ({@code system:serviceaccount:<namespace>:<name>}); {@code *} matches any verb, group,
 * resource; {@code resourceNames} limit a rule to those names; group {@code system:masters} may do anything.
 */
final class Authorizer {
    private final Store store;
    private final Registry registry;

    Authorizer(Store store, Registry registry) {
        this.store = store;
        this.registry = registry;
    }

    JsonObject review(JsonObject body) {
        JsonObject spec = Json.obj(body, "spec");
        String user = spec == null ? null : Json.str(spec, "user");
        List<String> groups = strings(spec == null ? null : Json.arr(spec, "groups"));
        JsonObject attributes = spec == null ? null : Json.obj(spec, "resourceAttributes");
        JsonObject nonResource = spec == null ? null : Json.obj(spec, "nonResourceAttributes");
        if ((user == null || user.isEmpty()) && groups.isEmpty()) {
            throw ApiError.invalid("authorization.k8s.io", "SubjectAccessReview", "",
                    List.of(new ApiError.Cause("FieldValueInvalid", "spec.user", "Invalid value: \"\": at least one "
                            + "of user or group must be specified")));
        }
        if (attributes == null && nonResource == null) {
            throw ApiError.invalid("authorization.k8s.io", "SubjectAccessReview", "",
                    List.of(new ApiError.Cause("FieldValueRequired", "spec.resourceAttributes",
                            "Required value: exactly one of nonResourceAttributes or resourceAttributes must be "
                                    + "specified")));
        }
        String reason = allowedBy(user == null ? "" : user, groups, attributes, nonResource);
        JsonObject out = body.deepCopy();
        out.addProperty("kind", "SubjectAccessReview");
        out.addProperty("apiVersion", "authorization.k8s.io/v1");
        Json.child(out, "metadata").addProperty("creationTimestamp", (String) null);
        JsonObject status = new JsonObject();
        status.addProperty("allowed", reason != null);
        if (reason != null) {
            status.addProperty("reason", reason);
        }
        out.add("status", status);
        return out;
    }

    /** The reason a rule allows the request, or null when none does. */
    private String allowedBy(String user, List<String> groups, JsonObject attrs, JsonObject nonResource) {
        if (groups.contains("system:masters")) {
            return "allowed by group system:masters";
        }
        String ns = attrs == null ? "" : Objects.requireNonNullElse(Json.str(attrs, "namespace"), "");
        for (JsonObject binding : list("clusterrolebindings", null)) {
            if (binds(binding, user, groups, "")) {
                for (JsonObject rule : rules(Json.obj(binding, "roleRef"), "")) {
                    if (allows(rule, attrs, nonResource)) {
                        return "RBAC: allowed by ClusterRoleBinding \"" + name(binding) + "\" of ClusterRole \""
                                + Json.str(Json.obj(binding, "roleRef"), "name") + "\" to " + who(user);
                    }
                }
            }
        }
        if (!ns.isEmpty()) {
            for (JsonObject binding : list("rolebindings", ns)) {
                if (binds(binding, user, groups, ns)) {
                    JsonObject ref = Json.obj(binding, "roleRef");
                    for (JsonObject rule : rules(ref, ns)) {
                        if (allows(rule, attrs, null)) {
                            return "RBAC: allowed by RoleBinding \"" + name(binding) + "/" + ns + "\" of "
                                    + Json.str(ref, "kind") + " \"" + Json.str(ref, "name") + "\" to " + who(user);
                        }
                    }
                }
            }
        }
        return null;
    }

    private static String who(String user) {
        return user.startsWith("system:serviceaccount:") ? "ServiceAccount \"" + user.substring(
                "system:serviceaccount:".length()).replace(':', '/') + "\"" : "User \"" + user + "\"";
    }

    private List<JsonObject> list(String plural, String namespace) {
        ResourceType t = registry.find("rbac.authorization.k8s.io", "v1", plural);
        return new ArrayList<>(store.list(t, namespace, null, null, 0, null).items());
    }

    private List<JsonObject> rules(JsonObject roleRef, String namespace) {
        String kind = Json.str(roleRef, "kind");
        String name = Json.str(roleRef, "name");
        for (JsonObject role : "ClusterRole".equals(kind) ? list("clusterroles", null) : list("roles", namespace)) {
            if (name != null && name.equals(name(role))) {
                List<JsonObject> out = new ArrayList<>();
                JsonArray rules = Json.arr(role, "rules");
                for (int i = 0; rules != null && i < rules.size(); i++) {
                    out.add(rules.get(i).getAsJsonObject());
                }
                return out;
            }
        }
        return List.of();
    }

    /** {@code appliesToUser}: a User by name, a Group by membership, a ServiceAccount by its user name. */
    private static boolean binds(JsonObject binding, String user, List<String> groups, String bindingNamespace) {
        JsonArray subjects = Json.arr(binding, "subjects");
        for (int i = 0; subjects != null && i < subjects.size(); i++) {
            JsonObject s = subjects.get(i).getAsJsonObject();
            String kind = Json.str(s, "kind");
            String name = Json.str(s, "name");
            boolean match = switch (kind == null ? "" : kind) {
                case "User" -> user.equals(name);
                case "Group" -> groups.contains(name);
                case "ServiceAccount" -> {
                    String ns = Json.str(s, "namespace");
                    ns = ns == null || ns.isEmpty() ? bindingNamespace : ns;
                    yield user.equals("system:serviceaccount:" + ns + ":" + name);
                }
                default -> false;
            };
            if (match) {
                return true;
            }
        }
        return false;
    }

    /** {@code RuleAllows}: verb, API group, resource (with subresource) and resource name all match. */
    private static boolean allows(JsonObject rule, JsonObject attrs, JsonObject nonResource) {
        if (attrs == null) {
            String path = Json.str(nonResource, "path");
            List<String> urls = strings(Json.arr(rule, "nonResourceURLs"));
            boolean url = urls.stream().anyMatch(u -> u.equals("*") || u.equals(path)
                    || u.endsWith("*") && path != null && path.startsWith(u.substring(0, u.length() - 1)));
            return url && matches(strings(Json.arr(rule, "verbs")), Json.str(nonResource, "verb"));
        }
        String resource = Objects.requireNonNullElse(Json.str(attrs, "resource"), "");
        String sub = Json.str(attrs, "subresource");
        String combined = sub == null || sub.isEmpty() ? resource : resource + "/" + sub;
        List<String> resources = strings(Json.arr(rule, "resources"));
        boolean resourceMatches = resources.stream().anyMatch(r -> r.equals("*") || r.equals(combined)
                || sub != null && !sub.isEmpty() && r.equals("*/" + sub));
        List<String> names = strings(Json.arr(rule, "resourceNames"));
        String name = Json.str(attrs, "name");
        return matches(strings(Json.arr(rule, "verbs")), Json.str(attrs, "verb"))
                && matches(strings(Json.arr(rule, "apiGroups")), Objects.requireNonNullElse(Json.str(attrs, "group"),
                ""))
                && resourceMatches && (names.isEmpty() || name != null && names.contains(name));
    }

    private static boolean matches(List<String> allowed, String value) {
        return allowed.contains("*") || value != null && allowed.contains(value);
    }

    private static String name(JsonObject o) {
        return Json.str(Json.obj(o, "metadata"), "name");
    }

    private static List<String> strings(JsonArray a) {
        List<String> out = new ArrayList<>();
        for (int i = 0; a != null && i < a.size(); i++) {
            if (a.get(i).isJsonPrimitive()) {
                out.add(a.get(i).getAsString());
            }
        }
        return out;
    }
}
