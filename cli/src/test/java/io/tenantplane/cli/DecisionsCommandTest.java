package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.testkit.KubeApiServer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code decisions} reads the decision Events of one TenantCluster from a host API (the in-process one here). */
class DecisionsCommandTest {

    @TempDir
    static Path dir;

    private static KubeApiServer server;
    private static String kubeconfig;

    @BeforeAll
    static void recordSomeDecisions() throws Exception {
        System.setProperty("slf4j.internal.verbosity", "ERROR");
        server = KubeApiServer.builder().namespaces("default", "team-dev", "team-qa").build().start();
        kubeconfig = server.writeKubeconfig(dir).toString();
        ApiClient client = ClientBuilder.standard(false).setBasePath(server.url()).build();
        DynamicKubernetesApi events = new DynamicKubernetesApi("events.k8s.io", "v1", "events", client);
        create(events, "team-dev", "dev", "dev.a", "Create", "NotOnHost", "Normal", "Pod", "nginx-x-default-x-dev",
                "2025-01-02T10:00:00.000000Z", 0);
        create(events, "team-dev", "dev", "dev.b", "Conflict", "ForeignObject", "Warning", "Service",
                "nginx-x-default-x-dev", "2025-01-02T09:00:00.000000Z", 3);
        create(events, "team-dev", "other", "other.a", "Create", "NotOnHost", "Normal", "Pod", "web-x-default-x-other",
                "2025-01-02T11:00:00.000000Z", 0);
        create(events, "team-qa", "dev", "dev.c", "Delete", "SourceDeleted", "Normal", "Pod", "old-x-default-x-dev",
                "2025-01-02T12:00:00.000000Z", 0);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static void create(DynamicKubernetesApi api, String ns, String tenant, String name, String action,
                               String reason, String type, String kind, String host, String time, int series) {
        JsonObject e = new JsonObject();
        e.addProperty("apiVersion", "events.k8s.io/v1");
        e.addProperty("kind", "Event");
        JsonObject meta = io.tenantplane.json.Json.child(e, "metadata");
        meta.addProperty("name", name);
        meta.addProperty("namespace", ns);
        io.tenantplane.json.Json.child(meta, "labels").addProperty("tenantplane.io/tenant", tenant);
        e.addProperty("eventTime", time);
        e.addProperty("reportingController", "tenantplane.io/controller");
        e.addProperty("reportingInstance", "test");
        e.addProperty("action", action);
        e.addProperty("reason", reason);
        e.addProperty("type", type);
        e.addProperty("note", kind + " " + host + ": " + reason);
        JsonObject regarding = io.tenantplane.json.Json.child(e, "regarding");
        regarding.addProperty("apiVersion", "tenantplane.io/v1alpha1");
        regarding.addProperty("kind", "TenantCluster");
        regarding.addProperty("namespace", ns);
        regarding.addProperty("name", tenant);
        JsonObject related = io.tenantplane.json.Json.child(e, "related");
        related.addProperty("apiVersion", "v1");
        related.addProperty("kind", kind);
        related.addProperty("namespace", ns);
        related.addProperty("name", host);
        if (series > 0) {
            JsonObject s = io.tenantplane.json.Json.child(e, "series");
            s.addProperty("count", series);
            s.addProperty("lastObservedTime", "2025-01-02T10:30:00.000000Z");
        }
        var r = api.create(new DynamicKubernetesObject(e));
        assertTrue(r.isSuccess(), () -> "create " + name + ": " + r.getStatus());
    }

    @Test
    void listsOnlyThatTenantClustersDecisionsNewestFirst() {
        Cli.Result r = Cli.run("decisions", "--tenant", "team-dev/dev", "--kubeconfig", kubeconfig);
        assertEquals(0, r.code(), r::toString);
        var lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("LAST SEEN "), r::toString);
        assertTrue(lines.get(1).contains("Warning") && lines.get(1).contains("Conflict")
                && lines.get(1).contains("ForeignObject") && lines.get(1).contains("Service team-dev/nginx-x-default-x-dev")
                && lines.get(1).strip().endsWith("3"), r::toString);
        assertTrue(lines.get(2).contains("Create") && lines.get(2).contains("Pod team-dev/nginx-x-default-x-dev"),
                r::toString);
        assertTrue(r.out().contains("2 of 2 recorded decisions of TenantCluster team-dev/dev."), r::toString);
    }

    @Test
    void jsonOutputParsesAndHonoursTheLimit() {
        Cli.Result r = Cli.run("decisions", "--tenant", "team-dev/dev", "--kubeconfig", kubeconfig, "--limit", "1",
                "-o", "json");
        assertEquals(0, r.code(), r::toString);
        JsonArray ds = JsonParser.parseString(r.out()).getAsJsonObject().getAsJsonArray("decisions");
        assertEquals(1, ds.size());
        assertEquals("ForeignObject", ds.get(0).getAsJsonObject().get("reason").getAsString());
        assertEquals(3, ds.get(0).getAsJsonObject().get("count").getAsInt());
    }

    @Test
    void aMalformedTenantIsBadInput() {
        Cli.Result r = Cli.run("decisions", "--tenant", "dev", "--kubeconfig", kubeconfig);
        assertEquals(2, r.code(), r::toString);
        assertEquals("tenantplane: --tenant: 'dev' is not NAMESPACE/NAME; pass the TenantCluster's namespace and name,"
                + " e.g. --tenant team-dev/dev\n", r.err());
    }

    @Test
    void aMissingKubeconfigIsOneLineNamingIt() {
        Cli.Result r = Cli.run("decisions", "--tenant", "team-dev/dev", "--kubeconfig", dir.resolve("nope").toString());
        assertEquals(2, r.code(), r::toString);
        ExplainSyncCommandTest.assertOneLine(r.err());
        assertTrue(r.err().contains("nope: --kubeconfig: no such file"), r::toString);
    }

    @Test
    void anUnreachableHostIsOneLineAndExitsTwo() throws Exception {
        KubeApiServer gone = KubeApiServer.builder().build().start();
        String config = gone.writeKubeconfig(dir.resolve("gone")).toString();
        gone.close();
        Cli.Result r = Cli.run("decisions", "--tenant", "team-dev/dev", "--kubeconfig", config);
        assertEquals(2, r.code(), r::toString);
        ExplainSyncCommandTest.assertOneLine(r.err());
        assertTrue(r.err().contains("cannot list Events in namespace team-dev"), r::toString);
    }
}
