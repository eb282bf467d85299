package io.tenantplane.cli;

import io.tenantplane.apply.ResourceKind;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Resolves a kind as users type it ({@code pod}, {@code pods}, {@code po}, {@code Pod}) to its canonical form. */
final class Kinds {

    /** The kinds a SyncPolicy can copy to the host, in the order messages list them. */
    static final List<String> SYNCABLE = List.of("Pod", "Service", "ConfigMap", "Secret", "PersistentVolumeClaim",
            "ServiceAccount", "Ingress", "Endpoints", "EndpointSlice", "NetworkPolicy", "PodDisruptionBudget");

    private static final List<String> OTHERS = List.of("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job",
            "CronJob", "Role", "RoleBinding", "Lease", "Event", "Namespace", "Node", "PersistentVolume", "StorageClass",
            "ClusterRole", "ClusterRoleBinding", "IngressClass", "PriorityClass", "ResourceQuota", "LimitRange");

    private static final Map<String, String> SHORT = Map.ofEntries(
            Map.entry("po", "Pod"), Map.entry("svc", "Service"), Map.entry("cm", "ConfigMap"),
            Map.entry("pvc", "PersistentVolumeClaim"), Map.entry("sa", "ServiceAccount"), Map.entry("ing", "Ingress"),
            Map.entry("ep", "Endpoints"), Map.entry("netpol", "NetworkPolicy"), Map.entry("pdb", "PodDisruptionBudget"),
            Map.entry("deploy", "Deployment"), Map.entry("sts", "StatefulSet"), Map.entry("rs", "ReplicaSet"),
            Map.entry("ds", "DaemonSet"), Map.entry("cj", "CronJob"), Map.entry("ns", "Namespace"),
            Map.entry("pv", "PersistentVolume"), Map.entry("sc", "StorageClass"));

    private Kinds() {
    }

    /** The canonical kind, e.g. {@code pods} → {@code Pod}; empty when the kind is unknown. */
    static Optional<ResourceKind> resolve(String typed) {
        if (typed == null || typed.isBlank()) {
            return Optional.empty();
        }
        String t = typed.trim();
        Optional<ResourceKind> exact = ResourceKind.wellKnown(null, t);
        if (exact.isPresent()) {
            return exact;
        }
        String lower = t.toLowerCase(Locale.ROOT);
        String shortForm = SHORT.get(lower);
        if (shortForm != null) {
            return ResourceKind.wellKnown(null, shortForm);
        }
        for (List<String> group : List.of(SYNCABLE, OTHERS)) {
            for (String k : group) {
                Optional<ResourceKind> rk = ResourceKind.wellKnown(null, k);
                if (rk.isPresent() && (k.equalsIgnoreCase(t) || rk.get().plural().equals(lower))) {
                    return rk;
                }
            }
        }
        return Optional.empty();
    }

    /** Like {@link #resolve} but unknown kinds are bad input naming {@code option}. */
    static ResourceKind require(String typed, String option) {
        return resolve(typed).orElseThrow(() -> new CliException(null, option, "unknown kind '" + typed + "'",
                "use a Kubernetes kind such as " + String.join(", ", SYNCABLE)));
    }
}
