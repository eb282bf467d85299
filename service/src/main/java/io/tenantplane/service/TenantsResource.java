package io.tenantplane.service;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.TenantPlane;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.Condition;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.RecordedDecision;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /tenants}, {@code GET /tenants/{namespace}/{name}} and {@code GET /tenants/{namespace}/{name}/decisions}:
 * the TenantClusters as the watch cache holds them, their boundary, and the decisions this replica executed for them.
 * Read-only.
 */
@ApplicationScoped
@Path("/tenants")
@Produces(MediaType.APPLICATION_JSON)
public class TenantsResource {

    /** Decisions returned when {@code limit} is not given. */
    static final int DEFAULT_LIMIT = 50;

    private final Reconciler reconciler;
    private final Engine engine;
    private final ServiceSettings settings;
    private final AccessControl access;

    @Inject
    TenantsResource(Reconciler reconciler, Engine engine, ServiceSettings settings, AccessControl access) {
        this.reconciler = reconciler;
        this.engine = engine;
        this.settings = settings;
        this.access = access;
    }

    /** For CDI proxies only. */
    protected TenantsResource() {
        this.reconciler = null;
        this.engine = null;
        this.settings = null;
        this.access = null;
    }

    /** What a caller needs to see a tenant: {@code get tenantclusters} for it in its namespace. */
    static KubernetesAccess.Attributes seeing(String namespace, String name) {
        return new KubernetesAccess.Attributes("get", TenantCluster.GROUP, "tenantclusters", namespace, name);
    }

    /**
     * One TenantCluster in a list.
     *
     * @param namespace     its namespace
     * @param name          its name, the tenant
     * @param mode          {@code spec.mode} ({@code shared} when unset)
     * @param phase         {@code status.phase}; null before the first status write
     * @param ready         whether its {@code Ready} condition is True
     * @param reason        the {@code Ready} condition's reason; null before the first status write
     * @param hostNamespace where its workloads run ({@code status.hostNamespace}); null before the first status write
     */
    public record TenantSummary(String namespace, String name, String mode, String phase, boolean ready,
                                String reason, String hostNamespace) {
    }

    /** The list of {@code GET /tenants}. */
    public record TenantList(List<TenantSummary> items) {
    }

    /**
     * One {@code status.conditions} entry.
     *
     * @param type               e.g. {@code Ready}
     * @param status             {@code True}, {@code False} or {@code Unknown}
     * @param reason             a stable CamelCase reason
     * @param message            a human sentence
     * @param lastTransitionTime when {@code status} last changed
     * @param observedGeneration the generation the condition describes
     */
    public record ConditionView(String type, String status, String reason, String message,
                                String lastTransitionTime, Long observedGeneration) {
    }

    /**
     * One host object tenantplane writes for a tenant, and why.
     *
     * @param kind      e.g. {@code NetworkPolicy}
     * @param namespace its host namespace; null for a cluster-scoped object
     * @param name      its host name
     * @param reason    the {@code tenantplane.io/reason} it carries
     */
    public record HostObject(String kind, String namespace, String name, String reason) {
    }

    /**
     * A TenantCluster in detail: what {@link TenantSummary} shows, and more.
     *
     * @param namespace          its namespace
     * @param name               its name, the tenant
     * @param mode               {@code spec.mode} ({@code shared} when unset)
     * @param phase              {@code status.phase}
     * @param ready              whether its {@code Ready} condition is True
     * @param reason             the {@code Ready} condition's reason
     * @param hostNamespace      where its workloads run ({@code status.hostNamespace})
     * @param generation         {@code metadata.generation}
     * @param observedGeneration {@code status.observedGeneration}
     * @param isolationProfile   the IsolationProfile it references
     * @param syncPolicy         the SyncPolicy it references
     * @param conditions         its {@code status.conditions}
     * @param boundary           the isolation objects rendered from its IsolationProfile (NetworkPolicies,
     *                           ResourceQuota, LimitRange, namespace labels, workload ServiceAccount)
     * @param controlPlane       the control-plane objects rendered for it
     * @param boundaryProblem    why nothing could be rendered (a missing or invalid profile or spec); else null
     */
    public record TenantDetail(String namespace, String name, String mode, String phase, boolean ready,
                               String reason, String hostNamespace, Long generation, Long observedGeneration,
                               String isolationProfile, String syncPolicy, List<ConditionView> conditions,
                               List<HostObject> boundary, List<HostObject> controlPlane, String boundaryProblem) {
    }

    /**
     * A reference to an object: namespace (null when cluster-scoped) and name.
     *
     * @param namespace namespace, or null
     * @param name      name
     */
    public record Ref(String namespace, String name) {
    }

