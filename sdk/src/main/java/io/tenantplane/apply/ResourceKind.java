package io.tenantplane.apply;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a kind lives in the Kubernetes REST API: its group, version, plural resource name and scope.
 *
 * <p>{@link #wellKnown(String, String)} answers from a fixed table for the kinds tenantplane syncs and renders, with no
 * I/O; {@link Resources} adds discovery for any other kind.
 *
 * @param group      the API group, empty for the core group
 * @param version    the API version, e.g. {@code v1}
 * @param kind       the kind, e.g. {@code Pod}
 * @param plural     the resource name in URLs, e.g. {@code pods}
 * @param namespaced whether objects of the kind live in a namespace
 */
public record ResourceKind(String group, String version, String kind, String plural, boolean namespaced) {

    public ResourceKind {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(plural, "plural");
    }

    private static final Map<String, ResourceKind> TABLE = table(
            core("Pod", "pods", true), core("Service", "services", true), core("ConfigMap", "configmaps", true),
            core("Secret", "secrets", true), core("PersistentVolumeClaim", "persistentvolumeclaims", true),
            core("ServiceAccount", "serviceaccounts", true), core("Endpoints", "endpoints", true),
            core("ResourceQuota", "resourcequotas", true), core("LimitRange", "limitranges", true),
            core("Event", "events", true), core("Node", "nodes", false), core("Namespace", "namespaces", false),
            core("PersistentVolume", "persistentvolumes", false),
            of("apps", "v1", "StatefulSet", "statefulsets", true), of("apps", "v1", "Deployment", "deployments", true),
            of("apps", "v1", "ReplicaSet", "replicasets", true), of("apps", "v1", "DaemonSet", "daemonsets", true),
            of("batch", "v1", "Job", "jobs", true), of("batch", "v1", "CronJob", "cronjobs", true),
            of("networking.k8s.io", "v1", "Ingress", "ingresses", true),
            of("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true),
            of("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false),
            of("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true),
            of("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true),
            of("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
            of("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true),
            of("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false),
            of("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false),
            of("storage.k8s.io", "v1", "StorageClass", "storageclasses", false),
            of("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false),
            of("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false),
            of("coordination.k8s.io", "v1", "Lease", "leases", true),
            of("events.k8s.io", "v1", "Event", "events", true),
            of("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false),
            of("apiregistration.k8s.io", "v1", "APIService", "apiservices", false),
            of("tenantplane.io", "v1alpha1", "TenantCluster", "tenantclusters", true),
            of("tenantplane.io", "v1alpha1", "IsolationProfile", "isolationprofiles", true),
            of("tenantplane.io", "v1alpha1", "SyncPolicy", "syncpolicies", true));

    /** {@code v1} for the core group, {@code group/version} otherwise. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /**
     * The name of the CustomResourceDefinition that serves this kind ({@code <plural>.<group>}), if it can be one:
     * empty for the core group.
     */
    public Optional<String> crdName() {
        return group.isEmpty() ? Optional.empty() : Optional.of(plural + "." + group);
    }

    /**
     * The URL path of the collection, e.g. {@code /api/v1/namespaces/team-dev/pods}; {@code namespace} is ignored for
     * cluster-scoped kinds and may be null to address all namespaces.
     */
    public String collectionPath(String namespace) {
        String base = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
        if (namespaced && namespace != null) {
            return base + "/namespaces/" + namespace + "/" + plural;
        }
        return base + "/" + plural;
    }

    /** The URL path of one object, e.g. {@code /api/v1/namespaces/team-dev/pods/nginx-x-default-x-dev}. */
    public String objectPath(String namespace, String name) {
        Objects.requireNonNull(name, "name");
        if (namespaced) {
            Objects.requireNonNull(namespace, () -> kind + " is namespaced: namespace is required");
        }
        return collectionPath(namespace) + "/" + name;
    }

    /**
     * The kind from the fixed table.
     *
     * @param apiVersion the apiVersion, or null to accept the table's apiVersion for the kind
     * @param kind       the kind, e.g. {@code Ingress}
     * @return the resource, or empty when the table does not know the kind at that apiVersion
     */
    public static Optional<ResourceKind> wellKnown(String apiVersion, String kind) {
        if (kind == null) {
            return Optional.empty();
        }
        ResourceKind found = TABLE.get(key(apiVersion, kind));
        if (found == null && apiVersion == null) {
            found = TABLE.get(kind);
        }
        return Optional.ofNullable(found);
    }

    /** kubectl's short names for the kinds of the table. */
    private static final Map<String, String> SHORT_NAMES = Map.ofEntries(
            Map.entry("po", "Pod"), Map.entry("svc", "Service"), Map.entry("cm", "ConfigMap"),
            Map.entry("pvc", "PersistentVolumeClaim"), Map.entry("sa", "ServiceAccount"), Map.entry("ing", "Ingress"),
            Map.entry("ep", "Endpoints"), Map.entry("netpol", "NetworkPolicy"), Map.entry("pdb", "PodDisruptionBudget"),
            Map.entry("deploy", "Deployment"), Map.entry("sts", "StatefulSet"), Map.entry("rs", "ReplicaSet"),
            Map.entry("ds", "DaemonSet"), Map.entry("cj", "CronJob"), Map.entry("ns", "Namespace"),
            Map.entry("pv", "PersistentVolume"), Map.entry("sc", "StorageClass"), Map.entry("no", "Node"),
            Map.entry("quota", "ResourceQuota"), Map.entry("limits", "LimitRange"), Map.entry("ev", "Event"),
            Map.entry("pc", "PriorityClass"), Map.entry("tc", "TenantCluster"), Map.entry("ip", "IsolationProfile"),
            Map.entry("sp", "SyncPolicy"));

    /**
     * A kind as people type it to kubectl: the kind ({@code Pod}, any case), its plural ({@code pods}) or its short
     * name ({@code po}). The CLI and the service resolve kinds with this one method, so both accept the same words.
     *
     * @return the resource, or empty when the table has no such kind
     */
    public static Optional<ResourceKind> typed(String typed) {
        if (typed == null || typed.isBlank()) {
            return Optional.empty();
        }
        String t = typed.strip();
        Optional<ResourceKind> exact = wellKnown(null, t);
        if (exact.isPresent()) {
            return exact;
        }
        String lower = t.toLowerCase(java.util.Locale.ROOT);
        String shortName = SHORT_NAMES.get(lower);
        if (shortName != null) {
            return wellKnown(null, shortName);
        }
        for (ResourceKind k : TABLE.values()) {
            if (k.kind().equalsIgnoreCase(t) || k.plural().equals(lower)) {
                // By kind, so that "events" is the core Event as kubectl resolves it.
                return wellKnown(null, k.kind());
            }
        }
        return Optional.empty();
    }

    private static String key(String apiVersion, String kind) {
        return apiVersion == null ? kind : apiVersion + "/" + kind;
    }

    private static ResourceKind core(String kind, String plural, boolean namespaced) {
        return new ResourceKind("", "v1", kind, plural, namespaced);
    }

    private static ResourceKind of(String group, String version, String kind, String plural, boolean namespaced) {
        return new ResourceKind(group, version, kind, plural, namespaced);
    }

    private static Map<String, ResourceKind> table(ResourceKind... kinds) {
        Map<String, ResourceKind> m = new java.util.HashMap<>();
        for (ResourceKind k : kinds) {
            m.put(k.apiVersion() + "/" + k.kind(), k);
            // By bare kind the first entry wins, so "Event" means the core Event the way kubectl resolves it.
            m.putIfAbsent(k.kind(), k);
        }
        return Map.copyOf(m);
    }
}
