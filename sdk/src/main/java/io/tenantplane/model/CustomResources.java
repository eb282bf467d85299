package io.tenantplane.model;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The tenantplane custom resources of one input (a directory of manifests, or what the API server holds),
 * validated together: each object on its own, plus the rules that span objects.
 *
 * <p>Cross-object rules: each TenantCluster's IsolationProfile and SyncPolicy exist in its namespace; tenant names
 * are unique (host objects are labelled with the tenant name alone); a dedicated or private host namespace belongs to
 * one tenant and is not another tenant's shared namespace; tenants that share a host namespace use the same
 * namespace-wide isolation (quota, limits and Pod Security apply to the whole namespace); a private-mode profile
 * admits what k3s agents need.
 */
public record CustomResources(List<TenantCluster> tenantClusters, List<IsolationProfile> isolationProfiles,
                              List<SyncPolicy> syncPolicies) {

    public CustomResources {
        tenantClusters = List.copyOf(tenantClusters);
        isolationProfiles = List.copyOf(isolationProfiles);
        syncPolicies = List.copyOf(syncPolicies);
    }

    /** True when {@code object}'s apiVersion is in the {@code tenantplane.io} group. */
    public static boolean isCustomResource(JsonObject object) {
        String av = io.tenantplane.json.Json.string(object, "apiVersion");
        return av != null && av.startsWith(TenantCluster.GROUP + "/");
    }

    /**
     * Picks the tenantplane objects out of {@code objects} (others are ignored), converts and validates each and then
     * all of them together. The result is {@link Parsed.Ok} only when there is no problem at all; otherwise
     * {@link Parsed.Invalid} lists every problem, each attributed to its file and object.
     */
    public static Parsed<CustomResources> from(Collection<LoadedObject> objects) {
        List<Problem> problems = new ArrayList<>();
        List<TenantCluster> tcs = new ArrayList<>();
        List<IsolationProfile> ips = new ArrayList<>();
        List<SyncPolicy> sps = new ArrayList<>();
        Map<Object, String> sources = new IdentityHashMap<>();
        for (LoadedObject lo : objects) {
            if (!isCustomResource(lo.object())) {
                continue;
            }
            String source = lo.describe();
            String kind = lo.kind();
            Class<? extends Record> type = switch (kind == null ? "" : kind) {
                case TenantCluster.KIND -> TenantCluster.class;
                case IsolationProfile.KIND -> IsolationProfile.class;
                case SyncPolicy.KIND -> SyncPolicy.class;
                default -> null;
            };
            if (type == null) {
                problems.add(new Problem(source, "kind", "unknown tenantplane.io kind \"" + kind + "\"; known kinds: "
                        + TenantCluster.KIND + ", " + IsolationProfile.KIND + ", " + SyncPolicy.KIND));
                continue;
            }
            List<Problem> own = new ArrayList<>(Structure.check(lo.object(), type, Structure.Mode.STRICT));
            // Convert what is well-typed, so that one wrong type does not hide the other problems of the object.
            List<String> dropped = new ArrayList<>();
            JsonObject usable = Structure.sanitize(lo.object(), type, dropped);
            Object value;
            try {
                value = io.tenantplane.json.Json.gson().fromJson(usable, type);
            } catch (RuntimeException e) {
                own.add(Problem.of(null, "cannot read the object: " + e.getMessage()));
                new LinkedHashSet<>(own).forEach(p -> problems.add(p.withSource(source)));
                continue;
            }
            sources.put(value, source);
            List<Problem> semantic = switch (value) {
                case TenantCluster tc -> {
                    tcs.add(tc);
                    yield tc.validate();
                }
                case IsolationProfile ip -> {
                    ips.add(ip);
                    yield ip.validate();
                }
                case SyncPolicy sp -> {
                    sps.add(sp);
                    yield sp.validate();
                }
                default -> throw new IllegalStateException("unexpected " + value);
            };
            semantic.stream().filter(p -> dropped.stream().noneMatch(d -> Structure.isUnder(p.field(), d)))
                    .forEach(own::add);
            new LinkedHashSet<>(own).forEach(p -> problems.add(p.withSource(source)));
        }
        CustomResources all = new CustomResources(tcs, ips, sps);
        for (Problem p : all.crossProblems(sources)) {
            problems.add(p);
        }
        return Parsed.of(all, problems);
    }

    /** Every problem: each object on its own, then the cross-object rules. Sources name the objects. */
    public List<Problem> validate() {
        List<Problem> out = new ArrayList<>();
        for (TenantCluster tc : tenantClusters) {
            tc.validate().forEach(p -> out.add(p.withSource("TenantCluster " + tc.id())));
        }
        for (IsolationProfile ip : isolationProfiles) {
            ip.validate().forEach(p -> out.add(p.withSource("IsolationProfile " + ip.id())));
        }
        for (SyncPolicy sp : syncPolicies) {
            String id = (sp.metadata() == null ? null : sp.metadata().namespace()) + "/" + sp.name();
            sp.validate().forEach(p -> out.add(p.withSource("SyncPolicy " + id)));
        }
        out.addAll(crossProblems(new IdentityHashMap<>()));
        return out;
    }

    /** The IsolationProfile {@code tc} references, from its namespace. */
    public Optional<IsolationProfile> isolationProfileFor(TenantCluster tc) {
        String name = tc.spec() == null || tc.spec().isolationProfileRef() == null
                ? null : tc.spec().isolationProfileRef().name();
        return isolationProfiles.stream()
                .filter(p -> p.metadata() != null && Objects.equals(p.metadata().namespace(), tc.namespace())
                        && Objects.equals(p.name(), name) && name != null)
                .findFirst();
    }

    /** The SyncPolicy {@code tc} references, from its namespace. */
    public Optional<SyncPolicy> syncPolicyFor(TenantCluster tc) {
        String name = tc.spec() == null || tc.spec().syncPolicyRef() == null ? null : tc.spec().syncPolicyRef().name();
        return syncPolicies.stream()
                .filter(p -> p.metadata() != null && Objects.equals(p.metadata().namespace(), tc.namespace())
                        && Objects.equals(p.name(), name) && name != null)
                .findFirst();
    }

    private List<Problem> crossProblems(Map<Object, String> sources) {
        List<Problem> out = new ArrayList<>();
        Map<String, TenantCluster> byTenant = new HashMap<>();
        Map<String, TenantCluster> ownNamespaces = new TreeMap<>();
        Map<String, List<TenantCluster>> sharedNamespaces = new TreeMap<>();
        for (TenantCluster tc : tenantClusters) {
            String source = sources.getOrDefault(tc, "TenantCluster " + tc.id());
            if (tc.spec() == null || tc.tenant() == null || tc.namespace() == null) {
                continue;
            }
            references(tc, source, out);
            TenantCluster sameName = byTenant.putIfAbsent(tc.tenant(), tc);
            if (sameName != null) {
                out.add(new Problem(source, "metadata.name", "tenant name " + tc.tenant() + " is also used by "
                        + "TenantCluster " + sameName.id() + "; host objects carry the tenant name alone, so tenant "
                        + "names must be unique across namespaces: rename one"));
            }
            String host;
            try {
                host = tc.hostNamespace();
            } catch (IllegalArgumentException e) {
                continue; // an invalid name, already reported on its own
            }
            if (tc.mode() == TenantCluster.Mode.SHARED) {
                sharedNamespaces.computeIfAbsent(host, k -> new ArrayList<>()).add(tc);
            } else {
                TenantCluster other = ownNamespaces.putIfAbsent(host, tc);
                if (other != null) {
                    out.add(new Problem(source, "spec.hostNamespace", "host namespace " + host + " is already the "
                            + "host namespace of TenantCluster " + other.id() + "; a " + tc.mode().value() + " tenant "
                            + "needs a namespace of its own: set another spec.hostNamespace"));
                }
            }
        }
        for (var en : ownNamespaces.entrySet()) {
            if (sharedNamespaces.containsKey(en.getKey())) {
                TenantCluster tc = en.getValue();
                out.add(new Problem(sources.getOrDefault(tc, "TenantCluster " + tc.id()), "spec.hostNamespace",
                        "host namespace " + en.getKey() + " already holds shared-mode tenants ("
                                + String.join(", ", sharedNamespaces.get(en.getKey()).stream().map(TenantCluster::id)
                                .toList()) + "); a " + tc.mode().value() + " tenant needs a namespace of its own"));
            }
        }
        sharedNamespaces.forEach((ns, tenants) -> sameNamespaceIsolation(ns, tenants, sources, out));
        return out;
    }

    private void references(TenantCluster tc, String source, List<Problem> out) {
        if (tc.spec().isolationProfileRef() != null && tc.spec().isolationProfileRef().name() != null) {
            Optional<IsolationProfile> ip = isolationProfileFor(tc);
            if (ip.isEmpty()) {
                out.add(new Problem(source, "spec.isolationProfileRef.name", "IsolationProfile \""
                        + tc.spec().isolationProfileRef().name() + "\" not found in namespace " + tc.namespace()
                        + available(isolationProfiles.stream().filter(p -> p.metadata() != null
                        && Objects.equals(p.metadata().namespace(), tc.namespace())).map(IsolationProfile::name).toList())
                        + "; create it or fix the name"));
            } else {
                ip.get().validateFor(tc).forEach(p -> out.add(p.withSource(source)));
            }
        }
        if (tc.spec().syncPolicyRef() != null && tc.spec().syncPolicyRef().name() != null
                && syncPolicyFor(tc).isEmpty()) {
            out.add(new Problem(source, "spec.syncPolicyRef.name", "SyncPolicy \"" + tc.spec().syncPolicyRef().name()
                    + "\" not found in namespace " + tc.namespace()
                    + available(syncPolicies.stream().filter(p -> p.metadata() != null
                    && Objects.equals(p.metadata().namespace(), tc.namespace())).map(SyncPolicy::name).toList())
                    + "; create it or fix the name"));
        }
    }

    private static String available(List<String> names) {
        return names.isEmpty() ? " (there is none there)" : " (there: " + String.join(", ", names) + ")";
    }

    private void sameNamespaceIsolation(String ns, List<TenantCluster> tenants, Map<Object, String> sources,
                                        List<Problem> out) {
        TenantCluster first = null;
        IsolationProfile.Spec firstSpec = null;
        for (TenantCluster tc : tenants) {
            Optional<IsolationProfile> ip = isolationProfileFor(tc);
            if (ip.isEmpty()) {
                continue;
            }
            IsolationProfile.Spec s = ip.get().withDefaults().spec();
            if (first == null) {
                first = tc;
                firstSpec = s;
                continue;
            }
            List<String> differ = new ArrayList<>();
            if (!Objects.equals(s.quota(), firstSpec.quota())) {
                differ.add("quota");
            }
            if (!Objects.equals(s.limits(), firstSpec.limits())) {
                differ.add("limits");
            }
            if (!Objects.equals(s.podSecurity(), firstSpec.podSecurity())) {
                differ.add("podSecurity");
            }
            if (!differ.isEmpty()) {
                out.add(new Problem(sources.getOrDefault(tc, "TenantCluster " + tc.id()), "spec.isolationProfileRef.name",
                        "shares host namespace " + ns + " with TenantCluster " + first.id() + ", but their "
                                + "IsolationProfiles differ in " + String.join(", ", differ) + "; these apply to the whole "
                                + "namespace in shared mode: use the same IsolationProfile, or dedicated mode"));
            }
        }
    }
}