    /**
     * One executed decision.
     *
     * @param at       when it was reported
     * @param action   {@code Create}, {@code Update}, {@code Unchanged}, {@code Delete}, {@code Skip},
     *                 {@code Conflict} or {@code Error}
     * @param kind     the object's kind
     * @param reason   the stable machine reason
     * @param message  the human sentence
     * @param source   the tenant object (virtual namespace and name); null for the tenant's own host objects
     * @param host     the host object
     * @param result   {@code Applied}, {@code NotWritten} or {@code Failed}
     * @param code     for {@code Failed}: the HTTP status (0 = no answer)
     * @param error    for {@code Failed}: what the API server said
     * @param attempts for {@code Applied} and {@code Failed}: how many attempts the write took
     */
    public record DecisionView(String at, String action, String kind, String reason, String message, Ref source,
                               Ref host, String result, Integer code, String error, Integer attempts) {
    }

    /** The list of {@code GET /tenants/{namespace}/{name}/decisions}, newest first. */
    public record DecisionList(String namespace, String name, List<DecisionView> items) {
    }

    /**
     * Every TenantCluster the service watches, by namespace and name; with Kubernetes auth, only those in the
     * namespaces where the caller may {@code get tenantclusters}.
     */
    @GET
    public TenantList list() {
        List<TenantSummary> items = new ArrayList<>();
        Map<String, Boolean> visible = new HashMap<>();
        for (JsonObject tc : reconciler.tenantClusters()) {
            String ns = Json.string(tc, "metadata", "namespace");
            if (visible.computeIfAbsent(ns, n -> access.may(seeing(n, "")))) {
                items.add(summary(tc));
            }
        }
        return new TenantList(List.copyOf(items));
    }

    /** One TenantCluster: its status and its boundary. 404 when the service does not know it. */
    @GET
    @Path("/{namespace}/{name}")
    public TenantDetail get(@PathParam("namespace") String namespace, @PathParam("name") String name) {
        access.require(seeing(namespace, name));
        JsonObject tc = require(namespace, name);
        List<ConditionView> conditions = new ArrayList<>();
        JsonElement cs = Json.object(tc, "status") == null ? null : Json.object(tc, "status").get("conditions");
        if (cs != null && cs.isJsonArray()) {
            for (JsonElement e : cs.getAsJsonArray()) {
                if (e.isJsonObject()) {
                    JsonObject c = e.getAsJsonObject();
                    conditions.add(new ConditionView(Json.string(c, "type"), Json.string(c, "status"),
                            Json.string(c, "reason"), Json.string(c, "message"),
                            Json.string(c, "lastTransitionTime"), number(c, "observedGeneration")));
                }
            }
        }
        String profileName = Json.string(tc, "spec", "isolationProfileRef", "name");
        List<HostObject> boundary = new ArrayList<>();
        List<HostObject> controlPlane = new ArrayList<>();
        String problem = null;
        try {
            for (JsonObject o : render(tc, namespace, profileName)) {
                HostObject h = new HostObject(Json.string(o, "kind"), Json.string(o, "metadata", "namespace"),
                        Json.string(o, "metadata", "name"), Json.annotations(o).get(ReverseMapping.REASON));
                if (ControlPlaneRenderer.COMPONENT.equals(Json.labels(o).get(ControlPlaneRenderer.COMPONENT_LABEL))) {
                    controlPlane.add(h);
                } else {
                    boundary.add(h);
                }
            }
        } catch (InvalidResourceException e) {
            problem = e.getMessage();
        }
        TenantSummary sum = summary(tc);
        return new TenantDetail(sum.namespace(), sum.name(), sum.mode(), sum.phase(), sum.ready(), sum.reason(),
                sum.hostNamespace(), number(Json.object(tc, "metadata"), "generation"),
                number(Json.object(tc, "status"), "observedGeneration"), profileName,
                Json.string(tc, "spec", "syncPolicyRef", "name"), List.copyOf(conditions), List.copyOf(boundary),
                List.copyOf(controlPlane), problem);
    }

    /**
     * The decisions this replica executed for the tenant, newest first (the replica owning its shard has them; another
     * replica has those from when it owned it, if any). 404 when the tenant is unknown.
     *
     * @param limit at most this many, 1 to {@code tenantplane.decisions.ring-size}; default {@value #DEFAULT_LIMIT}
     */
    @GET
    @Path("/{namespace}/{name}/decisions")
    public DecisionList decisions(@PathParam("namespace") String namespace, @PathParam("name") String name,
                                  @QueryParam("limit") String limit) {
        access.require(seeing(namespace, name));
        int n = limit(limit);
        TenantKey key = new TenantKey(namespace, name);
        List<RecordedDecision> recent = engine.plane().decisions(key, n);
        if (recent.isEmpty()) {
            require(namespace, name);
        }
        List<DecisionView> items = new ArrayList<>(recent.size());
        for (RecordedDecision r : recent) {
            items.add(view(r));
        }
        return new DecisionList(namespace, name, List.copyOf(items));
    }

