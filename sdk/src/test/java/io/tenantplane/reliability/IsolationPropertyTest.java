package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.PlannerPropertyTestAccess;
import io.tenantplane.reliability.NetworkPolicies.Pod;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.TransformResult;
import io.tenantplane.transform.Transformer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The rendered isolation, evaluated as data with {@link NetworkPolicies}: over random sets of tenants (shared
 * namespaces, dedicated ones, random profiles, pods whose tenants tried to forge {@code tenantplane.io} labels), no
 * NetworkPolicy admits traffic between the workloads of two tenants, or from one tenant's workloads to another's
 * control plane; while what a profile allows (DNS, own API, own pods, non-tenant ingress) does get through, so the
 * evaluator is not vacuously denying. The restricted example profile also enforces Pod Security {@code restricted}
 * and caps resources.
 */
class IsolationPropertyTest {

    private static final int SEEDS = 60;
    private static final List<String> TENANT_NAMES = List.of("dev", "prod", "qa", "alice", "bob", "team-x-a", "x",
            "web");
    private static final List<String> SHARED_NAMESPACES = List.of("team-a", "team-b");
    private static final List<String> ALLOWANCES = List.of("dns", "tenant-api", "same-tenant", "internet-egress");
    private static final List<Object[]> PORTS = List.of(new Object[] {"TCP", 80}, new Object[] {"TCP", 443},
            new Object[] {"TCP", ControlPlaneRenderer.API_PORT}, new Object[] {"UDP", 53}, new Object[] {"TCP", 5432});
    private static final SyncPolicy PODS = PlannerPropertyTestAccess.policy("Pod");

    /** One tenant of a random world, with its rendered boundary and its pods. */
    private record Tenant(TenantCluster tc, IsolationProfile profile, List<String> allow, boolean denyIngress,
                          boolean denyEgress, List<String> ingressFrom, List<JsonObject> rendered, List<Pod> workloads,
                          List<Pod> controlPlane) {
        String name() {
            return tc.tenant();
        }
    }

    /** A random world of tenants and non-tenant pods. */
    private record World(List<Tenant> tenants, List<Pod> others, NetworkPolicies network) {
        Pod named(String app) {
            return others.stream().filter(p -> app.equals(p.labels().get("app"))).findFirst().orElseThrow();
        }
    }

