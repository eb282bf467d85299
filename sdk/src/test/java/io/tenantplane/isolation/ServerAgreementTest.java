package io.tenantplane.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Build;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * tenantplane refuses an IsolationProfile's limits and quota exactly when an API server would refuse the LimitRange or
 * ResourceQuota rendered from them, checked by the profile's validation and by the in-process API server, which
 * checks them as {@code ValidateLimitRange} and {@code ValidateResourceQuotaSpec} do. A profile that passes renders
 * objects the server takes; one it refuses (naming the field and the fix, with nothing written) is one the server
 * would refuse.
 */
class ServerAgreementTest {

    private static final Path EXAMPLE_PROFILE = Path.of("..", "examples", "yaml", "isolationprofile.yaml");
    private static final Path EXAMPLE_TENANT = Path.of("..", "examples", "yaml", "tenantcluster.yaml");
    private static final List<String> VALUES = java.util.Arrays.asList(null, "100m", "500m", "1", "2");

    @Test
    void theProfilesValidationRefusesExactlyTheLimitRangesAnApiServerRefuses() throws Exception {
        TenantCluster tc = TenantCluster.fromJson(Manifests.read(EXAMPLE_TENANT).get(0).object()).orElseThrow();
        JsonObject base = Manifests.read(EXAMPLE_PROFILE).get(0).object();
        HttpClient http = HttpClient.newHttpClient();
        Tally tally = new Tally();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            post(http, server.url() + "/api/v1/namespaces", Build.obj("metadata", Build.obj("name", "team-dev")));
            int n = 0;
            for (String request : VALUES) {
                for (String limit : VALUES) {
                    for (String max : VALUES) {
                        if (request == null && limit == null && max == null) {
                            continue;
                        }
                        JsonObject json = base.deepCopy();
                        json.getAsJsonObject("spec").add("limits", Build.obj(
                                "defaultRequest", request == null ? null : Build.obj("cpu", request),
                                "default", limit == null ? null : Build.obj("cpu", limit),
                                "max", max == null ? null : Build.obj("cpu", max)));
                        IsolationProfile profile = IsolationProfile.fromJson(json).orElseThrow();
                        List<Problem> problems = profile.validate();
                        JsonObject limitRange;
                        if (problems.isEmpty()) {
                            limitRange = new IsolationRenderer().render(tc, profile).stream()
                                    .filter(o -> "LimitRange".equals(Json.string(o, "kind"))).findFirst()
                                    .orElseThrow();
                        } else {
                            limitRange = Build.obj("apiVersion", "v1", "kind", "LimitRange",
                                    "metadata", Build.obj("name", "x"), "spec", Build.obj("limits", List.of(Build.obj(
                                            "type", "Container", "defaultRequest", Json.object(json, "spec",
                                                    "limits", "defaultRequest"), "default", Json.object(json, "spec",
                                                    "limits", "default"), "max", Json.object(json, "spec", "limits",
                                                    "max")))));
                        }
                        limitRange.getAsJsonObject("metadata").addProperty("name", "lr-" + n++);
                        limitRange.getAsJsonObject("metadata").remove("namespace");
                        tally.record("defaultRequest=" + request + " default=" + limit + " max=" + max, problems,
                                post(http, server.url() + "/api/v1/namespaces/team-dev/limitranges", limitRange));
                    }
                }
            }
        }
        tally.assertAgreed(20);
    }

    private static HttpResponse<String> post(HttpClient http, String url, JsonObject body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The same for the quota: each hard limit below, alone in a profile, is refused by tenantplane exactly when the
     * API server refuses the ResourceQuota rendered from it (names the quota system does not track, object counts
     * that are not whole numbers, negative or malformed quantities).
     */
    @Test
    void theProfilesValidationRefusesExactlyTheQuotasAnApiServerRefuses() throws Exception {
        TenantCluster tc = TenantCluster.fromJson(Manifests.read(EXAMPLE_TENANT).get(0).object()).orElseThrow();
        JsonObject base = Manifests.read(EXAMPLE_PROFILE).get(0).object();
        List<String[]> limits = List.of(
                new String[] {"pods", "10"}, new String[] {"pods", "1500m"}, new String[] {"pods", "-1"},
                new String[] {"requests.cpu", "1500m"}, new String[] {"limits.memory", "16Gi"},
                new String[] {"requests.storage", "50Gi"}, new String[] {"storage", "50Gi"},
                new String[] {"gpu", "1"}, new String[] {"requests.nvidia.com/gpu", "2"},
                new String[] {"requests.nvidia.com/gpu", "1.5"}, new String[] {"nvidia.com/gpu", "1.5"},
                new String[] {"count/deployments.apps", "5"}, new String[] {"count/deployments.apps", "2.5"},
                new String[] {"hugepages-2Mi", "1Gi"}, new String[] {"services.loadbalancers", "0"},
                new String[] {"services", "lots"}, new String[] {"a/b/c", "1"}, new String[] {"Pods", "1"},
                new String[] {"configmaps", "20"}, new String[] {"ephemeral-storage", "10Gi"});
        HttpClient http = HttpClient.newHttpClient();
        Tally tally = new Tally();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            post(http, server.url() + "/api/v1/namespaces", Build.obj("metadata", Build.obj("name", "team-dev")));
            int n = 0;
            for (String[] limit : limits) {
                JsonObject json = base.deepCopy();
                json.getAsJsonObject("spec").add("quota", Build.obj("hard", Build.obj(limit[0], limit[1])));
                IsolationProfile profile = IsolationProfile.fromJson(json).orElseThrow();
                List<Problem> problems = profile.validate();
                JsonObject quota;
                if (problems.isEmpty()) {
                    quota = new IsolationRenderer().render(tc, profile).stream()
                            .filter(o -> "ResourceQuota".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
                } else {
                    quota = Build.obj("apiVersion", "v1", "kind", "ResourceQuota", "metadata", Build.obj("name", "x"),
                            "spec", Build.obj("hard", Build.obj(limit[0], limit[1])));
                }
                quota.getAsJsonObject("metadata").addProperty("name", "q-" + n++);
                quota.getAsJsonObject("metadata").remove("namespace");
                tally.record(limit[0] + ": " + limit[1], problems,
                        post(http, server.url() + "/api/v1/namespaces/team-dev/resourcequotas", quota));
            }
        }
        tally.assertAgreed(8);
    }

    /**
     * The Pod Security version of a profile: tenantplane refuses one exactly when the API server's PodSecurity
     * admission refuses the Namespace labelled with it ({@code ParseVersion}: "latest" or v1.x, no leading zero).
     */
    @Test
    void theProfilesValidationRefusesExactlyThePodSecurityVersionsAnApiServerRefuses() throws Exception {
        JsonObject tenant = Manifests.read(EXAMPLE_TENANT).get(0).object();
        tenant.getAsJsonObject("spec").addProperty("mode", "dedicated");
        TenantCluster tc = TenantCluster.fromJson(tenant).orElseThrow();
        JsonObject base = Manifests.read(EXAMPLE_PROFILE).get(0).object();
        HttpClient http = HttpClient.newHttpClient();
        Tally tally = new Tally();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            int n = 0;
            for (String version : List.of("latest", "v1.0", "v1.9", "v1.31", "v1.130", "v1.030", "v1.", "1.31",
                    "v2.1", "v1.31.0", "Latest", "v1.-1")) {
                JsonObject json = base.deepCopy();
                json.getAsJsonObject("spec").add("podSecurity", Build.obj("level", "baseline", "version", version));
                IsolationProfile profile = IsolationProfile.fromJson(json).orElseThrow();
                List<Problem> problems = profile.validate();
                JsonObject namespace = Build.obj("apiVersion", "v1", "kind", "Namespace", "metadata", Build.obj(
                        "labels", Build.obj("pod-security.kubernetes.io/enforce", "baseline",
                                "pod-security.kubernetes.io/enforce-version", version)));
                if (problems.isEmpty()) {
                    namespace = new IsolationRenderer().render(tc, profile).stream()
                            .filter(o -> "Namespace".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
                }
                namespace.getAsJsonObject("metadata").addProperty("name", "ns-" + n++);
                tally.record("version " + version, problems,
                        post(http, server.url() + "/api/v1/namespaces", namespace));
            }
        }
        tally.assertAgreed(4);
    }

    /**
     * The tolerations a profile adds to every tenant pod in dedicated mode: tenantplane refuses one exactly when the
     * API server refuses a Pod carrying it ({@code ValidateTolerations}).
     */
    @Test
    void theProfilesValidationRefusesExactlyTheTolerationsAnApiServerRefuses() throws Exception {
        JsonObject base = Manifests.read(EXAMPLE_PROFILE).get(0).object();
        List<String> tolerations = List.of(
                "{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"team-a\", \"effect\": \"NoSchedule\"}",
                "{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"team a\"}",
                "{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"" + "v".repeat(64) + "\"}",
                "{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"\"}",
                "{\"key\": \"bad key\", \"operator\": \"Exists\"}",
                "{\"key\": \"-bad\", \"operator\": \"Exists\"}",
                "{\"key\": \"example.com/gpu\", \"operator\": \"Exists\", \"effect\": \"NoSchedule\"}",
                "{\"operator\": \"Exists\"}",
                "{\"operator\": \"Equal\", \"value\": \"x\"}",
                "{\"key\": \"k\", \"operator\": \"Exists\", \"value\": \"v\"}",
                "{\"key\": \"k\", \"operator\": \"Exists\", \"effect\": \"NoSchedule\", \"tolerationSeconds\": 5}",
                "{\"key\": \"k\", \"operator\": \"Exists\", \"effect\": \"NoExecute\", \"tolerationSeconds\": 300}");
        HttpClient http = HttpClient.newHttpClient();
        Tally tally = new Tally();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            int n = 0;
            for (String toleration : tolerations) {
                JsonObject json = base.deepCopy();
                json.getAsJsonObject("spec").add("nodePlacement", Build.obj("tolerations",
                        List.of(com.google.gson.JsonParser.parseString(toleration))));
                IsolationProfile profile = IsolationProfile.fromJson(json).orElseThrow();
                List<Problem> problems = profile.validate();
                // As the transform adds it to a tenant pod (TransformOptions.forProfile, dedicated mode).
                JsonObject added = Json.gson().toJsonTree(profile.spec().nodePlacement().tolerations().get(0))
                        .getAsJsonObject();
                JsonObject pod = Build.obj("apiVersion", "v1", "kind", "Pod", "metadata", Build.obj("name", "p-" + n++),
                        "spec", Build.obj("containers", List.of(Build.obj("name", "c", "image", "nginx")),
                                "tolerations", List.of(added)));
                tally.record(toleration, problems, post(http, server.url() + "/api/v1/namespaces/default/pods", pod));
            }
        }
        tally.assertAgreed(4);
    }

    /** What the API server answered for each input, against what tenantplane's validation said. */
    private static final class Tally {
        private final List<String> disagreements = new ArrayList<>();
        private int accepted;
        private int refused;

        void record(String input, List<Problem> problems, HttpResponse<String> r) {
            boolean serverTakes = r.statusCode() == 201;
            if (serverTakes) {
                accepted++;
            } else {
                assertEquals(422, r.statusCode(), r.body());
                refused++;
            }
            if (serverTakes != problems.isEmpty()) {
                disagreements.add(input + ": tenantplane " + (problems.isEmpty() ? "accepts" : "refuses " + problems)
                        + ", the API server " + (serverTakes ? "accepts" : "refuses: " + r.body()));
            }
        }

        /** No disagreement, and each answer given at least {@code atLeast} times, so both are exercised. */
        void assertAgreed(int atLeast) {
            assertEquals(List.of(), disagreements);
            assertTrue(accepted >= atLeast && refused >= atLeast, accepted + " accepted, " + refused + " refused");
        }
    }
}
