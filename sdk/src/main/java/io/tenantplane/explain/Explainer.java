package io.tenantplane.explain;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.ObjectMeta;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.NameDerivation;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Explains where a tenant object lands on the host and why, and traces a host object back to its tenant source.
 * Pure and stateless: the same question over the same inputs always gets the same answer.
 *
 * <p>Example: {@code explainSync("dev", "team-dev", "default", "Pod", "nginx")} gives host resource
 * {@code team-dev/nginx-x-default-x-dev}, action {@code Create}, reason {@code NotOnHost}; tracing that host object
 * gives back tenant {@code dev}, Pod {@code default/nginx}.
 */
public final class Explainer {

    private static final Map<String, String> API_VERSIONS = Map.ofEntries(
            Map.entry("Pod", "v1"), Map.entry("Service", "v1"), Map.entry("ConfigMap", "v1"), Map.entry("Secret", "v1"),
            Map.entry("PersistentVolumeClaim", "v1"), Map.entry("ServiceAccount", "v1"), Map.entry("Endpoints", "v1"),
            Map.entry("Ingress", "networking.k8s.io/v1"), Map.entry("NetworkPolicy", "networking.k8s.io/v1"),
            Map.entry("EndpointSlice", "discovery.k8s.io/v1"), Map.entry("PodDisruptionBudget", "policy/v1"));

    private final Planner planner = new Planner();

    /** An explainer; it holds no state. */
    public Explainer() {
    }

    /**
     * Where a tenant object would land if the SyncPolicy synced its kind, with default {@link TransformOptions}:
     * the naming and reverse-mapping metadata, without needing any object, policy or cluster. The result is marked
     * {@link Explanation#hypothetical()}.
     *
     * @param virtualNamespace null for a cluster-scoped kind
     * @throws IllegalArgumentException naming the argument when a name is invalid
     */
    public Explanation explainSync(String tenant, String hostNamespace, String virtualNamespace, String kind, String name) {
        SyncPolicy only = new SyncPolicy("tenantplane.io/v1alpha1", SyncPolicy.KIND, ObjectMeta.of(hostNamespace, "explain"),
                new SyncPolicy.Spec(List.of(new SyncPolicy.KindRule(kind, null, true, null, null, null))));
        return explainSync(new Snapshot(tenant, hostNamespace, only, TransformOptions.defaults(), List.of(), List.of()),
                virtualNamespace, kind, name);
    }

    /**
     * Where a tenant object lands given the real context: the snapshot's policy, options, tenant objects and host
     * objects. When the snapshot holds the tenant object, the explanation is the planner's decision for it; when it
     * does not, but the host holds a copy, the decision about that copy (e.g. {@code Delete}/{@code SourceDeleted});
     * otherwise the decision a bare object of that kind and name would get ({@link Explanation#hypothetical()}).
     *
     * @param virtualNamespace null for a cluster-scoped kind
     * @throws IllegalArgumentException naming the argument when a name is invalid
     */
    public Explanation explainSync(Snapshot context, String virtualNamespace, String kind, String name) {
        Objects.requireNonNull(kind, "kind");
        NameDerivation naming = HostNames.derive(name, virtualNamespace, context.tenant());
        Decision.HostRef host = new Decision.HostRef(virtualNamespace == null ? null : context.hostNamespace(), naming.hostName());
        boolean present = context.tenantObjects().stream().anyMatch(o -> kind.equals(Json.string(o, "kind"))
                && Objects.equals(virtualNamespace, Json.string(o, "metadata", "namespace"))
                && name.equals(Json.string(o, "metadata", "name")));
        Plan plan = planner.plan(context);
        Optional<Decision> found = present
                ? find(plan, kind, virtualNamespace, name)
                : plan.decisions().stream().filter(d -> d.kind().equals(kind) && host.equals(d.host())).findFirst();
        boolean hypothetical = found.isEmpty();
        if (hypothetical) {
            List<JsonObject> tenants = new ArrayList<>(context.tenantObjects());
            tenants.add(stub(kind, virtualNamespace, name));
            Snapshot withStub = new Snapshot(context.tenant(), context.hostNamespace(), context.policy(),
                    context.options(), tenants, context.hostObjects());
            found = find(planner.plan(withStub), kind, virtualNamespace, name);
        }
        Decision d = found.orElseThrow(() -> new IllegalStateException("the planner made no decision for " + kind + " "
                + virtualNamespace + "/" + name));
        JsonObject shown = d.desired() != null ? d.desired() : null;
        Map<String, String> labels;
        Map<String, String> annotations;
        if (shown != null) {
            labels = Json.labels(shown);
            annotations = new LinkedHashMap<>(Json.annotations(shown));
        } else {
            TenantObjectRef src = new TenantObjectRef(context.tenant(), kind, virtualNamespace, name,
                    d.source() == null ? null : d.source().uid());
            labels = ReverseMapping.labels(src);
            annotations = ReverseMapping.annotations(src, d.reason());
        }
        if (hypothetical) {
            annotations.remove(ReverseMapping.SOURCE_HASH);
        }
        return new Explanation(context.tenant(), kind, virtualNamespace, name, d.host() == null ? host : d.host(),
                labels, annotations, d, naming, hypothetical);
    }

