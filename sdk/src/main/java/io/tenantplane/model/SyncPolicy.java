package io.tenantplane.model;

import com.google.gson.annotations.SerializedName;
import java.util.List;
import java.util.Set;

/**
 * {@code SyncPolicy.tenantplane.io/v1alpha1}: which tenant kinds cross to the host, and how.
 * The tenant system namespaces ({@link #SYSTEM_NAMESPACES}) are always skipped, whatever the policy says.
 */
public record SyncPolicy(String apiVersion, String kind, ObjectMeta metadata, Spec spec) {

    public static final String KIND = "SyncPolicy";
    public static final Set<String> SYSTEM_NAMESPACES = Set.of("kube-system", "kube-public", "kube-node-lease");

    /** {@code spec}: one rule per kind. */
    public record Spec(List<KindRule> kinds) {
        public Spec {
            kinds = kinds == null ? List.of() : List.copyOf(kinds);
        }
    }

    /**
     * {@code spec.kinds[]}: how one kind is synced.
     *
     * @param kind       the Kubernetes kind, e.g. {@code Pod}
     * @param apiVersion optional; the well-known apiVersion of the kind when absent
     * @param toHost     whether tenant objects of this kind are copied to the host
     * @param fromHost   what flows back from the host object ({@code status} or {@code none}); null means the kind's default
     * @param namespaces virtual namespaces to include / exclude; null means all (except system namespaces)
     * @param selector   only tenant objects whose labels match are synced; null means all
     */
    public record KindRule(String kind, String apiVersion, boolean toHost, FromHost fromHost,
                           NamespaceFilter namespaces, LabelSelector selector) {
    }

    /** What flows back from host to tenant. */
    public enum FromHost {
        @SerializedName("none") NONE,
        @SerializedName("status") STATUS
    }

    /** {@code include}: when non-empty only these; {@code exclude}: never these. */
    public record NamespaceFilter(List<String> include, List<String> exclude) {
        public NamespaceFilter {
            include = include == null ? List.of() : List.copyOf(include);
            exclude = exclude == null ? List.of() : List.copyOf(exclude);
        }

        public boolean allows(String virtualNamespace) {
            if (exclude.contains(virtualNamespace)) {
                return false;
            }
            return include.isEmpty() || include.contains(virtualNamespace);
        }
    }
}
