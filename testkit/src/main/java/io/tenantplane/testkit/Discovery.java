package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The discovery documents ({@code /api}, {@code /apis}, {@code /apis/G/V}, {@code /version}), built from the registry. */
final class Discovery {
    /** The Kubernetes version this server reports; kubectl picks its behaviour (and skew checks) from it. */
    static final String MAJOR = "1";
    static final String MINOR = "32";
    private static final List<String> VERBS = List.of("create", "delete", "deletecollection", "get", "list", "patch",
            "update", "watch");
    private static final Pattern KUBE_VERSION = Pattern.compile("v(\\d+)(?:(alpha|beta)(\\d+))?");

    private final Registry registry;
    /** Groups served elsewhere (aggregated APIs), merged into {@code /apis} after the registry's. */
    private volatile java.util.function.Supplier<Map<String, List<String>>> aggregated = Map::of;

    Discovery(Registry registry) {
        this.registry = registry;
    }

    void aggregated(java.util.function.Supplier<Map<String, List<String>>> groups) {
        this.aggregated = groups;
    }

    private Map<String, List<String>> groupVersions() {
        Map<String, List<String>> all = new java.util.LinkedHashMap<>(registry.groupVersions());
        aggregated.get().forEach((g, versions) -> {
            List<String> merged = new ArrayList<>(all.getOrDefault(g, List.of()));
            versions.stream().filter(v -> !merged.contains(v)).forEach(merged::add);
            all.put(g, merged);
        });
        return all;
    }

    JsonObject version() {
        return Json.object("major", MAJOR, "minor", MINOR, "gitVersion", "v" + MAJOR + "." + MINOR + ".0-testkit",
                "gitCommit", "0000000000000000000000000000000000000000", "gitTreeState", "clean",
                "buildDate", "2025-01-01T00:00:00Z", "goVersion", "go1.23", "compiler", "gc",
                "platform", "linux/amd64");
    }

    JsonObject apiVersions(String serverAddress) {
        return Json.object("kind", "APIVersions", "versions", Json.array("v1"),
                "serverAddressByClientCIDRs", Json.array(Json.object("clientCIDR", "0.0.0.0/0",
                        "serverAddress", serverAddress)));
    }

    JsonObject groupList() {
        JsonArray groups = new JsonArray();
        for (Map.Entry<String, List<String>> e : groupVersions().entrySet()) {
            if (!e.getKey().isEmpty()) {
                groups.add(group(e.getKey(), e.getValue()));
            }
        }
        return Json.object("kind", "APIGroupList", "apiVersion", "v1", "groups", groups);
    }

    /** The APIGroup document for one group, or null when the group is not served. */
    JsonObject group(String name) {
        List<String> versions = groupVersions().get(name);
        if (versions == null || name.isEmpty()) {
            return null;
        }
        JsonObject g = group(name, versions);
        g.addProperty("kind", "APIGroup");
        g.addProperty("apiVersion", "v1");
        return g;
    }

    private static JsonObject group(String name, List<String> versions) {
        List<String> ordered = new ArrayList<>(versions);
        ordered.sort(Discovery::byPriority);
        JsonArray list = new JsonArray();
        for (String v : ordered) {
            list.add(Json.object("groupVersion", name + "/" + v, "version", v));
        }
        return Json.object("name", name, "versions", list, "preferredVersion", list.get(0).deepCopy());
    }

    /** The APIResourceList for one group/version, or null when nothing is served there. */
    JsonObject resources(String group, String version) {
        List<ResourceType> types = registry.inGroupVersion(group, version);
        if (types.isEmpty()) {
            return null;
        }
        JsonArray resources = new JsonArray();
        for (ResourceType t : types) {
            JsonObject r = Json.object("name", t.plural(), "singularName", t.singular(), "namespaced", t.namespaced(),
                    "kind", t.kind(), "verbs", t.createOnly() ? Json.array("create") : Json.strings(VERBS));
            if (!t.shortNames().isEmpty()) {
                r.add("shortNames", Json.strings(t.shortNames()));
            }
            if (!t.categories().isEmpty()) {
                r.add("categories", Json.strings(t.categories()));
            }
            resources.add(r);
            if (t.statusSubresource()) {
                resources.add(Json.object("name", t.plural() + "/status", "singularName", "", "namespaced",
                        t.namespaced(), "kind", t.kind(), "verbs", Json.array("get", "patch", "update")));
            }
            if (t.is("", "serviceaccounts")) {
                resources.add(Json.object("name", "serviceaccounts/token", "singularName", "", "namespaced", true,
                        "group", "authentication.k8s.io", "version", "v1", "kind", "TokenRequest", "verbs",
                        Json.array("create")));
            }
            if (t.is("", "pods")) {
                resources.add(Json.object("name", "pods/binding", "singularName", "", "namespaced", true,
                        "kind", "Binding", "verbs", Json.array("create")));
            }
        }
        if (group.isEmpty() && registry.find("", "v1", "pods") != null) {
            resources.add(Json.object("name", "bindings", "singularName", "binding", "namespaced", true,
                    "kind", "Binding", "verbs", Json.array("create")));
        }
        return Json.object("kind", "APIResourceList", "apiVersion", "v1",
                "groupVersion", group.isEmpty() ? version : group + "/" + version, "resources", resources);
    }

    /** Kubernetes version priority: GA before beta before alpha, higher numbers first, others last by name. */
    static int byPriority(String a, String b) {
        return Comparator.comparing(Discovery::priorityKey).compare(a, b);
    }

    private static String priorityKey(String v) {
        Matcher m = KUBE_VERSION.matcher(v);
        if (!m.matches()) {
            return "9" + v;
        }
        int stage = m.group(2) == null ? 0 : m.group(2).equals("beta") ? 1 : 2;
        int major = Integer.parseInt(m.group(1));
        int minor = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        return stage + String.format("%06d%06d", 999_999 - major, 999_999 - minor);
    }
}
