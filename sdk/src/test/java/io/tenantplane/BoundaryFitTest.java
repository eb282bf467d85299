package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The tenant's own pods (control plane, DNS, agents) against the LimitRange and quota its profile renders, starting
 * from the quickstart's pair (examples/yaml), which fits: each case changes one thing and names the profile field the
 * check must report and a fragment of its message. The same pods are admitted or refused by the testkit's LimitRanger
 * and quota admission in {@code plan.QuickstartAdmissionTest} and {@code it.ProvisionIT}.
 */
class BoundaryFitTest {
    private static final Path EXAMPLES = Path.of("..", "examples", "yaml");

    private static JsonObject example(String file) {
        return Manifests.read(EXAMPLES.resolve(file)).get(0).object();
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("the quickstart fits", (Consumer<JsonObject>) p -> { }, (Consumer<JsonObject>) t -> { },
                        null, null),
                Arguments.of("a quota of one pod has no room for the control plane and DNS",
                        quota("pods", "1"), none(), "spec.quota.hard[pods]",
                        "1 leaves no room for what tenantplane runs for tenant dev in namespace team-dev, which needs "
                                + "3 (StatefulSet dev-control-plane ×1, Deployment dev-dns ×2)"),
                Arguments.of("a cpu maximum below the control plane's limit refuses its pod",
                        limit("max", "cpu", "500m"), none(), "spec.limits.max.cpu",
                        "refuses the pods of tenant dev's own StatefulSet dev-control-plane "
                                + "(spec.containers[0].resources.limits.cpu): a cpu limit of 1 is more than"),
                Arguments.of("a memory request quota below the control plane's and DNS's requests",
                        quota("requests.memory", "256Mi"), none(), "spec.quota.hard[requests.memory]",
                        "which needs 672Mi (StatefulSet dev-control-plane ×1, Deployment dev-dns ×2)"),
                Arguments.of("a quota on cpu limits without a default cpu limit (none, and no maximum it would default "
                                + "to) refuses the DNS pods, which name none",
                        quota("limits.cpu", "8").andThen(p -> {
                            Json.child(p, "spec", "limits", "default").remove("cpu");
                            Json.child(p, "spec", "limits", "max").remove("cpu");
                        }), none(), "spec.quota.hard[limits.cpu]",
                        "own Deployment dev-dns (spec.containers[0].resources.limits.cpu): the isolation profile's "
                                + "quota counts limits.cpu"),
                Arguments.of("no claims allowed leaves the datastore without one",
                        quota("persistentvolumeclaims", "0"), none(), "spec.quota.hard[persistentvolumeclaims]",
                        "which needs 1 (StatefulSet dev-control-plane ×1)"),
                Arguments.of("storage below the datastore's claim",
                        quota("requests.storage", "1Gi"), none(), "spec.quota.hard[requests.storage]",
                        "which needs 5Gi"),
                Arguments.of("in private mode the agents, not the DNS, are the tenant's own pods, and they fit",
                        none(), (Consumer<JsonObject>) t -> Json.child(t, "spec").addProperty("mode", "private"),
                        null, null),
                Arguments.of("in private mode the boundary is the agents' namespace: one pod has no room for two agents",
                        quota("pods", "1"), (Consumer<JsonObject>) t -> Json.child(t, "spec").addProperty("mode",
                                "private"), "spec.quota.hard[pods]", "in namespace team-dev-x-dev, which needs 2 "
                                + "(StatefulSet dev-agent ×2)"),
                Arguments.of("three control plane replicas need three pods more than one",
                        quota("pods", "3"), (Consumer<JsonObject>) t -> {
                            Json.child(t, "spec", "controlPlane").addProperty("replicas", 3);
                            Json.child(t, "spec", "controlPlane", "datastore").addProperty("type", "etcd");
                        }, "spec.quota.hard[pods]", "which needs 5 (StatefulSet dev-control-plane ×3, Deployment "
                                + "dev-dns ×2)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theTenantsOwnPodsFitTheBoundaryOrTheProfileFieldIsNamed(String name, Consumer<JsonObject> profileChange,
            Consumer<JsonObject> tenantChange, String field, String message) {
        Pair pair = Pair.of(profileChange, tenantChange);
        TenantCluster tc = pair.tc();
        IsolationProfile profile = pair.profile();
        assertEquals(List.of(), profile.validate(), "the profile itself is valid");
        List<Problem> problems = BoundaryFit.problems(tc, profile, TenantRendering.of(tc, profile));
        if (field == null) {
            assertEquals(List.of(), problems);
            return;
        }
        assertEquals(1, problems.size(), problems::toString);
        Problem only = problems.get(0);
        assertEquals(field, only.field(), only::toString);
        assertEquals("IsolationProfile restricted", only.source());
        assertTrue(only.message().contains(message), only.message());
    }

    /**
     * The check agrees with the host: each case's boundary and control plane, written as rendered (without the check)
     * into a simulated host whose StatefulSet and Deployment controllers make the pods under the namespace's
     * LimitRanger and quota admission, either runs every pod the tenant needs, or the host refuses one (a
     * {@code FailedCreate} Event of the StatefulSet controller, a {@code ReplicaFailure} of a ReplicaSet), exactly
     * when the check names a problem.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theHostRefusesTheTenantsOwnPodsExactlyWhenTheCheckSaysSo(String name, Consumer<JsonObject> profileChange,
            Consumer<JsonObject> tenantChange, String field, String message) throws Exception {
        Pair pair = Pair.of(profileChange, tenantChange);
        List<JsonObject> rendered = TenantRendering.of(pair.tc(), pair.profile());
        long wanted = rendered.stream().filter(o -> List.of("StatefulSet", "Deployment").contains(
                Json.string(o, "kind"))).mapToLong(o -> Json.number(o, 1, "spec", "replicas")).sum();
        HttpClient http = HttpClient.newHttpClient();
        try (KubeApiServer server = KubeApiServer.builder().namespaces("team-dev")
                .simulate(Simulation.builder().nodes(1).build()).build().start()) {
            for (JsonObject o : rendered) {
                ResourceKind kind = ResourceKind.wellKnown(Json.string(o, "apiVersion"), Json.string(o, "kind"))
                        .orElseThrow();
                String path = kind.namespaced() ? kind.collectionPath(Json.string(o, "metadata", "namespace"))
                        : kind.collectionPath(null);
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url() + path))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                                o.toString())).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 409 && "Namespace".equals(Json.string(o, "kind"))) {
                    String put = server.url() + kind.objectPath(null, Json.string(o, "metadata", "name"));
                    JsonObject live = Json.gson().fromJson(http.send(HttpRequest.newBuilder(URI.create(put)).build(),
                            HttpResponse.BodyHandlers.ofString()).body(), JsonObject.class);
                    Json.child(live, "metadata").add("labels", Json.object(o, "metadata", "labels"));
                    r = http.send(HttpRequest.newBuilder(URI.create(put)).header("Content-Type", "application/json")
                            .PUT(HttpRequest.BodyPublishers.ofString(live.toString())).build(),
                            HttpResponse.BodyHandlers.ofString());
                }
                HttpResponse<String> taken = r;
                assertTrue(taken.statusCode() < 300, () -> "the host takes " + o.get("kind") + ": " + taken.body());
            }
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
            String refusal = null;
            long running = 0;
            while (System.nanoTime() < deadline && refusal == null && running < wanted) {
                refusal = refusal(http, server);
                running = items(http, server, "/api/v1/pods").stream()
                        .filter(pod -> "Running".equals(Json.string(pod, "status", "phase"))).count();
                Thread.sleep(20);
            }
            if (field == null) {
                assertEquals(wanted, running, "every pod the tenant needs runs");
                assertEquals(null, refusal);
            } else {
                assertTrue(refusal != null, () -> "the host refuses one of the tenant's own pods, as the check says");
            }
        }
    }

    private static String refusal(HttpClient http, KubeApiServer server) throws Exception {
        for (JsonObject e : items(http, server, "/api/v1/events")) {
            if ("FailedCreate".equals(Json.string(e, "reason"))) {
                return Json.string(e, "message");
            }
        }
        for (JsonObject rs : items(http, server, "/apis/apps/v1/replicasets")) {
            com.google.gson.JsonArray conditions = Json.array(Json.object(rs, "status"), "conditions");
            for (com.google.gson.JsonElement c : conditions == null ? new com.google.gson.JsonArray() : conditions) {
                if ("ReplicaFailure".equals(Json.string(c.getAsJsonObject(), "type"))) {
                    return Json.string(c.getAsJsonObject(), "message");
                }
            }
        }
        return null;
    }

    private static List<JsonObject> items(HttpClient http, KubeApiServer server, String path) throws Exception {
        JsonObject list = Json.gson().fromJson(http.send(HttpRequest.newBuilder(URI.create(server.url() + path))
                .build(), HttpResponse.BodyHandlers.ofString()).body(), JsonObject.class);
        List<JsonObject> out = new java.util.ArrayList<>();
        list.getAsJsonArray("items").forEach(e -> out.add(e.getAsJsonObject()));
        return out;
    }

    @Test
    void renderRefusesAProfileThatWouldRefuseTheTenantsOwnPods() {
        JsonObject p = example("isolationprofile.yaml");
        quota("pods", "1").accept(p);
        InvalidResourceException e = assertThrows(InvalidResourceException.class, () -> TenantPlane.builder()
                .build().render(TenantCluster.fromJson(example("tenantcluster.yaml")).orElseThrow(),
                        IsolationProfile.fromJson(p).orElseThrow()));
        assertEquals("spec.quota.hard[pods]", e.problems().get(0).field());
    }

    /** The quickstart's TenantCluster and profile, each changed as a case says. */
    private record Pair(TenantCluster tc, IsolationProfile profile) {
        static Pair of(Consumer<JsonObject> profileChange, Consumer<JsonObject> tenantChange) {
            JsonObject p = example("isolationprofile.yaml");
            profileChange.accept(p);
            JsonObject t = example("tenantcluster.yaml");
            tenantChange.accept(t);
            return new Pair(TenantCluster.fromJson(t).orElseThrow(), IsolationProfile.fromJson(p).orElseThrow());
        }
    }

    private static Consumer<JsonObject> quota(String resource, String value) {
        return p -> Json.child(p, "spec", "quota", "hard").addProperty(resource, value);
    }

    private static Consumer<JsonObject> limit(String which, String resource, String value) {
        return p -> Json.child(p, "spec", "limits", which).addProperty(resource, value);
    }

    private static Consumer<JsonObject> none() {
        return x -> { };
    }
}
