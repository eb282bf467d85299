package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * tenantplane refuses a tenant Pod for its containers' resources exactly when the host, whose namespace holds the
 * LimitRange and ResourceQuota an IsolationProfile renders, would refuse it: by LimitRanger's maximum (403), by the
 * validation that requests stay within the limits LimitRanger filled in (422), or by the quota's demand that every
 * container name what it counts (403). The host is the in-process API server, which runs all three.
 */
class LimitRangeAgreementTest {

    private static final Path EXAMPLE_PROFILE = Path.of("..", "examples", "yaml", "isolationprofile.yaml");
    private static final Path EXAMPLE_TENANT = Path.of("..", "examples", "yaml", "tenantcluster.yaml");

    /** Container resources, as JSON; {@code init} puts them on an init container instead. */
    private static final Map<String, String> ROWS = new LinkedHashMap<>();

    static {
        ROWS.put("none", "{}");
        ROWS.put("a cpu limit of 1", "{\"limits\": {\"cpu\": \"1\"}}");
        ROWS.put("a cpu limit at the maximum", "{\"limits\": {\"cpu\": \"2000m\"}}");
        ROWS.put("a cpu limit of 3", "{\"limits\": {\"cpu\": \"3\"}}");
        ROWS.put("a memory limit of 8Gi", "{\"limits\": {\"memory\": \"8Gi\"}}");
        ROWS.put("a memory limit of 4Gi", "{\"limits\": {\"memory\": \"4Gi\"}}");
        ROWS.put("a cpu request of 3 alone", "{\"requests\": {\"cpu\": \"3\"}}");
        ROWS.put("a cpu request of 1 alone", "{\"requests\": {\"cpu\": \"1\"}}");
        ROWS.put("a cpu request of 400m alone", "{\"requests\": {\"cpu\": \"400m\"}}");
        ROWS.put("a cpu request of 1 under a limit of 2", "{\"requests\": {\"cpu\": \"1\"}, \"limits\": {\"cpu\": \"2\"}}");
        ROWS.put("a cpu request of 2500m under a limit of 3", "{\"requests\": {\"cpu\": \"2500m\"}, \"limits\": {\"cpu\": \"3\"}}");
        ROWS.put("a memory request of 600Mi alone", "{\"requests\": {\"memory\": \"600Mi\"}}");
        ROWS.put("a memory request of 256Mi alone", "{\"requests\": {\"memory\": \"256Mi\"}}");
        ROWS.put("ephemeral storage, which the LimitRange does not bound", "{\"limits\": {\"ephemeral-storage\": \"100Gi\"}}");
        ROWS.put("init: a cpu limit of 3", "{\"limits\": {\"cpu\": \"3\"}}");
        ROWS.put("init: a cpu limit of 1", "{\"limits\": {\"cpu\": \"1\"}}");
    }

    @Test
    void tenantplaneRefusesAPodsResourcesExactlyWhenTheHostsLimitRangeWould() throws Exception {
        agreement(Manifests.read(EXAMPLE_PROFILE).get(0).object(), ROWS);
    }

    /**
     * A profile whose quota counts cpu limits and memory requests while its limits give only a default cpu request:
     * the host's quota admission refuses every pod whose containers do not name a cpu limit or a memory request
     * ({@code must specify}); tenantplane refuses the same ones ({@code ResourcesRequired}).
     */
    @Test
    void tenantplaneRefusesAPodExactlyWhenTheHostsQuotaWouldAskItForResources() throws Exception {
        JsonObject profile = Manifests.read(EXAMPLE_PROFILE).get(0).object();
        JsonObject spec = profile.getAsJsonObject("spec");
        spec.add("limits", JsonParser.parseString("{\"defaultRequest\": {\"cpu\": \"100m\"}}"));
        spec.add("quota", JsonParser.parseString("{\"hard\": {\"limits.cpu\": \"8\", \"requests.memory\": \"8Gi\", "
                + "\"pods\": \"50\"}}"));
        Map<String, String> rows = new LinkedHashMap<>();
        rows.put("none", "{}");
        rows.put("a cpu limit only", "{\"limits\": {\"cpu\": \"1\"}}");
        rows.put("a memory request only", "{\"requests\": {\"memory\": \"256Mi\"}}");
        rows.put("a cpu limit and a memory request", "{\"limits\": {\"cpu\": \"1\"}, \"requests\": {\"memory\": \"256Mi\"}}");
        rows.put("a cpu limit and a memory limit", "{\"limits\": {\"cpu\": \"1\", \"memory\": \"1Gi\"}}");
        rows.put("init: a cpu limit and a memory request", "{\"limits\": {\"cpu\": \"1\"}, \"requests\": {\"memory\": \"1Gi\"}}");
        rows.put("init: none", "{}");
        agreement(profile, rows);
    }

