package io.tenantplane.naming;

import java.util.Objects;

/**
 * The tenant object a host object was made from, as recorded in the host object's reverse-mapping metadata.
 *
 * @param tenant           the tenant (the TenantCluster's {@code metadata.name})
 * @param kind             the Kubernetes kind, e.g. {@code Pod}
 * @param virtualNamespace the namespace inside the tenant; {@code null} for cluster-scoped kinds
 * @param name             the object's name inside the tenant
 * @param uid              the tenant object's uid; {@code null} when unknown
 */
public record TenantObjectRef(String tenant, String kind, String virtualNamespace, String name, String uid) {

    public TenantObjectRef {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    /** The host name this source maps to under {@link HostNames}. */
    public String hostName() {
        return virtualNamespace == null
                ? HostNames.clusterScopedHostName(name, tenant)
                : HostNames.hostName(name, virtualNamespace, tenant);
    }

    /** {@code Pod default/nginx of tenant dev}: how messages name a tenant object. */
    public String describe() {
        return kind + " " + (virtualNamespace == null ? "" : virtualNamespace + "/") + name + " of tenant " + tenant;
    }
}
