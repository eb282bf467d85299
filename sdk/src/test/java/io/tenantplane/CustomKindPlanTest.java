package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What an offline plan decides for custom kinds, patches and classes, case by case: the same planner and host facts
 * the live pass uses (the host's CRDs and classes among the host objects, the installation's allow-list).
 */
class CustomKindPlanTest {

    private static final String POLICY = """
            {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy","metadata":{"name":"p","namespace":"team-dev"},
             "spec":{"kinds":[
               {"kind":"Pod","toHost":true},{"kind":"Secret","toHost":true},{"kind":"Service","toHost":true},
               {"kind":"Certificate","apiVersion":"cert-manager.io/v1","toHost":true,
                "references":[{"path":"spec.secretName","kind":"Secret"},
                              {"path":"spec.keystores.pkcs12.passwordSecretRef.name","kind":"Secret"},
                              {"path":"spec.issuerRef.configMap","kind":"ConfigMap"}],
                "labelSelectors":[{"path":"spec.podSelector","form":"matchLabels"},{"path":"spec.selector"}],
                "patches":[{"op":"set","path":"spec.issuerRef.name","value":"platform-ca"},
                           {"op":"set","path":"spec.issuerRef.kind","value":"ClusterIssuer"},
                           {"op":"set","path":"metadata.annotations[example.com/namespace]","valueFrom":"virtualNamespace"},
                           {"op":"set","path":"metadata.labels[example.com/host-namespace]","valueFrom":"hostNamespace"},
                           {"op":"remove","path":"spec.dnsNames[1]"}]},
               {"kind":"Deployment","apiVersion":"apps/v1","toHost":true}],
              "fromHost":[{"kind":"PriorityClass","names":["batch"]}]}}""";

    private static final String CERT = """
            {"apiVersion":"cert-manager.io/v1","kind":"Certificate","metadata":{"name":"web","namespace":"shop"},
             "spec":{"secretName":"web-tls","dnsNames":["a.example.com","b.example.com"],
               "issuerRef":{"name":"tenant-ca"},"podSelector":{"app":"web"},
               "selector":{"matchLabels":{"tier":"front"},"matchExpressions":[
                 {"key":"tenantplane.io/tenant","operator":"In","values":["other"]}]}}}""";

    private static final String CRD = """
            {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
             "metadata":{"name":"certificates.cert-manager.io"},
             "spec":{"group":"cert-manager.io","scope":"%s","names":{"kind":"Certificate","plural":"certificates"},
               "versions":[{"name":"%s","served":true,"storage":true}]}}""";

    private static final String POD = """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"job","namespace":"shop"},
             "spec":{%s"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
               "containers":[{"name":"c","image":"busybox","securityContext":{"allowPrivilegeEscalation":false,
                 "capabilities":{"drop":["ALL"]}}}]}}""";

    private static JsonObject json(String s) {
        return Json.gson().fromJson(s, JsonObject.class);
    }

    private static JsonObject crd(String scope, String version) {
        return json(CRD.formatted(scope, version));
    }

    private static JsonObject priorityClass(String name) {
        return json("{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\""
                + name + "\"},\"value\":1000}");
    }

