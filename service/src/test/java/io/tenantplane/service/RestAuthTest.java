package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import io.tenantplane.json.Json;
import jakarta.inject.Inject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The REST API as it is shipped: callers present a token of the host cluster, the host reviews it (TokenReview) and
 * each request (SubjectAccessReview over its RBAC), and a caller sees a tenant only where it may
 * {@code get tenantclusters}. Tenants {@code a} in {@code team-dev} and {@code b} in {@code team-slow}; callers are
 * ServiceAccounts with tokens from TokenRequest, as {@code kubectl create token} makes them.
 */
@ExtendWith(HostServerExtension.class)
@HelidonTest
@AddConfig(key = "tenantplane.lease.identity", value = "tenantplane-service-0")
@AddConfig(key = "tenantplane.lease.retry-period", value = "PT0.5S")
class RestAuthTest {

    @Inject
    WebTarget target;

    private static String viewer;
    private static String teamDevOnly;
    private static String nobody;

    @BeforeAll
    static void tenantsAndCallers() {
        Kube host = HostServerExtension.host();
        host.createAll(Kube.exampleTenant("team-dev", "a"));
        host.createAll(Kube.exampleTenant("team-slow", "b"));
        viewer = host.viewerToken();
        host.grantView("default", "team-dev-reader", "team-dev");
        teamDevOnly = host.token("default", "team-dev-reader");
        nobody = host.token("default", "nobody");
    }

    private Response get(String path, String token, Map<String, String> query) {
        WebTarget t = target.path(path);
        for (var e : query.entrySet()) {
            t = t.queryParam(e.getKey(), e.getValue());
        }
        var request = t.request();
        return token == null ? request.get() : request.header(HttpHeaders.AUTHORIZATION, "Bearer " + token).get();
    }

    private JsonObject problem(Response r, int status) {
        String body = r.readEntity(String.class);
        assertEquals(status, r.getStatus(), body);
        assertEquals(Problem.MEDIA_TYPE, r.getMediaType().toString(), body);
        return JsonParser.parseString(body).getAsJsonObject();
    }

    private List<String> tenants(String token) {
        Response r = get("/tenants", token, Map.of());
        String body = r.readEntity(String.class);
        assertEquals(200, r.getStatus(), body);
        List<String> out = new ArrayList<>();
        for (var e : JsonParser.parseString(body).getAsJsonObject().getAsJsonArray("items")) {
            out.add(Json.string(e.getAsJsonObject(), "namespace") + "/" + Json.string(e.getAsJsonObject(), "name"));
        }
        out.sort(null);
        return out;
    }

    @Test
    void aCallerWhoMayReadTenantClustersEverywhereSeesEveryTenantAndItsDetail() {
        assertTrue(Kube.eventually(Duration.ofSeconds(10), () -> tenants(viewer).size() == 2),
                () -> "both tenants listed: " + tenants(viewer));
        assertEquals(List.of("team-dev/a", "team-slow/b"), tenants(viewer));
        assertEquals(200, get("/tenants/team-slow/b", viewer, Map.of()).getStatus());
        assertEquals(200, get("/tenants/team-dev/a/decisions", viewer, Map.of()).getStatus());
        assertEquals(200, get("/shards", viewer, Map.of()).getStatus());
        assertEquals(404, get("/trace", viewer, Map.of("kind", "Pod", "namespace", "team-slow", "name",
                "nginx-x-default-x-b")).getStatus(), "authorised, then not found");
    }

    @Test
    void aCallerWithRightsInOneNamespaceSeesOnlyThoseTenants() {
        assertTrue(Kube.eventually(Duration.ofSeconds(10), () -> tenants(viewer).size() == 2));
        assertEquals(List.of("team-dev/a"), tenants(teamDevOnly));
        assertEquals(200, get("/tenants/team-dev/a", teamDevOnly, Map.of()).getStatus());

        JsonObject denied = problem(get("/tenants/team-slow/b", teamDevOnly, Map.of()), 403);
        assertTrue(Json.string(denied, "detail").contains("\"system:serviceaccount:default:team-dev-reader\" may not"
                + " get tenantclusters.tenantplane.io \"b\" in namespace \"team-slow\""), denied.toString());
        problem(get("/tenants/team-slow/b/decisions", teamDevOnly, Map.of()), 403);
        problem(get("/explain", teamDevOnly, Map.of("tenant", "b", "tenantNamespace", "team-slow", "kind", "Pod",
                "name", "nginx")), 403);
        JsonObject trace = problem(get("/trace", teamDevOnly, Map.of("kind", "Pod", "namespace", "team-slow",
                "name", "nginx-x-default-x-b")), 403);
        assertTrue(Json.string(trace, "detail").contains("get pods \"nginx-x-default-x-b\" in namespace"
                + " \"team-slow\""), trace.toString());
        problem(get("/shards", teamDevOnly, Map.of()), 403);
    }

    @Test
    void anAuthenticatedCallerWithoutRightsSeesNoTenantAndIsRefusedEachOne() {
        assertTrue(Kube.eventually(Duration.ofSeconds(10), () -> tenants(viewer).size() == 2));
        assertEquals(List.of(), tenants(nobody));
        problem(get("/tenants/team-dev/a", nobody, Map.of()), 403);
        problem(get("/tenants/team-dev/nothing-here", nobody, Map.of()), 403);
        problem(get("/shards", nobody, Map.of()), 403);
    }

    @Test
    void noTokenOrATokenTheHostDoesNotAcceptIsUnauthorisedAndHealthAndMetricsStayOpen() {
        Response missing = get("/tenants", null, Map.of());
        assertTrue(missing.getHeaderString(HttpHeaders.WWW_AUTHENTICATE).startsWith("Bearer"));
        assertTrue(Json.string(problem(missing, 401), "detail").contains("kubectl create token"));
        JsonObject forged = problem(get("/tenants", viewer.substring(0, viewer.length() - 4) + "AAAA", Map.of()), 401);
        assertTrue(Json.string(forged, "detail").contains("does not accept"), forged.toString());
        problem(get("/tenants", "not-a-jwt", Map.of()), 401);
        problem(get("/shards", "", Map.of()), 401);

        for (String path : List.of("/health/live", "/health/started", "/metrics")) {
            assertEquals(200, get(path, null, Map.of()).getStatus(), path);
        }
    }
}
