package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.PlanRequest;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.SyncPolicy;
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
 * Everything the quickstart puts into {@code team-dev} is admitted there as a cluster would admit it: the boundary
 * and control plane that provisioning writes (in its order), the Pods the control plane's StatefulSet and the tenant
 * DNS Deployment make, and the tenant's nginx Pod and the objects it uses as a pass writes them. The host is the
 * in-process API server, which validates each object and runs the admission a cluster runs in that namespace:
 * Pod Security {@code restricted} (from the profile's labels), LimitRanger with the profile's LimitRange and the
 * profile's ResourceQuota. Nothing of it is refused, and the quota keeps room for the tenant's own workloads.
 */
class QuickstartAdmissionTest {

    private static final Path EXAMPLES = Path.of("..", "examples", "yaml");

    @Test
    void everythingTheQuickstartWritesIntoTheTenantsNamespaceIsAdmittedWithinItsQuota() throws Exception {
        TenantCluster tc = TenantCluster.fromJson(Manifests.read(EXAMPLES.resolve("tenantcluster.yaml")).get(0)
                .object()).orElseThrow();
        IsolationProfile profile = IsolationProfile.fromJson(Manifests.read(EXAMPLES.resolve("isolationprofile.yaml"))
                .get(0).object()).orElseThrow();
        SyncPolicy policy = SyncPolicy.fromJson(Manifests.read(EXAMPLES.resolve("syncpolicy.yaml")).get(0).object())
                .orElseThrow();
        TenantPlane plane = TenantPlane.builder().build();
        List<JsonObject> provisioned = plane.render(tc, profile);
        Plan workloads = plane.plan(new PlanRequest(tc, profile, policy, ExampleWorkloadsTest.workloads(), List.of()));
        assertFalse(workloads.hasProblems(), PlannerTest.describe(workloads));

        HttpClient http = HttpClient.newHttpClient();
        List<String> refused = new ArrayList<>();
        List<JsonObject> pods = new ArrayList<>();
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            for (JsonObject o : provisioned) {
                create(http, server, o, refused);
                String kind = Json.string(o, "kind");
                if ("StatefulSet".equals(kind) || "Deployment".equals(kind)) {
                    pods.addAll(controllerPods(o));
                }
            }
            // The host's controllers make these Pods; each one is admitted as the controller's create would be.
            for (JsonObject pod : pods) {
                create(http, server, pod, refused);
            }
            // The tenant's objects as the first pass writes them (the Pod last, after what it refers to).
            List<Decision> creates = workloads.decisions().stream()
                    .filter(d -> d.action() == Action.CREATE).sorted((a, b) -> Boolean.compare(
                            a.kind().equals("Pod"), b.kind().equals("Pod"))).toList();
            assertEquals(7, creates.size(), PlannerTest.describe(workloads));
            for (Decision d : creates) {
                if (!d.kind().equals("Ingress")) {
                    create(http, server, d.desired(), refused);
                }
            }
            assertEquals(List.of(), refused, "refused by the host");

            // And the quota still has room for more of the tenant's pods: one more nginx Pod is admitted.
            JsonObject another = creates.stream().filter(d -> d.kind().equals("Pod")).findFirst().orElseThrow()
                    .desired().deepCopy();
            Json.child(another, "metadata").addProperty("name", "nginx-2-x-default-x-dev");
            create(http, server, another, refused);
            assertEquals(List.of(), refused, "a second tenant pod is refused");
            assertTrue(pods.size() >= 2, "the control plane and DNS make pods: " + pods.size());

            // The namespace does enforce: the host's LimitRanger filled in the nginx Pod's resources, and the same Pod
            // made privileged is refused by Pod Security.
            HttpResponse<String> nginx = http.send(HttpRequest.newBuilder(URI.create(server.url()
                    + "/api/v1/namespaces/team-dev/pods/nginx-x-default-x-dev")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(nginx.body().contains("kubernetes.io/limit-ranger"), nginx.body());
            JsonObject privileged = another.deepCopy();
            Json.child(privileged, "metadata").addProperty("name", "nginx-3-x-default-x-dev");
            Json.child(privileged.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject(),
                    "securityContext").addProperty("privileged", true);
            // (privileged with allowPrivilegeEscalation: false is not even a valid Pod: ValidateSecurityContext)
            Json.child(privileged.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject(),
                    "securityContext").addProperty("allowPrivilegeEscalation", true);
            create(http, server, privileged, refused);
            assertEquals(1, refused.size(), refused::toString);
            assertTrue(refused.get(0).startsWith("Pod nginx-3-x-default-x-dev: 403")
                    && refused.get(0).contains("violates PodSecurity") && refused.get(0).contains("restricted:latest"),
                    refused.get(0));
        }
    }

    /** The Pods a StatefulSet or Deployment controller makes from {@code workload}: its replicas, from its template. */
    private static List<JsonObject> controllerPods(JsonObject workload) {
        List<JsonObject> out = new ArrayList<>();
        JsonObject spec = workload.getAsJsonObject("spec");
        int replicas = spec.has("replicas") ? spec.get("replicas").getAsInt() : 1;
        String name = Json.string(workload, "metadata", "name");
        for (int i = 0; i < replicas; i++) {
            JsonObject template = spec.getAsJsonObject("template").deepCopy();
            JsonObject podSpec = template.getAsJsonObject("spec");
            String podName = name + "-" + i;
            if (spec.has("volumeClaimTemplates")) {
                // updateStorage (stateful_set_utils.go): a volume per claim template, on the claim of this replica.
                for (JsonElement claim : spec.getAsJsonArray("volumeClaimTemplates")) {
                    String claimName = Json.string(claim.getAsJsonObject(), "metadata", "name");
                    if (!podSpec.has("volumes")) {
                        podSpec.add("volumes", new com.google.gson.JsonArray());
                    }
                    JsonObject volume = new JsonObject();
                    volume.addProperty("name", claimName);
                    JsonObject pvc = new JsonObject();
                    pvc.addProperty("claimName", claimName + "-" + podName);
                    volume.add("persistentVolumeClaim", pvc);
                    podSpec.getAsJsonArray("volumes").add(volume);
                }
            }
            JsonObject meta = template.has("metadata") ? template.getAsJsonObject("metadata") : new JsonObject();
            meta.addProperty("name", podName);
            meta.addProperty("namespace", Json.string(workload, "metadata", "namespace"));
            JsonObject pod = new JsonObject();
            pod.addProperty("apiVersion", "v1");
            pod.addProperty("kind", "Pod");
            pod.add("metadata", meta);
            pod.add("spec", podSpec);
            out.add(pod);
        }
        return out;
    }

    private static void create(HttpClient http, KubeApiServer server, JsonObject o, List<String> refused)
            throws Exception {
        ResourceKind kind = ResourceKind.wellKnown(Json.string(o, "apiVersion"), Json.string(o, "kind")).orElseThrow();
        String ns = Json.string(o, "metadata", "namespace");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url()
                        + kind.collectionPath(ns))).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(o.toString())).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            refused.add(Json.string(o, "kind") + " " + Json.string(o, "metadata", "name") + ": " + r.statusCode() + " "
                    + r.body());
        }
    }
}
