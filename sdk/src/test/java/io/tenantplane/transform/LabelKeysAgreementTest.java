package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.plan.PlannerPropertyTestAccess;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A tenant Pod whose affinity terms use {@code matchLabelKeys} and {@code mismatchLabelKeys}, as a Deployment's pods
 * do ({@code pod-template-hash}): the tenant API server merges the keys into each term's selector when it stores the
 * Pod, and a host API server given that Pod as it is would merge them a second time and refuse it. Both servers are
 * the in-process one, which merges and validates them as {@code mutatePodAffinity} and
 * {@code validateMatchLabelKeysAndMismatchLabelKeys} do.
 */
class LabelKeysAgreementTest {

    private static final String TENANT_POD = """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-abc-1","namespace":"default",
              "labels":{"app":"web","pod-template-hash":"abc","track":"canary"}},
             "spec":{"containers":[{"name":"c","image":"nginx"}],
              "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
                {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname",
                 "matchLabelKeys":["pod-template-hash"],"mismatchLabelKeys":["track"]}]}},
              "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",
                "whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"web"}},
                "matchLabelKeys":["pod-template-hash"]}]}}""";

    @Test
    void aTenantPodsLabelKeysAreResolvedOnceSoTheHostTakesItsCopy() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            post(http, server.url() + "/api/v1/namespaces", JsonParser.parseString(
                    "{\"metadata\":{\"name\":\"team-dev\"}}").getAsJsonObject());
            HttpResponse<String> stored = post(http, server.url() + "/api/v1/namespaces/default/pods",
                    JsonParser.parseString(TENANT_POD).getAsJsonObject());
            assertEquals(201, stored.statusCode(), stored.body());
            JsonObject tenantPod = JsonParser.parseString(stored.body()).getAsJsonObject();
            JsonObject storedTerm = term(tenantPod);
            assertEquals(2, Json.array(Json.object(storedTerm, "labelSelector"), "matchExpressions").size(),
                    "the tenant API server merged both keys into the selector: " + storedTerm);

            // The Pod as the tenant stores it, given to a host as it is: refused.
            JsonObject asIs = tenantPod.deepCopy();
            JsonObject meta = asIs.getAsJsonObject("metadata");
            for (String f : new String[] {"uid", "resourceVersion", "creationTimestamp", "managedFields"}) {
                meta.remove(f);
            }
            meta.addProperty("namespace", "team-dev");
            HttpResponse<String> refused = post(http, server.url() + "/api/v1/namespaces/team-dev/pods", asIs);
            assertEquals(422, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("exists in both matchLabelKeys and labelSelector"), refused.body());

            // Its host copy: the keys resolved once, the host takes it.
            Transformer transformer = new Transformer("dev", "team-dev", PlannerPropertyTestAccess.policy("Pod"),
                    TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED));
            TransformResult.Transformed t = assertInstanceOf(TransformResult.Transformed.class,
                    transformer.transform(tenantPod));
            HttpResponse<String> taken = post(http, server.url() + "/api/v1/namespaces/team-dev/pods", t.host());
            assertEquals(201, taken.statusCode(), taken.body());
            JsonObject hostPod = JsonParser.parseString(taken.body()).getAsJsonObject();
            JsonObject hostTerm = term(hostPod);
            assertFalse(hostTerm.has("matchLabelKeys") || hostTerm.has("mismatchLabelKeys"), hostTerm.toString());
            assertEquals(1, count(hostTerm, "pod-template-hash", "In", "abc"), hostTerm.toString());
            assertEquals(1, count(hostTerm, "track", "NotIn", "canary"), hostTerm.toString());
            JsonObject spread = Json.array(hostPod.getAsJsonObject("spec"), "topologySpreadConstraints").get(0)
                    .getAsJsonObject();
            assertFalse(spread.has("matchLabelKeys"), spread.toString());
            assertEquals(1, count(spread, "pod-template-hash", "In", "abc"), spread.toString());
            assertTrue(t.notes().stream().anyMatch(n -> n.contains("matchLabelKeys")), t.notes().toString());
        }
    }

    private static JsonObject term(JsonObject pod) {
        return Json.array(Json.object(pod, "spec", "affinity", "podAntiAffinity"),
                "requiredDuringSchedulingIgnoredDuringExecution").get(0).getAsJsonObject();
    }

    private static long count(JsonObject term, String key, String operator, String value) {
        JsonArray exprs = Json.array(Json.object(term, "labelSelector"), "matchExpressions");
        long n = 0;
        for (JsonElement e : exprs == null ? new JsonArray() : exprs) {
            JsonObject r = e.getAsJsonObject();
            if (key.equals(Json.string(r, "key")) && operator.equals(Json.string(r, "operator"))
                    && r.getAsJsonArray("values").size() == 1
                    && value.equals(r.getAsJsonArray("values").get(0).getAsString())) {
                n++;
            }
        }
        return n;
    }

    private static HttpResponse<String> post(HttpClient http, String url, JsonObject body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
