package io.tenantplane.observe;

import java.util.Objects;

/** A tenant's identity on the host: the TenantCluster's namespace and name. */
public record TenantKey(String namespace, String name) {

    public TenantKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
