package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.model.LabelSelector;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.RecordedDecision;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Convergence of tenant workloads to the host, against real-protocol API servers. */
class SyncIT {

    private Live live;
    private TenantPlane plane;
    private Kube dev;

    @BeforeEach
    void start(TestInfo test) {
        live = Live.start(test.getTags().contains(Live.HOOKS));
        live.createTenant("dev");
        live.syncPrerequisites("dev");
        dev = live.tenant("dev");
        plane = live.plane();
    }

    @AfterEach
    void stop() {
        live.close();
    }

    /** Creates the example workloads in the tenant, as a user would (server-owned fields left out). */
    private void createExampleWorkloads() {
        for (JsonObject o : Live.exampleWorkloads()) {
            dev.create(asUserWrites(o));
        }
    }

    static JsonObject asUserWrites(JsonObject o) {
        JsonObject c = o.deepCopy();
        JsonObject meta = Json.child(c, "metadata");
        for (String f : List.of("uid", "resourceVersion", "creationTimestamp", "ownerReferences", "generateName")) {
            meta.remove(f);
        }
        c.remove("status");
        return c;
    }

    static JsonObject pod(String ns, String name, Map<String, String> labels) {
        JsonObject pod = Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s"},
                 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                   "containers":[{"name":"app","image":"nginxinc/nginx-unprivileged:1.27",
                   "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}
                """.formatted(name, ns));
        JsonObject l = Json.child(pod, "metadata", "labels");
        labels.forEach(l::addProperty);
        return pod;
    }

    private static Decision decisionFor(ConvergenceReport r, String kind, String hostName) {
        return r.decisions().stream().filter(d -> d.kind().equals(kind) && d.host() != null
                && hostName.equals(d.host().name())).findFirst()
                .orElseThrow(() -> new AssertionError("no decision for " + kind + " " + hostName + " in "
                        + r.decisions()));
    }

    /**
     * A host namespace's ResourceQuota (here one the platform team keeps beside tenantplane's) refuses a tenant Pod
     * beyond it: the pass reports the refusal with the quota's own message and does not converge; once the platform
     * team makes room the next pass creates the Pod. Nothing is lost in between.
     */
    @Test
    void aTenantPodTheHostQuotaRefusesFailsWithTheQuotasMessageAndIsCreatedOnceThereIsRoom() {
        int hostPods = live.hostKube.list("Pod", live.namespace, null).size();
        JsonObject quota = live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"platform-pods","namespace":"%s"},
                 "spec":{"hard":{"pods":"%d"}}}""".formatted(live.namespace, hostPods + 1)));
        dev.create(pod("default", "first", Map.of()));
        dev.create(pod("default", "second", Map.of()));

        ConvergenceReport full = plane.converge(live.key("dev"));

        assertFalse(full.converged(), full.outcomes()::toString);
        List<Outcome.Failed> failed = full.outcomes().stream().filter(Outcome.Failed.class::isInstance)
                .map(Outcome.Failed.class::cast).toList();
        assertEquals(1, failed.size(), full.outcomes()::toString);
        assertEquals(403, failed.get(0).code());
        assertTrue(failed.get(0).message().contains("exceeded quota: platform-pods, requested: pods=1, used: pods="
                + (hostPods + 1) + ", limited: pods=" + (hostPods + 1)), failed.get(0).message());
        assertEquals(hostPods + 1, live.hostKube.list("Pod", live.namespace, null).size());

        Json.child(quota, "spec", "hard").addProperty("pods", String.valueOf(hostPods + 2));
        live.hostKube.update(quota);
        ConvergenceReport after = plane.converge(live.key("dev"));

        assertTrue(after.converged(), after.outcomes()::toString);
        for (String name : List.of("first", "second")) {
            live.hostKube.require("Pod", live.namespace, name + "-x-default-x-dev");
        }
    }

