package io.tenantplane.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The resources being served, built-in and from CRDs; consulted by the router and discovery. */
final class Registry {
    private final Map<String, ResourceType> byKey = new LinkedHashMap<>();

    synchronized void add(ResourceType type) {
        byKey.put(key(type.group(), type.version(), type.plural()), type);
    }

    /** Replaces every served version of a custom resource at once (a CRD create, update or delete). */
    synchronized void replaceCustom(String group, String plural, List<ResourceType> versions) {
        byKey.values().removeIf(t -> t.custom() && t.group().equals(group) && t.plural().equals(plural));
        for (ResourceType t : versions) {
            add(t);
        }
    }

    synchronized ResourceType find(String group, String version, String plural) {
        return byKey.get(key(group, version, plural));
    }

    synchronized List<ResourceType> all() {
        return List.copyOf(byKey.values());
    }

    /** Group name to its served versions, in registration order (preferred version first). */
    synchronized Map<String, List<String>> groupVersions() {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        for (ResourceType t : byKey.values()) {
            List<String> versions = groups.computeIfAbsent(t.group(), g -> new ArrayList<>());
            if (!versions.contains(t.version())) {
                versions.add(t.version());
            }
        }
        return groups;
    }

    synchronized List<ResourceType> inGroupVersion(String group, String version) {
        return byKey.values().stream().filter(t -> t.group().equals(group) && t.version().equals(version)).toList();
    }

    private static String key(String group, String version, String plural) {
        return group + "/" + version + "/" + plural;
    }

    /** The kinds a fresh server serves: the namespace and CRD kinds always, the rest when asked for. */
    static List<ResourceType> builtins(boolean all) {
        List<ResourceType> list = new ArrayList<>();
        list.add(ResourceType.builtin("", "v1", "namespaces", "Namespace", false, true, List.of("ns"), "status.phase"));
        list.add(ResourceType.builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                "CustomResourceDefinition", false, true, List.of("crd", "crds")));
        if (!all) {
            return list;
        }
        List<String> all1 = List.of("all");
        list.add(ResourceType.builtin("", "v1", "nodes", "Node", false, true, List.of("no"), "spec.unschedulable"));
        list.add(ResourceType.builtin("", "v1", "pods", "Pod", true, true, List.of("po"), "spec.nodeName",
                "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
                "status.phase", "status.podIP", "status.nominatedNodeName").withCategories(all1));
        list.add(ResourceType.builtin("", "v1", "services", "Service", true, true, List.of("svc"))
                .withCategories(all1));
        list.add(ResourceType.builtin("", "v1", "configmaps", "ConfigMap", true, false, List.of("cm")));
        list.add(ResourceType.builtin("", "v1", "secrets", "Secret", true, false, List.of(), "type"));
        list.add(ResourceType.builtin("", "v1", "serviceaccounts", "ServiceAccount", true, false, List.of("sa")));
        list.add(ResourceType.builtin("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, true,
                List.of("pvc")));
        list.add(ResourceType.builtin("", "v1", "persistentvolumes", "PersistentVolume", false, true,
                List.of("pv")));
        list.add(ResourceType.builtin("", "v1", "endpoints", "Endpoints", true, false, List.of("ep")));
        list.add(ResourceType.builtin("", "v1", "events", "Event", true, false, List.of("ev"),
                "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
                "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
                "reason", "reportingComponent", "source", "type"));
        list.add(ResourceType.builtin("", "v1", "resourcequotas", "ResourceQuota", true, true, List.of("quota")));
        list.add(ResourceType.builtin("", "v1", "limitranges", "LimitRange", true, false, List.of("limits")));
        list.add(ResourceType.builtin("apps", "v1", "deployments", "Deployment", true, true, List.of("deploy"))
                .withCategories(all1));
        list.add(ResourceType.builtin("apps", "v1", "statefulsets", "StatefulSet", true, true, List.of("sts"))
                .withCategories(all1));
        list.add(ResourceType.builtin("apps", "v1", "controllerrevisions", "ControllerRevision", true, false,
                List.of()));
        list.add(ResourceType.builtin("apps", "v1", "daemonsets", "DaemonSet", true, true, List.of("ds"))
                .withCategories(all1));
        list.add(ResourceType.builtin("apps", "v1", "replicasets", "ReplicaSet", true, true, List.of("rs"))
                .withCategories(all1));
        list.add(ResourceType.builtin("batch", "v1", "jobs", "Job", true, true, List.of()).withCategories(all1));
        list.add(ResourceType.builtin("batch", "v1", "cronjobs", "CronJob", true, true, List.of("cj"))
                .withCategories(all1));
        list.add(ResourceType.builtin("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true, false,
                List.of("netpol")));
        list.add(ResourceType.builtin("networking.k8s.io", "v1", "ingresses", "Ingress", true, true,
                List.of("ing")));
        list.add(ResourceType.builtin("networking.k8s.io", "v1", "ingressclasses", "IngressClass", false, false,
                List.of()));
        list.add(ResourceType.builtin("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true, false,
                List.of()));
        list.add(ResourceType.builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true, false, List.of()));
        list.add(ResourceType.builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, false,
                List.of()));
        list.add(ResourceType.builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, false,
                List.of()));
        list.add(ResourceType.builtin("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
                false, false, List.of()));
        list.add(ResourceType.builtin("coordination.k8s.io", "v1", "leases", "Lease", true, false, List.of()));
        list.add(ResourceType.builtin("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false, false,
                List.of()));
        list.add(ResourceType.builtin("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview",
                false, false, List.of()));
        list.add(ResourceType.builtin("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, true,
                List.of("pdb")));
        list.add(ResourceType.builtin("events.k8s.io", "v1", "events", "Event", true, false, List.of("ev"),
                "regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "reason", "type",
                "reportingController"));
        list.add(ResourceType.builtin("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, false,
                List.of("pc")));
        list.add(ResourceType.builtin("storage.k8s.io", "v1", "storageclasses", "StorageClass", false, false,
                List.of("sc")));
        list.add(ResourceType.builtin("networking.k8s.io", "v1", "ingressclasses", "IngressClass", false, false,
                List.of()));
        list.add(ResourceType.builtin("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", false, false,
                List.of()));
        list.add(ResourceType.builtin("apiregistration.k8s.io", "v1", "apiservices", "APIService", false, true,
                List.of()));
        return list;
    }
}
