package io.tenantplane.kubelet;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Where a tenant's Pods run now, as the kubelet endpoint needs it for every call: the mode and host namespace in
 * effect (the TenantCluster's status, which a migration changes last), and which host Pod is the copy tenantplane
 * manages of exactly one tenant Pod.
 */
final class TenantPlace {

    static final ResourceKind TENANT_CLUSTERS = ResourceKind.wellKnown(TenantCluster.API_VERSION, TenantCluster.KIND)
            .orElseThrow();

    private TenantPlace() {
    }

    /** The mode in effect: {@code status.mode} once provisioned, else {@code spec.mode}. */
    static TenantCluster.Mode mode(TenantCluster tc) {
        return tc.status() != null && tc.status().mode() != null ? tc.status().mode() : tc.mode();
    }

    /** The host namespace in effect first; during a migration the Pods may still be in the other one. */
    static List<String> hostNamespaces(TenantCluster tc) {
        LinkedHashSet<String> places = new LinkedHashSet<>();
        if (tc.status() != null && tc.status().hostNamespace() != null) {
            places.add(tc.status().hostNamespace());
        }
        places.add(tc.hostNamespace());
        return List.copyOf(places);
    }

    /** Whether {@code pod} is the host copy tenantplane manages of exactly tenant Pod {@code namespace/name}. */
    static boolean managedCopy(JsonObject pod, String tenant, String hostNs, String namespace, String name) {
        return ReverseMapping.inspect(pod, tenant, hostNs) instanceof Ownership.Managed m
                && m.source().kind().equals("Pod") && namespace.equals(m.source().virtualNamespace())
                && name.equals(m.source().name());
    }

    /**
     * TenantCluster {@code key} as the host holds it, while it is the object of uid {@code uid} (what a certificate
     * was issued for or whose CA signed it); empty once it is gone or is another object of that name.
     *
     * @throws io.tenantplane.errors.ReadFailedException when the host cannot be read
     */
    static Optional<JsonObject> current(Reader host, io.tenantplane.observe.TenantKey key, String uid) {
        return host.get(TENANT_CLUSTERS, key.namespace(), key.name())
                .filter(tc -> uid.equals(io.tenantplane.json.Json.string(tc, "metadata", "uid")));
    }
}
