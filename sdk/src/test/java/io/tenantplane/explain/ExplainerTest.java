package io.tenantplane.explain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.FixtureYaml;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.transform.TransformOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class ExplainerTest {

    private final Explainer explainer = new Explainer();
    private static final JsonObject CASES = FixtureYaml.resource("explain/cases.yaml").get(0).getAsJsonObject();

    @TestFactory
    Stream<DynamicTest> explainSyncCases() {
        return FixtureYaml.objects(CASES, "explain").stream().map(c -> DynamicTest.dynamicTest(Json.string(c, "name"), () -> {
            String tenant = Json.string(c, "tenant");
            String hostNs = Json.string(c, "hostNamespace");
            Explanation e;
            if (c.has("context")) {
                JsonObject ctx = c.getAsJsonObject("context");
                Snapshot s = new Snapshot(tenant, hostNs, FixtureYaml.policy(ctx), TransformOptions.defaults(),
                        FixtureYaml.objects(ctx, "tenantObjects"), FixtureYaml.objects(ctx, "hostObjects"));
                e = explainer.explainSync(s, Json.string(c, "virtualNamespace"), Json.string(c, "kind"), Json.string(c, "objectName"));
            } else {
                e = explainer.explainSync(tenant, hostNs, Json.string(c, "virtualNamespace"), Json.string(c, "kind"),
                        Json.string(c, "objectName"));
            }
            JsonObject x = c.getAsJsonObject("expect");
            JsonElement actual = Json.gson().toJsonTree(e.toMap());
            List<String> problems = FixtureYaml.containsProblems(pick(x, "hostResource", "action", "reason", "hypothetical",
                    "labels", "annotations", "naming"), actual, "explanation");
            assertTrue(problems.isEmpty(), String.join("\n", problems) + "\n" + actual);
            if (x.has("annotationsLack")) {
                x.getAsJsonArray("annotationsLack").forEach(k -> assertFalse(e.annotations().containsKey(k.getAsString()), k.getAsString()));
            }
            if (x.has("annotationsPresent")) {
                x.getAsJsonArray("annotationsPresent").forEach(k -> assertTrue(e.annotations().containsKey(k.getAsString()), k.getAsString()));
            }
        }));
    }

    private static JsonObject pick(JsonObject from, String... keys) {
        JsonObject o = new JsonObject();
        for (String k : keys) {
            if (from.has(k)) {
                o.add(k, from.get(k));
            }
        }
        return o;
    }

    @TestFactory
    Stream<DynamicTest> traceCases() {
        return FixtureYaml.objects(CASES, "trace").stream().map(c -> DynamicTest.dynamicTest(Json.string(c, "name"), () -> {
            TraceResult r = c.has("hostObject")
                    ? explainer.trace(c.getAsJsonObject("hostObject"))
                    : explainer.trace(Json.string(c, "kind"), Json.string(c, "hostNamespace"), Json.string(c, "hostName"),
                    c.has("hostObjects") ? FixtureYaml.objects(c, "hostObjects") : null);
            JsonObject x = c.getAsJsonObject("expect");
            assertEquals(Json.string(x, "reason"), r.reason(), r.message());
            if (x.has("source")) {
                List<String> p = FixtureYaml.containsProblems(x.get("source"), Json.gson().toJsonTree(r.toMap()).getAsJsonObject().get("source"), "source");
                assertTrue(p.isEmpty(), String.join("\n", p));
            } else {
                assertNull(r.source());
            }
            if (x.has("messageContains")) {
                assertTrue(r.message().contains(Json.string(x, "messageContains")), r.message());
            }
        }));
    }

    @Test
    void explainAndTraceAreInverses() {
        for (String[] src : List.of(new String[] {"Pod", "default", "nginx"}, new String[] {"ConfigMap", "x-b", "a-x"},
                new String[] {"Secret", "shop", "a".repeat(70)})) {
            Explanation e = explainer.explainSync("dev", "team-dev", src[1], src[0], src[2]);
            JsonObject host = new JsonObject();
            host.addProperty("kind", src[0]);
            Json.child(host, "metadata").addProperty("name", e.hostResource().name());
            Json.child(host, "metadata").addProperty("namespace", e.hostResource().namespace());
            e.labels().forEach(Json.child(host, "metadata", "labels")::addProperty);
            e.annotations().forEach(Json.child(host, "metadata", "annotations")::addProperty);
            TraceResult t = explainer.trace(host);
            assertEquals(new TenantObjectRef("dev", src[0], src[1], src[2], null), t.source(), t.message());
        }
    }

    @Test
    void explanationMapListsHostResourceFirstFieldsInAStableOrder() {
        Map<String, Object> m = explainer.explainSync("dev", "team-dev", "default", "Pod", "nginx").toMap();
        assertEquals(List.of("source", "hostResource", "action", "reason", "message", "hypothetical", "labels", "annotations", "naming"),
                List.copyOf(m.keySet()));
        assertEquals(Map.of("namespace", "team-dev", "name", "nginx-x-default-x-dev"), m.get("hostResource"));
    }

    @Test
    void explainingAnInvalidNameFailsNamingTheArgument() {
        var ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> explainer.explainSync("dev", "team-dev", "default", "Pod", "Nginx"));
        assertTrue(ex.getMessage().startsWith("name 'Nginx'"), ex.getMessage());
    }

    @Test
    void theExplanationIsThePlannersDecision() {
        JsonObject cm = Json.gson().fromJson("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"}}", JsonObject.class);
        Snapshot s = new Snapshot("dev", "team-dev", io.tenantplane.plan.PlannerPropertyTestAccess.policy("ConfigMap"),
                null, List.of(cm), List.of());
        Decision planned = new Planner().plan(s).decisions().get(0);
        assertEquals(planned, explainer.explainSync(s, "default", "ConfigMap", "a").decision());
    }

    @Test
    void anObjectInSyncShowsTheReasonItsHostCopyKeepsNotOneThatIsNeverWritten() {
        JsonObject cm = Json.gson().fromJson("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","
                + "\"namespace\":\"default\"}}", JsonObject.class);
        var policy = io.tenantplane.plan.PlannerPropertyTestAccess.policy("ConfigMap");
        Snapshot empty = new Snapshot("dev", "team-dev", policy, null, List.of(cm), List.of());
        JsonObject created = new Planner().plan(empty).decisions().get(0).desired();
        assertEquals("NotOnHost", Json.string(created, "metadata", "annotations", "tenantplane.io/reason"));
        Snapshot withHost = new Snapshot("dev", "team-dev", policy, null, List.of(cm), List.of(created));

        Decision d = explainer.explainSync(withHost, "default", "ConfigMap", "a").decision();

        assertEquals(Reasons.IN_SYNC, d.reason());
        assertEquals("NotOnHost", Json.string(d.desired(), "metadata", "annotations", "tenantplane.io/reason"),
                "the host copy keeps the reason of the write that made it");
    }

    @Test
    void aNameThatReadsBothAsPlainAndAsHashedIsNotAnsweredSilently() {
        String hashed = io.tenantplane.naming.HostNames.hostName("thumbs-0-x", "default", "ops");
        assertTrue(hashed.matches(".*-[0-9a-f]{10}"), hashed);
        var result = explainer.trace("Pod", "team-ops", hashed, List.of());
        assertTrue(result instanceof io.tenantplane.explain.TraceResult.Unresolved, result::toString);
        assertTrue(result.toString().contains("can be read two ways"), result::toString);
        var plain = explainer.trace("Pod", "team-dev", "nginx-x-default-x-dev", List.of());
        assertTrue(plain instanceof io.tenantplane.explain.TraceResult.InferredFromName, plain::toString);
    }

    @Test
    void docsExplainEveryReason() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "explain.md"));
        // The "All reasons" table has one row per registered reason, and no row for a reason no decision carries.
        String table = docs.substring(docs.indexOf("### All reasons"), docs.indexOf("## 5. Trace results"));
        Set<String> rows = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| [^|]+ \\| `(\\w+)` \\|").matcher(table);
        while (row.find()) {
            assertTrue(rows.add(row.group(1)), "docs/explain.md lists " + row.group(1) + " twice");
        }
        assertEquals(new TreeSet<>(Reasons.all().keySet()), rows,
                "docs/explain.md's table of all reasons is exactly Reasons.all()");
        for (String trace : List.of("Managed", "InferredFromName", "NotManaged", "NotFound", "Unresolved")) {
            assertTrue(docs.contains("`" + trace + "`"), "docs/explain.md does not explain trace result " + trace);
        }
    }
}
