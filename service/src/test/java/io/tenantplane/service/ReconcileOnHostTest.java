package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.helidon.microprofile.testing.junit5.AddBean;
import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import io.tenantplane.PlanRequest;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.testkit.FaultRule;
import jakarta.inject.Inject;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service reconciling real tenants: an in-process host with the CRDs and the examples applied through
 * client-java, one in-process API server per tenant reached through a CDI-alternative {@link TestTenantConnector},
 * and the service's own endpoints (health, metrics, REST, exported spans) observed from outside.
 */
@ExtendWith({OtlpCollectorExtension.class, HostServerExtension.class})
@HelidonTest
@AddBean(TestTenantConnector.class)
@AddConfig(key = "tenantplane.lease.identity", value = "tenantplane-service-0")
@AddConfig(key = "tenantplane.lease.retry-period", value = "PT0.5S")
@AddConfig(key = "tenantplane.concurrency", value = "2")
@AddConfig(key = "tenantplane.sync.allowed-kinds", value = "Backup.example.com")
class ReconcileOnHostTest {

    private static final Duration SYNC = Duration.ofSeconds(20);
    private static final String NGINX_ON_HOST = "nginx-x-default-x-dev";

    @Inject
    WebTarget target;

    /** The example tenant {@code dev} in {@code team-dev}, with the example workloads, synced to the host. */
    private static synchronized void devIsSynced() {
        Kube host = HostServerExtension.host();
        if (host.get("TenantCluster", "team-dev", "dev").isEmpty()) {
            HostServerExtension.tenant("dev").createAll(Kube.exampleWorkloads());
            // One refused write on the way, for the API error counter.
            HostServerExtension.server().faults().add(FaultRule.on("create", "configmaps").inNamespace("team-dev")
                    .respond(500).times(1));
            host.createAll(Kube.exampleTenant("team-dev", "dev"));
        }
        assertTrue(Kube.eventually(SYNC, () -> host.get("Pod", "team-dev", NGINX_ON_HOST).isPresent()),
                "the tenant's nginx Pod reaches the host");
    }

    private static void createTenant(String namespace, String tenant, List<JsonObject> workloads) {
        HostServerExtension.tenant(tenant).createAll(workloads);
        Kube host = HostServerExtension.host();
        for (JsonObject o : Kube.exampleTenant(namespace, tenant)) {
            if (host.get(Json.string(o, "kind"), namespace, Json.string(o, "metadata", "name")).isEmpty()) {
                host.create(o);
            }
        }
    }

