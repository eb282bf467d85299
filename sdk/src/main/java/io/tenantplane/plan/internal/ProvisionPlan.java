package io.tenantplane.plan.internal;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Differences;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Reasons;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides, for one rendered object of a tenant's isolation boundary or control plane, what to do with the host
 * object of that name: a pure function, like the sync {@link Planner}. Provisioning and the migration planner decide
 * with it, so both judge an object by the same rule: ownership first, then difference.
 *
 * <ul>
 *   <li>Objects tenantplane owns carry {@code managed-by=tenantplane} and {@code tenant=<tenant>}: absent, they are
 *       created ({@code NotOnHost}); held by an object without those labels, they are a {@code Conflict}
 *       ({@code ForeignObject}) and the holder is left alone; ours and different on a field the renderer sets, they are
 *       updated ({@code OutOfSync}, naming the fields); otherwise {@code Unchanged} ({@code InSync}).</li>
 *   <li>A rendered object without those labels is an intent for labels on an object someone else owns (the shared
 *       host Namespace's Pod Security labels): only missing or different labels are written
 *       ({@code LabelsApplied}); it is never created or deleted.</li>
 *   <li>Data that another writer puts into a rendered Secret (the kubeconfig the control plane publishes) is kept on
 *       update.</li>
 *   <li>A Role's {@code rules} and a RoleBinding's {@code subjects} must be exactly as rendered: a rule or subject
 *       left over from an earlier rendering (e.g. the join token of private mode) is removed.</li>
 * </ul>
 */
public final class ProvisionPlan {

    /** Fields that must be exactly as rendered, not merely contain it: what a Role grants and a binding binds. */
    private static final Map<String, String> EXACT = Map.of("Role", "rules", "RoleBinding", "subjects");

    private ProvisionPlan() {
    }

    /** True when {@code desired} is an object tenantplane owns for {@code tenant}. */
    public static boolean owned(JsonObject desired, String tenant) {
        Map<String, String> l = Json.labels(desired);
        return ReverseMapping.MANAGED_BY_VALUE.equals(l.get(ReverseMapping.MANAGED_BY))
                && tenant.equals(l.get(ReverseMapping.TENANT));
    }

    /**
     * The decision for {@code desired} given the host object of its name.
     *
     * @param tenantCluster {@code namespace/name} of the TenantCluster, for the decision's source
     * @param observed      the host object now, or null when absent
     */
    public static Decision decide(String tenant, String tenantCluster, JsonObject desired, JsonObject observed) {
        String kind = Objects.requireNonNull(Json.string(desired, "kind"), "kind");
        String ns = Json.string(desired, "metadata", "namespace");
        String name = Json.string(desired, "metadata", "name");
        Decision.SourceRef source = new Decision.SourceRef(tenant, null, tenantCluster, null);
        Decision.HostRef host = new Decision.HostRef(ns, name);
        String what = kind + " " + (ns == null ? "" : ns + "/") + name;
        if (!owned(desired, tenant)) {
            return labelsOnly(kind, source, host, what, desired, observed);
        }
        if (observed == null) {
            return Decision.create(kind, source, host, Reasons.NOT_ON_HOST,
                    what + " of tenant " + tenant + " is not on the host yet; it is created", desired);
        }
        if (!owned(observed, tenant)) {
            return Decision.conflict(kind, source, host, Reasons.FOREIGN_OBJECT,
                    what + " is needed by tenant " + tenant + " but the host already has an object of that name that "
                            + "tenantplane does not manage for it; it is left alone and the tenant is Degraded",
                    observed);
        }
        List<Differences.Difference> diffs = new ArrayList<>(Differences.of(desired, observed));
        String exact = EXACT.get(kind);
        if (exact != null && !Objects.equals(desired.get(exact), observed.get(exact))
                && diffs.stream().noneMatch(x -> x.path().startsWith(exact))) {
            // Differences ignores list items only the host has; in RBAC such leftovers are permissions.
            diffs.add(new Differences.Difference(exact, observed.get(exact), desired.get(exact)));
        }
        if (diffs.isEmpty()) {
            return Decision.unchanged(kind, source, host, Reasons.IN_SYNC, what + " of tenant " + tenant
                    + " is as rendered", desired, observed);
        }
        JsonObject body = desired.deepCopy();
        if ("Secret".equals(kind)) {
            for (String f : new String[] {"data", "stringData"}) {
                if (!body.has(f) && observed.has(f)) {
                    body.add(f, observed.get(f).deepCopy());
                }
            }
        }
        return Decision.update(kind, source, host, Reasons.OUT_OF_SYNC, what + " of tenant " + tenant
                + " differs from what is rendered; restoring " + Differences.summary(diffs, 3), body, observed);
    }

    private static Decision labelsOnly(String kind, Decision.SourceRef source, Decision.HostRef host, String what,
                                       JsonObject desired, JsonObject observed) {
        if (observed == null) {
            return Decision.error(kind, source, host, Reasons.HOST_OBJECT_MISSING,
                    what + " does not exist; tenantplane only sets labels on it and does not create it");
        }
        Map<String, String> want = Json.labels(desired);
        Map<String, String> have = Json.labels(observed);
        List<String> missing = want.entrySet().stream()
                .filter(e -> !e.getValue().equals(have.get(e.getKey())))
                .map(e -> e.getKey() + "=" + e.getValue()).toList();
        if (missing.isEmpty()) {
            return Decision.unchanged(kind, source, host, Reasons.IN_SYNC, what + " has the labels "
                    + want.keySet() + " tenantplane sets on it", null, observed);
        }
        JsonObject body = observed.deepCopy();
        JsonObject labels = Json.child(body, "metadata", "labels");
        want.forEach(labels::addProperty);
        return Decision.update(kind, source, host, Reasons.LABELS_APPLIED, what + " gets the labels "
                + String.join(", ", missing) + "; its other labels and fields are left as they are", body, observed);
    }

    /** The TenantCluster {@code desired} (its spec, without status or resourceVersion) to create where none is. */
    public static Decision createTenantCluster(String namespace, String name, JsonObject desired) {
        return Decision.create("TenantCluster", null, new Decision.HostRef(namespace, name), Reasons.NOT_ON_HOST,
                "TenantCluster " + namespace + "/" + name + " does not exist; it is created", desired);
    }

    /**
     * The delete of {@code found}, an object tenantplane rendered for a tenant and renders no more ({@code why}: why
     * not, e.g. "is no longer published"), with {@code reason}.
     */
    public static Decision retire(JsonObject found, String reason, String why) {
        String kind = Json.string(found, "kind");
        String ns = Json.string(found, "metadata", "namespace");
        String name = Json.string(found, "metadata", "name");
        return Decision.delete(kind, null, new Decision.HostRef(ns, name), reason,
                kind + " " + ns + "/" + name + " " + why + ", so it is deleted", null, found);
    }

    /** The delete of {@code o}, which tenantplane made for a tenant being deleted ({@code what}: what it is). */
    public static Decision deleteWithTenant(JsonObject o, String what) {
        String tenant = Json.labels(o).get(ReverseMapping.TENANT);
        String kind = Json.string(o, "kind");
        String ns = Json.string(o, "metadata", "namespace");
        String name = Json.string(o, "metadata", "name");
        return Decision.delete(kind, null, new Decision.HostRef(ns, name), Reasons.TENANT_DELETED,
                kind + " " + (ns == null ? "" : ns + "/") + name + " (" + what + ") is deleted with tenant " + tenant,
                null, o);
    }

    /**
     * The TenantCluster {@code tcJson} with finalizer {@code finalizer} added ({@code add}) or removed; other
     * finalizers are kept in their order.
     */
    public static Decision finalizer(JsonObject tcJson, String finalizer, boolean add) {
        JsonObject desired = tcJson.deepCopy();
        JsonObject meta = Json.child(desired, "metadata");
        com.google.gson.JsonArray finalizers = new com.google.gson.JsonArray();
        if (meta.has("finalizers") && meta.get("finalizers").isJsonArray()) {
            for (com.google.gson.JsonElement f : meta.getAsJsonArray("finalizers")) {
                if (!finalizer.equals(f.getAsString())) {
                    finalizers.add(f);
                }
            }
        }
        if (add) {
            finalizers.add(finalizer);
        }
        meta.add("finalizers", finalizers);
        String ns = Json.string(tcJson, "metadata", "namespace");
        String name = Json.string(tcJson, "metadata", "name");
        String key = ns + "/" + name;
        return Decision.update("TenantCluster", null, new Decision.HostRef(ns, name),
                add ? Reasons.FINALIZER_ADDED : Reasons.FINALIZER_REMOVED,
                add ? "TenantCluster " + key + " gets finalizer " + finalizer + ", so that deleting it first removes "
                        + "what tenantplane created for it"
                        : "everything tenantplane created for TenantCluster " + key + " is gone; finalizer "
                        + finalizer + " is removed", desired, tcJson);
    }

    /**
     * The delete of a rendered StatefulSet whose update the host refused for a field a StatefulSet cannot change
     * ({@code refused}: the update decided for it), orphaning its pods (they keep running, and keep their volumes),
     * with its uid and resourceVersion as preconditions; the next pass creates it as rendered and it adopts the pods.
     */
    public static Decision replaceStatefulSet(Decision refused) {
        JsonObject orphan = new JsonObject();
        orphan.addProperty("propagationPolicy", "Orphan");
        String where = refused.host() == null ? "" : refused.host().namespace() + "/" + refused.host().name();
        return Decision.delete("StatefulSet", refused.source(), refused.host(), Reasons.STATEFULSET_REPLACED,
                "StatefulSet " + where + " differs from the rendered one in a field a StatefulSet cannot change (e.g. "
                        + "its volumeClaimTemplates, made by an earlier version); it is deleted orphaning its pods, "
                        + "which keep running, and created again by the next pass", orphan, refused.observed());
    }

    // ------------------------------------------------------------ one provisioning as a whole

    /** One rendered object and the decision for the host object of its name. */
    public record Rendered(JsonObject rendering, Decision decision) {
    }

    /**
     * An object a provisioning deletes when it no longer renders it (in the TenantCluster's namespace), provided the
     * host object of that name is one tenantplane rendered for the tenant: {@code why} it goes, with {@code reason}.
     */
    public record Retirable(String kind, String namespace, String name, String reason, String why) {
    }

    /** The decisions of one provisioning: each rendered object's, in the order rendered, then the retirements. */
    public record Provisioning(List<Rendered> rendered, List<Decision> retirements) {
    }

    /** What a provisioning plans with, read once: the host objects of every name it renders or may retire. */
    public record Observed(Map<String, JsonObject> byId) {

        public Observed {
            byId = Map.copyOf(byId);
        }

        /** The host object of {@code kind} {@code namespace/name} as read (null: not on the host). */
        public JsonObject get(String kind, String namespace, String name) {
            return byId.get(id(kind, namespace, name));
        }

        /** The host object of the name {@code rendering} has (null: not on the host). */
        public JsonObject of(JsonObject rendering) {
            return byId.get(id(rendering));
        }
    }

    /** The key of an object in {@link Observed}: kind, namespace (null when cluster-scoped) and name. */
    public static String id(String kind, String namespace, String name) {
        return kind + "/" + namespace + "/" + name;
    }

    /** {@link #id(String, String, String)} of an object. */
    public static String id(JsonObject o) {
        return id(Json.string(o, "kind"), Json.string(o, "metadata", "namespace"), Json.string(o, "metadata", "name"));
    }

    /** True when {@code rendered} holds an object of {@code kind} named {@code name}: it is not retired. */
    public static boolean wanted(List<JsonObject> rendered, String kind, String name) {
        return rendered.stream().anyMatch(o -> kind.equals(Json.string(o, "kind"))
                && name.equals(Json.string(o, "metadata", "name")));
    }

    /**
     * True when planning needs the tenant's host Pods: a rendered tenant API or DNS Service is not on the host, and
     * its running Pods may hold the address it had ({@code keepsAddresses}: shared and dedicated mode).
     */
    public static boolean needsHostPods(List<JsonObject> rendered, Observed observed, String apiService,
                                        String dnsService, boolean keepsAddresses) {
        return keepsAddresses && rendered.stream().anyMatch(r -> observed.of(r) == null
                && ServiceAddresses.Kept.of(r, apiService, dnsService) != null);
    }

    /**
     * The decisions of one provisioning, a function of what it read: for each rendered object (in the order given,
     * which is the apply order), {@link #decide} against the host object of its name, where a re-created tenant API
     * or DNS Service asks for the address most of the tenant's running Pods use ({@link ServiceAddresses#keeping});
     * then, for each {@code retirable} the rendering no longer holds, its delete when the host object of that name
     * is one tenantplane rendered for this tenant (anything else of that name is left).
     *
     * @param tenantCluster  {@code namespace/name} of the TenantCluster, for the decisions' source
     * @param hostPods       the tenant's host Pods when {@link #needsHostPods} asked for them; else ignored
     * @param keepsAddresses whether re-created API and DNS Services keep their Pods' address (not in private mode)
     */
    public static Provisioning plan(String tenant, String tenantCluster, List<JsonObject> rendered, Observed observed,
                                    List<JsonObject> hostPods, String apiService, String dnsService,
                                    boolean keepsAddresses, List<Retirable> retirable) {
        List<Rendered> decisions = new ArrayList<>();
        for (JsonObject rendering : rendered) {
            JsonObject current = observed.of(rendering);
            ServiceAddresses.Kept address = current == null && keepsAddresses
                    ? ServiceAddresses.Kept.of(rendering, apiService, dnsService) : null;
            String kept = address == null || hostPods == null ? null : address.inUse(hostPods);
            decisions.add(new Rendered(rendering, ServiceAddresses.keeping(
                    decide(tenant, tenantCluster, rendering, current), kept, address)));
        }
        List<Decision> retirements = new ArrayList<>();
        for (Retirable r : retirable) {
            if (wanted(rendered, r.kind(), r.name())) {
                continue;
            }
            JsonObject found = observed.get(r.kind(), r.namespace(), r.name());
            if (found != null && owned(found, tenant) && Removal.rendered(found)) {
                retirements.add(retire(found, r.reason(), r.why()));
            }
        }
        return new Provisioning(List.copyOf(decisions), List.copyOf(retirements));
    }
}
