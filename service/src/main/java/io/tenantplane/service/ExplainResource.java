package io.tenantplane.service;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.UnknownKindException;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.HostNames;
import io.tenantplane.observe.TenantKey;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /explain} and {@code GET /trace}: the CLI's {@code explain-sync} and {@code trace} over the live
 * cluster. The answers are the SDK's {@code Explanation.toMap()} and {@code TraceResult.toMap()}, the same maps the
 * CLI prints with {@code -o json}, computed by the same {@link TenantPlane} calls from what the API servers hold
 * now. Read-only.
 */
@ApplicationScoped
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ExplainResource {

    /** Kinds a user may name besides the syncable ones, in the order error messages list them. */
    private static final List<String> HOST_KINDS = List.of("ResourceQuota", "LimitRange", "StatefulSet",
            "Role", "RoleBinding", "Namespace", "Node");

    private final Engine engine;
    private final AccessControl access;

    @Inject
    ExplainResource(Engine engine, AccessControl access) {
        this.engine = engine;
        this.access = access;
    }

    /** For CDI proxies only. */
    protected ExplainResource() {
        this.engine = null;
        this.access = null;
    }

    /**
     * Where a tenant object lands on the host and why, given the tenant's real policy, profile, objects and host
     * objects: as {@code tenantplane explain-sync -f <the tenant's objects and custom resources> --host <the host
     * objects>}. When the object does not exist in the tenant, the answer is for a bare object of that kind and name
     * ({@code hypothetical: true}).
     *
     * @param tenant           the TenantCluster's name
     * @param tenantNamespace  the TenantCluster's namespace
     * @param virtualNamespace the object's namespace inside the tenant; default {@code default} (ignored for
     *                         cluster-scoped kinds)
     * @param kind             the object's kind ({@code Pod}, {@code pod}, {@code pods}, ...)
     * @param name             the object's name inside the tenant
     */
    @GET
    @Path("/explain")
    public Map<String, Object> explain(@QueryParam("tenant") String tenant,
                                       @QueryParam("tenantNamespace") String tenantNamespace,
                                       @QueryParam("virtualNamespace") String virtualNamespace,
                                       @QueryParam("kind") String kind, @QueryParam("name") String name) {
        String t = label("tenant", required("tenant", tenant, "dev"));
        String tns = label("tenantNamespace", required("tenantNamespace", tenantNamespace, "team-dev"));
        access.require(TenantsResource.seeing(tns, t));
        String typedKind = required("kind", kind, "Pod");
        Optional<ResourceKind> known = ResourceKind.typed(typedKind);
        if (known.isEmpty() && !typedKind.strip().matches("[A-Z][A-Za-z0-9]*")) {
            kind("kind", typedKind);
        }
        String objectName = subdomain("name", required("name", name, "nginx"));
        TenantPlane plane = engine.plane();
        // The names checked above, so that what is authorised is what is read.
        TenantKey key = new TenantKey(tns, t);
        TenantContext ctx;
        try {
            ctx = plane.context(key).orElseThrow(() -> ProblemException.notFound("no TenantCluster "
                    + key + " on the host"));
        } catch (InvalidResourceException e) {
            throw ProblemException.conflict("TenantCluster " + key + " cannot be explained against: "
                    + e.getMessage());
        } catch (ReadFailedException e) {
            throw ProblemException.unavailable(e.getMessage());
        }
        try {
            ApiClient tenantClient = plane.tenantClient(ctx.cluster());
            ResourceKind rk = known.orElseGet(() -> customKind(ctx, typedKind.strip(), tenantClient));
            String vns = null;
            if (rk.namespaced()) {
                vns = virtualNamespace == null || virtualNamespace.isBlank() ? "default" : virtualNamespace.strip();
                label("virtualNamespace", vns);
            }
            // Read as the pass reads, so that the answer is the pass's.
            return plane.explainLive(ctx, rk, vns, objectName).toMap();
        } catch (TenantApiUnavailableException e) {
            throw ProblemException.unavailable("the API of tenant " + key + " cannot be reached: "
                    + e.getMessage());
        } catch (ReadFailedException | UnknownKindException e) {
            throw ProblemException.unavailable(e.getMessage());
        }
    }

    /**
     * The tenant object a host object was made from, read from the host object's labels and annotations and
     * verified: as {@code tenantplane trace -f <the host object>}. 404 when the host has no such object.
     *
     * @param kind      the host object's kind
     * @param namespace its host namespace (required for namespaced kinds)
     * @param name      its host name
     */
    @GET
    @Path("/trace")
    public Map<String, Object> trace(@QueryParam("kind") String kind, @QueryParam("namespace") String namespace,
                                     @QueryParam("name") String name) {
        ResourceKind rk = kind("kind", required("kind", kind, "Pod"));
        String hostName = subdomain("name", required("name", name, "nginx-x-default-x-dev"));
        String ns = null;
        if (rk.namespaced()) {
            ns = label("namespace", required("namespace", namespace, "team-dev"));
        }
        // The names checked here are the ones authorised and read.
        access.require(new KubernetesAccess.Attributes("get", rk.group(), rk.plural(), ns, hostName));
        TenantPlane plane = engine.plane();
        Optional<JsonObject> object;
        try {
            object = new Reader(plane.hostClient().orElseThrow()).get(rk, ns, hostName);
        } catch (ReadFailedException e) {
            throw ProblemException.unavailable(e.getMessage());
        }
        String where = ns == null ? hostName : ns + "/" + hostName;
        return plane.trace(object.orElseThrow(() -> ProblemException.notFound("no " + rk.kind() + " " + where
                + " on the host"))).toMap();
    }

    private static String required(String param, String value, String example) {
        if (value == null || value.isBlank()) {
            throw ProblemException.missing(param, example);
        }
        return value.strip();
    }

    private static String label(String param, String value) {
        if (!HostNames.isDns1123Label(value)) {
            throw ProblemException.invalid(param, value, "not a valid name (a DNS-1123 label: at most 63"
                    + " lowercase letters, digits and '-', starting and ending with a letter or digit)");
        }
        return value;
    }

    private static String subdomain(String param, String value) {
        if (!HostNames.isDns1123Subdomain(value)) {
            throw ProblemException.invalid(param, value, "not a valid name (a DNS-1123 subdomain: lowercase"
                    + " letters, digits, '-' and '.', starting and ending with a letter or digit)");
        }
        return value;
    }

    /** A kind as users type it to kubectl ({@code Pod}, {@code pod}, {@code pods}, {@code po}), as the CLI takes it. */
    /**
     * A custom kind the tenant's SyncPolicy names (by its kind, as the policy writes it), resolved by the tenant's
     * discovery; 400 when the policy names no such kind, 404 when the tenant does not serve it.
     */
    private static ResourceKind customKind(TenantContext ctx, String kind, ApiClient tenantClient) {
        SyncPolicy.KindRule rule = ctx.policy().rule(kind).filter(SyncPolicy.KindRule::custom)
                .orElseThrow(() -> ProblemException.invalid("kind", kind, "unknown kind; use a Kubernetes kind such "
                        + "as " + String.join(", ", known()) + ", or a custom kind the tenant's SyncPolicy names"));
        try {
            return io.tenantplane.apply.Resources.of(tenantClient).resolve(rule.effectiveApiVersion(), kind);
        } catch (io.tenantplane.apply.UnknownKindException e) {
            throw ProblemException.notFound("tenant " + ctx.key() + " does not serve " + kind + " ("
                    + rule.effectiveApiVersion() + "): " + e.getMessage());
        }
    }

    static ResourceKind kind(String param, String typed) {
        return ResourceKind.typed(typed).orElseThrow(() -> ProblemException.invalid(param, typed,
                "unknown kind; use a Kubernetes kind such as " + String.join(", ", known())));
    }

    private static List<String> known() {
        return java.util.stream.Stream.concat(SyncPolicy.SUPPORTED_KINDS.stream().map(SyncPolicy.SupportedKind::kind),
                HOST_KINDS.stream()).distinct().toList();
    }
}
