package io.tenantplane.plan;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides which of the host's cluster-scoped objects a tenant sees (the SyncPolicy's {@code fromHost}): a pure
 * function from the host objects and the tenant's objects of the mirrored kinds to decisions on the tenant API.
 *
 * <p>A selected host object is mirrored into the tenant under the same name ({@code Create}/{@code Update}
 * {@code MirroredFromHost}, {@code Unchanged} {@code InSync}); a mirror is marked with the label
 * {@code tenantplane.io/managed-by=tenantplane} and the annotation {@code tenantplane.io/mirror: fromHost}. A tenant
 * object of that name without both marks is the tenant's own and is never overwritten ({@code Conflict}
 * {@code ForeignObject}). A mirror whose host object is gone or no longer selected is deleted
 * ({@code MirrorNotSelected}). Edits made in the tenant are undone on the next full pass.
 */
public final class HostMirrors {

    /** {@value}: marks a tenant object as a mirror of a host object. */
    public static final String MIRROR = ReverseMapping.PREFIX + "mirror";
    /** {@value}. */
    public static final String MIRROR_VALUE = "fromHost";
    /** Host metadata a mirror does not carry: the tenant API sets its own. */
    private static final Set<String> HOST_METADATA = Set.of("uid", "resourceVersion", "generation",
            "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink",
            "ownerReferences", "finalizers", "generateName", "namespace");

    private HostMirrors() {
    }

    /**
     * The decisions for one tenant.
     *
     * @param tenant        the tenant's name
     * @param rules         the SyncPolicy's {@code spec.fromHost} rules to follow
     * @param hostObjects   the host's objects of the mirrored kinds (cluster-scoped; others are ignored)
     * @param tenantObjects the tenant's objects of the mirrored kinds (complete per kind: a mirror missing from the
     *                      host's selection is deleted)
     * @return decisions ordered by kind and name; writes carry the desired tenant object and the observed one
     */
    public static List<Decision> plan(String tenant, List<SyncPolicy.HostMirror> rules,
                                      Collection<JsonObject> hostObjects, Collection<JsonObject> tenantObjects) {
        List<Decision> out = new ArrayList<>();
        for (SyncPolicy.HostMirror rule : rules) {
            if (rule.kind() == null) {
                continue;
            }
            String kind = rule.kind();
            Map<String, JsonObject> selected = new java.util.TreeMap<>();
            for (JsonObject h : hostObjects) {
                String name = Json.string(h, "metadata", "name");
                if (kind.equals(Json.string(h, "kind")) && name != null
                        && Json.string(h, "metadata", "namespace") == null && rule.selects(name, Json.labels(h))) {
                    selected.put(name, h);
                }
            }
            Map<String, JsonObject> inTenant = new HashMap<>();
            for (JsonObject t : tenantObjects) {
                if (kind.equals(Json.string(t, "kind")) && Json.string(t, "metadata", "name") != null) {
                    inTenant.put(Json.string(t, "metadata", "name"), t);
                }
            }
            for (var e : selected.entrySet()) {
                out.add(decide(tenant, kind, e.getKey(), e.getValue(), inTenant.get(e.getKey())));
            }
            inTenant.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .filter(e -> !selected.containsKey(e.getKey()) && isMirror(e.getValue()))
                    .forEach(e -> out.add(Decision.delete(kind, Decision.SourceRef.of(tenant, e.getValue()),
                            new Decision.HostRef(null, e.getKey()), Reasons.MIRROR_NOT_SELECTED,
                            kind + " " + e.getKey() + " mirrored into tenant " + tenant + " is no longer a selected "
                                    + "host object (gone from the host, or left the SyncPolicy's fromHost selection); "
                                    + "the mirror is deleted", null, e.getValue())));
        }
        return out;
    }

    private static Decision decide(String tenant, String kind, String name, JsonObject host, JsonObject current) {
        JsonObject desired = desired(host);
        Decision.HostRef ref = new Decision.HostRef(null, name);
        if (current == null) {
            return Decision.create(kind, new Decision.SourceRef(tenant, null, name, null), ref,
                    Reasons.MIRRORED_FROM_HOST, "host " + kind + " " + name + " is mirrored into tenant " + tenant
                            + " (read-only: edits made in the tenant are undone)", desired);
        }
        if (!isMirror(current)) {
            return Decision.conflict(kind, Decision.SourceRef.of(tenant, current), ref, Reasons.FOREIGN_OBJECT,
                    "tenant " + tenant + " has its own " + kind + " " + name + "; the host's " + kind + " of that "
                            + "name is not mirrored over it (rename or delete the tenant's to see the host's)",
                    current);
        }
        List<Differences.Difference> diffs = Differences.of(desired, current);
        if (diffs.isEmpty() && sameKeys(desired, current)) {
            return Decision.unchanged(kind, Decision.SourceRef.of(tenant, current), ref, Reasons.IN_SYNC,
                    kind + " " + name + " in tenant " + tenant + " mirrors the host's as it is", desired, current);
        }
        return Decision.update(kind, Decision.SourceRef.of(tenant, current), ref, Reasons.MIRRORED_FROM_HOST,
                kind + " " + name + " in tenant " + tenant + " takes the host's again: "
                        + (diffs.isEmpty() ? "the tenant's copy has fields the host's has not"
                        : Differences.summary(diffs, 3)), desired, current);
    }

    /** True when the mirror has a top-level field, label or annotation the host object has not. */
    private static boolean sameKeys(JsonObject desired, JsonObject current) {
        for (String k : current.keySet()) {
            if (!k.equals("metadata") && !k.equals("status") && !desired.has(k)) {
                return false;
            }
        }
        return Json.labels(desired).equals(Json.labels(current))
                && Json.annotations(desired).keySet().containsAll(Json.annotations(current).keySet());
    }

    /** The tenant object that mirrors {@code host}. */
    public static JsonObject desired(JsonObject host) {
        JsonObject d = new JsonObject();
        for (var e : host.entrySet()) {
            if (e.getKey().equals("status")) {
                continue;
            }
            if (e.getKey().equals("metadata") && e.getValue() instanceof JsonObject meta) {
                JsonObject m = new JsonObject();
                for (var me : meta.entrySet()) {
                    if (!HOST_METADATA.contains(me.getKey())) {
                        m.add(me.getKey(), me.getValue().deepCopy());
                    }
                }
                d.add("metadata", m);
            } else {
                d.add(e.getKey(), e.getValue().deepCopy());
            }
        }
        JsonObject meta = Json.child(d, "metadata");
        JsonObject labels = Json.child(meta, "labels");
        labels.keySet().removeIf(ReverseMapping::isReserved);
        labels.addProperty(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE);
        JsonObject ann = Json.child(meta, "annotations");
        ann.keySet().removeIf(ReverseMapping::isReserved);
        // kubectl's last-applied annotation describes the host object's history, not the mirror's.
        ann.remove("kubectl.kubernetes.io/last-applied-configuration");
        ann.addProperty(MIRROR, MIRROR_VALUE);
        return d;
    }

    /** True when {@code tenantObject} carries both marks of a mirror. */
    public static boolean isMirror(JsonObject tenantObject) {
        return ReverseMapping.MANAGED_BY_VALUE.equals(Json.labels(tenantObject).get(ReverseMapping.MANAGED_BY))
                && MIRROR_VALUE.equals(Json.annotations(tenantObject).get(MIRROR));
    }
}
