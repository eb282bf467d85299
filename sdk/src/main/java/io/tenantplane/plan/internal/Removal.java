package io.tenantplane.plan.internal;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Decision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the removal of a deleted TenantCluster deletes on the host, as a function of what was read: exactly what
 * tenantplane made for that tenant, and nothing else. Pure, like the rest of {@code plan}: the caller lists
 * {@link #places} by the tenant's labels, hands the lists in, and deletes what {@link #plan} returns, each with its
 * uid and resourceVersion as preconditions.
 *
 * <ul>
 *   <li>Host copies of tenant objects are deleted when their annotations and labels prove them the tenant's
 *       ({@link ReverseMapping#inspect}): the labels alone, which anyone can set, are not enough.</li>
 *   <li>Rendered objects (boundary, control plane, DNS, agents) are deleted when they carry the tenant's labels and a
 *       {@link ReverseMapping#COMPONENT} the renderers give, and no source annotations.</li>
 *   <li>A host namespace other than the TenantCluster's is deleted only when it carries the tenant's labels (the
 *       renderers give them to a dedicated or private tenant's own namespace); one labelled for another tenant, or
 *       only with a component, is left.</li>
 * </ul>
 */
public final class Removal {

    /** Kinds the renderers produce in a namespace; removal lists them by the tenant's labels. */
    public static final List<String> RENDERED_KINDS = List.of("StatefulSet", "PodDisruptionBudget", "Service",
            "Secret", "RoleBinding", "Role", "ServiceAccount", "NetworkPolicy", "ResourceQuota", "LimitRange",
            "PersistentVolumeClaim", "Deployment", "ConfigMap");

    private Removal() {
    }

    /** The label selector removal lists each place by: tenantplane's objects of {@code tenant}. */
    public static String selector(String tenant) {
        return ReverseMapping.MANAGED_BY + "=" + ReverseMapping.MANAGED_BY_VALUE + "," + ReverseMapping.TENANT + "="
                + tenant;
    }

    /**
     * Every namespace that may hold something of the tenant: the TenantCluster's, the one its spec asks for, the one
     * its status says it runs in, and its own namespace of dedicated and private mode, so that a tenant deleted
     * during (or after a rejected) migration leaves nothing behind in either place. A tenant that was always shared
     * is never looked for in an own namespace, so an install that may act only in the namespaces it manages
     * ({@code k8s/components/namespaced}) can remove it.
     */
    public static List<String> places(TenantCluster tc) {
        Set<String> out = new LinkedHashSet<>();
        out.add(tc.namespace());
        out.add(tc.hostNamespace());
        TenantCluster.Status st = tc.status();
        if (st != null && st.hostNamespace() != null) {
            out.add(st.hostNamespace());
        }
        boolean hadOwn = tc.mode() != TenantCluster.Mode.SHARED || st != null && (st.migration() != null
                || st.mode() != null && st.mode() != TenantCluster.Mode.SHARED);
        if (hadOwn) {
            out.add(tc.spec() != null && tc.spec().hostNamespace() != null ? tc.spec().hostNamespace()
                    : HostNames.clusterScopedHostName(tc.namespace(), tc.tenant()));
        }
        return List.copyOf(out);
    }

    /**
     * The deletes that remove tenant {@code tc}, each object once, in order: host copies, rendered objects, then the
     * tenant's own namespaces.
     *
     * @param copies     the objects of the kinds a pass may sync, listed in each place by {@link #selector}
     * @param rendered   the objects of {@link #RENDERED_KINDS}, listed in each place by {@link #selector}
     * @param namespaces the Namespaces of the places other than the TenantCluster's that exist
     */
    public static List<Decision> plan(TenantCluster tc, List<JsonObject> copies, List<JsonObject> rendered,
                                      List<JsonObject> namespaces) {
        String tenant = tc.tenant();
        Map<String, Decision> deletes = new LinkedHashMap<>();
        for (JsonObject o : copies) {
            String ns = Json.string(o, "metadata", "namespace");
            if (ReverseMapping.inspect(o, tenant, ns) instanceof Ownership.Managed m) {
                deletes.putIfAbsent(id(o), ProvisionPlan.deleteWithTenant(o, "the copy of " + m.source().describe()));
            }
        }
        for (JsonObject o : rendered) {
            if (rendered(o) && ProvisionPlan.owned(o, tenant)) {
                deletes.putIfAbsent(id(o), ProvisionPlan.deleteWithTenant(o, "part of its "
                        + Json.labels(o).get(ReverseMapping.COMPONENT)));
            }
        }
        for (JsonObject ns : namespaces) {
            if (!tc.namespace().equals(Json.string(ns, "metadata", "name")) && ProvisionPlan.owned(ns, tenant)) {
                deletes.putIfAbsent(id(ns), ProvisionPlan.deleteWithTenant(ns, "its own host namespace"));
            }
        }
        return new ArrayList<>(deletes.values());
    }

    /**
     * True when {@code o} was rendered for a tenant (its boundary, control plane, DNS or agents): a
     * {@link ReverseMapping#COMPONENT} the renderers give, and no source annotations (which a host copy of a tenant
     * object has).
     */
    public static boolean rendered(JsonObject o) {
        String component = Json.labels(o).get(ReverseMapping.COMPONENT);
        return component != null && ReverseMapping.RENDERED_COMPONENTS.contains(component)
                && !Json.annotations(o).containsKey(ReverseMapping.SOURCE_KIND);
    }

    private static String id(JsonObject o) {
        return Json.string(o, "kind") + "/" + Json.string(o, "metadata", "namespace") + "/"
                + Json.string(o, "metadata", "name");
    }
}