    /**
     * The tenant source of a host object, read from its reverse-mapping metadata and verified by recomputing its name.
     * An object whose name does not match its annotations (a copy made by a host controller, or a forgery) is
     * {@link TraceResult.NotManaged}.
     */
    public TraceResult trace(JsonObject hostObject) {
        String kind = Json.string(hostObject, "kind");
        Decision.HostRef host = Decision.HostRef.of(hostObject);
        return switch (ReverseMapping.inspect(hostObject)) {
            case Ownership.Managed m -> new TraceResult.Managed(kind, host, m.source(), kind + " " + where(host)
                    + " is the host copy of " + m.source().describe() + " (verified: its name is the one computed from "
                    + "its source annotations)");
            case Ownership.NotManaged nm -> new TraceResult.NotManaged(kind, host, kind + " " + where(host)
                    + " is not managed by tenantplane: " + nm.why());
        };
    }

    /**
     * The tenant source of the host object of that kind, namespace and name. With host objects, the object is looked up
     * and traced as {@link #trace(JsonObject)} does; without (null or empty), the source is read from the name alone,
     * which works only for plain (unhashed) names and cannot verify ownership.
     *
     * @param hostNamespace null for a cluster-scoped kind
     */
    /** The shape of a hashed host name: at most 52 characters, '-', 10 hex digits. */
    private static final java.util.regex.Pattern HASHED_SHAPE =
            java.util.regex.Pattern.compile(".{1,52}-[0-9a-f]{10}");

    public TraceResult trace(String kind, String hostNamespace, String hostName, Collection<JsonObject> hostObjects) {
        Decision.HostRef host = new Decision.HostRef(hostNamespace, hostName);
        if (hostObjects == null || hostObjects.isEmpty()) {
            Optional<HostNames.Parts> parts = HostNames.parse(hostName, hostNamespace != null);
            if (parts.isEmpty()) {
                return new TraceResult.Unresolved(kind, host, kind + " " + where(host) + " cannot be traced from its name "
                        + "alone: it is hashed or not a tenantplane name; trace the host object itself to read its "
                        + "annotations");
            }
            HostNames.Parts p = parts.get();
            TenantObjectRef src = new TenantObjectRef(p.tenant(), kind, p.virtualNamespace(), p.name(), null);
            if (HASHED_SHAPE.matcher(hostName).matches()) {
                // A hashed name (52 characters of a longer or ambiguous plain form, '-', 10 hex digits) can also
                // split into valid parts: the name alone cannot tell which it is.
                return new TraceResult.Unresolved(kind, host, kind + " " + where(host) + " can be read two ways: "
                        + "as the host copy of " + src.describe() + " (a plain name), or as a hashed name (its last "
                        + "10 characters a SHA-256 prefix) of another tenant object; trace the host object itself "
                        + "(its annotations settle it), or check which tenants sync into " + hostNamespace);
            }
            return new TraceResult.InferredFromName(kind, host, src, kind + " " + where(host) + " is named as the host "
                    + "copy of " + src.describe() + " (read from the name alone; ownership not verified)");
        }
        return hostObjects.stream()
                .filter(o -> kind.equals(Json.string(o, "kind"))
                        && Objects.equals(hostNamespace, Json.string(o, "metadata", "namespace"))
                        && hostName.equals(Json.string(o, "metadata", "name")))
                .findFirst()
                .map(this::trace)
                .orElseGet(() -> new TraceResult.NotFound(kind, host, "no " + kind + " " + where(host)
                        + " among the host objects given"));
    }

    private static Optional<Decision> find(Plan plan, String kind, String virtualNamespace, String name) {
        return plan.decisions().stream().filter(d -> d.kind().equals(kind) && d.source() != null
                && Objects.equals(virtualNamespace, d.source().virtualNamespace()) && name.equals(d.source().name()))
                .findFirst();
    }

    private static JsonObject stub(String kind, String virtualNamespace, String name) {
        JsonObject o = new JsonObject();
        String apiVersion = API_VERSIONS.get(kind);
        if (apiVersion != null) {
            o.addProperty("apiVersion", apiVersion);
        }
        o.addProperty("kind", kind);
        JsonObject meta = Json.child(o, "metadata");
        meta.addProperty("name", name);
        if (virtualNamespace != null) {
            meta.addProperty("namespace", virtualNamespace);
        }
        return o;
    }

    private static String where(Decision.HostRef h) {
        return h.namespace() == null ? h.name() : h.namespace() + "/" + h.name();
    }
}