    @Test
    void firstSyncOfTheExampleWorkloadsCreatesHostCopiesWithTheirReverseMapping() {
        createExampleWorkloads();

        ConvergenceReport r = plane.converge(live.key("dev"));

        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertTrue(r.converged(), () -> r.decisions().toString());
        for (String[] expected : new String[][] {{"Pod", "nginx-x-default-x-dev"}, {"Service", "nginx-x-default-x-dev"},
                {"ConfigMap", "nginx-config-x-default-x-dev"}, {"Secret", "nginx-env-x-default-x-dev"},
                {"Secret", "registry-credentials-x-default-x-dev"},
                {"PersistentVolumeClaim", "nginx-data-x-default-x-dev"}, {"Ingress", "nginx-x-default-x-dev"}}) {
            Decision d = decisionFor(r, expected[0], expected[1]);
            assertEquals(Action.CREATE, d.action(), d::toString);
            assertEquals("NotOnHost", d.reason());
            JsonObject host = live.hostKube.require(expected[0], live.namespace, expected[1]);
            Map<String, String> labels = Json.labels(host);
            assertEquals("tenantplane", labels.get("tenantplane.io/managed-by"));
            assertEquals("dev", labels.get("tenantplane.io/tenant"));
            assertEquals("default", labels.get("tenantplane.io/virtual-namespace"));
            assertEquals("NotOnHost", Json.annotations(host).get("tenantplane.io/reason"));
        }
        JsonObject hostPod = live.hostKube.require("Pod", live.namespace, "nginx-x-default-x-dev");
        assertEquals("nginx-config-x-default-x-dev",
                Json.string(hostPod.getAsJsonObject("spec").getAsJsonArray("volumes").get(0).getAsJsonObject(),
                        "configMap", "name"), "volume references are rewritten to host names");
        assertEquals("dev-workload", Json.string(hostPod, "spec", "serviceAccountName"));
        List<RecordedDecision> ring = plane.decisions(live.key("dev"), 100);
        assertTrue(ring.stream().anyMatch(x -> x.outcome().decision().reason().equals("NotOnHost")));
    }

    /**
     * {@code kubectl debug} inside a tenant: the tenant Pod gets an ephemeral container through its
     * {@code ephemeralcontainers} subresource; the pass adds it to the host Pod the same way (an update of the Pod
     * would be refused), the next pass writes the new source hash, and the one after writes nothing.
     */
    @Test
    void anEphemeralContainerAddedInTheTenantIsAddedToTheHostPodThroughItsSubresource() {
        dev.create(pod("default", "web", Map.of("app", "web")));
        assertTrue(plane.converge(live.key("dev")).converged());
        JsonObject tenantPod = dev.require("Pod", "default", "web");
        Json.child(tenantPod, "spec").add("ephemeralContainers", Kube.json("""
                {"list":[{"name":"debugger","image":"busybox:1.36","stdin":true,"tty":true,
                  "targetContainerName":"app","securityContext":{"allowPrivilegeEscalation":false,
                  "runAsNonRoot":true,"runAsUser":1000,"capabilities":{"drop":["ALL"]}}}]}""").get("list"));
        Kube.Reply added = dev.call("PUT", "/api/v1/namespaces/default/pods/web/ephemeralcontainers", Map.of(),
                tenantPod);
        assertEquals(200, added.code(), () -> String.valueOf(added.body()));

        ConvergenceReport first = plane.converge(live.key("dev"));
        Decision d = decisionFor(first, "Pod", "web-x-default-x-dev");
        assertEquals(Action.UPDATE, d.action(), d::message);
        assertEquals(Reasons.EPHEMERAL_CONTAINERS_ADDED, d.reason(), d::message);
        assertTrue(d.message().contains("debugger"), d.message());
        assertInstanceOf(Outcome.Applied.class, first.outcomes().get(first.decisions().indexOf(d)));
        JsonObject host = live.hostKube.require("Pod", live.namespace, "web-x-default-x-dev");
        JsonObject debugger = host.getAsJsonObject("spec").getAsJsonArray("ephemeralContainers").get(0)
                .getAsJsonObject();
        assertEquals("debugger", Json.string(debugger, "name"));
        assertEquals("busybox:1.36", Json.string(debugger, "image"));
        assertEquals("app", Json.string(debugger, "targetContainerName"));
        assertEquals("nginxinc/nginx-unprivileged:1.27", Json.string(host.getAsJsonObject("spec")
                .getAsJsonArray("containers").get(0).getAsJsonObject(), "image"), "the rest of the Pod is as it was");

        ConvergenceReport second = plane.converge(live.key("dev"));
        assertEquals(Reasons.SOURCE_CHANGED, decisionFor(second, "Pod", "web-x-default-x-dev").reason(),
                "the source hash the subresource could not write follows");
        ConvergenceReport third = plane.converge(live.key("dev"));
        assertEquals(Reasons.IN_SYNC, decisionFor(third, "Pod", "web-x-default-x-dev").reason());
        assertTrue(third.converged(), third.outcomes()::toString);
    }