    /**
     * Renders {@code profileJson}'s LimitRange and ResourceQuota into a namespace of a fresh server and asks it, with a
     * dry run each (so the rows do not use up the quota), to admit a Pod with each row's container resources.
     */
    private static void agreement(JsonObject profileJson, Map<String, String> rows) throws Exception {
        TenantCluster tc = TenantCluster.fromJson(Manifests.read(EXAMPLE_TENANT).get(0).object()).orElseThrow();
        IsolationProfile profile = IsolationProfile.fromJson(profileJson).orElseThrow();
        assertEquals(List.of(), profile.validate());
        TransformOptions.ContainerLimits limits = TransformOptions.forProfile("dev", false, profile, null)
                .containerLimits();
        List<JsonObject> boundary = new IsolationRenderer().render(tc, profile).stream()
                .filter(o -> List.of("LimitRange", "ResourceQuota").contains(Json.string(o, "kind"))).toList();
        String ns = Json.string(boundary.get(0), "metadata", "namespace");
        HttpClient http = HttpClient.newHttpClient();
        List<String> disagreements = new ArrayList<>();
        int refused = 0;
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            post(http, server.url() + "/api/v1/namespaces", JsonParser.parseString(
                    "{\"metadata\": {\"name\": \"" + ns + "\"}}").getAsJsonObject());
            for (JsonObject o : boundary) {
                String plural = Json.string(o, "kind").equals("LimitRange") ? "limitranges" : "resourcequotas";
                HttpResponse<String> r = post(http, server.url() + "/api/v1/namespaces/" + ns + "/" + plural, o);
                assertEquals(201, r.statusCode(), r.body());
            }
            int n = 0;
            for (Map.Entry<String, String> row : rows.entrySet()) {
                boolean init = row.getKey().startsWith("init:");
                JsonObject container = JsonParser.parseString("{\"name\": \"c\", \"image\": \"nginx\"}")
                        .getAsJsonObject();
                container.add("resources", JsonParser.parseString(row.getValue()));
                String app = "{\"name\": \"app\", \"image\": \"nginx\", \"resources\": {\"limits\": {\"cpu\": \"1\"}, "
                        + "\"requests\": {\"memory\": \"64Mi\"}}}";
                JsonObject pod = JsonParser.parseString("{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": "
                        + "{\"name\": \"p" + n++ + "\"}, \"spec\": {\"containers\": [" + app + "]}}").getAsJsonObject();
                if (init) {
                    container.addProperty("name", "init");
                    Json.child(pod, "spec").add("initContainers", JsonParser.parseString("[" + container + "]"));
                } else {
                    Json.child(pod, "spec").add("containers", JsonParser.parseString("[" + container + "]"));
                }
                List<PodSecurity.Violation> violations = new ArrayList<>(ContainerLimitCheck.check(pod, limits));
                violations.addAll(ContainerLimitCheck.required(pod, limits));
                HttpResponse<String> r = post(http, server.url() + "/api/v1/namespaces/" + ns + "/pods?dryRun=All",
                        pod);
                boolean serverRefuses = (r.statusCode() == 403 && (r.body().contains("usage per Container")
                        || r.body().contains("failed quota")))
                        || (r.statusCode() == 422 && r.body().contains("must be less than or equal to"));
                if (!serverRefuses && r.statusCode() != 201) {
                    fail(row.getKey() + ": refused for another reason (" + r.statusCode() + "): " + r.body());
                }
                refused += serverRefuses ? 1 : 0;
                if (serverRefuses == violations.isEmpty()) {
                    disagreements.add(row.getKey() + ": server " + (serverRefuses ? "refuses: " + r.body() : "admits")
                            + "; tenantplane " + (violations.isEmpty() ? "admits" : "refuses " + violations));
                }
            }
        }
        assertEquals(List.of(), disagreements);
        assertTrue(refused >= 2 && refused <= rows.size() - 2, refused + " of " + rows.size() + " refused");
    }

    /** The transform refuses such a pod in the plan, naming the field and the maximum, before anything is written. */
    @Test
    void theTransformRefusesAPodAboveTheProfilesMaximumNamingTheField() {
        IsolationProfile profile = IsolationProfile.fromJson(Manifests.read(EXAMPLE_PROFILE).get(0).object())
                .orElseThrow();
        io.tenantplane.model.SyncPolicy policy = io.tenantplane.model.SyncPolicy.fromJson(
                Manifests.read(Path.of("..", "examples", "yaml", "syncpolicy.yaml")).get(0).object()).orElseThrow();
        Transformer t = new Transformer("dev", "team-dev", policy, TransformOptions.forProfile("dev", false, profile,
                policy).withTenantApi(null));
        JsonObject pod = JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","namespace":"default","uid":"u1"},
                 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                   "automountServiceAccountToken":false,
                   "containers":[{"name":"app","image":"nginx","resources":{"limits":{"cpu":"4"}},
                     "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}""")
                .getAsJsonObject();

        TransformResult r = t.transform(pod);

        TransformResult.Rejected rejected = org.junit.jupiter.api.Assertions.assertInstanceOf(
                TransformResult.Rejected.class, r, r::toString);
        assertEquals(TransformResult.CONTAINER_LIMITS_EXCEEDED, rejected.reason());
        assertEquals("spec.containers[0].resources.limits.cpu", rejected.fieldPath());
        assertTrue(rejected.message().contains("a cpu limit of 4 is more than the host's LimitRange lets one container "
                + "have (2, the isolation profile's spec.limits.max.cpu)"), rejected.message());
    }

    /** A quota that counts what the profile gives no default for refuses the pod in the plan, naming the field. */
    @Test
    void theTransformRefusesAPodLackingWhatTheQuotaCountsNamingTheFieldAndTheDefault() {
        JsonObject json = Manifests.read(EXAMPLE_PROFILE).get(0).object();
        json.getAsJsonObject("spec").remove("limits");
        json.getAsJsonObject("spec").add("quota", JsonParser.parseString("{\"hard\": {\"limits.cpu\": \"8\"}}"));
        IsolationProfile profile = IsolationProfile.fromJson(json).orElseThrow();
        io.tenantplane.model.SyncPolicy policy = io.tenantplane.model.SyncPolicy.fromJson(
                Manifests.read(Path.of("..", "examples", "yaml", "syncpolicy.yaml")).get(0).object()).orElseThrow();
        Transformer t = new Transformer("dev", "team-dev", policy, TransformOptions.forProfile("dev", false, profile,
                policy));
        JsonObject pod = JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","uid":"u1"},
                 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                   "automountServiceAccountToken":false,
                   "containers":[{"name":"app","image":"nginx","resources":{"requests":{"cpu":"100m"}},
                     "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}""")
                .getAsJsonObject();

        TransformResult r = t.transform(pod);

        TransformResult.Rejected rejected = org.junit.jupiter.api.Assertions.assertInstanceOf(
                TransformResult.Rejected.class, r, r::toString);
        assertEquals(TransformResult.RESOURCES_REQUIRED, rejected.reason());
        assertEquals("spec.containers[0].resources.limits.cpu", rejected.fieldPath());
        assertTrue(rejected.message().contains("give the profile spec.limits.default.cpu"), rejected.message());
    }

    private static HttpResponse<String> post(HttpClient http, String url, JsonObject body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
