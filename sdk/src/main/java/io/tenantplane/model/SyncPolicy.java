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
 * <p>Namespaced: a TenantCluster references a policy in its own namespace. {@code spec.kinds} lists the
 * {@linkplain #SUPPORTED_KINDS built-in kinds} by kind and any other namespaced kind (a custom resource) by kind and
 * apiVersion, with the fields that name other objects or select by label declared, and patches; every rule says
 * {@code toHost} explicitly, and a cluster-scoped kind never goes to the host. {@code spec.fromHost} mirrors the host's
 * cluster-scoped classes into the tenant. See docs/sync.md.
 */
public record SyncPolicy(String apiVersion, String kind, ObjectMeta metadata,
                         @Required("add a spec with a list of kinds") Spec spec,
                         Status status) {

    /** {@value}. */
    public static final String KIND = "SyncPolicy";
    /** Tenant namespaces that are never synced, whatever a policy says. */
    public static final Set<String> SYSTEM_NAMESPACES = Set.of("kube-system", "kube-public", "kube-node-lease");
    /**
     * Kinds a policy can neither send to the host nor mirror: the host's own machinery and tenantplane's, whatever an
     * installation's allow-list says.
     */
    public static final Set<String> SYSTEM_KINDS = Set.of("Namespace", "Node", "CustomResourceDefinition",
            "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ValidatingWebhookConfiguration",
            "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
            "APIService", "CertificateSigningRequest", "TokenReview", "SubjectAccessReview", "Lease", "Event",
            "ResourceQuota", "LimitRange", "TenantCluster", "IsolationProfile", "SyncPolicy");
    /** {@value}. */
    public static final String API_VERSION = TenantCluster.API_VERSION;
    /** {@value}. */
    public static final String PLURAL = "syncpolicies";

    /** A policy without status, as a user would write it. */
    public SyncPolicy(String apiVersion, String kind, ObjectMeta metadata, Spec spec) {
        this(apiVersion, kind, metadata, spec, null);
    }

    /**
     * {@code spec}: one rule per kind that goes to the host, and the host's cluster-scoped objects mirrored into the
     * tenant.
     *
     * @param kinds    what crosses from tenant to host, one rule per kind
     * @param fromHost cluster-scoped host objects mirrored read-only into the tenant (StorageClass, PriorityClass, ...)
     */
    public record Spec(List<KindRule> kinds, List<HostMirror> fromHost) {
        public Spec {
            kinds = kinds == null ? List.of() : List.copyOf(kinds);
            fromHost = fromHost == null ? List.of() : List.copyOf(fromHost);
        }

        /** A spec without mirrors. */
        public Spec(List<KindRule> kinds) {
            this(kinds, null);
        }
    }

    /**
     * {@code spec.fromHost[]}: cluster-scoped host objects of one kind that the tenant sees, read-only.
     *
     * @param kind       StorageClass, IngressClass, PriorityClass, RuntimeClass, or a cluster-scoped custom kind
     * @param apiVersion the kind's apiVersion; required for custom kinds
     * @param names      host objects by name
     * @param selector   host objects by label; an object is mirrored when it is named or matches
     */
    public record HostMirror(@Required("set the kind, e.g. StorageClass") String kind, String apiVersion,
                             List<String> names, LabelSelector selector) {
        public HostMirror {
            names = names == null ? List.of() : List.copyOf(names);
        }

        /** The apiVersion in effect: {@code apiVersion}, or the kind's well-known one (null for unknown kinds). */
        public String effectiveApiVersion() {
            return apiVersion != null ? apiVersion : MIRROR_KINDS.stream().filter(k -> k.kind().equals(kind))
                    .map(SupportedKind::apiVersion).findFirst().orElse(null);
        }

        /** True when the host object with these labels and this name is mirrored by this rule. */
        public boolean selects(String name, java.util.Map<String, String> labels) {
            return names.contains(name) || (selector != null && selector.matches(labels));
        }
    }

    /**
     * {@code spec.kinds[].references[]}: a field of a custom kind that names another tenant object in the same
     * virtual namespace; the transform rewrites it to that object's host name.
     *
     * @param path where the name is, e.g. {@code spec.secretName} or {@code spec.tls[*].secretName}
     * @param kind what it names, e.g. {@code Secret}; the reference is followed only when that kind goes to the host
     */
    public record Reference(@Required("set the path of the field, e.g. spec.secretName") String path,
                            @Required("set the kind the field names, e.g. Secret") String kind) {
    }

    /**
     * {@code spec.kinds[].labelSelectors[]}: a field of a custom kind that selects pods (or other objects) by label;
     * the transform scopes it to the tenant and virtual namespace, as Service selectors are.
     *
     * @param path where the selector is, e.g. {@code spec.selector}
     * @param form {@code labelSelector} ({@code matchLabels}/{@code matchExpressions}) or {@code matchLabels} (a plain
     *             map of labels, as a Service's selector); default {@code labelSelector}
     */
    public record SelectorField(@Required("set the path of the selector, e.g. spec.selector") String path,
                                SelectorForm form) {
        /** The form in effect. */
        public SelectorForm effectiveForm() {
            return form == null ? SelectorForm.LABEL_SELECTOR : form;
        }
    }

    /** How a selector field is written. */
    public enum SelectorForm {
        /** {@code {matchLabels: {...}, matchExpressions: [...]}}. */
        @SerializedName("labelSelector") LABEL_SELECTOR,
        /** A plain map of labels. */
        @SerializedName("matchLabels") MATCH_LABELS
    }

    /**
     * {@code spec.kinds[].patches[]}: one change made to the host copy on its way to the host, after the transform.
     *
     * @param op        {@code set} or {@code remove}
     * @param path      the field; under metadata only {@code metadata.labels[key]} and {@code metadata.annotations[key]}
     * @param value     for {@code set}: the value (any JSON)
     * @param valueFrom for {@code set}, instead of a value: {@code tenant}, {@code virtualNamespace} or
     *                  {@code hostNamespace}
     */
    public record Patch(@Required("set op: set or remove") PatchOp op,
                        @Required("set the path of the field, e.g. spec.issuerRef.name") String path,
                        com.google.gson.JsonElement value, ValueFrom valueFrom) {
    }

    /** What a patch does. */
    public enum PatchOp {
        /** Sets the field (creating the objects on the way). */
        @SerializedName("set") SET,
        /** Removes the field. */
        @SerializedName("remove") REMOVE
    }

    /** A value a patch takes from the object's place rather than from the policy. */
    public enum ValueFrom {
        /** The tenant's name. */
        @SerializedName("tenant") TENANT,
        /** The tenant object's namespace inside the tenant. */
        @SerializedName("virtualNamespace") VIRTUAL_NAMESPACE,
        /** The host namespace the copy lands in. */
        @SerializedName("hostNamespace") HOST_NAMESPACE
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
     * @param references fields of a custom kind that name other tenant objects (rewritten to host names)
     * @param labelSelectors fields of a custom kind that select by label (scoped to the tenant)
     * @param patches    changes made to every host copy of this kind, after the transform
     */
    public record KindRule(@Required("set the kind, e.g. Pod") String kind, String apiVersion,
                           @Required("say true to copy objects of this kind to the host, false to keep them in the "
                                   + "tenant") boolean toHost,
                           FromHost fromHost, NamespaceFilter namespaces, LabelSelector selector,
                           List<Reference> references, List<SelectorField> labelSelectors, List<Patch> patches) {

        public KindRule {
            references = Copies.list(references);
            labelSelectors = Copies.list(labelSelectors);
            patches = Copies.list(patches);
        }

        /** A rule without references, selector fields or patches. */
        public KindRule(String kind, String apiVersion, boolean toHost, FromHost fromHost, NamespaceFilter namespaces,
                        LabelSelector selector) {
            this(kind, apiVersion, toHost, fromHost, namespaces, selector, null, null, null);
        }

        /** True when the kind is not one tenantplane knows (a custom resource or another API's kind). */
        public boolean custom() {
            return supportedKind(kind).isEmpty();
        }

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

    /**
     * The built-in kinds a SyncPolicy's {@code kinds} may list by kind alone, namespaced first. Any other namespaced
     * kind may be listed with its {@code apiVersion} (a custom resource), if the installation allows it. Cluster-scoped
     * kinds are listed for completeness: they never go to the host ({@code toHost: true} is refused); the host's are
     * mirrored into the tenant through {@code fromHost}.
     */
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
            new SupportedKind("PriorityClass", "scheduling.k8s.io/v1", false, false),
            new SupportedKind("RuntimeClass", "node.k8s.io/v1", false, false));

    /** The built-in cluster-scoped kinds {@code spec.fromHost} mirrors into tenants. */
    public static final List<SupportedKind> MIRROR_KINDS = List.of(
            new SupportedKind("StorageClass", "storage.k8s.io/v1", false, false),
            new SupportedKind("IngressClass", "networking.k8s.io/v1", false, false),
            new SupportedKind("PriorityClass", "scheduling.k8s.io/v1", false, false),
            new SupportedKind("RuntimeClass", "node.k8s.io/v1", false, false));

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
     * Every problem with this policy: duplicate kinds, an apiVersion that is not the kind's (or missing for a custom
     * kind), a cluster-scoped or system kind sent to the host, {@code fromHost: status} for a built-in kind without
     * status, system namespaces in {@code include}, bad selectors, bad reference, selector and patch paths, mirror
     * rules that select nothing.
     */
    public List<Problem> validate() {
        return SyncPolicyValidation.validate(this);
    }

    /** The rule for {@code kind} (the first, if a policy that did not pass validation lists it twice). */
    public Optional<KindRule> rule(String kind) {
        return spec == null ? Optional.empty()
                : spec.kinds().stream().filter(r -> r.kind() != null && r.kind().equals(kind)).findFirst();
    }

    /** The mirror rules ({@code spec.fromHost}). */
    public List<HostMirror> mirrors() {
        return spec == null ? List.of() : spec.fromHost();
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