    @Test
    void noNetworkPolicyEverAdmitsAnotherTenantsWorkloadsOrControlPlane() {
        long checked = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            World w = world(new Random(seed));
            for (Tenant t1 : w.tenants()) {
                for (Tenant t2 : w.tenants()) {
                    if (t1 == t2) {
                        continue;
                    }
                    List<Pod> targets = new ArrayList<>(t2.workloads());
                    targets.addAll(t2.controlPlane());
                    for (Pod a : t1.workloads()) {
                        for (Pod b : targets) {
                            for (Object[] port : PORTS) {
                                checked++;
                                int s = seed;
                                assertFalse(w.network().allows(a, b, (String) port[0], (Integer) port[1]),
                                        () -> "seed " + s + ": " + a + " reaches " + b + " on " + port[0] + "/"
                                                + port[1] + " through " + w.network().admitting(a, b,
                                                (String) port[0], (Integer) port[1]));
                            }
                        }
                    }
                }
            }
        }
        assertTrue(checked > 30_000, "checked " + checked + " connections");
        System.out.println("isolation: " + SEEDS + " random worlds, " + checked + " cross-tenant connections checked, "
                + "none admitted");
    }

    @Test
    void aPolicyOpeningIngressToAllPodsOfTheNamespaceWouldBeCaught() {
        World w = world(new Random(7));
        Tenant victim = w.tenants().get(0);
        Tenant other = w.tenants().get(1);
        JsonObject hole = Json.gson().fromJson("""
                {"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"hole","namespace":"%s"},
                 "spec":{"podSelector":{},"policyTypes":["Ingress","Egress"],
                   "ingress":[{"from":[{"namespaceSelector":{}}]}],"egress":[{"to":[{"namespaceSelector":{}}]}]}}"""
                .formatted(victim.tc().hostNamespace()), JsonObject.class);
        List<JsonObject> all = new ArrayList<>(victim.rendered());
        all.add(hole);
        Map<String, Map<String, String>> ns = new HashMap<>();
        NetworkPolicies holed = new NetworkPolicies(all, ns);
        Pod a = other.workloads().get(0);
        Pod b = victim.workloads().get(0);
        assertFalse(new NetworkPolicies(victim.rendered(), ns).allows(a, b, "TCP", 80), "denied without the hole");
        assertTrue(holed.allows(a, b, "TCP", 80), "an added allow-all policy is seen by the evaluator");
    }

    @Test
    void whatAProfileAllowsGetsThroughSoTheEvaluatorIsNotVacuous() {
        int positives = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            World w = world(new Random(seed));
            for (Tenant t : w.tenants()) {
                Pod a = t.workloads().get(0);
                Pod b = t.workloads().get(1);
                boolean ownPods = t.allow().contains("same-tenant") || (!t.denyEgress() && !t.denyIngress());
                assertEquals(ownPods, w.network().allows(a, b, "TCP", 80), () -> t + ": own pods");
                positives += ownPods ? 1 : 0;
                if (t.allow().contains("dns")) {
                    assertTrue(w.network().allows(a, w.named("kube-dns"), "UDP", 53), () -> t + ": DNS");
                    assertFalse(w.network().allows(a, w.named("kube-dns"), "TCP", 80) && t.denyEgress(),
                            () -> t + ": only port 53 of kube-system");
                    positives++;
                }
                if (t.allow().contains("tenant-api")) {
                    assertTrue(w.network().allows(a, t.controlPlane().get(0), "TCP", ControlPlaneRenderer.API_PORT),
                            () -> t + ": own control plane");
                    positives++;
                }
                if (!t.denyIngress()) {
                    assertTrue(w.network().allows(w.named("ingress"), a, "TCP", 80), () -> t + ": open ingress");
                    positives++;
                } else if (!t.ingressFrom().contains("ingress-nginx")) {
                    assertFalse(w.network().allows(w.named("ingress"), a, "TCP", 80), () -> t + ": denied ingress");
                } else {
                    assertTrue(w.network().allows(w.named("ingress"), a, "TCP", 80), () -> t + ": ingress-nginx");
                    positives++;
                }
                if (t.denyEgress() && t.allow().isEmpty()) {
                    assertFalse(w.network().allows(a, w.named("kube-dns"), "UDP", 53), () -> t + ": no DNS");
                }
            }
        }
        assertTrue(positives > SEEDS, "positive checks: " + positives);
    }

    @Test
    void theRestrictedExampleProfileEnforcesPodSecurityRestrictedAndCapsResources() {
        IsolationProfile restricted = IsolationProfile.fromJson(example("IsolationProfile")).orElseThrow();
        for (String mode : List.of("shared", "dedicated")) {
            JsonObject tcJson = example("TenantCluster");
            Json.child(tcJson, "spec").addProperty("mode", mode);
            TenantCluster tc = TenantCluster.fromJson(tcJson).orElseThrow();
            List<JsonObject> rendered = new IsolationRenderer().render(tc, restricted);

            JsonObject ns = only(rendered, "Namespace");
            assertEquals(tc.hostNamespace(), Json.string(ns, "metadata", "name"));
            Map<String, String> labels = Json.labels(ns);
            for (String m : List.of("enforce", "audit", "warn")) {
                assertEquals("restricted", labels.get("pod-security.kubernetes.io/" + m), mode + " " + m);
            }
            JsonObject quota = only(rendered, "ResourceQuota");
            Map<String, String> hard = new HashMap<>();
            Json.object(quota, "spec", "hard").entrySet().forEach(e -> hard.put(e.getKey(), e.getValue().getAsString()));
            assertEquals(restricted.spec().quota().hard(), hard, "the quota is the profile's, exactly");
            for (String capped : List.of("requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "pods",
                    "services", "persistentvolumeclaims", "requests.storage")) {
                assertTrue(hard.containsKey(capped), capped + " is capped");
            }
            assertEquals("0", hard.get("services.nodeports"));
            assertEquals("0", hard.get("services.loadbalancers"));
            JsonObject limit = Json.gson().fromJson(Json.object(only(rendered, "LimitRange"), "spec")
                    .getAsJsonArray("limits").get(0), JsonObject.class);
            assertEquals("Container", Json.string(limit, "type"));
            for (String part : List.of("defaultRequest", "default", "max")) {
                assertTrue(Json.object(limit, part).has("cpu") && Json.object(limit, part).has("memory"),
                        part + ": every container gets cpu and memory " + part + " (so the quota can count it)");
            }
            JsonObject deny = rendered.stream().filter(o -> Json.string(o, "metadata", "name").endsWith("-default-deny"))
                    .findFirst().orElseThrow();
            JsonArray types = Json.object(deny, "spec").getAsJsonArray("policyTypes");
            assertEquals(2, types.size(), "default deny covers both directions");
        }
    }

    // ---------------------------------------------------------------- the random world

    private static World world(Random r) {
        int n = 2 + r.nextInt(5);
        List<String> names = new ArrayList<>(TENANT_NAMES);
        java.util.Collections.shuffle(names, r);
        List<Tenant> tenants = new ArrayList<>();
        Map<String, Map<String, String>> nsLabels = new LinkedHashMap<>();
        List<JsonObject> policies = new ArrayList<>();
        int[] ip = {0};
        for (int i = 0; i < n; i++) {
            String tenant = names.get(i);
            String ns = SHARED_NAMESPACES.get(r.nextInt(SHARED_NAMESPACES.size()));
            String mode = r.nextInt(3) == 0 ? "dedicated" : "shared";
            boolean denyIn = r.nextInt(4) != 0;
            boolean denyOut = r.nextInt(4) != 0;
            List<String> allow = new ArrayList<>();
            for (String a : ALLOWANCES) {
                if (r.nextBoolean()) {
                    allow.add(a);
                }
            }
            JsonObject p = Json.gson().fromJson("""
                    {"apiVersion":"tenantplane.io/v1alpha1","kind":"IsolationProfile",
                     "metadata":{"name":"p-%s","namespace":"%s"},
                     "spec":{"network":{"defaultDeny":{"ingress":%s,"egress":%s}}}}"""
                    .formatted(tenant, ns, denyIn, denyOut), JsonObject.class);
            JsonArray allowJson = new JsonArray();
            allow.forEach(allowJson::add);
            Json.child(p, "spec", "network").add("allow", allowJson);
            List<String> ingressFrom = new ArrayList<>();
            if (r.nextInt(3) == 0) {
                // Openings to other namespaces (even another tenant's) admit only pods that belong to no tenant.
                JsonArray from = new JsonArray();
                from.add("ingress-nginx");
                from.add(SHARED_NAMESPACES.get(r.nextInt(SHARED_NAMESPACES.size())));
                from.forEach(f -> ingressFrom.add(f.getAsString()));
                Json.child(p, "spec", "network").add("ingressFromNamespaces", from);
                JsonArray cidrs = new JsonArray();
                cidrs.add("203.0.113.0/24");
                Json.child(p, "spec", "network").add("egressToCIDRs", cidrs);
            }
            IsolationProfile profile = IsolationProfile.fromJson(p).orElseThrow();
            TenantCluster tc = TenantCluster.fromJson(Json.gson().fromJson("""
                    {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                     "metadata":{"name":"%s","namespace":"%s"},
                     "spec":{"mode":"%s","isolationProfileRef":{"name":"p-%s"},"syncPolicyRef":{"name":"default"}}}"""
                    .formatted(tenant, ns, mode, tenant), JsonObject.class)).orElseThrow();
            List<JsonObject> rendered = new IsolationRenderer().render(tc, profile);
            String host = tc.hostNamespace();
            for (JsonObject o : rendered) {
                if ("Namespace".equals(Json.string(o, "kind"))) {
                    nsLabels.computeIfAbsent(host, k -> new LinkedHashMap<>(Map.of("kubernetes.io/metadata.name", k)))
                            .putAll(Json.labels(o));
                }
            }
            policies.addAll(rendered);
            List<Pod> workloads = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                workloads.add(workloadPod(r, tenant, host, names, ip));
            }
            JsonObject sts = new ControlPlaneRenderer().render(tc).stream()
                    .filter(o -> "StatefulSet".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
            Map<String, String> cpLabels = Json.labels(Json.object(sts, "spec", "template"));
            List<Pod> cp = List.of(new Pod(tenant + "-control-plane-0", ns, cpLabels, nextIp(ip)));
            tenants.add(new Tenant(tc, profile, allow, denyIn, denyOut, ingressFrom, rendered, workloads, cp));
        }
        for (String ns : List.of("kube-system", "ingress-nginx", "team-a", "team-b")) {
            nsLabels.computeIfAbsent(ns, k -> new LinkedHashMap<>(Map.of("kubernetes.io/metadata.name", k)));
        }
        List<Pod> others = List.of(
                new Pod("coredns", "kube-system", Map.of("k8s-app", "kube-dns", "app", "kube-dns"), nextIp(ip)),
                new Pod("controller", "ingress-nginx", Map.of("app", "ingress"), nextIp(ip)),
                new Pod("platform", "team-a", Map.of("app", "platform"), nextIp(ip)));
        return new World(tenants, others, new NetworkPolicies(policies, nsLabels));
    }

    /**
     * A host pod as the transform makes it from a tenant pod whose labels try to pass for another tenant's (or to
     * dodge the control-plane exclusion).
     */
    private static Pod workloadPod(Random r, String tenant, String hostNs, List<String> names, int[] ip) {
        String victim = names.get(r.nextInt(names.size()));
        String vns = List.of("default", "shop", "x-a").get(r.nextInt(3));
        JsonObject tenantPod = Json.gson().fromJson("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d","namespace":"%s","labels":{
                   "app":"web","tenantplane.io/tenant":"%s","tenantplane.io/virtual-namespace":"default",
                   "tenantplane.io/component":"control-plane","tenantplane.io/managed-by":"tenantplane"}},
                 "spec":{"containers":[{"name":"c","image":"nginx"}]}}""".formatted(r.nextInt(1_000_000), vns, victim),
                JsonObject.class);
        TransformOptions options = TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED);
        TransformResult result = new Transformer(tenant, hostNs, PODS, options).transform(tenantPod);
        JsonObject host = ((TransformResult.Transformed) result).host();
        return new Pod(Json.string(host, "metadata", "name"), hostNs, Json.labels(host), nextIp(ip));
    }

    private static String nextIp(int[] counter) {
        int i = ++counter[0];
        return "10.42." + (i / 250) + "." + (1 + i % 250);
    }

    private static JsonObject example(String kind) {
        return Corpus.examples().stream().filter(o -> kind.equals(Json.string(o, "kind"))).findFirst().orElseThrow();
    }

    private static JsonObject only(List<JsonObject> objects, String kind) {
        List<JsonObject> found = objects.stream().filter(o -> kind.equals(Json.string(o, "kind"))).toList();
        assertEquals(1, found.size(), kind);
        return found.get(0);
    }
}