    private static JsonObject pod(String name) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default"},
                 "spec":{"containers":[{"name":"app","image":"nginx:1.27",
                   "securityContext":{"allowPrivilegeEscalation":false,"runAsNonRoot":true,
                     "seccompProfile":{"type":"RuntimeDefault"},"capabilities":{"drop":["ALL"]}}}]}}
                """.formatted(name)).getAsJsonObject();
    }

    private String get(String path) {
        Response r = target.path(path).request().get();
        assertEquals(200, r.getStatus(), () -> path + ": " + r.readEntity(String.class));
        return r.readEntity(String.class);
    }

    private JsonObject getJson(String path, Map<String, String> query) {
        var t = target.path(path);
        for (var e : query.entrySet()) {
            t = t.queryParam(e.getKey(), e.getValue());
        }
        Response r = t.request().header("Authorization", "Bearer " + viewer()).get();
        String body = r.readEntity(String.class);
        assertEquals(200, r.getStatus(), () -> path + " " + query + ": " + body);
        return JsonParser.parseString(body).getAsJsonObject();
    }

    private static double sample(String metrics, String name, String... labels) {
        for (String line : metrics.lines().toList()) {
            if (line.startsWith(name + "{") && java.util.Arrays.stream(labels).allMatch(line::contains)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no sample of " + name + " with " + List.of(labels) + " in\n" + metrics);
    }

    @Test
    void aTenantIsProvisionedAndSyncedAndHealthAndMetricsSaySo() throws Exception {
        devIsSynced();
        Kube host = HostServerExtension.host();
        assertTrue(Kube.eventually(SYNC, () -> Json.string(host.require("TenantCluster", "team-dev", "dev"),
                "status", "phase") != null), "ensure wrote the status");
        assertFalse(host.list("NetworkPolicy", "team-dev").isEmpty(), "the isolation boundary is on the host");

        jakarta.json.JsonObject ready = Probes.awaitStatus(target, "/health/ready", 200, Duration.ofSeconds(5));
        for (String path : List.of("/health/live", "/health/started")) {
            assertEquals(200, target.path(path).request().get().getStatus(), path);
        }
        jakarta.json.JsonObject data = Probes.check(ready, "host").getJsonObject("data");
        assertEquals(32, data.getInt("shardsOwned"), "alone, the replica owns every shard");
        assertEquals("ready", data.getString(Reconciler.GATE));
        jakarta.json.JsonObject live = target.path("/health/live").request().get(jakarta.json.JsonObject.class);
        assertTrue(Probes.check(live, "work-loops").getJsonObject("data").getString(Reconciler.LOOP)
                .startsWith("beating"));

        String metrics = target.path("/metrics").request(MediaType.TEXT_PLAIN).get(String.class);
        assertTrue(sample(metrics, ServiceMetrics.DECISIONS, "action=\"Create\"", "kind=\"Pod\"",
                "namespace=\"team-dev\"", "tenant=\"dev\"") > 0, metrics);
        assertTrue(sample(metrics, ServiceMetrics.DECISIONS, "action=\"Create\"", "kind=\"NetworkPolicy\"",
                "tenant=\"dev\"") > 0, "provisioning decisions are counted too");
        assertTrue(metrics.contains("\n# TYPE tenantplane_sync_decisions_total counter\n"), metrics);
        assertTrue(metrics.contains("\n# TYPE tenantplane_pass_duration_seconds histogram\n"), metrics);
        assertTrue(sample(metrics, "tenantplane_pass_duration_seconds_bucket", "tenant=\"dev\"", "le=\"2.5\"") > 0,
                metrics);
        assertTrue(sample(metrics, "tenantplane_pass_duration_seconds_count", "tenant=\"dev\"") > 0, metrics);
        assertTrue(sample(metrics, "tenantplane_pass_duration_seconds_sum", "tenant=\"dev\"") > 0, metrics);
        assertTrue(sample(metrics, ServiceMetrics.API_ERRORS, "code=\"500\"") >= 1,
                "the refused ConfigMap create was counted");
        assertEquals(32.0, sample(metrics, ServiceMetrics.SHARDS_HELD), "alone, the replica owns every shard");
        sample(metrics, ServiceMetrics.WORKQUEUE_DEPTH);
        assertEquals(0.0, sample(metrics, ServiceMetrics.EVENTS_DROPPED), "no Event was dropped");
        double tenants = 0;
        for (TenantCluster.Phase phase : TenantCluster.Phase.values()) {
            tenants += sample(metrics, ServiceMetrics.TENANTS, "phase=\"" + phase.value() + "\"");
        }
        assertTrue(tenants >= 1, "every TenantCluster is in some phase");
        assertFalse(metrics.contains("_total_total"), "no doubled suffix");
    }

    @Test
    void passesAreTracedWithASpanPerKindAndTheDecisionsAsEvents() {
        devIsSynced();
        assertTrue(Kube.eventually(SYNC, () -> OtlpCollectorExtension.EXPORTS.stream().anyMatch(e ->
                        e.path().equals("/v1/traces") && e.mentions(ServiceObserver.PASS_SPAN + " Pod")
                                && e.mentions(ServiceObserver.DECISION_EVENT) && e.mentions("NotOnHost")
                                && e.mentions(NGINX_ON_HOST))),
                "a pass span with its Pod child and the Create decision of nginx as an event reached the collector");
        assertTrue(Kube.eventually(SYNC, () -> OtlpCollectorExtension.EXPORTS.stream().anyMatch(e ->
                        e.path().equals("/v1/traces") && e.mentions(ServiceObserver.PROVISION_SPAN)
                                && e.mentions(ServiceObserver.DECISION_EVENT)
                                && e.mentions(io.tenantplane.plan.Reasons.FINALIZER_ADDED))),
                "a provisioning span with the finalizer's decision as an event reached the collector");
    }

    /** docs/operations.md names every span the service makes, so an operator can find them in a trace backend. */
    @Test
    void docsOperationsNamesEverySpan() throws java.io.IOException {
        String operations = java.nio.file.Files.readString(Kube.REPO.resolve("docs/operations.md"));
        for (String span : List.of(ServiceObserver.PASS_SPAN, ServiceObserver.PROVISION_SPAN,
                ServiceObserver.MIGRATION_SPAN, ServiceObserver.KUBELET_SPAN, ServiceObserver.DECISION_EVENT)) {
            assertTrue(operations.contains("`" + span + "`"), "docs/operations.md names " + span);
        }
    }

    @Test
    void restListsTenantsShowsTheirBoundaryAndTheirRecentDecisions() {
        devIsSynced();
        JsonObject list = getJson("/tenants", Map.of());
        JsonObject dev = null;
        for (JsonElement e : list.getAsJsonArray("items")) {
            if ("dev".equals(Json.string(e.getAsJsonObject(), "name"))) {
                dev = e.getAsJsonObject();
            }
        }
        assertNotNull(dev, list.toString());
        assertEquals("team-dev", Json.string(dev, "namespace"));
        assertEquals("shared", Json.string(dev, "mode"));
        assertTrue(dev.has("ready"), dev.toString());

        JsonObject detail = getJson("/tenants/team-dev/dev", Map.of());
        assertEquals("restricted", Json.string(detail, "isolationProfile"));
        assertEquals("default", Json.string(detail, "syncPolicy"));
        List<String> boundary = new ArrayList<>();
        for (JsonElement e : detail.getAsJsonArray("boundary")) {
            JsonObject o = e.getAsJsonObject();
            assertNotNull(Json.string(o, "reason"), o.toString());
            boundary.add(Json.string(o, "kind") + " " + Json.string(o, "name"));
        }
        assertTrue(boundary.stream().anyMatch(b -> b.startsWith("NetworkPolicy ")), boundary.toString());
        assertTrue(boundary.stream().anyMatch(b -> b.startsWith("ResourceQuota ")), boundary.toString());
        assertTrue(detail.getAsJsonArray("controlPlane").toString().contains("StatefulSet"), detail.toString());
        assertFalse(detail.getAsJsonArray("conditions").isEmpty(), detail.toString());

        JsonObject decisions = getJson("/tenants/team-dev/dev/decisions", Map.of("limit", "3"));
        var items = decisions.getAsJsonArray("items");
        assertEquals(3, items.size(), decisions.toString());
        Instant previous = Instant.MAX;
        for (JsonElement e : items) {
            JsonObject d = e.getAsJsonObject();
            Instant at = Instant.parse(Json.string(d, "at"));
            assertFalse(at.isAfter(previous), "newest first");
            previous = at;
            assertNotNull(Json.string(d, "action"));
            assertNotNull(Json.string(d, "reason"));
            assertNotNull(Json.string(d, "result"));
        }
        JsonObject all = getJson("/tenants/team-dev/dev/decisions", Map.of("limit", "500"));
        assertTrue(all.getAsJsonArray("items").toString().contains(NGINX_ON_HOST),
                "the nginx Create is among the decisions");
    }

    @Test
    void explainAndTraceAnswerWhatTheSdkAnswersForTheLiveObjects() {
        devIsSynced();
        Kube host = HostServerExtension.host();
        Kube tenant = HostServerExtension.tenant("dev");
        TenantCluster tc = parsed(TenantCluster.fromJson(host.require("TenantCluster", "team-dev", "dev")));
        IsolationProfile profile = parsed(IsolationProfile.fromJson(host.require("IsolationProfile", "team-dev",
                "restricted")));
        SyncPolicy policy = parsed(SyncPolicy.fromJson(host.require("SyncPolicy", "team-dev", "default")));
        // What a user would hand the CLI: every tenant object of the synced kinds, everything in the host namespace.
        List<JsonObject> tenantObjects = new ArrayList<>();
        List<JsonObject> hostObjects = new ArrayList<>();
        for (SyncPolicy.KindRule rule : policy.spec().kinds()) {
            tenantObjects.addAll(tenant.list(rule.kind(), null));
            hostObjects.addAll(host.list(rule.kind(), "team-dev"));
        }
        TenantPlane offline = TenantPlane.builder().build();
        PlanRequest request = new PlanRequest(tc, profile, policy, tenantObjects, hostObjects);

        for (Map<String, String> q : List.of(
                Map.of("kind", "Pod", "name", "nginx"),
                Map.of("kind", "ConfigMap", "name", "nginx-config"),
                Map.of("kind", "ConfigMap", "name", "not-there-yet"),
                Map.of("kind", "Secret", "name", "nginx-env", "virtualNamespace", "default"))) {
            var query = new java.util.HashMap<>(q);
            query.put("tenant", "dev");
            query.put("tenantNamespace", "team-dev");
            JsonObject rest = getJson("/explain", query);
            String vns = q.getOrDefault("virtualNamespace", "default");
            JsonElement expected = Json.gson().toJsonTree(offline.explainSync(request, vns, q.get("kind"),
                    q.get("name")).toMap());
            assertEquals(expected, rest, "explain " + q);
        }
        JsonObject lowerCase = getJson("/explain", Map.of("tenant", "dev", "tenantNamespace", "team-dev",
                "kind", "pods", "name", "nginx"));
        assertEquals("Unchanged", Json.string(lowerCase, "action"), lowerCase.toString());
        assertEquals(NGINX_ON_HOST, Json.string(lowerCase, "hostResource", "name"));
        JsonObject shortName = getJson("/explain", Map.of("tenant", "dev", "tenantNamespace", "team-dev",
                "kind", "po", "name", "nginx"));
        assertEquals(lowerCase, shortName, "kubectl's short name, as the CLI takes it");
        JsonObject notSynced = getJson("/explain", Map.of("tenant", "dev", "tenantNamespace", "team-dev",
                "kind", "Deployment", "name", "nginx"));
        assertEquals("Skip", Json.string(notSynced, "action"), notSynced.toString());
        assertEquals("KindNotSynced", Json.string(notSynced, "reason"), notSynced.toString());

        JsonObject hostPod = host.require("Pod", "team-dev", NGINX_ON_HOST);
        JsonObject traced = getJson("/trace", Map.of("kind", "Pod", "namespace", "team-dev", "name", NGINX_ON_HOST));
        assertEquals(Json.gson().toJsonTree(offline.trace(hostPod).toMap()), traced);
        assertEquals("Managed", Json.string(traced, "reason"));
        assertEquals("nginx", Json.string(traced, "source", "name"));

        JsonObject quota = host.list("ResourceQuota", "team-dev").get(0);
        JsonObject notManaged = getJson("/trace", Map.of("kind", "resourcequota", "namespace", "team-dev",
                "name", Json.string(quota, "metadata", "name")));
        assertEquals(Json.gson().toJsonTree(offline.trace(quota).toMap()), notManaged);
    }

    @Test
    void badQuestionsAreProblemDetailsThatNameTheParameter() {
        assertProblem(target.path("/explain").queryParam("tenant", "dev").queryParam("tenantNamespace", "team-dev")
                .queryParam("name", "nginx"), 400, "'kind'");
        assertProblem(target.path("/explain").queryParam("tenant", "dev").queryParam("tenantNamespace", "team-dev")
                .queryParam("kind", "gadgets").queryParam("name", "nginx"), 400, "'kind' = 'gadgets'");
        assertProblem(target.path("/explain").queryParam("tenant", "Not_A_Name").queryParam("tenantNamespace",
                "team-dev").queryParam("kind", "Pod").queryParam("name", "nginx"), 400, "'tenant'");
        assertProblem(target.path("/explain").queryParam("tenant", "nobody").queryParam("tenantNamespace",
                "team-dev").queryParam("kind", "Pod").queryParam("name", "nginx"), 404, "team-dev/nobody");
        assertProblem(target.path("/trace").queryParam("kind", "Pod").queryParam("name", "x"), 400, "'namespace'");
        assertProblem(target.path("/trace").queryParam("kind", "Pod").queryParam("namespace", "team-dev")
                .queryParam("name", "not-on-host"), 404, "Pod team-dev/not-on-host");
        assertProblem(target.path("/tenants/team-dev/nobody"), 404, "team-dev/nobody");
        assertProblem(target.path("/tenants/team-dev/nobody/decisions"), 404, "team-dev/nobody");
        assertProblem(target.path("/tenants/team-dev/dev/decisions").queryParam("limit", "0"), 400, "'limit'");
        assertProblem(target.path("/tenants/team-dev/dev/decisions").queryParam("limit", "ten"), 400, "'limit'");
    }

    /** A caller who may read everything, as the REST API checks it by default (TokenReview, SubjectAccessReview). */
    private static String viewer() {
        return HostServerExtension.host().viewerToken();
    }

    private static void assertProblem(WebTarget t, int status, String detailContains) {
        Response r = t.request().header("Authorization", "Bearer " + viewer()).get();
        String body = r.readEntity(String.class);
        assertEquals(status, r.getStatus(), body);
        assertEquals(Problem.MEDIA_TYPE, r.getMediaType().toString(), body);
        JsonObject p = JsonParser.parseString(body).getAsJsonObject();
        assertEquals(status, p.get("status").getAsInt());
        assertTrue(Json.string(p, "detail").contains(detailContains), body);
    }

    @Test
    void aProfileChangeReReconcilesTheTenantsThatUseIt() {
        devIsSynced();
        Kube host = HostServerExtension.host();
        assertTrue(Kube.eventually(SYNC, () -> !host.list("ResourceQuota", "team-dev").isEmpty()));
        String quota = Json.string(host.list("ResourceQuota", "team-dev").get(0), "metadata", "name");
        assertEquals("50", Json.string(host.require("ResourceQuota", "team-dev", quota), "spec", "hard", "pods"));

        JsonObject profile = host.require("IsolationProfile", "team-dev", "restricted");
        Json.child(profile, "spec", "quota", "hard").addProperty("pods", "60");
        host.update(profile);

        assertTrue(Kube.eventually(SYNC, () -> "60".equals(Json.string(host.require("ResourceQuota", "team-dev",
                quota), "spec", "hard", "pods"))), "the host ResourceQuota follows the profile");
    }

    @Test
    void oneSlowTenantDoesNotHoldUpAnother() {
        HostServerExtension.tenantServer("slow").faults().add(FaultRule.on("list", "*").delay(Duration.ofSeconds(2)));
        try {
            createTenant("team-slow", "slow", List.of(pod("web")));
            createTenant("team-slow", "quick", List.of(pod("web")));
            Kube host = HostServerExtension.host();

            long start = System.nanoTime();
            assertTrue(Kube.eventually(Duration.ofSeconds(8), () -> host.get("Pod", "team-slow",
                    "web-x-default-x-quick").isPresent()), "the quick tenant converges while the slow one lists");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(host.get("Pod", "team-slow", "web-x-default-x-slow").isEmpty(),
                    "the slow tenant's pass is still listing (quick took " + took + ")");
        } finally {
            HostServerExtension.tenantServer("slow").faults().clear();
        }
        assertTrue(Kube.eventually(SYNC, () -> HostServerExtension.host().get("Pod", "team-slow",
                "web-x-default-x-slow").isPresent()), "and the slow tenant converges too");
    }

    /**
     * A custom kind the installation allows (tenantplane.sync.allowed-kinds) goes to the host through the service's
     * watches and passes, and the REST API explains it as the pass decided: the kind named as the tenant's policy
     * names it, the host CRD read as the pass reads it.
     */
    @Test
    void aCustomKindTheInstallationAllowsIsSyncedAndExplainedAsThePassDecides() {
        JsonObject crd = JsonParser.parseString("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"backups.example.com"},
                 "spec":{"group":"example.com","scope":"Namespaced",
                   "names":{"kind":"Backup","plural":"backups","singular":"backup","listKind":"BackupList"},
                   "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
                     "type":"object","properties":{"spec":{"type":"object",
                       "x-kubernetes-preserve-unknown-fields":true}}}}}]}}""").getAsJsonObject();
        Kube host = HostServerExtension.host();
        if (host.get("CustomResourceDefinition", null, "backups.example.com").isEmpty()) {
            host.createCrd(crd);
        }
        Kube tenant = HostServerExtension.tenant("bk");
        tenant.createCrd(crd);
        tenant.create(JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds","namespace":"default"},
                 "stringData":{"k":"v"}}""").getAsJsonObject());
        tenant.create(JsonParser.parseString("""
                {"apiVersion":"example.com/v1","kind":"Backup","metadata":{"name":"nightly","namespace":"default"},
                 "spec":{"secretName":"creds","schedule":"0 3 * * *"}}""").getAsJsonObject());
        for (JsonObject o : Kube.exampleTenant("team-slow", "bk")) {
            switch (Json.string(o, "kind")) {
                case "SyncPolicy" -> {
                    Json.child(o, "metadata").addProperty("name", "bk-sync");
                    Json.child(o, "spec").getAsJsonArray("kinds").add(JsonParser.parseString("""
                            {"kind":"Backup","apiVersion":"example.com/v1","toHost":true,
                             "references":[{"path":"spec.secretName","kind":"Secret"}]}""").getAsJsonObject());
                }
                case "TenantCluster" -> Json.child(o, "spec", "syncPolicyRef").addProperty("name", "bk-sync");
                default -> { }
            }
            if (host.get(Json.string(o, "kind"), "team-slow", Json.string(o, "metadata", "name")).isEmpty()) {
                host.create(o);
            }
        }
        assertTrue(Kube.eventually(SYNC, () -> host.get("Backup", "team-slow", "nightly-x-default-x-bk")
                .isPresent()), "the Backup reaches the host");
        assertEquals("creds-x-default-x-bk", Json.string(host.require("Backup", "team-slow",
                "nightly-x-default-x-bk"), "spec", "secretName"));

        JsonObject explained = getJson("/explain", Map.of("tenant", "bk", "tenantNamespace", "team-slow",
                "kind", "Backup", "name", "nightly"));
        assertEquals("Unchanged", Json.string(explained, "action"), explained::toString);
        assertEquals("InSync", Json.string(explained, "reason"));
        assertTrue(Json.string(explained, "message").contains("rewrites the declared spec.secretName; every other "
                + "field is copied unchanged"), explained::toString);
    }

    @Test
    void deletingATenantClusterRemovesWhatWasCreatedForItAndNothingElse() {
        devIsSynced();
        createTenant("team-dev", "temp", List.of(pod("web")));
        Kube host = HostServerExtension.host();
        assertTrue(Kube.eventually(SYNC, () -> host.get("Pod", "team-dev", "web-x-default-x-temp").isPresent()));

        host.delete("TenantCluster", "team-dev", "temp");

        assertTrue(Kube.eventually(SYNC, () -> host.get("TenantCluster", "team-dev", "temp").isEmpty()),
                "the finalizer is removed once the cleanup is done");
        assertTrue(host.get("Pod", "team-dev", "web-x-default-x-temp").isEmpty(), "its synced Pod is gone");
        assertTrue(host.get("Pod", "team-dev", NGINX_ON_HOST).isPresent(), "another tenant's Pod stays");
    }

    private static <T> T parsed(io.tenantplane.model.Parsed<T> p) {
        return p.toOptional().orElseThrow(() -> new AssertionError(p.problems()));
    }

    /**
     * The optional dashboard and alert rules ask only for what the service exports: every metric and label their
     * expressions use appears in a real scrape of this service (histogram suffixes and Prometheus's {@code le}
     * aside); the dashboard is a Grafana model with a Prometheus datasource variable; the rules are a PrometheusRule
     * whose runbooks name sections of docs/operations.md; {@code kubectl kustomize k8s/optional} renders both.
     */
    @Test
    void theDashboardAndAlertRulesUseOnlyWhatTheServiceExports() throws Exception {
        devIsSynced();
        assertTrue(Kube.eventually(SYNC, () -> target.path("/metrics").request(MediaType.TEXT_PLAIN).get(String.class)
                .contains("tenantplane_pass_duration_seconds_bucket{")), "a pass was measured");
        String metrics = target.path("/metrics").request(MediaType.TEXT_PLAIN).get(String.class);
        java.util.Map<String, java.util.Set<String>> exported = new java.util.TreeMap<>();
        java.util.regex.Matcher sampleLine = java.util.regex.Pattern.compile(
                "(?m)^(tenantplane_[a-z_]+)(?:\\{([^}]*)\\})? ").matcher(metrics);
        while (sampleLine.find()) {
            java.util.Set<String> labels = exported.computeIfAbsent(sampleLine.group(1), k -> new java.util.TreeSet<>());
            if (sampleLine.group(2) != null) {
                java.util.regex.Matcher l = java.util.regex.Pattern.compile("([a-zA-Z_]+)=\"").matcher(sampleLine.group(2));
                while (l.find()) {
                    labels.add(l.group(1));
                }
            }
        }
        java.nio.file.Path optional = Kube.REPO.resolve("k8s/optional");
        com.google.gson.JsonObject dashboard = JsonParser.parseString(java.nio.file.Files.readString(
                optional.resolve("grafana-dashboard.json"))).getAsJsonObject();
        List<String> exprs = new java.util.ArrayList<>();
        assertTrue(dashboard.getAsJsonObject("templating").getAsJsonArray("list").asList().stream()
                .map(com.google.gson.JsonElement::getAsJsonObject).anyMatch(v -> "datasource".equals(Json.string(v,
                        "type")) && "prometheus".equals(Json.string(v, "query"))), "a Prometheus datasource variable");
        assertTrue(dashboard.has("schemaVersion") && dashboard.has("uid") && dashboard.has("title"));
        for (com.google.gson.JsonElement p : dashboard.getAsJsonArray("panels")) {
            com.google.gson.JsonObject panel = p.getAsJsonObject();
            for (String field : List.of("id", "type", "title", "gridPos", "targets")) {
                assertTrue(panel.has(field), () -> "panel " + panel.get("title") + " has " + field);
            }
            assertTrue(Json.string(panel, "title").endsWith("?") || Json.string(panel, "title").contains("? ")
                    || panel.has("description"), () -> "panel " + panel.get("title") + " says what it answers");
            for (com.google.gson.JsonElement t : panel.getAsJsonArray("targets")) {
                assertEquals("${datasource}", Json.string(t.getAsJsonObject(), "datasource", "uid"));
                exprs.add(Json.string(t.getAsJsonObject(), "expr"));
            }
        }
        List<io.tenantplane.model.LoadedObject> rules = io.tenantplane.model.Manifests.read(
                optional.resolve("prometheusrule.yaml"));
        assertEquals(1, rules.size());
        com.google.gson.JsonObject rule = rules.get(0).object();
        assertEquals("monitoring.coreos.com/v1", Json.string(rule, "apiVersion"));
        assertEquals("PrometheusRule", Json.string(rule, "kind"));
        String operations = java.nio.file.Files.readString(Kube.REPO.resolve("docs/operations.md"));
        int alerts = 0;
        for (com.google.gson.JsonElement g : rule.getAsJsonObject("spec").getAsJsonArray("groups")) {
            for (com.google.gson.JsonElement r : g.getAsJsonObject().getAsJsonArray("rules")) {
                com.google.gson.JsonObject a = r.getAsJsonObject();
                alerts++;
                exprs.add(Json.string(a, "expr"));
                String runbook = Json.string(a, "annotations", "runbook_url");
                String anchor = runbook.substring(runbook.indexOf('#') + 1);
                assertTrue(operations.lines().anyMatch(h -> h.startsWith("## ") && h.substring(3).toLowerCase()
                        .replace(' ', '-').equals(anchor)), () -> Json.string(a, "alert") + ": docs/operations.md "
                        + "has a section #" + anchor);
                assertTrue(operations.contains("`" + Json.string(a, "alert") + "`"),
                        () -> "docs/operations.md lists " + Json.string(a, "alert"));
                assertTrue(Json.string(a, "labels", "severity") != null, () -> Json.string(a, "alert"));
            }
        }
        assertTrue(alerts >= 5);
        java.util.regex.Pattern metric = java.util.regex.Pattern.compile("\\b(tenantplane_[a-z_]+)(\\{([^}]*)\\})?");
        java.util.regex.Pattern by = java.util.regex.Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
        for (String expr : exprs) {
            java.util.Set<String> labelsHere = new java.util.TreeSet<>(List.of("le"));
            java.util.regex.Matcher m = metric.matcher(expr);
            boolean any = false;
            while (m.find()) {
                any = true;
                String name = m.group(1).replaceAll("_(bucket|count|sum|max)$", "");
                String found = exported.containsKey(m.group(1)) ? m.group(1) : name;
                assertTrue(exported.containsKey(found) || exported.containsKey(found + "_bucket"),
                        () -> "the service exports " + m.group(1) + " (" + expr + "): " + exported.keySet());
                java.util.Set<String> labels = exported.getOrDefault(found, exported.getOrDefault(found + "_bucket",
                        java.util.Set.of()));
                labelsHere.addAll(labels);
                if (m.group(3) != null) {
                    java.util.regex.Matcher l = java.util.regex.Pattern.compile("([a-zA-Z_]+)\\s*(=~|!~|!=|=)")
                            .matcher(m.group(3));
                    while (l.find()) {
                        String label = l.group(1);
                        assertTrue(labels.contains(label), () -> m.group(1) + " has label " + label + " (" + expr
                                + "): " + labels);
                    }
                }
            }
            assertTrue(any, () -> "each expression reads a tenantplane metric: " + expr);
            java.util.regex.Matcher b = by.matcher(expr);
            while (b.find()) {
                for (String label : b.group(1).split(",")) {
                    assertTrue(labelsHere.contains(label.trim()), () -> "grouped by " + label.trim()
                            + ", which its metrics carry (" + expr + "): " + labelsHere);
                }
            }
        }
        Process kustomize = new ProcessBuilder("kubectl", "kustomize", optional.toString()).redirectErrorStream(true)
                .start();
        String rendered = new String(kustomize.getInputStream().readAllBytes());
        assertEquals(0, kustomize.waitFor(), rendered);
        assertTrue(rendered.contains("kind: PrometheusRule") && rendered.contains("kind: ServiceMonitor")
                && rendered.contains("grafana_dashboard: \"1\""), rendered);
    }
}
