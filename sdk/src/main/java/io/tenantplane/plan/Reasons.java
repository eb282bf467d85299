package io.tenantplane.plan;

import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.transform.TransformResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The stable machine reasons of {@link Decision}s. They appear in Events, metrics, {@code explain} output and the
 * {@code tenantplane.io/reason} annotation, so they never change meaning. {@link #all()} lists each with what it means.
 */
public final class Reasons {

    /** Create: the host copy does not exist yet. */
    public static final String NOT_ON_HOST = "NotOnHost";
    /** Update: the desired host object changed (the tenant object, the policy or the isolation profile changed). */
    public static final String SOURCE_CHANGED = "SourceChanged";
    /** Update: the desired object is unchanged, but the host copy was edited on the host; the edit is undone. */
    public static final String DRIFT_CORRECTED = "DriftCorrected";
    /** Unchanged: the host copy already equals the desired object. */
    public static final String IN_SYNC = "InSync";
    /** Delete: the tenant object is gone (or being deleted); its host copy is an orphan. */
    public static final String SOURCE_DELETED = "SourceDeleted";
    /** Delete: the tenant Pod was recreated under the same name (new uid); the old host Pod goes first. */
    public static final String SOURCE_REPLACED = "SourceReplaced";
    /** Skip / Delete: the SyncPolicy does not copy this kind to the host (any more). */
    public static final String KIND_NOT_SYNCED = "KindNotSynced";
    /** Skip / Delete: the kind's namespace filter excludes the virtual namespace. */
    public static final String NAMESPACE_EXCLUDED = "NamespaceExcluded";
    /** Skip / Delete: the kind's label selector does not match the object. */
    public static final String SELECTOR_MISMATCH = "SelectorMismatch";
    /** Skip: tenant system namespaces (kube-system, kube-public, kube-node-lease) are never synced. */
    public static final String SYSTEM_NAMESPACE = "SystemNamespace";
    /**
     * Unchanged: the host Pod differs from what the transform makes now in spec fields a Pod cannot change (it was
     * made by an earlier version, or under other options); it keeps running as it is until the tenant Pod is replaced.
     */
    public static final String POD_SPEC_IMMUTABLE = "PodSpecImmutable";
    /**
     * Update: the tenant Pod got ephemeral containers ({@code kubectl debug}); they are added to the host Pod through
     * its {@code ephemeralcontainers} subresource, the only way a Pod takes them.
     */
    public static final String EPHEMERAL_CONTAINERS_ADDED = "EphemeralContainersAdded";
    /** Skip: the tenant object is being deleted and has no host copy. */
    public static final String SOURCE_TERMINATING = "SourceTerminating";
    /**
     * Unchanged: the tenant Pod is being deleted and its host copy is already terminating with the grace period the
     * tenant asked for; the host's kubelet finishes it.
     */
    public static final String HOST_COPY_TERMINATING = "HostCopyTerminating";
    /**
     * Delete (tenant side): a tenant Pod being deleted whose host copy is gone is deleted with grace period 0, as its
     * kubelet would confirm it; without this the tenant Pod would wait in Terminating for a kubelet that does not
     * exist.
     */
    public static final String POD_FINALIZED = "PodFinalized";
    /**
     * Skip, then Delete (tenant side): a tenant Pod that ran on the host (bound, with a host IP) whose host copy has
     * disappeared there (evicted, deleted by someone, its node gone) is not recreated: a Pod never restarts
     * elsewhere under the same identity. It is deleted with grace period 0, as the node lifecycle and pod GC of a real
     * cluster remove it, and its controller makes a new one. A finished Pod (Succeeded, Failed) is kept as a record.
     */
    public static final String HOST_POD_GONE = "HostPodGone";
    /**
     * Update (tenant side): a tenant Service is created again with the ClusterIP of its host copy (a ClusterIP never
     * changes in place), so that the tenant's DNS answers with an address the host routes.
     */
    public static final String CLUSTER_IP_FROM_HOST = "ClusterIPFromHost";
    /**
     * Update (tenant): a tenant NodePort or LoadBalancer Service takes the node ports of its host copy (the host
     * allocated others where the tenant's were taken there), so that its ports are the ones the host's nodes listen on.
     */
    public static final String NODE_PORTS_FROM_HOST = "NodePortsFromHost";
    /**
     * Delete: a tenant Node that mirrors a host node has no tenant Pod bound to it any more (the host node was removed,
     * or the tenant's pods moved away); the full pass removes the mirror.
     */
    public static final String NODE_MIRROR_UNUSED = "NodeMirrorUnused";
    /**
     * Skip: the SyncPolicy sends a custom kind the installation's allow-list does not include (or a kind that is
     * cluster-scoped on the host); tenantplane writes no object of it.
     */
    public static final String KIND_NOT_ALLOWED = "KindNotAllowed";
    /**
     * Skip: the host does not serve the custom kind at the policy's version (its CustomResourceDefinition is missing
     * there, or does not serve that version); the message names the CRD to install.
     */
    public static final String KIND_NOT_SERVED_ON_HOST = "KindNotServedOnHost";
    /** Skip: a Pod using the cluster DNS waits until its tenant's DNS Service has an IP on the host. */
    public static final String TENANT_DNS_PENDING = TransformResult.TENANT_DNS_PENDING;
    /** Skip: a Pod that would run as a tenant ServiceAccount waits until its tenant's API Service has an IP on the host. */
    public static final String TENANT_API_PENDING = TransformResult.TENANT_API_PENDING;
    /** Skip: the Pod names a PriorityClass or RuntimeClass that is not mirrored from the host. */
    public static final String CLASS_NOT_MIRRORED = TransformResult.CLASS_NOT_MIRRORED;
    /** Create / Update (tenant): a host object selected by the SyncPolicy's fromHost is mirrored into the tenant. */
    public static final String MIRRORED_FROM_HOST = "MirroredFromHost";
    /**
     * Delete (tenant): a mirror whose host object is gone or no longer selected by the SyncPolicy's fromHost is
     * removed from the tenant.
     */
    public static final String MIRROR_NOT_SELECTED = "MirrorNotSelected";
    /**
     * Delete: a rendered StatefulSet whose spec changed in a field a StatefulSet cannot change (its volumeClaimTemplates,
     * selector or serviceName, e.g. one made by an older tenantplane) is deleted orphaning its pods, which keep
     * running; the next pass creates it as rendered and it adopts them.
     */
    public static final String STATEFULSET_REPLACED = "StatefulSetReplaced";
    /** Skip: the object refers to an object of a kind the SyncPolicy does not sync; it would break on the host. */
    public static final String REFERENCES_UNSYNCED_KIND = TransformResult.REFERENCES_UNSYNCED_KIND;
    /** Skip: a host controller maintains the equivalent object (Endpoints and EndpointSlices of selector Services). */
    public static final String MANAGED_BY_HOST = TransformResult.MANAGED_BY_HOST;
    /** Skip: the object belongs to the tenant's own control plane (Service default/kubernetes, token Secrets). */
    public static final String TENANT_ONLY = TransformResult.TENANT_ONLY;
    /**
     * Conflict: the host name is taken by an object tenantplane does not manage for this tenant. Nothing is written.
     */
    public static final String FOREIGN_OBJECT = "ForeignObject";
    /** Conflict: two tenant objects map to one host name (a hash collision). Nothing is written. */
    public static final String NAME_COLLISION = "NameCollision";
    /**
     * Error: the tenant object is malformed (no kind, name or namespace, an invalid name, or a label or annotation key
     * the host would refuse).
     */
    public static final String INVALID_SOURCE = TransformResult.INVALID_SOURCE;
    /** Error: the pod breaks the isolation profile's Pod Security level; the message names the field. */
    public static final String POD_SECURITY_VIOLATION = TransformResult.POD_SECURITY_VIOLATION;
    /**
     * Error: a container's request or limit is above the maximum of the host's LimitRange (the isolation profile's
     * {@code spec.limits.max}); the message names the field.
     */
    public static final String CONTAINER_LIMITS_EXCEEDED = TransformResult.CONTAINER_LIMITS_EXCEEDED;
    /**
     * Error: a container has no request or limit for a compute resource the host's ResourceQuota (the isolation
     * profile's {@code spec.quota}) counts, and the profile's limits give no default; the message names the field.
     */
    public static final String RESOURCES_REQUIRED = TransformResult.RESOURCES_REQUIRED;
    /** Error: the Service type is not among the isolation profile's allowed types. */
    public static final String SERVICE_TYPE_NOT_ALLOWED = TransformResult.SERVICE_TYPE_NOT_ALLOWED;
    /**
     * Error: a field that would reach outside the tenant (Service externalIPs, NetworkPolicy namespaceSelector, ...).
     */
    public static final String FIELD_NOT_ALLOWED = TransformResult.FIELD_NOT_ALLOWED;
    /**
     * Error: an Endpoints/EndpointSlice address that is neither one of the tenant's own host pods nor inside a CIDR
     * the isolation profile allows; the message names the address.
     */
    public static final String ENDPOINT_ADDRESS_NOT_ALLOWED = TransformResult.ENDPOINT_ADDRESS_NOT_ALLOWED;

    /**
     * Update (provisioning): A rendered object (boundary, control plane, tenant DNS) differs from what is rendered now;
     * it is put back.
     */
    public static final String OUT_OF_SYNC = "OutOfSync";
    /**
     * Update (provisioning): The host namespace lacks the labels the isolation profile sets (Pod Security, tenant
     * labels); they are added, other labels are kept.
     */
    public static final String LABELS_APPLIED = "LabelsApplied";
    /**
     * Error (provisioning): An object the boundary must label (the host namespace) does not exist; create it, or let
     * tenantplane create the tenant's own namespace.
     */
    public static final String HOST_OBJECT_MISSING = "HostObjectMissing";
    /**
     * Update (provisioning): The TenantCluster's status (conditions, phase, host namespace, kubeconfig reference)
     * changed and is written.
     */
    public static final String STATUS_UPDATED = "StatusUpdated";
    /**
     * Update (provisioning): The finalizer tenantplane.io/cleanup is added, so that deleting the TenantCluster waits
     * until what was made for it is removed.
     */
    public static final String FINALIZER_ADDED = "FinalizerAdded";
    /**
     * Update (provisioning): Everything made for a deleted TenantCluster is gone; the finalizer is removed and the API
     * server deletes it.
     */
    public static final String FINALIZER_REMOVED = "FinalizerRemoved";
    /**
     * Delete (provisioning): The TenantCluster is being deleted; an object rendered for it (with its labels) is
     * removed.
     */
    public static final String TENANT_DELETED = "TenantDeleted";
    /**
     * Delete (provisioning): The control plane no longer publishes a join token (it left private mode with a sqlite
     * datastore); the Secret holding it is deleted.
     */
    public static final String JOIN_TOKEN_RETIRED = "JoinTokenRetired";
    /**
     * Delete (provisioning): A tenant in private mode runs cluster DNS on its own agents; the tenant DNS rendered for
     * shared or dedicated mode is deleted.
     */
    public static final String DNS_RETIRED = "DnsRetired";
    /**
     * Create (provisioning): A shared or dedicated tenant's API server gets its client certificate for tenantplane's
     * kubelet endpoint.
     */
    public static final String KUBELET_CLIENT_ISSUED = "KubeletClientIssued";
    /**
     * Update (provisioning): The tenant's kubelet client certificate is issued again: a third of its life is left, or
     * its CA, uid, drop-in or labels changed.
     */
    public static final String KUBELET_CLIENT_RENEWED = "KubeletClientRenewed";
    /** Unchanged (provisioning): The stored kubelet client certificate is current; nothing is written. */
    public static final String KUBELET_CLIENT_CURRENT = "KubeletClientCurrent";
    /** Skip (provisioning): The kubelet CA is not loaded yet; the next pass issues the certificate. */
    public static final String KUBELET_CA_UNAVAILABLE = "KubeletCaUnavailable";
    /**
     * Update (tenant): The status of a synced object (a Pod's phase, conditions and IPs; a Service's load balancer) is
     * copied from its host copy to the tenant object.
     */
    public static final String STATUS_FROM_HOST = "StatusFromHost";
    /**
     * Update (tenant): The host scheduled the host copy of a tenant Pod; the tenant Pod is bound (pods/binding) to the
     * node mirror of that host node.
     */
    public static final String BOUND_TO_NODE = "BoundToNode";
    /**
     * Create, Update (tenant): A host node runs a tenant Pod: the tenant gets a Node of that name mirroring its labels,
     * capacity, addresses and Ready condition (and, with a kubelet endpoint, that endpoint as its kubelet).
     */
    public static final String NODE_MIRRORED = "NodeMirrored";
    /**
     * Create, Update (tenant): With a kubelet endpoint configured, the tenant gets {@code metrics.k8s.io} from it: an
     * APIService and an ExternalName Service in {@code kube-system} that point its aggregator at the endpoint, so
     * {@code kubectl top} inside the tenant shows its Pods' usage on the host.
     */
    public static final String METRICS_API_REGISTERED = "MetricsApiRegistered";
    /**
     * Skip (tenant): The tenant registered {@code metrics.k8s.io} itself (its own metrics-server): tenantplane leaves
     * that APIService and its Service as they are.
     */
    public static final String METRICS_API_OWNED_BY_TENANT = "MetricsApiOwnedByTenant";
    /**
     * Delete (tenant): A tenant now in private mode still has the APIService and Service tenantplane registered for
     * shared or dedicated mode, pointing at the kubelet endpoint; they are deleted, since k3s's own metrics-server
     * serves {@code metrics.k8s.io} there.
     */
    public static final String METRICS_API_RETIRED = "MetricsApiRetired";
    /**
     * Create, Update (migration): The host namespace of the tenant's new place (dedicated or private mode) is made,
     * labelled as its boundary says.
     */
    public static final String TARGET_NAMESPACE = "TargetNamespace";
    /**
     * Create, Update (migration): Part of the boundary in the new place (NetworkPolicies, quota, limits,
     * ServiceAccount, Role) is made before anything moves there.
     */
    public static final String TARGET_BOUNDARY = "TargetBoundary";
    /**
     * Create (migration): Part of the tenant DNS (a move out of private mode, where it was retired) is made before
     * the Pods are copied, so the copies resolve the tenant's Services.
     */
    public static final String TARGET_DNS = "TargetDns";
    /**
     * Create (migration): Part of the tenant's k3s agents (a move to private mode) is made, so the tenant's own nodes
     * can run its Pods.
     */
    public static final String AGENTS_STARTED = "AgentsStarted";
    /** Unchanged (migration): An object the move needs is already as it must be; nothing is written. */
    public static final String ALREADY_IN_PLACE = "AlreadyInPlace";
    /**
     * Update (migration): The control plane's StatefulSet gets the k3s server flags of the target mode (e.g. its own
     * scheduler and agents in private mode).
     */
    public static final String CONTROL_PLANE_RECONFIGURED = "ControlPlaneReconfigured";
    /**
     * Update (migration, tenant): A node mirror standing for a host node is cordoned in a move to private mode, so the
     * tenant's own scheduler places nothing there.
     */
    public static final String MIRROR_CORDONED = "MirrorCordoned";
    /**
     * Update (migration, tenant): A mirror cordoned by a move to private mode that is turning back is schedulable
     * again.
     */
    public static final String MIRROR_UNCORDONED = "MirrorUncordoned";
    /**
     * Delete (migration): A tenant Pod running on the host (and its host copy) is deleted with its grace period so that
     * its controller recreates it on the tenant's agents.
     */
    public static final String RESCHEDULE_ON_AGENTS = "RescheduleOnAgents";
    /**
     * Delete (migration, tenant): A tenant Pod running on an agent is deleted so that its controller recreates it,
     * synced to the host.
     */
    public static final String RESCHEDULE_ON_HOST = "RescheduleOnHost";
    /**
     * Delete (migration): Part of the boundary of the old place is removed; the boundary of the new place replaces it.
     */
    public static final String BOUNDARY_RETIRED = "BoundaryRetired";
    /**
     * Update, Unchanged (migration): status.mode and status.hostNamespace become the target's: from now on passes sync
     * (or not) there.
     */
    public static final String MODE_SWITCHED = "ModeSwitched";
    /**
     * Delete (migration): The tenant's own host namespace of the old place is empty of its workloads and boundary, and
     * is deleted.
     */
    public static final String PLACEMENT_RETIRED = "PlacementRetired";
    /**
     * Skip (migration): The old place's own namespace holds objects tenantplane does not own; it is kept, for its owner
     * to delete.
     */
    public static final String NAMESPACE_KEPT = "NamespaceKept";
    /**
     * Delete (migration, tenant): A node mirror standing for a host node runs no tenant Pod any more after a move to
     * private mode, and is deleted.
     */
    public static final String MIRROR_RETIRED = "MirrorRetired";
    /**
     * Delete (migration): The old host copy of a tenant Service gives up its ClusterIP so its copy in the new place can
     * take it: the tenant Service keeps its IP.
     */
    public static final String CLUSTER_IP_MOVES = "ClusterIPMoves";
    /**
     * Delete (migration): A host copy in the old place is removed: in private mode nothing is synced, the tenant's
     * agents run its workloads.
     */
    public static final String NOT_SYNCED_IN_PRIVATE_MODE = "NotSyncedInPrivateMode";
    /** Delete (migration): A host copy in the old place is removed once its copy in the new place replaces it. */
    public static final String MOVED_AWAY = "MovedAway";
    /**
     * Delete (migration): Part of the tenant's k3s agents (and their Nodes in the tenant) is removed in a move out of
     * private mode.
     */
    public static final String AGENTS_RETIRED = "AgentsRetired";
    /**
     * Update (migration): status.migration and the Migrating condition record the step reached, so an interrupted move
     * resumes there.
     */
    public static final String MIGRATION_PROGRESS = "MigrationProgress";
    /**
     * Skip (migration): spec.mode went back to the mode the tenant was moving from; the move turns back from the step
     * it reached.
     */
    public static final String MIGRATION_REVERSED = "MigrationReversed";
    /**
     * Skip (migration): spec.mode changed to a third mode during a move; the move goes on to the new target from the
     * step it reached.
     */
    public static final String MIGRATION_REDIRECTED = "MigrationRedirected";
    /**
     * Create (Events): A decision is recorded as a new Kubernetes Event (events.k8s.io/v1) regarding the TenantCluster.
     */
    public static final String EVENT_RECORDED = "EventRecorded";
    /**
     * Update (Events): A decision repeated within the series interval raises the series.count of its Event instead of
     * making a new one.
     */
    public static final String EVENT_REPEATED = "EventRepeated";

    private static final Set<String> REGISTERED = Set.copyOf(all().keySet());

    private Reasons() {
    }

    /** True when {@code reason} is one of these constants. */
    public static boolean isRegistered(String reason) {
        return REGISTERED.contains(reason);
    }

    /** Every reason with its meaning, in the order above. */
    public static Map<String, String> all() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NOT_ON_HOST, "Create: the host copy does not exist yet.");
        m.put(SOURCE_CHANGED, "Update: the desired host object changed (tenant object, SyncPolicy or isolation "
                + "profile).");
        m.put(DRIFT_CORRECTED, "Update: the host copy was edited on the host; the edit is undone.");
        m.put(IN_SYNC, "Unchanged: the host copy already equals the desired object.");
        m.put(SOURCE_DELETED, "Delete: the tenant object is gone or being deleted; its host copy is an orphan.");
        m.put(SOURCE_REPLACED, "Delete: the tenant Pod was recreated under the same name; the old host Pod goes "
                + "first.");
        m.put(KIND_NOT_SYNCED, "Skip or Delete: the SyncPolicy does not copy this kind to the host (any more).");
        m.put(NAMESPACE_EXCLUDED, "Skip or Delete: the kind's namespace filter excludes the virtual namespace.");
        m.put(SELECTOR_MISMATCH, "Skip or Delete: the kind's label selector does not match the object.");
        m.put(SYSTEM_NAMESPACE, "Skip or Delete: tenant system namespaces are never synced.");
        m.put(SOURCE_TERMINATING, "Skip: the tenant object is being deleted and has no host copy.");
        m.put(HOST_COPY_TERMINATING, "Unchanged: the tenant Pod is being deleted and its host copy is terminating.");
        m.put(CLUSTER_IP_FROM_HOST, "Update (tenant): a tenant Service is created again with its host copy's "
                + "ClusterIP.");
        m.put(NODE_PORTS_FROM_HOST, "Update (tenant): a tenant NodePort or LoadBalancer Service takes its host copy's "
                + "node ports.");
        m.put(HOST_POD_GONE, "Skip, then Delete (tenant): a tenant Pod that ran on the host lost its host copy; it is "
                + "not recreated but deleted with grace 0 (a finished one is kept).");
        m.put(POD_FINALIZED, "Delete (tenant): a tenant Pod being deleted whose host copy is gone is deleted with "
                + "grace period 0, as its kubelet would.");
        m.put(POD_SPEC_IMMUTABLE, "Unchanged: the host Pod keeps the spec it was created with; a Pod's spec cannot "
                + "change.");
        m.put(EPHEMERAL_CONTAINERS_ADDED, "Update: the tenant Pod's new ephemeral containers (kubectl debug) are "
                + "added to the host Pod through its ephemeralcontainers subresource.");
        m.put(TenantTokens.ISSUED, "Create: the token Secret of a synced Pod, minted by the tenant API.");
        m.put(TenantTokens.REFRESHED, "Update: the tokens of a synced Pod reached 80% of their life.");
        m.put(TenantTokens.UNUSED, "Delete: no host Pod mounts the token Secret any more.");
        m.put(NODE_MIRROR_UNUSED, "Delete: a tenant Node mirroring a host node has no tenant Pod bound to it any "
                + "more.");
        m.put(STATEFULSET_REPLACED, "Delete: a rendered StatefulSet changed in a field it cannot change; deleted "
                + "orphaning its pods, created again by the next pass.");
        m.put(KIND_NOT_ALLOWED, "Skip: the custom kind is not in the installation's allow-list, or is cluster-scoped "
                + "on the host.");
        m.put(KIND_NOT_SERVED_ON_HOST, "Skip: the host does not serve the custom kind at that version; install its "
                + "CRD on the host.");
        m.put(TENANT_DNS_PENDING, "Skip: a Pod using the cluster DNS waits until its tenant's DNS Service has an IP "
                + "on the host.");
        m.put(TENANT_API_PENDING, "Skip: a Pod that would run as a tenant ServiceAccount waits until its tenant's API "
                + "Service has an IP on the host.");
        m.put(CLASS_NOT_MIRRORED, "Skip: the Pod names a PriorityClass or RuntimeClass not mirrored from the host.");
        m.put(MIRRORED_FROM_HOST, "Create or Update (tenant): a host object selected by fromHost is mirrored into the "
                + "tenant.");
        m.put(MIRROR_NOT_SELECTED, "Delete (tenant): a mirror whose host object is gone or no longer selected is "
                + "removed.");
        m.put(REFERENCES_UNSYNCED_KIND, "Skip: the object refers to a kind the SyncPolicy does not sync.");
        m.put(MANAGED_BY_HOST, "Skip: a host controller maintains the equivalent object.");
        m.put(TENANT_ONLY, "Skip: the object belongs to the tenant's own control plane.");
        m.put(FOREIGN_OBJECT, "Conflict: the host name is taken by an object not managed for this tenant.");
        m.put(NAME_COLLISION, "Conflict: two tenant objects map to one host name.");
        m.put(INVALID_SOURCE, "Error: the tenant object is malformed.");
        m.put(POD_SECURITY_VIOLATION, "Error: the pod breaks the isolation profile's Pod Security level.");
        m.put(CONTAINER_LIMITS_EXCEEDED, "Error: a container asks for more than the isolation profile's limits "
                + "let one container have.");
        m.put(RESOURCES_REQUIRED, "Error: a container lacks a request or limit the isolation profile's quota "
                + "counts, and the profile gives no default.");
        m.put(SERVICE_TYPE_NOT_ALLOWED, "Error: the Service type is not allowed by the isolation profile.");
        m.put(FIELD_NOT_ALLOWED, "Error: a field that would reach outside the tenant.");
        m.put(ENDPOINT_ADDRESS_NOT_ALLOWED, "Error: an endpoint address that is not one of the tenant's own pods or "
                + "an allowed CIDR.");
        m.put(OUT_OF_SYNC, "Update (provisioning): A rendered object (boundary, control plane, tenant DNS) differs "
                + "from what is rendered now; it is put back.");
        m.put(LABELS_APPLIED, "Update (provisioning): The host namespace lacks the labels the isolation profile sets "
                + "(Pod Security, tenant labels); they are added, other labels are kept.");
        m.put(HOST_OBJECT_MISSING, "Error (provisioning): An object the boundary must label (the host namespace) does "
                + "not exist; create it, or let tenantplane create the tenant's own namespace.");
        m.put(STATUS_UPDATED, "Update (provisioning): The TenantCluster's status (conditions, phase, host namespace, "
                + "kubeconfig reference) changed and is written.");
        m.put(FINALIZER_ADDED, "Update (provisioning): The finalizer tenantplane.io/cleanup is added, so that "
                + "deleting the TenantCluster waits until what was made for it is removed.");
        m.put(FINALIZER_REMOVED, "Update (provisioning): Everything made for a deleted TenantCluster is gone; the "
                + "finalizer is removed and the API server deletes it.");
        m.put(TENANT_DELETED, "Delete (provisioning): The TenantCluster is being deleted; an object rendered for it "
                + "(with its labels) is removed.");
        m.put(JOIN_TOKEN_RETIRED, "Delete (provisioning): The control plane no longer publishes a join token (it left "
                + "private mode with a sqlite datastore); the Secret holding it is deleted.");
        m.put(DNS_RETIRED, "Delete (provisioning): A tenant in private mode runs cluster DNS on its own agents; the "
                + "tenant DNS rendered for shared or dedicated mode is deleted.");
        m.put(KUBELET_CLIENT_ISSUED, "Create (provisioning): A shared or dedicated tenant's API server gets its "
                + "client certificate for tenantplane's kubelet endpoint.");
        m.put(KUBELET_CLIENT_RENEWED, "Update (provisioning): The tenant's kubelet client certificate is issued "
                + "again: a third of its life is left, or its CA, uid, drop-in or labels changed.");
        m.put(KUBELET_CLIENT_CURRENT, "Unchanged (provisioning): The stored kubelet client certificate is current; "
                + "nothing is written.");
        m.put(KUBELET_CA_UNAVAILABLE, "Skip (provisioning): The kubelet CA is not loaded yet; the next pass issues "
                + "the certificate.");
        m.put(STATUS_FROM_HOST, "Update (tenant): The status of a synced object (a Pod's phase, conditions and IPs; a "
                + "Service's load balancer) is copied from its host copy to the tenant object.");
        m.put(BOUND_TO_NODE, "Update (tenant): The host scheduled the host copy of a tenant Pod; the tenant Pod is "
                + "bound (pods/binding) to the node mirror of that host node.");
        m.put(NODE_MIRRORED, "Create, Update (tenant): A host node runs a tenant Pod: the tenant gets a Node of that "
                + "name mirroring its labels, capacity, addresses and Ready condition (and, with a kubelet endpoint, "
                + "that endpoint as its kubelet).");
        m.put(METRICS_API_REGISTERED, "Create, Update (tenant): With a kubelet endpoint configured, the tenant gets "
                + "metrics.k8s.io from it: an APIService and an ExternalName Service in kube-system that point its "
                + "aggregator at the endpoint, so kubectl top inside the tenant shows its Pods' usage on the host.");
        m.put(METRICS_API_OWNED_BY_TENANT, "Skip (tenant): The tenant registered metrics.k8s.io itself (its own "
                + "metrics-server): tenantplane leaves that APIService and its Service as they are.");
        m.put(METRICS_API_RETIRED, "Delete (tenant): A tenant now in private mode still has the APIService and "
                + "Service tenantplane registered for shared or dedicated mode, pointing at the kubelet endpoint; they "
                + "are deleted, since k3s's own metrics-server serves metrics.k8s.io there.");
        m.put(TARGET_NAMESPACE, "Create, Update (migration): The host namespace of the tenant's new place (dedicated "
                + "or private mode) is made, labelled as its boundary says.");
        m.put(TARGET_BOUNDARY, "Create, Update (migration): Part of the boundary in the new place (NetworkPolicies, "
                + "quota, limits, ServiceAccount, Role) is made before anything moves there.");
        m.put(TARGET_DNS, "Create (migration): Part of the tenant DNS (a move out of private mode, where it was "
                + "retired) is made before the Pods are copied, so the copies resolve the tenant's Services.");
        m.put(AGENTS_STARTED, "Create (migration): Part of the tenant's k3s agents (a move to private mode) is made, "
                + "so the tenant's own nodes can run its Pods.");
        m.put(ALREADY_IN_PLACE, "Unchanged (migration): An object the move needs is already as it must be; nothing is "
                + "written.");
        m.put(CONTROL_PLANE_RECONFIGURED, "Update (migration): The control plane's StatefulSet gets the k3s server "
                + "flags of the target mode (e.g. its own scheduler and agents in private mode).");
        m.put(MIRROR_CORDONED, "Update (migration, tenant): A node mirror standing for a host node is cordoned in a "
                + "move to private mode, so the tenant's own scheduler places nothing there.");
        m.put(MIRROR_UNCORDONED, "Update (migration, tenant): A mirror cordoned by a move to private mode that is "
                + "turning back is schedulable again.");
        m.put(RESCHEDULE_ON_AGENTS, "Delete (migration): A tenant Pod running on the host (and its host copy) is "
                + "deleted with its grace period so that its controller recreates it on the tenant's agents.");
        m.put(RESCHEDULE_ON_HOST, "Delete (migration, tenant): A tenant Pod running on an agent is deleted so that "
                + "its controller recreates it, synced to the host.");
        m.put(BOUNDARY_RETIRED, "Delete (migration): Part of the boundary of the old place is removed; the boundary "
                + "of the new place replaces it.");
        m.put(MODE_SWITCHED, "Update, Unchanged (migration): status.mode and status.hostNamespace become the "
                + "target's: from now on passes sync (or not) there.");
        m.put(PLACEMENT_RETIRED, "Delete (migration): The tenant's own host namespace of the old place is empty of "
                + "its workloads and boundary, and is deleted.");
        m.put(NAMESPACE_KEPT, "Skip (migration): The old place's own namespace holds objects tenantplane does not "
                + "own; it is kept, for its owner to delete.");
        m.put(MIRROR_RETIRED, "Delete (migration, tenant): A node mirror standing for a host node runs no tenant Pod "
                + "any more after a move to private mode, and is deleted.");
        m.put(CLUSTER_IP_MOVES, "Delete (migration): The old host copy of a tenant Service gives up its ClusterIP so "
                + "its copy in the new place can take it: the tenant Service keeps its IP.");
        m.put(NOT_SYNCED_IN_PRIVATE_MODE, "Delete (migration): A host copy in the old place is removed: in private "
                + "mode nothing is synced, the tenant's agents run its workloads.");
        m.put(MOVED_AWAY, "Delete (migration): A host copy in the old place is removed once its copy in the new place "
                + "replaces it.");
        m.put(AGENTS_RETIRED, "Delete (migration): Part of the tenant's k3s agents (and their Nodes in the tenant) is "
                + "removed in a move out of private mode.");
        m.put(MIGRATION_PROGRESS, "Update (migration): status.migration and the Migrating condition record the step "
                + "reached, so an interrupted move resumes there.");
        m.put(MIGRATION_REVERSED, "Skip (migration): spec.mode went back to the mode the tenant was moving from; the "
                + "move turns back from the step it reached.");
        m.put(MIGRATION_REDIRECTED, "Skip (migration): spec.mode changed to a third mode during a move; the move goes "
                + "on to the new target from the step it reached.");
        m.put(EVENT_RECORDED, "Create (Events): A decision is recorded as a new Kubernetes Event (events.k8s.io/v1) "
                + "regarding the TenantCluster.");
        m.put(EVENT_REPEATED, "Update (Events): A decision repeated within the series interval raises the "
                + "series.count of its Event instead of making a new one.");
        return m;
    }
}
