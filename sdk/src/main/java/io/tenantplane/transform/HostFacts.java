package io.tenantplane.transform;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the host offers a tenant's custom kinds and pods, as the transform needs it: which custom kinds the
 * installation allows at all, whether the host serves each one the policy names, and which cluster-scoped classes
 * are mirrored into the tenant.
 *
 * @param allowedKinds the installation's allow-list of custom kinds, each {@code Kind.group} (e.g.
 *                     {@code Certificate.cert-manager.io}); built-in kinds are always allowed
 * @param kinds        per custom kind the policy names, what the host serves; a kind not here has not been looked
 *                     at and is taken as served
 * @param mirrored     per mirrored kind (e.g. {@code PriorityClass}), the names of the host objects mirrored into the
 *                     tenant
 */
public record HostFacts(Set<String> allowedKinds, Map<String, KindOnHost> kinds, Map<String, Set<String>> mirrored) {

    /** No custom kind allowed, nothing known about the host. */
    public static final HostFacts NONE = new HostFacts(Set.of(), Map.of(), Map.of());

    public HostFacts {
        allowedKinds = Set.copyOf(allowedKinds == null ? Set.of() : allowedKinds);
        kinds = Map.copyOf(kinds == null ? Map.of() : kinds);
        Map<String, Set<String>> m = new TreeMap<>();
        (mirrored == null ? Map.<String, Set<String>>of() : mirrored).forEach((k, v) -> m.put(k, Set.copyOf(v)));
        mirrored = Map.copyOf(m);
    }

    /** How the host serves one custom kind. */
    public sealed interface KindOnHost {
    }

    /** Served, namespaced, at the policy's version. */
    public record Served() implements KindOnHost {
    }

    /**
     * Not served as the policy names it.
     *
     * @param message what is missing and what to install, e.g. the CRD's name
     */
    public record NotServed(String message) implements KindOnHost {
    }

    /** Served, but cluster-scoped: it never goes to the host. */
    public record ClusterScoped(String message) implements KindOnHost {
    }

    /** {@code Kind.group} of a kind at an apiVersion ({@code Kind} for the core group). */
    public static String qualified(String kind, String apiVersion) {
        int slash = apiVersion == null ? -1 : apiVersion.indexOf('/');
        return slash < 0 ? kind : kind + "." + apiVersion.substring(0, slash);
    }

    /** True when the installation lets tenantplane write objects of this custom kind. */
    public boolean allows(String kind, String apiVersion) {
        return allowed(allowedKinds, kind, apiVersion);
    }

    /** True when {@code allowedKinds} (each {@code Kind.group}) holds this kind at this apiVersion. */
    public static boolean allowed(Set<String> allowedKinds, String kind, String apiVersion) {
        return allowedKinds.contains(qualified(kind, apiVersion));
    }

    /** These facts with another allow-list. */
    public HostFacts withAllowed(Set<String> allowed) {
        return new HostFacts(allowed, kinds, mirrored);
    }

    /** These facts with the custom kinds' availability. */
    public HostFacts withKinds(Map<String, KindOnHost> found) {
        return new HostFacts(allowedKinds, found, mirrored);
    }

    /** These facts with the mirrored names. */
    public HostFacts withMirrored(Map<String, Set<String>> names) {
        return new HostFacts(allowedKinds, kinds, names);
    }

    /** The availability of {@code kind}, when it was looked at. */
    public Optional<KindOnHost> kind(String kind) {
        return Optional.ofNullable(kinds.get(kind));
    }