    @Test
    void anUpdateInTheTenantPropagatesToTheHost() {
        dev.create(pod("default", "web", Map.of("app", "web")));
        JsonObject cm = Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                 "data":{"mode":"blue"}}""");
        dev.create(cm);
        plane.converge(live.key("dev"));

        JsonObject stored = dev.require("ConfigMap", "default", "settings");
        stored.getAsJsonObject("data").addProperty("mode", "green");
        dev.update(stored);
        ConvergenceReport r = plane.converge(live.key("dev"));

        Decision d = decisionFor(r, "ConfigMap", "settings-x-default-x-dev");
        assertEquals(Action.UPDATE, d.action());
        assertEquals("SourceChanged", d.reason());
        assertInstanceOf(Outcome.Applied.class, r.outcomes().get(r.decisions().indexOf(d)));
        assertEquals("green", Json.string(live.hostKube.require("ConfigMap", live.namespace,
                "settings-x-default-x-dev"), "data", "mode"));
    }

    @Test
    void aDeleteInTheTenantCollectsTheHostCopy() {
        dev.create(pod("default", "web", Map.of("app", "web")));
        plane.converge(live.key("dev"));
        String uid = Json.string(live.hostKube.require("Pod", live.namespace, "web-x-default-x-dev"), "metadata", "uid");

        dev.delete("Pod", "default", "web");
        ConvergenceReport r = plane.converge(live.key("dev"));

        Decision d = decisionFor(r, "Pod", "web-x-default-x-dev");
        assertEquals(Action.DELETE, d.action());
        assertEquals("SourceDeleted", d.reason());
        assertEquals(uid, Json.string(d.observed(), "metadata", "uid"), "the delete is preconditioned on that uid");
        assertTrue(live.hostKube.get("Pod", live.namespace, "web-x-default-x-dev").isEmpty());
    }

    @Test
    void aForeignObjectHoldingTheHostNameIsAConflictAndSurvivesUntouched() {
        JsonObject foreign = live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings-x-default-x-dev","namespace":"%s",
                 "labels":{"owner":"platform"}},"data":{"mine":"yes"}}""".formatted(live.namespace)));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                 "data":{"mode":"blue"}}"""));
        KubeApiServer server = live.hostServer().orElse(null);
        if (server != null) {
            server.requests().reset();
        }

        ConvergenceReport r = plane.converge(live.key("dev"));
        ConvergenceReport again = plane.converge(live.key("dev"));

        for (ConvergenceReport pass : List.of(r, again)) {
            Decision d = decisionFor(pass, "ConfigMap", "settings-x-default-x-dev");
            assertEquals(Action.CONFLICT, d.action());
            assertEquals("ForeignObject", d.reason());
            assertTrue(d.message().contains("is taken by an object tenantplane does not manage for tenant dev"),
                    d.message());
            assertEquals(Json.string(foreign, "metadata", "uid"), Json.string(d.observed(), "metadata", "uid"),
                    "the decision is about the foreign object as it is on the host");
            assertInstanceOf(Outcome.NotWritten.class, pass.outcomes().get(pass.decisions().indexOf(d)));
            assertFalse(pass.converged());
        }
        JsonObject after = live.hostKube.require("ConfigMap", live.namespace, "settings-x-default-x-dev");
        assertEquals(Json.string(foreign, "metadata", "resourceVersion"), Json.string(after, "metadata",
                "resourceVersion"), "the foreign object is untouched");
        assertEquals("yes", Json.string(after, "data", "mine"));
        assertEquals(Map.of("owner", "platform"), Json.labels(after), "no tenantplane label was added");
        if (server != null) {
            List<String> writes = server.requests().entries().stream()
                    .filter(e -> e.isWrite() && e.resource().equals("configmaps"))
                    .map(e -> e.verb() + " " + e.code()).toList();
            assertEquals(List.of("create 409", "create 409"), writes,
                    "each pass only tried a create, which the host refused; nothing was updated or deleted");
        }
    }

    @Test
    void foreignObjectsInTheHostNamespaceSurviveGarbageCollection() {
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"platform-settings","namespace":"%s"},
                 "data":{"a":"b"}}""".formatted(live.namespace)));
        JsonObject forged = live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"lookalike","namespace":"%s",
                 "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"dev"},
                 "annotations":{"tenantplane.io/source-kind":"ConfigMap","tenantplane.io/source-namespace":"default",
                   "tenantplane.io/source-name":"gone"}},"data":{"a":"b"}}""".formatted(live.namespace)));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                 "data":{"mode":"blue"}}"""));

        ConvergenceReport r = plane.converge(live.key("dev"));
        ConvergenceReport again = plane.converge(live.key("dev"));

        assertTrue(live.hostKube.get("ConfigMap", live.namespace, "platform-settings").isPresent());
        assertTrue(live.hostKube.get("ConfigMap", live.namespace, "lookalike").isPresent(),
                "an object whose name does not match its source annotations is not ours, labels or not");
        assertEquals(Json.string(forged, "metadata", "uid"), Json.string(live.hostKube.require("ConfigMap",
                live.namespace, "lookalike"), "metadata", "uid"));
        for (ConvergenceReport x : List.of(r, again)) {
            assertTrue(x.decisions().stream().noneMatch(d -> d.action() == Action.DELETE), x.decisions()::toString);
        }
    }

    @Test
    void explainLiveSaysWhatTheNextPassDecidesForEveryObject() {
        createExampleWorkloads();
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"taken","namespace":"default"}}"""));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"taken-x-default-x-dev","namespace":"%s"}}"""
                .formatted(live.namespace)));
        TenantContext ctx = plane.context(live.key("dev")).orElseThrow();
        List<JsonObject> asked = new java.util.ArrayList<>(Live.exampleWorkloads());
        asked.add(Kube.json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"taken\","
                + "\"namespace\":\"default\"}}"));
        Map<String, Decision> predicted = new java.util.LinkedHashMap<>();
        for (JsonObject o : asked) {
            String ns = Json.string(o, "metadata", "namespace");
            String name = Json.string(o, "metadata", "name");
            predicted.put(Json.string(o, "kind") + " " + ns + "/" + name,
                    plane.explainLive(ctx, Kube.kindOf(o), ns, name).decision());
        }
        ConvergenceReport pass = plane.converge(live.key("dev"));

        int compared = 0;
        for (Map.Entry<String, Decision> e : predicted.entrySet()) {
            Decision p = e.getValue();
            java.util.Optional<Decision> d = pass.decisions().stream().filter(x -> x.kind().equals(p.kind())
                    && x.source() != null && x.source().equals(p.source())).findFirst();
            if (d.isEmpty()) {
                assertEquals(List.of(Action.SKIP, Reasons.KIND_NOT_SYNCED), List.of(p.action(), p.reason()),
                        () -> e.getKey() + ": the pass decides nothing, so explain must say it is not synced: " + p);
                continue;
            }
            compared++;
            assertEquals(List.of(d.get().action(), d.get().reason(), d.get().message()),
                    List.of(p.action(), p.reason(), p.message()), e.getKey() + ": explainLive says what the pass did");
        }
        assertTrue(compared >= 6, "the synced objects were compared: " + compared);
        assertEquals(Action.CONFLICT, predicted.get("ConfigMap default/taken").action(),
                "a foreign object at the host name is found: " + predicted);
    }

    @Test
    void aDeletedTenantApiServiceComesBackWithTheAddressesItsRunningPodsUse() {
        dev.create(pod("default", "web", Map.of("app", "web")));
        plane.converge(live.key("dev"));
        String apiIp = Json.string(live.hostKube.require("Service", live.namespace, "dev-api"), "spec", "clusterIP");
        String dnsIp = Json.string(live.hostKube.require("Service", live.namespace, "dev-dns"), "spec", "clusterIP");
        live.hostKube.delete("Service", live.namespace, "dev-api");
        live.hostKube.delete("Service", live.namespace, "dev-dns");
        // Another Service takes an address meanwhile; the tenant's own come back with theirs all the same.
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"bystander","namespace":"%s"},
                 "spec":{"ports":[{"port":80}]}}""".formatted(live.namespace)));

        io.tenantplane.ProvisionReport r = plane.ensure(live.key("dev"));

        assertEquals(apiIp, Json.string(live.hostKube.require("Service", live.namespace, "dev-api"), "spec",
                "clusterIP"), "the tenant API Service keeps the address in its Pods' KUBERNETES_SERVICE_HOST");
        assertEquals(dnsIp, Json.string(live.hostKube.require("Service", live.namespace, "dev-dns"), "spec",
                "clusterIP"), "the DNS Service keeps the address in its Pods' dnsConfig");
        Decision created = r.outcomes().stream().map(Outcome::decision)
                .filter(d -> d.kind().equals("Service") && d.host() != null && d.host().name().equals("dev-api"))
                .findFirst().orElseThrow();
        assertEquals(Action.CREATE, created.action());
        assertTrue(created.message().contains("again with the ClusterIP " + apiIp + " its running Pods use"),
                created.message());
    }

    @Test
    void aPodWaitsUntilItsTenantApiServiceHasAnAddressAndThenGetsIt() {
        live.createTenant("qa");
        Kube qa = live.tenant("qa");
        qa.create(pod("default", "web", Map.of("app", "web")));

        ConvergenceReport before = plane.converge(live.key("qa"));

        Decision waiting = decisionFor(before, "Pod", "web-x-default-x-qa");
        assertEquals(List.of(Action.SKIP, Reasons.TENANT_API_PENDING), List.of(waiting.action(), waiting.reason()),
                waiting::toString);
        assertTrue(waiting.message().contains("qa-api." + live.namespace + ".svc has no IP on the host yet"),
                waiting.message());
        assertTrue(live.hostKube.get("Pod", live.namespace, "web-x-default-x-qa").isEmpty(),
                "no host pod starts with the host API's address");

        String apiIp = live.syncPrerequisites("qa");
        ConvergenceReport after = plane.converge(live.key("qa"));

        assertEquals(Action.CREATE, decisionFor(after, "Pod", "web-x-default-x-qa").action());
        JsonObject host = live.hostKube.require("Pod", live.namespace, "web-x-default-x-qa");
        JsonObject app = host.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject();
        assertTrue(app.getAsJsonArray("env").contains(Kube.json(
                "{\"name\":\"KUBERNETES_SERVICE_HOST\",\"value\":\"" + apiIp + "\"}")), app::toString);
    }

    @Test
    void twoTenantsInOneHostNamespaceNeitherSeeNorCollectEachOthersObjects() {
        live.createTenant("qa");
        live.syncPrerequisites("qa");
        Kube qa = live.tenant("qa");
        dev.create(pod("default", "web", Map.of("app", "web")));
        qa.create(pod("default", "web", Map.of("app", "web")));
        JsonObject svc = Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},
                 "spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}}""");
        dev.create(svc.deepCopy());
        qa.create(svc.deepCopy());

        plane.converge(live.key("dev"));
        plane.converge(live.key("qa"));
        qa.delete("Pod", "default", "web");
        ConvergenceReport devAgain = plane.converge(live.key("dev"));
        ConvergenceReport qaAgain = plane.converge(live.key("qa"));

        assertTrue(live.hostKube.get("Pod", live.namespace, "web-x-default-x-dev").isPresent(),
                "qa's delete does not collect dev's pod");
        assertTrue(live.hostKube.get("Pod", live.namespace, "web-x-default-x-qa").isEmpty());
        assertTrue(devAgain.decisions().stream().allMatch(d -> d.source() == null || "dev".equals(d.source().tenant())));
        assertEquals(Action.DELETE, decisionFor(qaAgain, "Pod", "web-x-default-x-qa").action());

        qa.create(pod("default", "web", Map.of("app", "web")));
        plane.converge(live.key("qa"));
        JsonObject devSvc = live.hostKube.require("Service", live.namespace, "web-x-default-x-dev");
        LabelSelector selector = new LabelSelector(Json.gson().fromJson(devSvc.getAsJsonObject("spec")
                .getAsJsonObject("selector"), Map.class), null);
        Set<String> selected = live.hostKube.list("Pod", live.namespace, null).stream()
                .filter(p -> selector.matches(Json.labels(p)))
                .map(p -> Json.string(p, "metadata", "name")).collect(Collectors.toSet());
        assertEquals(Set.of("web-x-default-x-dev"), selected, "dev's Service selects only dev's pods");
    }

    @Test
    void tenantSuppliedTenantplaneLabelsAndAnnotationsAreStripped() {
        JsonObject cm = Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sneaky","namespace":"default",
                 "labels":{"tenantplane.io/tenant":"qa","team":"a"},
                 "annotations":{"tenantplane.io/source-name":"other","note":"kept"}},"data":{"a":"b"}}""");
        dev.create(cm);

        plane.converge(live.key("dev"));

        JsonObject host = live.hostKube.require("ConfigMap", live.namespace, "sneaky-x-default-x-dev");
        assertEquals("dev", Json.labels(host).get("tenantplane.io/tenant"));
        assertEquals("a", Json.labels(host).get("team"));
        assertEquals("sneaky", Json.annotations(host).get("tenantplane.io/source-name"));
        assertEquals("kept", Json.annotations(host).get("note"));
    }

    @Test
    void driftOnTheHostIsPutBackWithAReasonNamingWhatDiffered() {
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default",
                 "labels":{"app":"web"}},"data":{"mode":"blue"}}"""));
        plane.converge(live.key("dev"));
        JsonObject host = live.hostKube.require("ConfigMap", live.namespace, "settings-x-default-x-dev");
        host.getAsJsonObject("data").addProperty("mode", "hacked");
        Json.child(host, "metadata", "labels").addProperty("app", "other");
        live.hostKube.update(host);

        ConvergenceReport r = plane.converge(live.key("dev"));

        Decision d = decisionFor(r, "ConfigMap", "settings-x-default-x-dev");
        assertEquals(Action.UPDATE, d.action());
        assertEquals("DriftCorrected", d.reason());
        assertTrue(d.message().contains("data.mode") && d.message().contains("metadata.labels.app"), d.message());
        JsonObject fixed = live.hostKube.require("ConfigMap", live.namespace, "settings-x-default-x-dev");
        assertEquals("blue", Json.string(fixed, "data", "mode"));
        assertEquals("web", Json.labels(fixed).get("app"));
        assertEquals("DriftCorrected", Json.annotations(fixed).get("tenantplane.io/reason"));
    }

    @Test
    @Tag(Live.HOOKS)
    void aConflictDuringApplyIsRetriedWithTheObjectReadAgainAndConverges() {
        KubeApiServer server = live.requireHostServer();
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                 "data":{"mode":"blue"}}"""));
        plane.converge(live.key("dev"));
        JsonObject stored = dev.require("ConfigMap", "default", "settings");
        stored.getAsJsonObject("data").addProperty("mode", "green");
        dev.update(stored);
        server.faults().add(FaultRule.on("update", "configmaps").times(2).respond(409));
        server.requests().reset();

        ConvergenceReport r = plane.converge(live.key("dev"));

        Decision d = decisionFor(r, "ConfigMap", "settings-x-default-x-dev");
        Outcome o = r.outcomes().get(r.decisions().indexOf(d));
        Outcome.Applied applied = assertInstanceOf(Outcome.Applied.class, o, o::toString);
        assertEquals(3, applied.attempts());
        assertEquals(3, server.requests().count("update", "configmaps"));
        assertTrue(server.requests().count("get", "configmaps") >= 2, "each conflict re-reads the object");
        assertEquals("green", Json.string(live.hostKube.require("ConfigMap", live.namespace,
                "settings-x-default-x-dev"), "data", "mode"));
        assertTrue(r.converged());
    }

    @Test
    @Tag(Live.HOOKS)
    void aSecondPassOverAConvergedTenantWritesNothing() {
        KubeApiServer server = live.requireHostServer();
        createExampleWorkloads();
        assertTrue(plane.converge(live.key("dev")).converged());
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)), "the first pass's Events are written");
        server.requests().reset();
        live.tenantServer("dev").requests().reset();

        ConvergenceReport second = plane.converge(live.key("dev"));

        assertTrue(second.converged());
        assertEquals(0, second.writes());
        assertTrue(second.decisions().stream().allMatch(d -> d.action() == Action.UNCHANGED
                || d.action() == Action.SKIP), second.decisions()::toString);
        assertEquals(0, server.requests().writes(), server.requests()::toString);
        assertEquals(0, live.tenantServer("dev").requests().writes());
    }

    @Test
    void aKindThePolicyNoLongerSyncsIsCollected() {
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},
                 "data":{"mode":"blue"}}"""));
        plane.converge(live.key("dev"));
        JsonObject policy = live.hostKube.call("GET", "/apis/tenantplane.io/v1alpha1/namespaces/" + live.namespace
                + "/syncpolicies/default", Map.of(), null).body();
        var kinds = policy.getAsJsonObject("spec").getAsJsonArray("kinds");
        for (int i = kinds.size() - 1; i >= 0; i--) {
            if ("ConfigMap".equals(Json.string(kinds.get(i).getAsJsonObject(), "kind"))) {
                kinds.remove(i);
            }
        }
        live.hostKube.call("PUT", "/apis/tenantplane.io/v1alpha1/namespaces/" + live.namespace
                + "/syncpolicies/default", Map.of(), policy);

        ConvergenceReport r = plane.converge(live.key("dev"));

        Decision d = decisionFor(r, "ConfigMap", "settings-x-default-x-dev");
        assertEquals(Action.DELETE, d.action());
        assertEquals("KindNotSynced", d.reason());
        assertTrue(live.hostKube.get("ConfigMap", live.namespace, "settings-x-default-x-dev").isEmpty());
    }

    @Test
    @Tag(Live.HOOKS)
    void podStatusAndNodeBindingFlowBackToTheTenant() {
        dev.create(pod("default", "web", Map.of("app", "web")));
        plane.converge(live.key("dev"));
        JsonObject node = Kube.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-1","labels":{"kubernetes.io/hostname":"worker-1",
                  "topology.kubernetes.io/zone":"a"}},
                 "status":{"capacity":{"cpu":"4","memory":"16Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"15Gi","pods":"110"},
                  "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status",
                   "lastHeartbeatTime":"2025-06-01T10:00:00Z","lastTransitionTime":"2025-06-01T09:00:00Z"}]}}""");
        JsonObject created = live.hostKube.create(node);
        created.add("status", node.get("status"));
        live.hostKube.updateStatus(created);
        live.hostKube.bind(live.namespace, "web-x-default-x-dev", "worker-1");
        JsonObject hostPod = live.hostKube.require("Pod", live.namespace, "web-x-default-x-dev");
        hostPod.add("status", Kube.json("""
                {"phase":"Running","podIP":"10.42.0.17","hostIP":"192.168.1.10",
                 "conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2025-06-01T10:00:05Z"}]}"""));
        live.hostKube.updateStatus(hostPod);

        ConvergenceReport r = plane.converge(live.key("dev"));

        JsonObject tenantPod = dev.require("Pod", "default", "web");
        assertEquals("worker-1", Json.string(tenantPod, "spec", "nodeName"));
        assertEquals("Running", Json.string(tenantPod, "status", "phase"));
        assertEquals("10.42.0.17", Json.string(tenantPod, "status", "podIP"));
        JsonObject mirror = dev.require("Node", null, "worker-1");
        assertEquals("a", Json.labels(mirror).get("topology.kubernetes.io/zone"));
        assertEquals("4", Json.string(mirror, "status", "capacity", "cpu"));
        assertEquals("True", Json.string(mirror.getAsJsonObject("status").getAsJsonArray("conditions").get(0)
                .getAsJsonObject(), "status"));
        assertTrue(r.decisions().stream().anyMatch(d -> d.reason().equals("BoundToNode")));
        assertTrue(r.decisions().stream().anyMatch(d -> d.reason().equals("NodeMirrored")));
        assertTrue(r.decisions().stream().anyMatch(d -> d.reason().equals("StatusFromHost")));

        live.tenantServer("dev").requests().reset();
        ConvergenceReport again = plane.converge(live.key("dev"));
        assertEquals(0, again.writes(), again.decisions()::toString);
        assertEquals(0, live.tenantServer("dev").requests().writes(), "status already equal: nothing written back");
        assertNotNull(tenantPod);
    }
}
