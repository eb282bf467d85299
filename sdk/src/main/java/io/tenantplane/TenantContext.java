package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A tenant as a pass sees it: its TenantCluster with the SyncPolicy and IsolationProfile it references, read together
 * so one pass works from one consistent view. Get one from {@link TenantPlane#context(TenantKey)}, or build one
 * (e.g. from informer caches) to converge without reading them again.
 *
 * @param cluster   the TenantCluster
 * @param policy    the SyncPolicy it references
 * @param profile   the IsolationProfile it references
 * @param hostLists host lists that the provisioning which made this context read, each as that provisioning left it
 *                  (its own writes included), so that the pass right after it does not list them again; empty when
 *                  none, and the pass lists for itself. A list is a snapshot: a pass run long after may write from
 *                  stale objects, which the API server's resourceVersion preconditions refuse (and the pass then
 *                  re-reads), so hand a context with lists to {@link TenantPlane#converge(TenantContext)} right away.
 */
public record TenantContext(TenantCluster cluster, SyncPolicy policy, IsolationProfile profile,
                            List<HostList> hostLists) {

    /**
     * One list of host objects: every object of one kind in one namespace that carries the labels of an equality
     * label selector.
     *
     * @param apiVersion    the kind's API version, e.g. {@code v1}
     * @param kind          the kind, e.g. {@code Service}
     * @param namespace     the namespace listed
     * @param labelSelector the selector listed with, {@code key=value} terms joined by commas
     * @param items         the objects; read-only
     */
    public record HostList(String apiVersion, String kind, String namespace, String labelSelector,
                           List<JsonObject> items) {
        public HostList {
            Objects.requireNonNull(apiVersion, "apiVersion");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(labelSelector, "labelSelector");
            if (terms(labelSelector) == null) {
                throw new IllegalArgumentException("labelSelector: only key=value terms joined by commas are "
                        + "understood here, got '" + labelSelector + "'");
            }
            items = List.copyOf(items);
        }
    }

    /** A context whose pass lists the host for itself. */
    public TenantContext(TenantCluster cluster, SyncPolicy policy, IsolationProfile profile) {
        this(cluster, policy, profile, List.of());
    }

    public TenantContext {
        hostLists = hostLists == null ? List.of() : List.copyOf(hostLists);
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(cluster.metadata(), "cluster.metadata");
        Objects.requireNonNull(cluster.namespace(), "cluster.metadata.namespace");
        Objects.requireNonNull(cluster.tenant(), "cluster.metadata.name");
    }

    /**
     * The host objects of {@code kind} in {@code namespace} that match {@code labelSelector} (equality terms), taken
     * from a handed-on list of that kind and namespace whose selector asks no more than this one does; empty when
     * no such list was handed on (the caller then lists).
     */
    public Optional<List<JsonObject>> listed(String apiVersion, String kind, String namespace, String labelSelector) {
        Map<String, String> wanted = terms(labelSelector == null ? "" : labelSelector);
        if (wanted == null) {
            return Optional.empty();
        }
        for (HostList l : hostLists) {
            if (l.apiVersion().equals(apiVersion) && l.kind().equals(kind) && l.namespace().equals(namespace)
                    && wanted.entrySet().containsAll(terms(l.labelSelector()).entrySet())) {
                return Optional.of(l.items().stream().filter(o -> Json.labels(o).entrySet()
                        .containsAll(wanted.entrySet())).toList());
            }
        }
        return Optional.empty();
    }

    /** {@code k=v,k2=v2} as a map; null when a term is anything else. */
    private static Map<String, String> terms(String selector) {
        Map<String, String> m = new LinkedHashMap<>();
        if (selector.isBlank()) {
            return m;
        }
        for (String term : selector.split(",")) {
            int eq = term.indexOf('=');
            if (eq <= 0 || term.indexOf('=', eq + 1) >= 0 || term.contains("!")) {
                return null;
            }
            m.put(term.substring(0, eq).trim(), term.substring(eq + 1).trim());
        }
        return m;
    }

    /**
     * This context for {@code other}, a placement of the same tenant (a pass takes only the lists that are of the
     * namespaces its placement names).
     */
    TenantContext withCluster(TenantCluster other) {
        return other == cluster ? this : new TenantContext(other, policy, profile, hostLists);
    }

    /** The tenant's key: the TenantCluster's namespace and name. */
    public TenantKey key() {
        return new TenantKey(cluster.namespace(), cluster.tenant());
    }

    /** The tenant's name. */
    public String tenant() {
        return cluster.tenant();
    }

    /** Where the tenant's workloads run on the host. */
    public String hostNamespace() {
        return cluster.hostNamespace();
    }
}
