package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TenantPlaneTest {

    private static final Path EXAMPLES = Path.of("..", "examples", "yaml");

    static List<LoadedObject> examples() {
        return Manifests.read(EXAMPLES);
    }

    static <T> T one(Class<T> type) {
        for (LoadedObject lo : examples()) {
            if (type == TenantCluster.class && TenantCluster.KIND.equals(lo.kind())) {
                return type.cast(TenantCluster.fromJson(lo.object()).orElseThrow());
            }
            if (type == IsolationProfile.class && IsolationProfile.KIND.equals(lo.kind())) {
                return type.cast(IsolationProfile.fromJson(lo.object()).orElseThrow());
            }
            if (type == SyncPolicy.class && SyncPolicy.KIND.equals(lo.kind())) {
                return type.cast(SyncPolicy.fromJson(lo.object()).orElseThrow());
            }
        }
        throw new IllegalStateException("no " + type.getSimpleName() + " in " + EXAMPLES);
    }

    private static JsonObject pod(String ns, String name) {
        JsonObject pod = Json.gson().fromJson("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","uid":"u-%s"},
                 "spec":{"containers":[{"name":"app","image":"nginx:1.27",
                   "securityContext":{"allowPrivilegeEscalation":false,"runAsNonRoot":true,
                     "capabilities":{"drop":["ALL"]},"seccompProfile":{"type":"RuntimeDefault"}}}]}}
                """.formatted(name, ns, name), JsonObject.class);
        return pod;
    }

    /** A private tenant syncs nothing (its own agents run its pods): offline plans and explain say so, as the pass. */
    @Test
    void aPrivateTenantIsPlannedAndExplainedWithNothingSynced() {
        TenantPlane plane = TenantPlane.builder().build();
        JsonObject json = one(TenantCluster.class).toJson();
        Json.child(json, "spec").addProperty("mode", "private");
        TenantCluster tc = TenantCluster.fromJson(json).orElseThrow();
        PlanRequest request = new PlanRequest(tc, one(IsolationProfile.class), one(SyncPolicy.class),
                List.of(pod("default", "nginx")), List.of());
        Decision d = plane.plan(request).decisions().get(0);
        assertEquals(Action.SKIP, d.action(), d::toString);
        assertEquals("KindNotSynced", d.reason());
        assertEquals(d, plane.explainSync(request, "default", "Pod", "nginx").decision());
    }

    /**
     * A Pod that resolves through the cluster DNS waits while the tenant API Service is on the host but its DNS
     * Service has no IP yet: it would otherwise start with the host's DNS and keep it for life.
     */
    @Test
    void aPodUsingTheClusterDnsWaitsForTheTenantDnsServiceAndOneWithItsOwnDnsDoesNot() {
        TenantPlane plane = TenantPlane.builder().build();
        TenantCluster tc = one(TenantCluster.class);
        JsonObject api = Json.gson().fromJson("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"dev-api","namespace":"team-dev"},
                 "spec":{"clusterIP":"10.96.0.50","ports":[{"port":443}]}}""", JsonObject.class);
        JsonObject dns = Json.gson().fromJson("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"dev-dns","namespace":"team-dev"},
                 "spec":{"clusterIP":"10.96.0.53","ports":[{"port":53,"protocol":"UDP"}]}}""", JsonObject.class);
        JsonObject own = pod("default", "own-dns");
        own.getAsJsonObject("spec").addProperty("dnsPolicy", "Default");
        List<JsonObject> pods = List.of(pod("default", "web"), own);

        Plan waiting = plane.plan(new PlanRequest(tc, one(IsolationProfile.class), one(SyncPolicy.class), pods,
                List.of(api)));
        Decision web = waiting.decisions().stream().filter(d -> d.source().name().equals("web")).findFirst()
                .orElseThrow();
        assertEquals(Action.SKIP, web.action(), web::toString);
        assertEquals("TenantDnsPending", web.reason());
        assertEquals(Action.CREATE, waiting.decisions().stream().filter(d -> d.source().name().equals("own-dns"))
                .findFirst().orElseThrow().action(), "a Pod with its own DNS does not wait");

        Plan ready = plane.plan(new PlanRequest(tc, one(IsolationProfile.class), one(SyncPolicy.class), pods,
                List.of(api, dns)));
        Decision created = ready.decisions().stream().filter(d -> d.source().name().equals("web")).findFirst()
                .orElseThrow();
        assertEquals(Action.CREATE, created.action());
        assertEquals("10.96.0.53", Json.object(created.desired(), "spec", "dnsConfig").getAsJsonArray("nameservers")
                .get(0).getAsString());
    }

    @Test
    void offlineOperationsWorkWithoutAnyClient() {
        TenantPlane plane = TenantPlane.builder().build();
        assertTrue(plane.validate(examples()).isEmpty(), () -> plane.validate(examples()).toString());

        TenantCluster tc = one(TenantCluster.class);
        Plan plan = plane.plan(new PlanRequest(tc, one(IsolationProfile.class), one(SyncPolicy.class),
                List.of(pod("default", "nginx")), List.of()));
        Decision d = plan.decisions().get(0);
        assertEquals(Action.CREATE, d.action());
        assertEquals(new Decision.HostRef("team-dev", "nginx-x-default-x-dev"), d.host());
        assertEquals("dev-workload", Json.string(d.desired(), "spec", "serviceAccountName"),
                "pods run as the profile's host ServiceAccount");

        List<JsonObject> rendered = plane.render(tc, one(IsolationProfile.class));
        assertTrue(rendered.stream().anyMatch(o -> "StatefulSet".equals(Json.string(o, "kind"))));
        assertTrue(rendered.stream().anyMatch(o -> "NetworkPolicy".equals(Json.string(o, "kind"))));

        assertEquals("nginx-x-default-x-dev",
                plane.explainSync("dev", "team-dev", "default", "Pod", "nginx").hostResource().name());
    }

    @Test
    void liveOperationsWithoutAHostClientSayWhatIsMissing() {
        TenantPlane plane = TenantPlane.builder().build();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> plane.converge(new TenantKey("team-dev", "dev")));
        assertTrue(e.getMessage().contains("hostClient(ApiClient)"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> plane.ensure(one(TenantCluster.class)));
        assertTrue(plane.hostClient().isEmpty());
        assertTrue(plane.decisions(new TenantKey("team-dev", "dev"), 10).isEmpty());
    }

    @Test
    void builderSettersRejectBadArgumentsNamingThem() {
        TenantPlane.Builder b = TenantPlane.builder();
        assertMessage("hostClient", assertThrows(NullPointerException.class, () -> b.hostClient(null)));
        assertMessage("clock", assertThrows(NullPointerException.class, () -> b.clock(null)));
        assertMessage("tenantConnector", assertThrows(NullPointerException.class, () -> b.tenantConnector(null)));
        assertMessage("decisionRingCapacity", assertThrows(IllegalArgumentException.class,
                () -> b.decisionRingCapacity(0)));
        assertMessage("maxAttempts", assertThrows(IllegalArgumentException.class,
                () -> b.retries(0, Duration.ZERO, Duration.ZERO)));
        assertMessage("maxBackoff", assertThrows(IllegalArgumentException.class,
                () -> b.retries(3, Duration.ofSeconds(2), Duration.ofSeconds(1))));
        assertMessage("reportingInstance", assertThrows(IllegalArgumentException.class,
                () -> b.reportingInstance(" ")));
    }

    @Test
    void aBuilderCanBeReusedBecauseBuildCopiesTheConfiguration() {
        TenantPlane.Builder b = TenantPlane.builder().decisionRingCapacity(5);
        TenantPlane first = b.build();
        b.decisionRingCapacity(50);
        TenantPlane second = b.build();
        assertFalse(first == second);
        assertTrue(first.hostClient().isEmpty() && second.hostClient().isEmpty());
    }

    private static void assertMessage(String expected, Throwable t) {
        assertTrue(t.getMessage() != null && t.getMessage().contains(expected),
                "message should name " + expected + ": " + t.getMessage());
    }
}