    /**
     * The names of the host objects that {@code policy}'s {@code fromHost} rules select among {@code hostObjects}
     * (objects of other kinds, and namespaced objects, are ignored), per kind.
     */
    public static Map<String, Set<String>> mirroredNames(SyncPolicy policy, Collection<JsonObject> hostObjects) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (SyncPolicy.HostMirror m : policy.mirrors()) {
            if (m.kind() == null) {
                continue;
            }
            Set<String> names = out.computeIfAbsent(m.kind(), k -> new TreeSet<>());
            for (JsonObject o : hostObjects) {
                if (m.kind().equals(Json.string(o, "kind")) && Json.string(o, "metadata", "namespace") == null
                        && m.selects(Json.string(o, "metadata", "name"), Json.labels(o))) {
                    names.add(Json.string(o, "metadata", "name"));
                }
            }
        }
        return out;
    }

    /**
     * The availability of each custom kind {@code policy} sends to the host, judged from the host's
     * CustomResourceDefinitions among {@code hostObjects} (what an offline plan has): a kind with no CRD there is
     * not served, unless {@code builtIn} says the host serves it without one.
     *
     * @param builtIn true for a kind at an apiVersion the host serves without a CRD (e.g. {@code apps/v1 Deployment})
     */
    public static Map<String, KindOnHost> fromCrds(SyncPolicy policy, Collection<JsonObject> hostObjects,
                                                    java.util.function.BiPredicate<String, String> builtIn) {
        Map<String, KindOnHost> out = new TreeMap<>();
        for (SyncPolicy.KindRule r : policy.spec() == null ? List.<SyncPolicy.KindRule>of() : policy.spec().kinds()) {
            if (r == null || r.kind() == null || !r.toHost() || !r.custom() || r.apiVersion() == null) {
                continue;
            }
            if (builtIn.test(r.apiVersion(), r.kind())) {
                out.put(r.kind(), new Served());
                continue;
            }
            JsonObject crd = hostObjects.stream()
                    .filter(o -> "CustomResourceDefinition".equals(Json.string(o, "kind")))
                    .filter(o -> group(r.apiVersion()).equals(Json.string(o, "spec", "group"))
                            && r.kind().equals(Json.string(o, "spec", "names", "kind")))
                    .findFirst().orElse(null);
            out.put(r.kind(), fromCrd(r.kind(), r.apiVersion(), crd));
        }
        return out;
    }

    /**
     * The availability of {@code kind} at {@code apiVersion} given the host's CRD for it (null: there is none).
     */
    public static KindOnHost fromCrd(String kind, String apiVersion, JsonObject crd) {
        String group = group(apiVersion);
        String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
        if (crd == null) {
            return new NotServed("the host serves no " + kind + " in " + apiVersion + ": install the "
                    + "CustomResourceDefinition of " + qualified(kind, apiVersion) + " on the host (tenantplane "
                    + "never installs a tenant's CRDs there)");
        }
        String name = Json.string(crd, "metadata", "name");
        if ("Cluster".equals(Json.string(crd, "spec", "scope"))) {
            return new ClusterScoped(kind + " is cluster-scoped on the host (CustomResourceDefinition " + name
                    + "), and cluster-scoped kinds never go to the host");
        }
        List<String> served = new ArrayList<>();
        JsonElement versions = Json.object(crd, "spec") == null ? null : Json.object(crd, "spec").get("versions");
        if (versions != null && versions.isJsonArray()) {
            for (JsonElement v : versions.getAsJsonArray()) {
                if (v.isJsonObject() && v.getAsJsonObject().has("served")
                        && v.getAsJsonObject().get("served").getAsBoolean()) {
                    served.add(Json.string(v.getAsJsonObject(), "name"));
                }
            }
        }
        if (!served.contains(version)) {
            return new NotServed("the host's CustomResourceDefinition " + name + " does not serve " + version
                    + (served.isEmpty() ? " (it serves no version)" : " (it serves " + String.join(", ", served)
                    + ")") + ": serve " + version + " there, or name a served version in the SyncPolicy");
        }
        if (!group.isEmpty() && !"True".equals(established(crd))) {
            return new NotServed("the host's CustomResourceDefinition " + name + " is not Established yet");
        }
        return new Served();
    }

    private static String established(JsonObject crd) {
        JsonElement conds = Json.object(crd, "status") == null ? null : Json.object(crd, "status").get("conditions");
        if (conds == null || !conds.isJsonArray()) {
            // Offline CRDs from files carry no status: taken as established.
            return "True";
        }
        for (JsonElement c : conds.getAsJsonArray()) {
            if (c.isJsonObject() && "Established".equals(Json.string(c.getAsJsonObject(), "type"))) {
                return Json.string(c.getAsJsonObject(), "status");
            }
        }
        return "False";
    }

    private static String group(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }
}
