package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.controlplane.internal.ServiceRange;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import java.util.Optional;

/**
 * The block holding the host's Service range ({@link ServiceRange}), read once per {@link TenantPlane} from the
 * host's {@code default/kubernetes} Service the first time a TenantCluster that names no range is provisioned, and
 * kept: provisioning and migration render every such TenantCluster with it ({@link ServiceRange#onHost}). A read
 * that fails is made again on the next provisioning; until one succeeds the default applies.
 */
final class HostServiceRange {
    private static final ResourceKind SERVICES = ResourceKind.wellKnown("v1", "Service").orElseThrow();
    private final Reader host;
    private volatile boolean known;
    private volatile String range;

    HostServiceRange(Reader host) {
        this.host = host;
    }

    /** {@code tc} as rendered on this host, reading the host first when that is still to be done and matters. */
    TenantCluster onHost(TenantCluster tc) {
        if (!known && ServiceRange.takesHostRange(tc)) {
            read();
        }
        return ServiceRange.onHost(tc, range);
    }

    /** The block as found, or null when not (yet) known or the host's Service IPs are not IPv4. */
    String range() {
        return range;
    }

    private synchronized void read() {
        if (known) {
            return;
        }
        Optional<JsonObject> kubernetes;
        try {
            kubernetes = host.get(SERVICES, "default", "kubernetes");
        } catch (ReadFailedException e) {
            return;  // asked again on the next provisioning
        }
        range = kubernetes.flatMap(s -> ServiceRange.fromKubernetesServiceIp(Json.string(s, "spec", "clusterIP")))
                .orElse(null);
        known = true;
    }
}
