package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Server-side apply and field ownership over HTTP ({@code application/apply-patch+yaml}, {@code fieldManager},
 * {@code force}), and through the real kubectl ({@code apply --server-side}, {@code --force-conflicts}), as
 * {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go} and the field manager of
 * {@code apimachinery/pkg/util/managedfields} answer them.
 */
class ServerSideApplyTest {
    private static final String APPLY = "application/apply-patch+yaml";
    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

    @RegisterExtension
    final KubeApiServerExtension kube = new KubeApiServerExtension();

    @TempDir
    Path dir;

    private ApiClient client;

    @BeforeEach
    void connect() {
        client = Clients.client(kube.server());
    }

    private Clients.Raw apply(String path, String manager, boolean force, String yaml) throws IOException {
        return Clients.raw(client, "PATCH", path + "?fieldManager=" + manager + (force ? "&force=true" : ""), APPLY,
                yaml);
    }

    private static String deployment(int replicas, String image) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  replicas: %d
                  selector:
                    matchLabels: {app: web}
                  template:
                    metadata:
                      labels: {app: web}
                    spec:
                      containers:
                      - name: app
                        image: %s
                """.formatted(replicas, image);
    }

    /** The entries of metadata.managedFields as manager/operation → fieldsV1. */
    private static JsonObject entry(JsonObject object, String manager, String operation) {
        JsonArray managed = object.getAsJsonObject("metadata").getAsJsonArray("managedFields");
        for (JsonElement e : managed == null ? new JsonArray() : managed) {
            JsonObject o = e.getAsJsonObject();
            if (manager.equals(o.get("manager").getAsString()) && operation.equals(o.get("operation").getAsString())) {
                return o;
            }
        }
        return null;
    }

    private static List<String> causeFields(JsonObject status) {
        List<String> out = new ArrayList<>();
        status.getAsJsonObject("details").getAsJsonArray("causes")
                .forEach(c -> out.add(c.getAsJsonObject().get("field").getAsString()));
        return out;
    }

    @Test
    void anApplyCreatesTheObjectOwnsWhatItAppliedAndIsIdempotent() throws Exception {
        String cm = """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: settings
                  labels: {app: web}
                data:
                  mode: fast
                """;
        Clients.Raw created = apply("/api/v1/namespaces/default/configmaps/settings", "deployer", false, cm);
        assertEquals(201, created.code(), created.body());
        JsonObject mine = entry(created.json(), "deployer", "Apply");
        assertEquals(JsonParser.parseString("{\"f:data\":{\"f:mode\":{}},\"f:metadata\":{\"f:labels\":{\"f:app\":{}}}}"),
                mine.get("fieldsV1"), created.body());
        assertEquals("v1", mine.get("apiVersion").getAsString());
        assertEquals("FieldsV1", mine.get("fieldsType").getAsString());

        Clients.Raw again = apply("/api/v1/namespaces/default/configmaps/settings", "deployer", false, cm);
        assertEquals(200, again.code(), again.body());
        assertEquals(created.json().getAsJsonObject("metadata").get("resourceVersion"),
                again.json().getAsJsonObject("metadata").get("resourceVersion"), "an unchanged apply writes nothing");
    }

    /**
     * {@code capManagersManager} (capmanagers.go): past ten managers from updates, the oldest are merged into one
     * {@code ancient-changes} entry per API version; what they own stays owned, by the bucket.
     */
    @Test
    void elevenUpdateManagersAreCappedAtTenByMergingTheOldestIntoAncientChanges() throws Exception {
        Clients.Raw applied = apply("/api/v1/namespaces/default/configmaps/many", "deployer", false, """
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: many}
                data: {applied: "yes"}
                """);
        assertEquals(201, applied.code(), applied.body());
        JsonObject last = null;
        for (int i = 0; i < 11; i++) {
            Clients.Raw r = Clients.raw(client, "PATCH", "/api/v1/namespaces/default/configmaps/many?fieldManager=m"
                    + String.format("%02d", i), "application/merge-patch+json",
                    "{\"data\":{\"k" + i + "\":\"v\"}}");
            assertEquals(200, r.code(), r.body());
            last = r.json();
        }
        List<String> managers = new ArrayList<>();
        last.getAsJsonObject("metadata").getAsJsonArray("managedFields")
                .forEach(e -> managers.add(e.getAsJsonObject().get("manager").getAsString()));
        assertEquals(11, managers.size(), managers::toString);
        assertTrue(managers.contains("deployer"), "an applier is never merged");
        assertTrue(managers.contains("ancient-changes") && !managers.contains("m00") && !managers.contains("m01"),
                managers::toString);
        assertEquals(JsonParser.parseString("{\"f:data\":{\"f:k0\":{},\"f:k1\":{}}}"),
                entry(last, "ancient-changes", "Update").get("fieldsV1"), "the bucket owns what the merged owned");
        assertEquals("v1", entry(last, "ancient-changes", "Update").get("apiVersion").getAsString());
        assertTrue(managers.contains("m10") && managers.contains("m02"), managers::toString);
    }

    @Test
    void applyNeedsAFieldManagerAndForceIsForApplyAlone() throws Exception {
        Clients.Raw noManager = Clients.raw(client, "PATCH", "/api/v1/namespaces/default/configmaps/a", APPLY,
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
        assertEquals(422, noManager.code(), noManager.body());
        assertEquals("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply "
                + "patch", noManager.json().get("message").getAsString());

        apply("/api/v1/namespaces/default/configmaps/a", "me", false, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
        Clients.Raw forcedMerge = Clients.raw(client, "PATCH", "/api/v1/namespaces/default/configmaps/a?force=true",
                "application/merge-patch+json", "{\"data\":{\"k\":\"v\"}}");
        assertEquals(422, forcedMerge.code(), forcedMerge.body());
        assertEquals(List.of("force"), causeFields(forcedMerge.json()));

        Clients.Raw wrongVersion = apply(DEPLOYMENTS + "/web", "me", false,
                deployment(1, "app:1").replace("apps/v1", "apps/v1beta1"));
        assertEquals(400, wrongVersion.code(), wrongVersion.body());
        assertTrue(wrongVersion.body().contains("Incorrect version specified in apply patch. Specified patch "
                + "version: apps/v1beta1, expected: apps/v1"), wrongVersion.body());

        Clients.Raw otherName = apply(DEPLOYMENTS + "/other", "me", false, deployment(1, "app:1"));
        assertEquals(400, otherName.code(), otherName.body());
        assertEquals(404, Clients.raw(client, "GET", DEPLOYMENTS + "/other", null, null).code(),
                "a refused apply creates nothing");

        Clients.Raw withManaged = apply("/api/v1/namespaces/default/configmaps/a", "me", false,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  managedFields: [{manager: x}]\n");
        assertEquals(400, withManaged.code(), withManaged.body());
        assertEquals("metadata.managedFields must be nil", withManaged.json().get("message").getAsString());
    }

    @Test
    void aFieldAnotherManagerSetIsAConflictUntilForced() throws Exception {
        Clients.Raw created = Clients.raw(client, "POST", DEPLOYMENTS + "?fieldManager=autoscaler",
                "application/json", Json.text(Json.GSON.toJsonTree(new org.yaml.snakeyaml.Yaml().load(
                        deployment(3, "app:1")))));
        assertEquals(201, created.code(), created.body());
        assertEquals("Update", entry(created.json(), "autoscaler", "Update").get("operation").getAsString());

        Clients.Raw conflict = apply(DEPLOYMENTS + "/web", "deployer", false, deployment(5, "app:2"));
        assertEquals(409, conflict.code(), conflict.body());
        JsonObject status = conflict.json();
        assertEquals("Conflict", status.get("reason").getAsString());
        assertEquals(List.of(".spec.replicas", ".spec.template.spec.containers[name=\"app\"].image"),
                causeFields(status));
        assertEquals("Apply failed with 2 conflicts: conflicts with \"autoscaler\" using apps/v1:\n- .spec.replicas\n"
                + "- .spec.template.spec.containers[name=\"app\"].image", status.get("message").getAsString());
        assertEquals("FieldManagerConflict", status.getAsJsonObject("details").getAsJsonArray("causes").get(0)
                .getAsJsonObject().get("reason").getAsString());
        JsonObject unchanged = Clients.raw(client, "GET", DEPLOYMENTS + "/web", null, null).json();
        assertEquals(3, unchanged.getAsJsonObject("spec").get("replicas").getAsInt(), "a conflict writes nothing");

        // The same value is no conflict: both own it.
        Clients.Raw shared = apply(DEPLOYMENTS + "/web", "deployer", false, deployment(3, "app:1"));
        assertEquals(200, shared.code(), shared.body());
        assertTrue(entry(shared.json(), "deployer", "Apply").getAsJsonObject("fieldsV1")
                .getAsJsonObject("f:spec").has("f:replicas"));
        assertTrue(entry(shared.json(), "autoscaler", "Update").getAsJsonObject("fieldsV1")
                .getAsJsonObject("f:spec").has("f:replicas"));

        Clients.Raw forced = apply(DEPLOYMENTS + "/web", "deployer", true, deployment(5, "app:2"));
        assertEquals(200, forced.code(), forced.body());
        JsonObject spec = forced.json().getAsJsonObject("spec");
        assertEquals(5, spec.get("replicas").getAsInt());
        assertEquals("app:2", spec.getAsJsonObject("template").getAsJsonObject("spec").getAsJsonArray("containers")
                .get(0).getAsJsonObject().get("image").getAsString());
        JsonObject autoscaler = entry(forced.json(), "autoscaler", "Update");
        assertFalse(autoscaler.getAsJsonObject("fieldsV1").getAsJsonObject("f:spec").has("f:replicas"),
                "a forced apply takes the field over: " + autoscaler);
    }

    @Test
    void whatAnApplierDropsIsRemovedUnlessAnotherApplierOwnsIt() throws Exception {
        String path = "/api/v1/namespaces/default/configmaps/c";
        apply(path, "a", false, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: '1', y: '2', z: '3'}\n");
        apply(path, "b", false, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {y: '2'}\n");
        Clients.Raw pruned = apply(path, "a", false, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: '1'}\n");
        assertEquals(200, pruned.code(), pruned.body());
        JsonObject data = pruned.json().getAsJsonObject("data");
        assertEquals("1", data.get("x").getAsString());
        assertEquals("2", data.get("y").getAsString(), "b still applies y");
        assertNull(data.get("z"), "only a applied z, and a applies it no longer");
    }

    @Test
    void keyedListsMergeItemByItem() throws Exception {
        assertEquals(201, apply(DEPLOYMENTS + "/web", "deployer", false, deployment(1, "app:1")).code());
        // Another manager adds a sidecar through a strategic merge patch (keyed by name).
        Clients.Raw sidecar = Clients.raw(client, "PATCH", DEPLOYMENTS + "/web?fieldManager=injector",
                "application/strategic-merge-patch+json",
                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"proxy\",\"image\":\"proxy:1\"}]}}}}");
        assertEquals(200, sidecar.code(), sidecar.body());
        JsonObject injector = entry(sidecar.json(), "injector", "Update");
        // The defaults the server filled in belong to the writer too, as on a real server.
        assertEquals(JsonParser.parseString("""
                {"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"proxy\\"}":{".":{},
                "f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},
                "f:terminationMessagePolicy":{}}}}}}}"""), injector.get("fieldsV1"), sidecar.body());

        Clients.Raw updated = apply(DEPLOYMENTS + "/web", "deployer", false, deployment(1, "app:2"));
        assertEquals(200, updated.code(), updated.body());
        JsonArray containers = updated.json().getAsJsonObject("spec").getAsJsonObject("template")
                .getAsJsonObject("spec").getAsJsonArray("containers");
        assertEquals(2, containers.size(), updated.body());
        assertEquals("app:2", containers.get(0).getAsJsonObject().get("image").getAsString());
        assertEquals("proxy", containers.get(1).getAsJsonObject().get("name").getAsString());
    }

    @Test
    void aCustomResourcesListTypesFromItsSchemaDecideHowAppliersShareIt() throws Exception {
        Clients.Raw crd = Clients.raw(client, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                "application/json", Json.text(Json.GSON.toJsonTree(new org.yaml.snakeyaml.Yaml().load("""
                        apiVersion: apiextensions.k8s.io/v1
                        kind: CustomResourceDefinition
                        metadata: {name: gateways.example.com}
                        spec:
                          group: example.com
                          scope: Namespaced
                          names: {plural: gateways, singular: gateway, kind: Gateway, listKind: GatewayList}
                          versions:
                          - name: v1
                            served: true
                            storage: true
                            schema:
                              openAPIV3Schema:
                                type: object
                                properties:
                                  spec:
                                    type: object
                                    properties:
                                      listeners:
                                        type: array
                                        x-kubernetes-list-type: map
                                        x-kubernetes-list-map-keys: [name]
                                        items:
                                          type: object
                                          required: [name]
                                          properties:
                                            name: {type: string}
                                            port: {type: integer}
                                      hosts:
                                        type: array
                                        x-kubernetes-list-type: set
                                        items: {type: string}
                                      routes:
                                        type: array
                                        items: {type: string}
                        """))));
        assertEquals(201, crd.code(), crd.body());
        String path = "/apis/example.com/v1/namespaces/default/gateways/gw";
        String head = "apiVersion: example.com/v1\nkind: Gateway\nmetadata: {name: gw}\nspec:\n";
        Clients.Raw first = apply(path, "team-a", false, head
                + "  listeners: [{name: http, port: 80}]\n  hosts: [a.example.com]\n  routes: [/a]\n");
        assertEquals(201, first.code(), first.body());
        Clients.Raw second = apply(path, "team-b", false, head
                + "  listeners: [{name: https, port: 443}]\n  hosts: [b.example.com]\n");
        assertEquals(200, second.code(), second.body());
        JsonObject spec = second.json().getAsJsonObject("spec");
        assertEquals(2, spec.getAsJsonArray("listeners").size(), "a map list merges item by item: " + spec);
        assertEquals(2, spec.getAsJsonArray("hosts").size(), "a set merges value by value: " + spec);
        assertEquals(JsonParser.parseString("{\"f:spec\":{\"f:hosts\":{\"v:\\\"b.example.com\\\"\":{}},"
                + "\"f:listeners\":{\"k:{\\\"name\\\":\\\"https\\\"}\":{\".\":{},\"f:name\":{},"
                + "\"f:port\":{}}}}}"), entry(second.json(), "team-b", "Apply").get("fieldsV1"));

        // An atomic list is one field: another applier setting it differently is a conflict on the whole list.
        Clients.Raw routes = apply(path, "team-b", false, head + "  routes: [/b]\n");
        assertEquals(409, routes.code(), routes.body());
        assertEquals(List.of(".spec.routes"), causeFields(routes.json()));

        // team-a drops its listener: only that item goes; team-b's stays.
        Clients.Raw dropped = apply(path, "team-a", false, head + "  hosts: [a.example.com]\n  routes: [/a]\n");
        assertEquals(200, dropped.code(), dropped.body());
        JsonArray listeners = dropped.json().getAsJsonObject("spec").getAsJsonArray("listeners");
        assertEquals(1, listeners.size(), dropped.body());
        assertEquals("https", listeners.get(0).getAsJsonObject().get("name").getAsString());
    }

    @Test
    void anUpdateWithoutFieldManagerIsOwnedByTheUserAgentPrefix() throws Exception {
        Clients.Raw created = Clients.raw(client, "POST", "/api/v1/namespaces/default/configmaps",
                "application/json", "{\"metadata\":{\"name\":\"ua\"},\"data\":{\"k\":\"v\"}}");
        assertEquals(201, created.code(), created.body());
        JsonObject only = created.json().getAsJsonObject("metadata").getAsJsonArray("managedFields").get(0)
                .getAsJsonObject();
        // okhttp's User-Agent "okhttp/4.x": the part before the first "/".
        assertEquals("okhttp", only.get("manager").getAsString(), created.body());
        assertEquals("Update", only.get("operation").getAsString());
        assertTrue(only.has("time"));
        assertEquals(JsonParser.parseString("{\"f:data\":{\".\":{},\"f:k\":{}}}"), only.get("fieldsV1"));
    }

    @Test
    void kubectlServerSideApplyTakesOverItsClientSideApplyAndStopsAtAnotherManagersFields() throws Exception {
        Kubectl kubectl = new Kubectl(kube.writeKubeconfig(dir), dir);
        Path v1 = dir.resolve("web.yaml");
        Files.writeString(v1, deployment(2, "app:1"));
        kubectl.run("apply", "-f", v1.toString()).ok();

        // Upgrading from client-side apply: kubectl takes over its own fields without --force-conflicts.
        Files.writeString(v1, deployment(3, "app:1"));
        Kubectl.Run upgraded = kubectl.run("apply", "--server-side", "-f", v1.toString()).ok();
        assertTrue(upgraded.out().contains("deployment.apps/web serverside-applied"), upgraded.out());

        kubectl.run("patch", "deployment", "web", "-p", "{\"spec\":{\"replicas\":7}}").ok();
        Files.writeString(v1, deployment(4, "app:1"));
        Kubectl.Run refused = kubectl.run("apply", "--server-side", "-f", v1.toString());
        assertNotEquals(0, refused.exit(), refused.out());
        assertTrue(refused.err().contains("Apply failed with 1 conflict: conflict with \"kubectl-patch\" using "
                + "apps/v1: .spec.replicas"), refused.err());
        assertTrue(refused.err().contains(".spec.replicas"), refused.err());

        kubectl.run("apply", "--server-side", "--force-conflicts", "-f", v1.toString()).ok();
        String replicas = kubectl.run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}").ok().out();
        assertEquals("4", replicas.trim());
        String managers = kubectl.run("get", "deployment", "web", "--show-managed-fields", "-o",
                "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation};{end}").ok().out();
        assertTrue(managers.contains("kubectl/Apply;"), managers);
    }
}
