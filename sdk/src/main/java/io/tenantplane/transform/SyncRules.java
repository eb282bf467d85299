package io.tenantplane.transform;

import io.tenantplane.model.SyncPolicy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A SyncPolicy indexed by kind: which kinds cross to the host, and from which virtual namespaces. When a policy
 * lists a kind twice, the first rule wins. The tenant system namespaces are never synced.
 */
public final class SyncRules {

    private final Map<String, SyncPolicy.KindRule> byKind;
    private final Map<String, SyncPolicy.HostMirror> mirrors;

    private SyncRules(Map<String, SyncPolicy.KindRule> byKind, Map<String, SyncPolicy.HostMirror> mirrors) {
        this.byKind = byKind;
        this.mirrors = mirrors;
    }

    /** The rules of {@code policy}; a null policy or spec syncs nothing. */
    public static SyncRules of(SyncPolicy policy) {
        Map<String, SyncPolicy.KindRule> m = new LinkedHashMap<>();
        Map<String, SyncPolicy.HostMirror> mirrors = new LinkedHashMap<>();
        if (policy != null && policy.spec() != null) {
            for (SyncPolicy.KindRule r : policy.spec().kinds()) {
                if (r != null && r.kind() != null) {
                    m.putIfAbsent(r.kind(), r);
                }
            }
            for (SyncPolicy.HostMirror r : policy.spec().fromHost()) {
                if (r != null && r.kind() != null) {
                    mirrors.putIfAbsent(r.kind(), r);
                }
            }
        }
        return new SyncRules(Map.copyOf(m), Map.copyOf(mirrors));
    }

    /** The fromHost rule for {@code kind}, if the policy has one. */
    public Optional<SyncPolicy.HostMirror> mirror(String kind) {
        return Optional.ofNullable(mirrors.get(kind));
    }

    /** The rule for {@code kind}, if the policy has one. */
    public Optional<SyncPolicy.KindRule> rule(String kind) {
        return Optional.ofNullable(byKind.get(kind));
    }

    /** True when the policy copies objects of {@code kind} to the host at all. */
    public boolean syncsToHost(String kind) {
        SyncPolicy.KindRule r = byKind.get(kind);
        return r != null && r.toHost();
    }

    /**
     * True when the policy copies objects of {@code kind} in {@code virtualNamespace} to the host (label selectors
     * aside): the kind is synced, the namespace is not a system namespace and passes the rule's namespace filter.
     * For a cluster-scoped kind pass {@code null}.
     */
    public boolean syncsToHost(String kind, String virtualNamespace) {
        if (!syncsToHost(kind)) {
            return false;
        }
        if (virtualNamespace == null) {
            return true;
        }
        if (SyncPolicy.SYSTEM_NAMESPACES.contains(virtualNamespace)) {
            return false;
        }
        SyncPolicy.NamespaceFilter f = byKind.get(kind).namespaces();
        return f == null || f.allows(virtualNamespace);
    }
}
