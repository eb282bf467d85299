package io.tenantplane.plan;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.HostNames;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Everything the {@link Planner} looks at for one tenant. Every virtual namespace maps to the one host namespace.
 *
 * @param tenant        the tenant's name (the TenantCluster's {@code metadata.name})
 * @param hostNamespace the tenant's host namespace (the TenantCluster's {@code metadata.namespace} in shared mode)
 * @param policy        what is synced
 * @param options       what the isolation profile asks of pods and Services; null means {@link TransformOptions#defaults()}
 * @param tenantObjects every tenant object of every kind the policy syncs, as read from the tenant API (other kinds
 *                      may be included and are skipped). A synced kind's list must be complete: a host copy whose
 *                      source is missing here is deleted as an orphan.
 * @param hostObjects   the objects currently in the host namespace (any owner; objects of other namespaces are
 *                      ignored), plus cluster-scoped host objects when the policy syncs cluster-scoped kinds
 */
public record Snapshot(String tenant, String hostNamespace, SyncPolicy policy, TransformOptions options,
                       List<JsonObject> tenantObjects, List<JsonObject> hostObjects) {

    /**
     * @throws IllegalArgumentException naming the argument when the tenant or host namespace is not a DNS-1123 label
     */
    public Snapshot {
        if (!HostNames.isDns1123Label(tenant)) {
            throw new IllegalArgumentException("tenant '" + tenant + "' is not a DNS-1123 label");
        }
        if (!HostNames.isDns1123Label(hostNamespace)) {
            throw new IllegalArgumentException("hostNamespace '" + hostNamespace + "' is not a DNS-1123 label");
        }
        Objects.requireNonNull(policy, "policy");
        options = options == null ? TransformOptions.defaults() : options;
        tenantObjects = List.copyOf(tenantObjects == null ? List.of() : tenantObjects);
        hostObjects = List.copyOf(hostObjects == null ? List.of() : hostObjects);
    }

    /** This snapshot with {@code hostObject} in place of the host object of the same kind, namespace and name. */
    public Snapshot withHostObject(JsonObject hostObject) {
        List<JsonObject> hosts = new ArrayList<>(withoutHost(Json.string(hostObject, "kind"),
                Json.string(hostObject, "metadata", "namespace"), Json.string(hostObject, "metadata", "name")));
        hosts.add(hostObject);
        return new Snapshot(tenant, hostNamespace, policy, options, tenantObjects, hosts);
    }

    /** This snapshot without the host object of that kind, namespace (null for cluster-scoped) and name. */
    public Snapshot withoutHostObject(String kind, String namespace, String name) {
        return new Snapshot(tenant, hostNamespace, policy, options, tenantObjects, withoutHost(kind, namespace, name));
    }

    private List<JsonObject> withoutHost(String kind, String namespace, String name) {
        return hostObjects.stream().filter(o -> !(Objects.equals(kind, Json.string(o, "kind"))
                && Objects.equals(namespace, Json.string(o, "metadata", "namespace"))
                && Objects.equals(name, Json.string(o, "metadata", "name")))).toList();
    }
}