    private int limit(String limit) {
        if (limit == null || limit.isBlank()) {
            return Math.min(DEFAULT_LIMIT, settings.decisionRingSize());
        }
        int max = settings.decisionRingSize();
        try {
            int n = Integer.parseInt(limit.strip());
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ProblemException.invalid("limit", limit, "must be a whole number from 1 to " + max
                + " (tenantplane.decisions.ring-size)");
    }

    private JsonObject require(String namespace, String name) {
        return reconciler.tenantCluster(new TenantKey(namespace, name)).orElseThrow(() -> ProblemException.notFound(
                "no TenantCluster " + namespace + "/" + name + " is watched by this service"));
    }

    private List<JsonObject> render(JsonObject tcJson, String namespace, String profileName) {
        TenantPlane plane = engine.plane();
        TenantCluster tc = TenantCluster.fromJson(tcJson).orElseThrow("TenantCluster " + namespace + "/"
                + Json.string(tcJson, "metadata", "name"));
        if (profileName == null) {
            throw new InvalidResourceException("TenantCluster " + namespace + "/" + tc.tenant(), List.of(
                    io.tenantplane.model.Problem.of("spec.isolationProfileRef.name", "is required")));
        }
        Optional<JsonObject> profileJson = reconciler.isolationProfile(namespace, profileName);
        if (profileJson.isEmpty()) {
            throw new InvalidResourceException("TenantCluster " + namespace + "/" + tc.tenant(), List.of(
                    io.tenantplane.model.Problem.of("spec.isolationProfileRef.name", "IsolationProfile "
                            + profileName + " does not exist in namespace " + namespace)));
        }
        IsolationProfile profile = IsolationProfile.fromJson(profileJson.get()).orElseThrow("IsolationProfile "
                + namespace + "/" + profileName);
        return plane.render(tc, profile);
    }

    static TenantSummary summary(JsonObject tc) {
        String mode = Json.string(tc, "spec", "mode");
        JsonObject ready = condition(tc, Condition.READY);
        return new TenantSummary(Json.string(tc, "metadata", "namespace"), Json.string(tc, "metadata", "name"),
                mode == null ? TenantCluster.Mode.SHARED.value() : mode, Json.string(tc, "status", "phase"),
                ready != null && "True".equals(Json.string(ready, "status")),
                ready == null ? null : Json.string(ready, "reason"), Json.string(tc, "status", "hostNamespace"));
    }

    private static JsonObject condition(JsonObject tc, String type) {
        JsonObject status = Json.object(tc, "status");
        JsonElement cs = status == null ? null : status.get("conditions");
        if (cs != null && cs.isJsonArray()) {
            for (JsonElement e : cs.getAsJsonArray()) {
                if (e.isJsonObject() && type.equals(Json.string(e.getAsJsonObject(), "type"))) {
                    return e.getAsJsonObject();
                }
            }
        }
        return null;
    }

    private static Long number(JsonObject o, String field) {
        if (o == null || !o.has(field) || !o.get(field).isJsonPrimitive()
                || !o.get(field).getAsJsonPrimitive().isNumber()) {
            return null;
        }
        return o.get(field).getAsLong();
    }

    static DecisionView view(RecordedDecision r) {
        Decision d = r.outcome().decision();
        Ref source = d.source() == null || d.source().name() == null ? null
                : new Ref(d.source().virtualNamespace(), d.source().name());
        Ref host = d.host() == null ? null : new Ref(d.host().namespace(), d.host().name());
        return switch (r.outcome()) {
            case Outcome.Applied a -> new DecisionView(r.at().toString(), d.action().display(), d.kind(),
                    d.reason(), d.message(), source, host, "Applied", null, null, a.attempts());
            case Outcome.NotWritten n -> new DecisionView(r.at().toString(), d.action().display(), d.kind(),
                    d.reason(), d.message(), source, host, "NotWritten", null, null, null);
            case Outcome.Failed f -> new DecisionView(r.at().toString(), d.action().display(), d.kind(),
                    d.reason(), d.message(), source, host, "Failed", f.code(), f.message(), f.attempts());
        };
    }
}
