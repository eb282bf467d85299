package io.tenantplane.plan;

import io.tenantplane.transform.TransformResult;
import java.util.LinkedHashMap;
import java.util.Map;

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
    /** Conflict: the host name is taken by an object tenantplane does not manage for this tenant. Nothing is written. */
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
    /** Error: the Service type is not among the isolation profile's allowed types. */
    public static final String SERVICE_TYPE_NOT_ALLOWED = TransformResult.SERVICE_TYPE_NOT_ALLOWED;
    /** Error: a field that would reach outside the tenant (Service externalIPs, NetworkPolicy namespaceSelector, ...). */
    public static final String FIELD_NOT_ALLOWED = TransformResult.FIELD_NOT_ALLOWED;
    /**
     * Error: an Endpoints/EndpointSlice address that is neither one of the tenant's own host pods nor inside a CIDR
     * the isolation profile allows; the message names the address.
     */
    public static final String ENDPOINT_ADDRESS_NOT_ALLOWED = TransformResult.ENDPOINT_ADDRESS_NOT_ALLOWED;

    private Reasons() {
    }

    /** Every reason with its meaning, in the order above. */
    public static Map<String, String> all() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NOT_ON_HOST, "Create: the host copy does not exist yet.");
        m.put(SOURCE_CHANGED, "Update: the desired host object changed (tenant object, SyncPolicy or isolation profile).");
        m.put(DRIFT_CORRECTED, "Update: the host copy was edited on the host; the edit is undone.");
        m.put(IN_SYNC, "Unchanged: the host copy already equals the desired object.");
        m.put(SOURCE_DELETED, "Delete: the tenant object is gone or being deleted; its host copy is an orphan.");
        m.put(SOURCE_REPLACED, "Delete: the tenant Pod was recreated under the same name; the old host Pod goes first.");
        m.put(KIND_NOT_SYNCED, "Skip or Delete: the SyncPolicy does not copy this kind to the host (any more).");
        m.put(NAMESPACE_EXCLUDED, "Skip or Delete: the kind's namespace filter excludes the virtual namespace.");
        m.put(SELECTOR_MISMATCH, "Skip or Delete: the kind's label selector does not match the object.");
        m.put(SYSTEM_NAMESPACE, "Skip or Delete: tenant system namespaces are never synced.");
        m.put(SOURCE_TERMINATING, "Skip: the tenant object is being deleted and has no host copy.");
        m.put(HOST_COPY_TERMINATING, "Unchanged: the tenant Pod is being deleted and its host copy is terminating.");
        m.put(CLUSTER_IP_FROM_HOST, "Update (tenant): a tenant Service is created again with its host copy's "
                + "ClusterIP.");
        m.put(HOST_POD_GONE, "Skip, then Delete (tenant): a tenant Pod that ran on the host lost its host copy; it is "
                + "not recreated but deleted with grace 0 (a finished one is kept).");
        m.put(POD_FINALIZED, "Delete (tenant): a tenant Pod being deleted whose host copy is gone is deleted with "
                + "grace period 0, as its kubelet would.");
        m.put(POD_SPEC_IMMUTABLE, "Unchanged: the host Pod keeps the spec it was created with; a Pod's spec cannot "
                + "change.");
        m.put(TenantTokens.ISSUED, "Create: the token Secret of a synced Pod, minted by the tenant API.");
        m.put(TenantTokens.REFRESHED, "Update: the tokens of a synced Pod reached 80% of their life.");
        m.put(TenantTokens.UNUSED, "Delete: no host Pod mounts the token Secret any more.");
        m.put(NODE_MIRROR_UNUSED, "Delete: a tenant Node mirroring a host node has no tenant Pod bound to it any more.");
        m.put(STATEFULSET_REPLACED, "Delete: a rendered StatefulSet changed in a field it cannot change; deleted "
                + "orphaning its pods, created again by the next pass.");
        m.put(KIND_NOT_ALLOWED, "Skip: the custom kind is not in the installation's allow-list, or is cluster-scoped "
                + "on the host.");
        m.put(KIND_NOT_SERVED_ON_HOST, "Skip: the host does not serve the custom kind at that version; install its "
                + "CRD on the host.");
        m.put(TENANT_DNS_PENDING, "Skip: a Pod using the cluster DNS waits until its tenant's DNS Service has an IP "
                + "on the host.");
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
        m.put(SERVICE_TYPE_NOT_ALLOWED, "Error: the Service type is not allowed by the isolation profile.");
        m.put(FIELD_NOT_ALLOWED, "Error: a field that would reach outside the tenant.");
        m.put(ENDPOINT_ADDRESS_NOT_ALLOWED, "Error: an endpoint address that is not one of the tenant's own pods or "
                + "an allowed CIDR.");
        return m;
    }
}
