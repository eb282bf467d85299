package io.tenantplane.isolation;

import io.tenantplane.testing.Expectations;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.LabelSelector;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.ObjectMeta;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IsolationRendererTest {

    private static final Path EXAMPLE_PROFILE = Path.of("..", "examples", "yaml", "isolationprofile.yaml");
    private final IsolationRenderer renderer = new IsolationRenderer();

    static Stream<Arguments> cases() {
        return Expectations.cases("/isolation/cases.yaml").stream()
                .map(c -> Arguments.of(Json.string(c, "case"), c));
    }

    private static TenantCluster tenant(JsonObject caseDoc) {
        return TenantCluster.fromJson(caseDoc.getAsJsonObject("tenantCluster")).orElseThrow();
    }

    private static IsolationProfile profile(JsonObject caseDoc) {
        JsonElement p = caseDoc.get("profile");
        JsonObject json = p.isJsonPrimitive() ? Manifests.read(EXAMPLE_PROFILE).get(0).object() : p.getAsJsonObject();
        return IsolationProfile.fromJson(json).orElseThrow();
    }

    private List<JsonObject> render(JsonObject caseDoc) {
        return renderer.render(tenant(caseDoc), profile(caseDoc));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rendersTheExpectedObjectsAndFields(String name, JsonObject caseDoc) {
        Expectations.check(caseDoc, render(caseDoc));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyObjectSaysWhyItExistsAndWhoOwnsIt(String name, JsonObject caseDoc) {
        TenantCluster tc = tenant(caseDoc);
        for (JsonObject o : render(caseDoc)) {
            String reason = Json.annotations(o).get("tenantplane.io/reason");
            assertTrue(reason != null && reason.length() > 20, Expectations.id(o) + " has no reason");
            boolean sharedNamespace = Json.string(o, "kind").equals("Namespace") && tc.mode() == TenantCluster.Mode.SHARED;
            if (!sharedNamespace) {
                assertEquals("tenantplane", Json.labels(o).get("tenantplane.io/managed-by"), Expectations.id(o));
                assertEquals(tc.tenant(), Json.labels(o).get("tenantplane.io/tenant"), Expectations.id(o));
            }
            if (!Json.string(o, "kind").equals("Namespace")) {
                assertEquals(tc.hostNamespace(), Json.string(o, "metadata", "namespace"), Expectations.id(o));
            }
            if (Json.string(o, "kind").equals("NetworkPolicy")
                    && !Json.string(o, "metadata", "name").equals(tc.tenant() + "-agents")) {
                // Every policy applies to the tenant's workloads; the agents' own policy (private mode) to its agents.
                assertEquals(IsolationRenderer.workloadSelector(tc.tenant()), Json.object(o, "spec", "podSelector"));
            }
        }
    }

    /** Pod labels of another tenant's workload, of this tenant's control plane, and of this tenant's workload. */
    private static final Map<String, String> OTHER_TENANT_POD = Map.of("tenantplane.io/tenant", "intruder",
            "tenantplane.io/managed-by", "tenantplane", "tenantplane.io/virtual-namespace", "default");

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void noRuleAdmitsPodsOfAnotherTenant(String name, JsonObject caseDoc) {
        String ns = tenant(caseDoc).hostNamespace();
        for (JsonObject o : render(caseDoc)) {
            if (!Json.string(o, "kind").equals("NetworkPolicy")) {
                continue;
            }
            for (String direction : List.of("ingress", "egress")) {
                JsonElement rules = Json.object(o, "spec").get(direction);
                if (rules == null) {
                    continue;
                }
                for (JsonElement rule : rules.getAsJsonArray()) {
                    JsonElement peers = rule.getAsJsonObject().get(direction.equals("ingress") ? "from" : "to");
                    for (JsonElement peer : peers.getAsJsonArray()) {
                        assertFalse(admits(peer.getAsJsonObject(), ns, OTHER_TENANT_POD),
                                Expectations.id(o) + " admits another tenant's pod through " + peer);
                    }
                }
            }
        }
    }

    /** Whether a NetworkPolicy peer matches a pod with {@code labels} in namespace {@code ns} (labels only). */
    private static boolean admits(JsonObject peer, String ns, Map<String, String> labels) {
        if (peer.has("ipBlock")) {
            return false;
        }
        JsonObject podSelector = Json.object(peer, "podSelector");
        JsonObject nsSelector = Json.object(peer, "namespaceSelector");
        boolean podMatches = podSelector == null || selector(podSelector).matches(labels);
        boolean nsMatches = nsSelector == null || selector(nsSelector).matches(Map.of("kubernetes.io/metadata.name", ns));
        return podMatches && nsMatches;
    }

    private static LabelSelector selector(JsonObject json) {
        return Json.gson().fromJson(json, LabelSelector.class);
    }

    @Test
    void theSameTenantAllowanceAdmitsTheTenantsOwnPods() {
        JsonObject caseDoc = Expectations.cases("/isolation/cases.yaml").get(0);
        JsonObject policy = render(caseDoc).stream().filter(o -> Expectations.id(o).equals("NetworkPolicy/dev-allow-same-tenant"))
                .findFirst().orElseThrow();
        JsonObject peer = Json.object(policy, "spec").getAsJsonArray("ingress").get(0).getAsJsonObject()
                .getAsJsonArray("from").get(0).getAsJsonObject();
        assertTrue(admits(peer, "team-dev", Map.of("tenantplane.io/tenant", "dev")));
    }

    @Test
    void theWorkloadSelectorLeavesTheControlPlaneOut() {
        LabelSelector s = selector(IsolationRenderer.workloadSelector("dev"));
        assertTrue(s.matches(Map.of("tenantplane.io/tenant", "dev", "tenantplane.io/virtual-namespace", "default")));
        assertFalse(s.matches(Map.of("tenantplane.io/tenant", "dev", "tenantplane.io/component", "control-plane")));
        assertFalse(s.matches(Map.of("tenantplane.io/tenant", "qa")));
    }

    @Test
    void refusesAProfileTheTenantDoesNotReference() {
        JsonObject caseDoc = Expectations.cases("/isolation/cases.yaml").get(0);
        IsolationProfile other = IsolationProfile.of(ObjectMeta.of("team-qa", "other"),
                new IsolationProfile.Spec(null, null, null, null, null, null, null));
        InvalidResourceException e = assertThrows(InvalidResourceException.class,
                () -> renderer.render(tenant(caseDoc), other));
        assertEquals(List.of("spec.isolationProfileRef.name", "spec.isolationProfileRef.name"),
                e.problems().stream().map(Problem::field).toList());
        assertTrue(e.getMessage().startsWith("cannot render the isolation of TenantCluster team-dev/dev with "
                + "IsolationProfile team-qa/other:\n  TenantCluster team-dev/dev: spec.isolationProfileRef.name: "
                + "references IsolationProfile restricted, but IsolationProfile other was given"), e.getMessage());
    }

    @Test
    void refusesAnInvalidProfileListingEveryProblem() {
        JsonObject caseDoc = Expectations.cases("/isolation/cases.yaml").get(0);
        IsolationProfile bad = IsolationProfile.of(ObjectMeta.of("team-dev", "restricted"),
                new IsolationProfile.Spec(null, new IsolationProfile.Quota(Map.of("pods", "many")), null,
                        new IsolationProfile.PodSecurity(null, "1.31"), null, null, null));
        InvalidResourceException e = assertThrows(InvalidResourceException.class,
                () -> renderer.render(tenant(caseDoc), bad));
        assertEquals(List.of("spec.quota.hard[pods]", "spec.podSecurity.version"),
                e.problems().stream().map(Problem::field).toList());
    }

    @Test
    void renderingIsDeterministic() {
        JsonObject caseDoc = Expectations.cases("/isolation/cases.yaml").get(1);
        assertEquals(Manifests.toYaml(render(caseDoc)), Manifests.toYaml(render(caseDoc)));
    }
}
