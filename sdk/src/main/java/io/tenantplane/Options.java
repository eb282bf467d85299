package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.transform.TransformOptions;

/** What the transform takes from a tenant's IsolationProfile and mode (DESIGN: Transform, Modes). */
final class Options {

    private Options() {
    }

    /**
     * The host ServiceAccount the profile names (unless the policy syncs ServiceAccounts), its Service types and Pod
     * Security level, and in dedicated mode its node placement. Without a profile: {@link TransformOptions#defaults()}.
     */
    static TransformOptions from(TenantCluster tc, IsolationProfile profile, SyncPolicy policy) {
        return TransformOptions.forProfile(tc == null ? null : tc.tenant(),
                tc != null && tc.mode() == TenantCluster.Mode.DEDICATED, profile, policy);
    }

    /**
     * The IPs of this tenant's pods as the host reports them ({@code status.podIP} and {@code status.podIPs} of the
     * host Pods among {@code hostObjects} that carry the tenant's label and its namespace): the addresses its own
     * Endpoints may name. A tenant's own view of its pods is never used: it can write their status.
     */
    static java.util.Set<String> hostPodIps(TenantCluster tc, java.util.Collection<JsonObject> hostObjects) {
        java.util.Set<String> ips = new java.util.TreeSet<>();
        for (JsonObject o : hostObjects) {
            if (!"Pod".equals(Json.string(o, "kind")) || !tc.hostNamespace().equals(Json.string(o, "metadata",
                    "namespace")) || !tc.tenant().equals(Json.labels(o).get(io.tenantplane.naming.ReverseMapping.TENANT))) {
                continue;
            }
            String ip = Json.string(o, "status", "podIP");
            if (ip != null && !ip.isEmpty()) {
                ips.add(ip);
            }
            if (Json.object(o, "status") != null && Json.object(o, "status").get("podIPs")
                    instanceof com.google.gson.JsonArray list) {
                list.forEach(e -> {
                    String v = e.isJsonObject() ? Json.string(e.getAsJsonObject(), "ip") : null;
                    if (v != null && !v.isEmpty()) {
                        ips.add(v);
                    }
                });
            }
        }
        return ips;
    }

    /**
     * Where tenant pods reach their tenant API and DNS: the ClusterIP and first port of the tenant API Service
     * ({@code <tenant>-api} in the TenantCluster's namespace) among {@code hostObjects}, with the ClusterIP of the
     * DNS Service ({@code <tenant>-dns}) when it is there; null in private mode (its own agents run its pods).
     * When the API Service has no IP yet, or is not there, it is {@link TransformOptions.TenantApi#pending pending}
     * (pods wait), except that a plan made {@code beforeProvisioning} (an offline plan or explain, which predict a
     * Syncer pass, where provisioning creates the Service before anything is synced) names a missing Service by its
     * DNS name. The pass, a dry run and explain all decide it here, from the host objects they read.
     */
    static TransformOptions.TenantApi tenantApi(TenantCluster tc, java.util.Collection<JsonObject> hostObjects,
                                                boolean beforeProvisioning) {
        if (tc.mode() == TenantCluster.Mode.PRIVATE) {
            return null;
        }
        io.tenantplane.controlplane.ControlPlaneNames n = io.tenantplane.controlplane.ControlPlaneNames.of(tc);
        return TransformOptions.TenantApi.fromServices(n.apiService() + "." + tc.namespace() + ".svc",
                service(tc, n.apiService(), hostObjects), service(tc, n.dnsService(), hostObjects), beforeProvisioning);
    }

    private static JsonObject service(TenantCluster tc, String name, java.util.Collection<JsonObject> hostObjects) {
        for (JsonObject o : hostObjects) {
            if ("Service".equals(Json.string(o, "kind")) && name.equals(Json.string(o, "metadata", "name"))
                    && tc.namespace().equals(Json.string(o, "metadata", "namespace"))) {
                return o;
            }
        }
        return null;
    }

    /**
     * What the host offers a policy's custom kinds: the installation's allow-list, and whether the host serves each
     * custom kind, judged from the host's CustomResourceDefinitions among {@code hostObjects} (a kind of the fixed
     * table, such as apps/v1 Deployment, is served without one). The live pass, the service's explain and an
     * offline plan all judge with this, from the CRDs they read or were given.
     */
    static io.tenantplane.transform.HostFacts hostFacts(java.util.Set<String> allowedKinds, SyncPolicy policy,
                                                       java.util.Collection<JsonObject> hostObjects) {
        return io.tenantplane.transform.HostFacts.NONE.withAllowed(allowedKinds)
                .withKinds(io.tenantplane.transform.HostFacts.fromCrds(policy, hostObjects,
                        (apiVersion, kind) -> io.tenantplane.apply.ResourceKind.wellKnown(apiVersion, kind)
                                .isPresent()));
    }
}
