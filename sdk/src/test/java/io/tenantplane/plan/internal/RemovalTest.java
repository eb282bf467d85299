package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the removal of a deleted TenantCluster deletes, from what was listed, with no API server: exactly what
 * tenantplane made for that tenant, each once, never a foreign, forged or other tenant's object.
 */
class RemovalTest {

    private static TenantCluster cluster(String spec, String status) {
        JsonObject json = JsonParser.parseString("{\"apiVersion\":\"" + TenantCluster.API_VERSION + "\",\"kind\":\""
                + TenantCluster.KIND + "\",\"metadata\":{\"name\":\"dev\",\"namespace\":\"team-dev\","
                + "\"deletionTimestamp\":\"2026-06-01T00:00:00Z\"},\"spec\":{\"isolationProfileRef\":{\"name\":"
                + "\"restricted\"},\"syncPolicyRef\":{\"name\":\"default\"}," + spec + "}"
                + (status == null ? "" : ",\"status\":" + status) + "}").getAsJsonObject();
        return switch (TenantCluster.fromJson(json)) {
            case Parsed.Ok<TenantCluster> ok -> ok.value();
            case Parsed.Invalid<TenantCluster> bad -> throw new AssertionError(bad.problems().toString());
        };
    }

    static Stream<Arguments> placesRows() {
        return Stream.of(
                Arguments.of("always shared: only its namespace", "\"mode\":\"shared\"", null, List.of("team-dev")),
                Arguments.of("dedicated: its own namespace too", "\"mode\":\"dedicated\"",
                        "{\"mode\":\"dedicated\",\"hostNamespace\":\"team-dev-x-dev\"}",
                        List.of("team-dev", "team-dev-x-dev")),
                Arguments.of("shared again, but was dedicated: the old place too", "\"mode\":\"shared\"",
                        "{\"mode\":\"dedicated\",\"hostNamespace\":\"team-dev-x-dev\"}",
                        List.of("team-dev", "team-dev-x-dev")),
                Arguments.of("a named host namespace", "\"mode\":\"private\",\"hostNamespace\":\"dev-host\"", null,
                        List.of("team-dev", "dev-host")),
                Arguments.of("during a move from shared", "\"mode\":\"dedicated\"",
                        "{\"mode\":\"shared\",\"hostNamespace\":\"team-dev\",\"migration\":{\"from\":\"shared\","
                                + "\"to\":\"dedicated\",\"step\":\"MoveWorkloads\"}}",
                        List.of("team-dev", "team-dev-x-dev")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("placesRows")
    void removalLooksWhereverTheTenantMayHaveObjects(String name, String spec, String status, List<String> places) {
        assertEquals(places, Removal.places(cluster(spec, status)));
    }

    private static JsonObject copy(String tenant, String vns, String name, String hostNs) {
        TenantObjectRef src = new TenantObjectRef(tenant, "ConfigMap", vns, name, null);
        JsonObject o = Json.gson().toJsonTree(Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata",
                Map.of("name", src.hostName(), "namespace", hostNs, "labels", ReverseMapping.labels(src),
                        "annotations", ReverseMapping.annotations(src, null)))).getAsJsonObject();
        return o;
    }

    private static JsonObject object(String kind, String ns, String name, Map<String, String> labels,
                                     Map<String, String> annotations) {
        JsonObject meta = Json.gson().toJsonTree(Map.of("name", name, "labels", labels, "annotations", annotations))
                .getAsJsonObject();
        if (ns != null) {
            meta.addProperty("namespace", ns);
        }
        JsonObject o = new JsonObject();
        o.addProperty("apiVersion", kind.equals("StatefulSet") ? "apps/v1" : "v1");
        o.addProperty("kind", kind);
        o.add("metadata", meta);
        return o;
    }

    private static Map<String, String> ours(String tenant, String component) {
        return component == null
                ? Map.of(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE, ReverseMapping.TENANT, tenant)
                : Map.of(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE, ReverseMapping.TENANT, tenant,
                ReverseMapping.COMPONENT, component);
    }

    @Test
    void removalDeletesExactlyWhatWasMadeForTheTenantEachOnceInOrder() {
        TenantCluster tc = cluster("\"mode\":\"dedicated\"", "{\"mode\":\"dedicated\","
                + "\"hostNamespace\":\"team-dev-x-dev\"}");
        JsonObject mine = copy("dev", "default", "app", "team-dev-x-dev");
        JsonObject forged = copy("dev", "default", "app", "team-dev-x-dev");
        Json.child(forged, "metadata").addProperty("name", "someone-elses-config");
        JsonObject others = copy("qa", "default", "app", "team-dev-x-dev");
        JsonObject sts = object("StatefulSet", "team-dev", "dev-control-plane", ours("dev", "control-plane"), Map.of());
        JsonObject dns = object("Service", "team-dev", "dev-dns", ours("dev", "dns"), Map.of());
        JsonObject unknownComponent = object("Service", "team-dev", "dev-extra", ours("dev", "sidecar"), Map.of());
        JsonObject syncedWithComponent = object("Service", "team-dev-x-dev", "web-x-default-x-dev",
                ours("dev", "control-plane"), Map.of(ReverseMapping.SOURCE_KIND, "Service"));
        JsonObject otherTenantsRendered = object("Service", "team-dev", "qa-api", ours("qa", "control-plane"),
                Map.of());
        JsonObject ownNs = object("Namespace", null, "team-dev-x-dev", ours("dev", "isolation"), Map.of());
        JsonObject tenantClusterNs = object("Namespace", null, "team-dev", ours("dev", "isolation"), Map.of());
        JsonObject componentOnlyNs = object("Namespace", null, "shared-ns",
                Map.of(ReverseMapping.COMPONENT, "isolation"), Map.of());
        JsonObject otherTenantsNs = object("Namespace", null, "team-dev-x-qa", ours("qa", "isolation"), Map.of());

        List<Decision> deletes = Removal.plan(tc, List.of(mine, forged, others, mine),
                List.of(sts, dns, unknownComponent, syncedWithComponent, otherTenantsRendered, sts),
                List.of(ownNs, tenantClusterNs, componentOnlyNs, otherTenantsNs));

        assertEquals(List.of("ConfigMap team-dev-x-dev/" + Json.string(mine, "metadata", "name"),
                        "StatefulSet team-dev/dev-control-plane", "Service team-dev/dev-dns",
                        "Namespace null/team-dev-x-dev"),
                deletes.stream().map(d -> d.kind() + " " + d.host().namespace() + "/" + d.host().name()).toList());
        for (Decision d : deletes) {
            assertEquals(Action.DELETE, d.action());
            assertTrue(d.observed() != null, "a delete carries the object as read, for its preconditions");
        }
        assertTrue(deletes.get(0).message().contains("the copy of"), deletes.get(0)::message);
        assertTrue(deletes.get(1).message().contains("part of its control-plane"), deletes.get(1)::message);
    }

    static Stream<Arguments> renderedRows() {
        return Stream.of(
                Arguments.of(ours("dev", "control-plane"), Map.of(), true),
                Arguments.of(ours("dev", "isolation"), Map.of(), true),
                Arguments.of(ours("dev", "dns"), Map.of(), true),
                Arguments.of(ours("dev", "agent"), Map.of(), true),
                Arguments.of(ours("dev", "other"), Map.of(), false),
                Arguments.of(ours("dev", null), Map.of(), false),
                Arguments.of(ours("dev", "dns"), Map.of(ReverseMapping.SOURCE_KIND, "Service"), false));
    }

    @ParameterizedTest
    @MethodSource("renderedRows")
    void anObjectIsRenderedByItsComponentAndNeverWhenItIsACopy(Map<String, String> labels,
                                                               Map<String, String> annotations, boolean rendered) {
        assertEquals(rendered, Removal.rendered(object("Service", "team-dev", "x", labels, annotations)));
    }
}
