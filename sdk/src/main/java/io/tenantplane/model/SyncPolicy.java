package io.tenantplane.model;

import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code SyncPolicy.tenantplane.io/v1alpha1}: which tenant kinds cross to the host, and how.
 * The tenant system namespaces ({@link #SYSTEM_NAMESPACES}) are always skipped, whatever the policy says.
 *
 * <p>Namespaced: a TenantCluster references a policy in its own namespace. Only the {@linkplain #SUPPORTED_KINDS
 * supported kinds} may be listed; every rule says {@code toHost} explicitly, so a cluster-scoped kind is never copied
 * to the host by accident.
 */
public record SyncPolicy(String apiVersion, String kind, ObjectMeta metadata,
                         @Required("add a spec with a list of kinds") Spec spec,
                         Status status) {

    /** {@value}. */
    public static final String KIND = "SyncPolicy";
    /** Tenant namespaces that are never synced, whatever a policy says. */
    public static final Set<String> SYSTEM_NAMESPACES = Set.of("kube-system", "kube-public", "kube-node-lease");
    /** {@value}. */
    public static final String API_VERSION = TenantCluster.API_VERSION;
    /** {@value}. */
    public static final String PLURAL = "syncpolicies";

    /** A policy without status, as a user would write it. */
    public SyncPolicy(String apiVersion, String kind, ObjectMeta metadata, Spec spec) {
        this(apiVersion, kind, metadata, spec, null);
    }

    /** {@code spec}: one rule per kind. */
    public record Spec(List<KindRule> kinds) {
        public Spec {
            kinds = kinds == null ? List.of() : List.copyOf(kinds);
        }
    }

    /**
     * {@code spec.kinds[]}: how one kind is synced.
     *
     * @param kind       the Kubernetes kind, e.g. {@code Pod}; one of {@link #SUPPORTED_KINDS}
     * @param apiVersion optional; the well-known apiVersion of the kind when absent
     * @param toHost     whether tenant objects of this kind are copied to the host; required in YAML
     * @param fromHost   what flows back from the host object ({@code status} or {@code none}); null means the kind's default
     * @param namespaces virtual namespaces to include / exclude; null means all (except system namespaces)
     * @param selector   only tenant objects whose labels match are synced; null means all
     */
    public record KindRule(@Required("set the kind, e.g. Pod") String kind, String apiVersion,
                           @Required("say true to copy objects of this kind to the host, false to keep them in the "
                                   + "tenant") boolean toHost,
                           FromHost fromHost, NamespaceFilter namespaces, LabelSelector selector) {

        /**
         * What flows back in effect: {@code fromHost}, or by default {@code status} for kinds whose host object has
         * a status the tenant needs (Pod, Service, PersistentVolumeClaim, Ingress, PersistentVolume,
         * PodDisruptionBudget) and {@code none} for the rest.
         */
        public FromHost effectiveFromHost() {
            if (fromHost != null) {
                return fromHost;
            }
            return supportedKind(kind).filter(SupportedKind::hasStatus).isPresent() ? FromHost.STATUS : FromHost.NONE;
        }

        /** The apiVersion in effect: {@code apiVersion}, or the kind's well-known one (null for unknown kinds). */
        public String effectiveApiVersion() {
            return apiVersion != null ? apiVersion : supportedKind(kind).map(SupportedKind::apiVersion).orElse(null);
        }
    }

    /** What flows back from host to tenant. */
    public enum FromHost {
        /** Nothing flows back. */
        @SerializedName("none") NONE,
        /** The host object's status is written to the tenant object's status subresource. */
        @SerializedName("status") STATUS
    }

    /** {@code include}: when non-empty only these; {@code exclude}: never these. */
    public record NamespaceFilter(List<String> include, List<String> exclude) {
        public NamespaceFilter {
            include = include == null ? List.of() : List.copyOf(include);
            exclude = exclude == null ? List.of() : List.copyOf(exclude);
        }

        /** True when objects in {@code virtualNamespace} pass this filter (system namespaces aside). */
        public boolean allows(String virtualNamespace) {
            if (exclude.contains(virtualNamespace)) {
                return false;
            }
            return include.isEmpty() || include.contains(virtualNamespace);
        }
    }

    /** {@code status}, written by the controller: whether the policy is {@code Accepted}. */
    public record Status(Long observedGeneration, List<Condition> conditions) {
        public Status {
            conditions = Copies.list(conditions);
        }
    }

    /**
     * A kind a SyncPolicy may list.
     *
     * @param kind       e.g. {@code Pod}
     * @param apiVersion its apiVersion, e.g. {@code v1}
     * @param namespaced false for cluster-scoped kinds, which sync only when a rule says {@code toHost: true}
     * @param hasStatus  true when the host object's status is worth copying back ({@code fromHost: status})
     */
    public record SupportedKind(String kind, String apiVersion, boolean namespaced, boolean hasStatus) {
    }

    /** The kinds a SyncPolicy may list, namespaced first. */
    public static final List<SupportedKind> SUPPORTED_KINDS = List.of(
            new SupportedKind("Pod", "v1", true, true),
            new SupportedKind("Service", "v1", true, true),
            new SupportedKind("ConfigMap", "v1", true, false),
            new SupportedKind("Secret", "v1", true, false),
            new SupportedKind("PersistentVolumeClaim", "v1", true, true),
            new SupportedKind("ServiceAccount", "v1", true, false),
            new SupportedKind("Endpoints", "v1", true, false),
            new SupportedKind("EndpointSlice", "discovery.k8s.io/v1", true, false),
            new SupportedKind("Ingress", "networking.k8s.io/v1", true, true),
            new SupportedKind("NetworkPolicy", "networking.k8s.io/v1", true, false),
            new SupportedKind("PodDisruptionBudget", "policy/v1", true, true),
            new SupportedKind("PersistentVolume", "v1", false, true),
            new SupportedKind("StorageClass", "storage.k8s.io/v1", false, false),
            new SupportedKind("IngressClass", "networking.k8s.io/v1", false, false),
            new SupportedKind("PriorityClass", "scheduling.k8s.io/v1", false, false));

    /** The supported kind named {@code kind}, if any. */
    public static Optional<SupportedKind> supportedKind(String kind) {
        return SUPPORTED_KINDS.stream().filter(k -> k.kind().equals(kind)).findFirst();
    }

    /**
     * The policy used when none is given, named {@code default} (no namespace): Pods and Services (with status
     * back), ConfigMaps, Secrets, PersistentVolumeClaims (with status back), Ingresses (with status back) and
     * Endpoints (for Services without a selector) go to the host. ServiceAccounts are not synced: tenant pods run as
     * the IsolationProfile's host ServiceAccount, which has no API access. No cluster-scoped kind is synced.
     */
    public static SyncPolicy defaultPolicy() {
        List<KindRule> kinds = List.of(
                new KindRule("Pod", null, true, FromHost.STATUS, null, null),
                new KindRule("Service", null, true, FromHost.STATUS, null, null),
                new KindRule("ConfigMap", null, true, null, null, null),
                new KindRule("Secret", null, true, null, null, null),
                new KindRule("PersistentVolumeClaim", null, true, FromHost.STATUS, null, null),
                new KindRule("Ingress", null, true, FromHost.STATUS, null, null),
                new KindRule("Endpoints", null, true, null, null, null));
        return new SyncPolicy(API_VERSION, KIND, ObjectMeta.of(null, "default"), new Spec(kinds), null);
    }

    /** Converts JSON into the record; wrong types are problems, unknown fields are ignored (see {@link #validate()}). */
    public static Parsed<SyncPolicy> fromJson(JsonObject json) {
        return Conversion.fromJson(json, SyncPolicy.class, API_VERSION, KIND);
    }

    /** This object as JSON; null fields and empty lists and maps are left out. */
    public JsonObject toJson() {
        return Conversion.toJson(this);
    }

    /**
     * Every problem with this policy: unsupported or duplicate kinds, an apiVersion that is not the kind's,
     * {@code fromHost: status} for a kind without status, system namespaces in {@code include}, bad selectors.
     */
    public List<Problem> validate() {
        return SyncPolicyValidation.validate(this);
    }

    /** The rule for {@code kind} (the first, if a policy that did not pass validation lists it twice). */
    public Optional<KindRule> rule(String kind) {
        return spec == null ? Optional.empty()
                : spec.kinds().stream().filter(r -> r.kind() != null && r.kind().equals(kind)).findFirst();
    }

    /** The kinds whose rule says {@code toHost: true}, sorted. */
    public Set<String> toHostKinds() {
        Set<String> out = new TreeSet<>();
        if (spec != null) {
            spec.kinds().stream().filter(r -> r.toHost() && r.kind() != null).forEach(r -> out.add(r.kind()));
        }
        return java.util.Collections.unmodifiableSet(out);
    }

    /** The policy's name: {@code metadata.name}. */
    public String name() {
        return metadata == null ? null : metadata.name();
    }
}
