package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.HostSimulator;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.PlannerPropertyTestAccess;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.reliability.NetworkPolicies.Pod;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two tenants share host namespace {@code team-dev}: {@code alice} runs an ordinary app, {@code mallory} copies her
 * labels and adds every {@code tenantplane.io/*} label and annotation it can think of. Whatever mallory writes can
 * neither select alice's pods nor be selected by alice's objects, opens no path into alice's pods, and no pass of
 * mallory's ever deletes or updates anything of alice's.
 */
class ForgedOwnershipTest {

    private static final String NS = "team-dev";
    private static final SyncPolicy POLICY = PlannerPropertyTestAccess.policy("Pod", "Service", "ConfigMap",
            "NetworkPolicy", "PodDisruptionBudget", "Endpoints");

    private final Planner planner = new Planner();
    private final HostSimulator simulator = new HostSimulator();
    private List<JsonObject> host = new ArrayList<>();

    private static JsonObject json(String text) {
        return Json.gson().fromJson(text, JsonObject.class);
    }

    private static JsonObject pod(String name, String labels) {
        return json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default","uid":"u-%s",
                   "labels":%s},
                 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                   "containers":[{"name":"app","image":"nginx","securityContext":{"allowPrivilegeEscalation":false,
                   "capabilities":{"drop":["ALL"]}}}]}}""".formatted(name, name, labels));
    }

    private static final String ALICE_LABELS = "{\"app\":\"web\",\"tier\":\"front\"}";
    private static final String FORGED_LABELS = """
            {"app":"web","tier":"front","tenantplane.io/tenant":"alice","tenantplane.io/virtual-namespace":"default",
             "tenantplane.io/managed-by":"tenantplane","tenantplane.io/component":"control-plane"}""";

    private List<JsonObject> alice() {
        return List.of(pod("web", ALICE_LABELS), json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default","uid":"u-s"},
                 "spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}"""), json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default","uid":"u-c"},
                 "data":{"mode":"blue"}}"""));
    }

    private List<JsonObject> mallory() {
        return List.of(
                pod("web", FORGED_LABELS),
                json("""
                        {"apiVersion":"v1","kind":"Service","metadata":{"name":"steal","namespace":"default"},
                         "spec":{"selector":{"app":"web","tenantplane.io/tenant":"alice",
                           "tenantplane.io/virtual-namespace":"default"},"ports":[{"port":80}]}}"""),
                json("""
                        {"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy",
                         "metadata":{"name":"let-me-in","namespace":"default"},
                         "spec":{"podSelector":{"matchExpressions":[{"key":"tenantplane.io/tenant","operator":"In",
                           "values":["alice"]}],"matchLabels":{"app":"web"}},"policyTypes":["Ingress","Egress"],
                           "ingress":[{"from":[{"podSelector":{}}]}],"egress":[{"to":[{"podSelector":{}}]}]}}"""),
                json("""
                        {"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
                         "metadata":{"name":"block-evictions","namespace":"default"},
                         "spec":{"maxUnavailable":0,"selector":{"matchLabels":{"app":"web",
                           "tenantplane.io/tenant":"alice"}}}}"""),
                json("""
                        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default",
                           "labels":%s,
                           "annotations":{"tenantplane.io/source-kind":"ConfigMap","tenantplane.io/source-name":"settings",
                             "tenantplane.io/source-namespace":"default","tenantplane.io/source-uid":"u-c"}},
                         "data":{"mode":"red"}}""".formatted(FORGED_LABELS)),
                json("""
                        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings-x-default-x-alice",
                           "namespace":"default"},"data":{"mode":"red"}}"""));
    }

    private Plan pass(String tenant, List<JsonObject> objects) {
        Plan plan = planner.plan(new Snapshot(tenant, NS, POLICY, TransformOptions.defaults(), objects, host));
        for (Decision d : plan.decisions()) {
            if (d.action().writes() && d.observed() != null) {
                assertEquals(tenant, OwnershipPropertyTest.owner(d.observed(), NS),
                        () -> tenant + "'s pass " + d.action() + "s an object it does not manage: " + d);
            }
        }
        host = simulator.apply(plan, host);
        return plan;
    }

    private List<JsonObject> hostOf(String tenant, String kind) {
        return host.stream().filter(h -> kind.equals(Json.string(h, "kind"))
                && tenant.equals(Json.labels(h).get(ReverseMapping.TENANT))).toList();
    }

    @BeforeEach
    void syncBoth() {
        pass("alice", alice());
        pass("mallory", mallory());
    }

    @Test
    void forgedLabelsAreReplacedByTheTenantsOwnOnEveryHostCopy() {
        for (JsonObject h : host) {
            if (!"mallory".equals(OwnershipPropertyTest.owner(h, NS))) {
                continue;
            }
            Map<String, String> labels = Json.labels(h);
            assertEquals("mallory", labels.get(ReverseMapping.TENANT), Json.string(h, "metadata", "name"));
            assertEquals("default", labels.get(ReverseMapping.VIRTUAL_NAMESPACE));
            assertFalse(labels.containsKey("tenantplane.io/component"), "a workload cannot pass for a control plane");
        }
        assertEquals(6, host.stream().filter(h -> "mallory".equals(OwnershipPropertyTest.owner(h, NS))).count(),
                "all of mallory's objects were synced, under mallory's name");
        List<JsonObject> named = host.stream()
                .filter(h -> "settings-x-default-x-alice".equals(Json.string(h, "metadata", "name"))).toList();
        assertEquals(1, named.size(), "a tenant object named like alice's host copy gets a hashed name of its own");
        assertEquals("alice", OwnershipPropertyTest.owner(named.get(0), NS));
    }

    @Test
    void endpointsCannotPointAtAnotherTenantsPod() {
        Plan p = planner.plan(new Snapshot("mallory", NS, POLICY, TransformOptions.defaults(), List.of(json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"steal","namespace":"default"},
                 "spec":{"ports":[{"port":80}]}}"""), json("""
                {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"steal","namespace":"default"},
                 "subsets":[{"addresses":[{"ip":"10.42.0.10","targetRef":{"kind":"Pod","namespace":"team-dev",
                   "name":"web-x-default-x-alice"}}],"ports":[{"port":80}]}]}""")), host));
        Decision d = p.decisions().stream().filter(x -> x.kind().equals("Endpoints")).findFirst().orElseThrow();
        assertEquals(Action.ERROR, d.action(), d::toString);
        // Alice's pod IP is not mallory's: refused by address before the targetRef is even looked at.
        assertEquals("EndpointAddressNotAllowed", d.reason());
        assertTrue(d.message().contains("subsets[0].addresses[0].ip: 10.42.0.10 is neither"), d.message());
        Plan own = planner.plan(new Snapshot("mallory", NS, POLICY, TransformOptions.defaults()
                .withEndpointAddresses(new TransformOptions.EndpointAddresses(java.util.Set.of("10.42.0.10"),
                        List.of())), List.of(json("""
                {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"steal","namespace":"default"},
                 "subsets":[{"addresses":[{"ip":"10.42.0.10","targetRef":{"kind":"Pod","namespace":"team-dev",
                   "name":"web-x-default-x-alice"}}],"ports":[{"port":80}]}]}""")), host));
        Decision byRef = own.decisions().stream().filter(x -> x.kind().equals("Endpoints")).findFirst()
                .orElseThrow();
        assertEquals("FieldNotAllowed", byRef.reason(), "even with an address of its own, the targetRef to another "
                + "namespace is refused");
        assertTrue(byRef.message().contains("subsets[0].addresses[0].targetRef.namespace"), byRef.message());
    }

    @Test
    void servicesSelectOnlyTheirOwnTenantsPods() {
        JsonObject aliceService = hostOf("alice", "Service").get(0);
        JsonObject malloryService = hostOf("mallory", "Service").get(0);
        JsonObject alicePod = hostOf("alice", "Pod").get(0);
        JsonObject malloryPod = hostOf("mallory", "Pod").get(0);
        assertTrue(selects(aliceService, alicePod));
        assertFalse(selects(aliceService, malloryPod), "alice's Service does not pick up mallory's look-alike pod");
        assertFalse(selects(malloryService, alicePod), "mallory's Service cannot select alice's pod");
        assertTrue(selects(malloryService, malloryPod));
    }

    @Test
    void networkPoliciesAndDisruptionBudgetsSelectOnlyTheirOwnTenantsPods() {
        JsonObject np = hostOf("mallory", "NetworkPolicy").get(0);
        JsonObject pdb = hostOf("mallory", "PodDisruptionBudget").get(0);
        Map<String, String> alicePod = Json.labels(hostOf("alice", "Pod").get(0));
        Map<String, String> malloryPod = Json.labels(hostOf("mallory", "Pod").get(0));
        assertFalse(NetworkPolicies.matches(Json.object(np, "spec", "podSelector"), alicePod));
        assertTrue(NetworkPolicies.matches(Json.object(np, "spec", "podSelector"), malloryPod));
        assertFalse(NetworkPolicies.matches(Json.object(pdb, "spec", "selector"), alicePod));
        assertTrue(NetworkPolicies.matches(Json.object(pdb, "spec", "selector"), malloryPod));
    }

    @Test
    void mallorysPolicyOpensNoPathIntoAlicesPodsUnderTheRestrictedProfile() {
        IsolationProfile restricted = IsolationProfile.fromJson(Corpus.examples().stream()
                .filter(o -> "IsolationProfile".equals(Json.string(o, "kind"))).findFirst().orElseThrow())
                .orElseThrow();
        List<JsonObject> policies = new ArrayList<>(host);
        for (String t : List.of("alice", "mallory")) {
            JsonObject tc = Corpus.examples().stream().filter(o -> "TenantCluster".equals(Json.string(o, "kind")))
                    .findFirst().orElseThrow();
            Json.child(tc, "metadata").addProperty("name", t);
            policies.addAll(new IsolationRenderer().render(TenantCluster.fromJson(tc).orElseThrow(), restricted));
        }
        NetworkPolicies network = new NetworkPolicies(policies, Map.of());
        JsonObject a = hostOf("alice", "Pod").get(0);
        JsonObject m = hostOf("mallory", "Pod").get(0);
        Pod alice = new Pod(Json.string(a, "metadata", "name"), NS, Json.labels(a), "10.42.0.10");
        Pod mallory = new Pod(Json.string(m, "metadata", "name"), NS, Json.labels(m), "10.42.0.11");
        for (int port : List.of(80, 443, 8080)) {
            assertFalse(network.allows(mallory, alice, "TCP", port), () -> "through " + network.admitting(mallory,
                    alice, "TCP", 80));
            assertFalse(network.allows(alice, mallory, "TCP", port));
        }
        assertTrue(network.allows(mallory, new Pod("m2", NS, Json.labels(m), "10.42.0.12"), "TCP", 80),
                "mallory's own policy works for mallory's own pods");
    }

    @Test
    void garbageCollectionOfOneTenantNeverDeletesTheOthers() {
        long aliceBefore = host.stream().filter(h -> "alice".equals(OwnershipPropertyTest.owner(h, NS))).count();
        Plan empty = pass("mallory", List.of());
        assertTrue(empty.decisions().stream().allMatch(d -> d.action() == Action.DELETE), empty::toString);
        assertEquals(6, empty.decisions().size(), "mallory's six copies go");
        assertEquals(aliceBefore, host.stream().filter(h -> "alice".equals(OwnershipPropertyTest.owner(h, NS))).count(),
                "alice keeps all of hers");
        Plan again = pass("alice", alice());
        assertTrue(again.decisions().stream().noneMatch(d -> d.action().writes()), "alice is still in sync");

        Plan aliceGone = pass("alice", List.of());
        assertEquals(3, aliceGone.decisions().stream().filter(d -> d.action() == Action.DELETE).count());
    }

    @Test
    void aForgedCopyOnTheHostCannotBeClaimedOrCollectedByAnyTenant() {
        JsonObject aliceCopy = hostOf("alice", "ConfigMap").get(0).deepCopy();
        JsonObject moved = aliceCopy.deepCopy();
        Json.child(moved, "metadata").addProperty("name", "settings-copy");
        Json.child(moved, "metadata").addProperty("uid", "lookalike");
        host.add(moved);
        for (String t : List.of("alice", "mallory")) {
            Plan p = pass(t, t.equals("alice") ? alice() : List.of());
            assertTrue(p.decisions().stream().noneMatch(d -> d.host() != null
                    && d.host().name().equals("settings-copy")), () -> t + " leaves the look-alike alone: " + p);
        }
        assertTrue(host.stream().anyMatch(h -> "settings-copy".equals(Json.string(h, "metadata", "name"))));
    }

    private static boolean selects(JsonObject service, JsonObject pod) {
        Map<String, String> sel = new HashMap<>();
        Json.object(service, "spec", "selector").entrySet().forEach(e -> sel.put(e.getKey(), e.getValue().getAsString()));
        Map<String, String> labels = Json.labels(pod);
        return sel.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }
}
