package io.tenantplane.naming;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The labels and annotations every synced host object carries, and the ownership rule built on them.
 *
 * <p>Labels: {@value #MANAGED_BY}={@value #MANAGED_BY_VALUE}, {@value #TENANT}, {@value #VIRTUAL_NAMESPACE}.
 * Annotations: {@value #SOURCE_KIND}, {@value #SOURCE_NAMESPACE}, {@value #SOURCE_NAME}, {@value #SOURCE_UID},
 * {@value #REASON} (the decision that last wrote the object) and {@value #SOURCE_HASH} (a digest of the desired
 * object, which tells a changed tenant object apart from an edit made on the host).
 *
 * <p>A host object is <em>managed by tenant T</em> only when it carries the managed-by and tenant=T labels and the
 * source annotations, its kind is the source kind, and the host name computed from the annotations is its actual
 * name (and, given the tenant's host namespace, its namespace is that one). A copy made by some host-side controller,
 * or an object whose labels were forged, is therefore never taken for ours.
 */
public final class ReverseMapping {

    /** Every key tenantplane owns starts with this; tenant-supplied keys with it are stripped. */
    public static final String PREFIX = "tenantplane.io/";
    /** Label marking a tenantplane-made object. */
    public static final String MANAGED_BY = "tenantplane.io/managed-by";
    /** The only value of {@link #MANAGED_BY}. */
    public static final String MANAGED_BY_VALUE = "tenantplane";
    /** Label: the tenant's name. */
    public static final String TENANT = "tenantplane.io/tenant";
    /**
     * Label: which part of a tenant an object rendered for it belongs to ({@link #RENDERED_COMPONENTS}); host copies of
     * tenant objects never carry it.
     */
    public static final String COMPONENT = "tenantplane.io/component";
    /** {@link #COMPONENT} of the control plane's objects and pods. */
    public static final String CONTROL_PLANE_COMPONENT = "control-plane";
    /** {@link #COMPONENT} of the isolation boundary's objects. */
    public static final String ISOLATION_COMPONENT = "isolation";
    /** {@link #COMPONENT} of a private-mode tenant's k3s agents. */
    public static final String AGENT_COMPONENT = "agent";
    /** {@link #COMPONENT} of a tenant's DNS objects and pods. */
    public static final String DNS_COMPONENT = "dns";
    /** Every {@link #COMPONENT} value the renderers give. */
    public static final java.util.Set<String> RENDERED_COMPONENTS = java.util.Set.of(CONTROL_PLANE_COMPONENT,
            ISOLATION_COMPONENT, AGENT_COMPONENT, DNS_COMPONENT);
    /** Label: the source's namespace inside the tenant (absent for cluster-scoped kinds). */
    public static final String VIRTUAL_NAMESPACE = "tenantplane.io/virtual-namespace";
    /** Annotation: the source's kind. */
    public static final String SOURCE_KIND = "tenantplane.io/source-kind";
    /** Annotation: the source's namespace inside the tenant (absent for cluster-scoped kinds). */
    public static final String SOURCE_NAMESPACE = "tenantplane.io/source-namespace";
    /** Annotation: the source's name inside the tenant. */
    public static final String SOURCE_NAME = "tenantplane.io/source-name";
    /** Annotation: the source's uid inside the tenant. */
    public static final String SOURCE_UID = "tenantplane.io/source-uid";
    /** Annotation: the reason of the decision that last wrote the object, e.g. {@code NotOnHost}. */
    public static final String REASON = "tenantplane.io/reason";
    /**
     * Annotation: the first 16 hex digits of the SHA-256 of the desired host object in canonical JSON (sorted keys),
     * computed without this annotation and without {@link #REASON}.
     */
    public static final String SOURCE_HASH = "tenantplane.io/source-hash";

    private ReverseMapping() {
    }

    /**
     * True for keys tenantplane reserves: {@code tenantplane.io/...} and {@code <anything>.tenantplane.io/...}.
     * A tenant can never set them on a host object.
     */
    public static boolean isReserved(String key) {
        int slash = key.indexOf('/');
        if (slash < 0) {
            return false;
        }
        String prefix = key.substring(0, slash);
        return prefix.equals("tenantplane.io") || prefix.endsWith(".tenantplane.io");
    }

    /** The identity labels of a host copy of {@code source}, in a stable order. */
    public static Map<String, String> labels(TenantObjectRef source) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(MANAGED_BY, MANAGED_BY_VALUE);
        m.put(TENANT, source.tenant());
        if (source.virtualNamespace() != null) {
            m.put(VIRTUAL_NAMESPACE, source.virtualNamespace());
        }
        return m;
    }

    /** The source annotations of a host copy of {@code source} (plus {@link #REASON} when non-null), in a stable order. */
    public static Map<String, String> annotations(TenantObjectRef source, String reason) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(SOURCE_KIND, source.kind());
        if (source.virtualNamespace() != null) {
            m.put(SOURCE_NAMESPACE, source.virtualNamespace());
        }
        m.put(SOURCE_NAME, source.name());
        if (source.uid() != null) {
            m.put(SOURCE_UID, source.uid());
        }
        if (reason != null) {
            m.put(REASON, reason);
        }
        return m;
    }

    /**
     * Whether {@code hostObject} is a tenantplane copy of some tenant's object, judged from the object alone (its
     * namespace is not checked; see {@link #inspect(JsonObject, String, String)}).
     */
    public static Ownership inspect(JsonObject hostObject) {
        JsonObject labels = Json.object(hostObject, "metadata", "labels");
        JsonObject ann = Json.object(hostObject, "metadata", "annotations");
        if (!MANAGED_BY_VALUE.equals(value(labels, MANAGED_BY))) {
            return new Ownership.NotManaged("it has no " + MANAGED_BY + "=" + MANAGED_BY_VALUE + " label");
        }
        String tenant = value(labels, TENANT);
        if (tenant == null || tenant.isEmpty()) {
            return new Ownership.NotManaged("it has no " + TENANT + " label");
        }
        String kind = value(ann, SOURCE_KIND);
        String name = value(ann, SOURCE_NAME);
        if (kind == null || name == null) {
            return new Ownership.NotManaged("it lacks the " + SOURCE_KIND + " or " + SOURCE_NAME + " annotation");
        }
        String objKind = Json.string(hostObject, "kind");
        if (objKind != null && !objKind.equals(kind)) {
            return new Ownership.NotManaged("it is a " + objKind + " but its " + SOURCE_KIND + " annotation says " + kind);
        }
        String hostNs = Json.string(hostObject, "metadata", "namespace");
        String vns = value(ann, SOURCE_NAMESPACE);
        if (hostNs != null && vns == null) {
            return new Ownership.NotManaged("it is namespaced but has no " + SOURCE_NAMESPACE + " annotation");
        }
        if (hostNs == null && vns != null) {
            return new Ownership.NotManaged("it is cluster-scoped but has a " + SOURCE_NAMESPACE + " annotation");
        }
        if (!Objects.equals(vns, value(labels, VIRTUAL_NAMESPACE))) {
            return new Ownership.NotManaged("its " + VIRTUAL_NAMESPACE + " label does not match its "
                    + SOURCE_NAMESPACE + " annotation");
        }
        TenantObjectRef source = new TenantObjectRef(tenant, kind, vns, name, value(ann, SOURCE_UID));
        String expected;
        try {
            expected = source.hostName();
        } catch (IllegalArgumentException e) {
            return new Ownership.NotManaged("its source annotations do not name a valid tenant object (" + e.getMessage() + ")");
        }
        String actual = Json.string(hostObject, "metadata", "name");
        if (!expected.equals(actual)) {
            return new Ownership.NotManaged("its name '" + actual + "' is not the name '" + expected
                    + "' computed from its source annotations (a copy or a forgery)");
        }
        return new Ownership.Managed(source);
    }

    /** The string value of {@code key} in a label or annotation map, as {@link Json#labels} would give it. */
    private static String value(JsonObject map, String key) {
        JsonElement e = map == null ? null : map.get(key);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    /**
     * Whether {@code hostObject} is managed by {@code tenant} whose host namespace is {@code hostNamespace}: the full
     * ownership rule of the design.
     */
    public static Ownership inspect(JsonObject hostObject, String tenant, String hostNamespace) {
        Ownership o = inspect(hostObject);
        if (o instanceof Ownership.Managed m) {
            if (!m.source().tenant().equals(tenant)) {
                return new Ownership.NotManaged("it belongs to tenant '" + m.source().tenant() + "'");
            }
            String ns = Json.string(hostObject, "metadata", "namespace");
            if (ns != null && !ns.equals(hostNamespace)) {
                return new Ownership.NotManaged("it is in namespace '" + ns + "', not in the tenant's host namespace '"
                        + hostNamespace + "'");
            }
        }
        return o;
    }
}
