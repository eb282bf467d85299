package io.tenantplane.transform;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import java.util.List;
import java.util.Objects;

/**
 * What {@link Transformer#transform} made of one tenant object: a host object, a rejection (the object must not
 * reach the host as it is) or a skip (it deliberately stays in the tenant).
 */
public sealed interface TransformResult {

    /** Reason: the tenant object is malformed (missing kind, name or namespace, or an invalid name). */
    String INVALID_SOURCE = "InvalidSource";
    /** Skip: a Pod names a PriorityClass or RuntimeClass the host would refuse: it is not mirrored from the host. */
    String CLASS_NOT_MIRRORED = "ClassNotMirrored";
    /** Skip: a Pod that resolves through the cluster DNS waits until its tenant's DNS Service has an IP on the host. */
    String TENANT_DNS_PENDING = "TenantDnsPending";
    /** Skip: a Pod that would run as a tenant ServiceAccount waits until its tenant's API Service has an IP on the host. */
    String TENANT_API_PENDING = "TenantApiPending";
    /** Reason: a pod asks for something the isolation profile's Pod Security level forbids. */
    String POD_SECURITY_VIOLATION = "PodSecurityViolation";
    /** Reason: a container asks for more than the host LimitRange (the isolation profile's limits) lets it have. */
    String CONTAINER_LIMITS_EXCEEDED = "ContainerLimitsExceeded";
    /** Reason: a container lacks a request or limit the host's ResourceQuota counts, and no default gives it one. */
    String RESOURCES_REQUIRED = "ResourcesRequired";
    /** Reason: a Service type the isolation profile does not allow. */
    String SERVICE_TYPE_NOT_ALLOWED = "ServiceTypeNotAllowed";
    /** Reason: a field that would reach outside the tenant (e.g. Service {@code externalIPs}). */
    String FIELD_NOT_ALLOWED = "FieldNotAllowed";
    /**
     * Reason: an Endpoints or EndpointSlice address that is neither one of the tenant's own pods on the host nor in
     * a CIDR its isolation profile allows.
     */
    String ENDPOINT_ADDRESS_NOT_ALLOWED = "EndpointAddressNotAllowed";
    /** Reason: the object refers to an object of a kind the SyncPolicy does not sync, so it would break on the host. */
    String REFERENCES_UNSYNCED_KIND = "ReferencesUnsyncedKind";
    /** Reason: a host controller maintains the equivalent object (e.g. EndpointSlices of a Service with a selector). */
    String MANAGED_BY_HOST = "ManagedByHost";
    /** Reason: the object belongs to the tenant's own control plane (e.g. Service {@code default/kubernetes}). */
    String TENANT_ONLY = "TenantOnly";

    /** The tenant object this result is about; null only when the object is too malformed to name. */
    TenantObjectRef source();

    /** A stable machine reason in CamelCase ({@code Synced} for a transformed object). */
    String reason();

    /**
     * The tenant object as a host object.
     *
     * @param host  the desired host object with the full reverse-mapping metadata except {@link ReverseMapping#REASON},
     *              which the planner sets from its decision (see {@link #withReason})
     * @param notes sentences about changes beyond renaming (e.g. "removed the service account token volume ...")
     */
    record Transformed(TenantObjectRef source, JsonObject host, List<String> notes) implements TransformResult {
        public Transformed {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(host, "host");
            notes = List.copyOf(notes);
        }

        @Override
        public String reason() {
            return "Synced";
        }

        /** A copy of {@link #host} carrying {@code tenantplane.io/reason=<reason>}. */
        public JsonObject withReason(String reason) {
            JsonObject copy = host.deepCopy();
            Json.child(copy, "metadata", "annotations").addProperty(ReverseMapping.REASON, reason);
            return copy;
        }
    }

    /**
     * The tenant object must not reach the host: an {@code Error} decision.
     *
     * @param fieldPath the offending field, e.g. {@code spec.hostNetwork}
     * @param message   a sentence naming the field and what is allowed
     */
    record Rejected(TenantObjectRef source, String reason, String fieldPath, String message) implements TransformResult {
    }

    /**
     * The tenant object deliberately stays in the tenant: a {@code Skip} decision.
     *
     * @param fieldPath the field that caused it, e.g. {@code spec.volumes[0].configMap.name}; null when none
     */
    record Skipped(TenantObjectRef source, String reason, String fieldPath, String message) implements TransformResult {
    }
}