    record Case(String name, List<String> allowed, List<JsonObject> tenant, List<JsonObject> host,
                String kind, String source, Action action, String reason,
                String messagePart, Consumer<JsonObject> desired) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> cases() {
        List<String> certs = List.of("Certificate.cert-manager.io");
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("a kind the installation does not allow", List.of(), List.of(json(CERT)),
                List.of(crd("Namespaced", "v1")), "Certificate", "web", Action.SKIP, "KindNotAllowed",
                "does not allow custom kind Certificate.cert-manager.io", null));
        cases.add(new Case("no CRD on the host", certs, List.of(json(CERT)), List.of(), "Certificate", "web",
                Action.SKIP, "KindNotServedOnHost", "install the CustomResourceDefinition of "
                + "Certificate.cert-manager.io on the host", null));
        cases.add(new Case("the host CRD serves another version", certs, List.of(json(CERT)),
                List.of(crd("Namespaced", "v1beta1")), "Certificate", "web", Action.SKIP, "KindNotServedOnHost",
                "does not serve v1 (it serves v1beta1)", null));
        cases.add(new Case("the host CRD is cluster-scoped", certs, List.of(json(CERT)),
                List.of(crd("Cluster", "v1")), "Certificate", "web", Action.SKIP, "KindNotAllowed",
                "cluster-scoped", null));
        cases.add(new Case("references, selectors and patches", certs, List.of(json(CERT)),
                List.of(crd("Namespaced", "v1")), "Certificate", "web", Action.CREATE, "NotOnHost",
                "rewrites the declared spec.secretName", d -> {
                    assertEquals("web-tls-x-shop-x-dev", Json.string(d, "spec", "secretName"));
                    assertEquals("platform-ca", Json.string(d, "spec", "issuerRef", "name"));
                    assertEquals("ClusterIssuer", Json.string(d, "spec", "issuerRef", "kind"));
                    assertEquals(List.of("a.example.com"), Json.gson().fromJson(
                            Json.object(d, "spec").get("dnsNames"), List.class));
                    assertEquals("{\"app\":\"web\",\"tenantplane.io/tenant\":\"dev\","
                            + "\"tenantplane.io/virtual-namespace\":\"shop\"}",
                            Json.object(d, "spec", "podSelector").toString());
                    JsonObject sel = Json.object(d, "spec", "selector");
                    assertEquals("[]", sel.get("matchExpressions").toString(), "a forged tenant selector is dropped");
                    assertEquals("dev", Json.string(sel, "matchLabels", "tenantplane.io/tenant"));
                    assertEquals("shop", Json.annotations(d).get("example.com/namespace"));
                    assertEquals("team-dev", Json.labels(d).get("example.com/host-namespace"));
                }));
        JsonObject unsynced = json(CERT);
        Json.object(unsynced, "spec", "issuerRef").addProperty("configMap", "ca-bundle");
        cases.add(new Case("a reference to a kind the policy does not sync", certs, List.of(unsynced),
                List.of(crd("Namespaced", "v1")), "Certificate", "web", Action.SKIP, "ReferencesUnsyncedKind",
                "spec.issuerRef.configMap refers to ConfigMap 'ca-bundle'", null));
        cases.add(new Case("a built-in kind of another group needs no CRD", List.of("Deployment.apps"),
                List.of(json("""
                        {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"shop"},
                         "spec":{"replicas":1}}""")), List.of(), "Deployment", "api", Action.CREATE,
                "NotOnHost", "every field is copied unchanged", null));
        cases.add(new Case("a Pod using a mirrored PriorityClass", List.of(),
                List.of(json(POD.formatted("\"priorityClassName\":\"batch\",\"priority\":1000,"))),
                List.of(priorityClass("batch")), "Pod", "job", Action.CREATE, "NotOnHost", "", d ->
                assertTrue(!Json.object(d, "spec").has("priority"), "the host's admission sets the priority")));
        cases.add(new Case("a Pod using a PriorityClass that is not mirrored", List.of(),
                List.of(json(POD.formatted("\"priorityClassName\":\"batch\","))), List.of(), "Pod", "job",
                Action.SKIP, "ClassNotMirrored", "not among the host PriorityClasses the SyncPolicy mirrors (none now)",
                null));
        cases.add(new Case("a Pod using a RuntimeClass when none is mirrored", List.of(),
                List.of(json(POD.formatted("\"runtimeClassName\":\"gvisor\","))), List.of(), "Pod", "job",
                Action.SKIP, "ClassNotMirrored", "the SyncPolicy mirrors no RuntimeClass from the host", null));
        return cases.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(Case c) {
        TenantPlane plane = TenantPlane.builder().allowedKinds(c.allowed()).build();
        TenantCluster tc = TenantPlaneTest.one(TenantCluster.class);
        IsolationProfile profile = TenantPlaneTest.one(IsolationProfile.class);
        SyncPolicy policy = SyncPolicy.fromJson(json(POLICY)).orElseThrow();
        assertEquals(List.of(), policy.validate());
        Plan plan = plane.plan(new PlanRequest(tc, profile, policy, c.tenant(), c.host()));
        Decision d = plan.decisions().stream().filter(x -> x.kind().equals(c.kind()) && x.source() != null
                && c.source().equals(x.source().name())).findFirst()
                .orElseThrow(() -> new AssertionError(plan.decisions()));
        assertEquals(c.action(), d.action(), d::toString);
        assertEquals(c.reason(), d.reason(), d::toString);
        assertTrue(d.message().contains(c.messagePart()), d.message());
        if (c.desired() != null) {
            c.desired().accept(d.desired());
        }
    }
}
