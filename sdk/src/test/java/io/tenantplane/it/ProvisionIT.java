package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Provisioning, status and removal of tenants on the host. */
class ProvisionIT {

    private Live live;
    private TenantPlane plane;

    @BeforeEach
    void start(TestInfo test) {
        live = Live.start(test.getTags().contains(Live.HOOKS));
        plane = live.plane();
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private TenantCluster tenantCluster(String tenant) {
        JsonObject tc = live.customResources(tenant).stream()
                .filter(o -> "TenantCluster".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
        return TenantCluster.fromJson(tc).orElseThrow();
    }

    /** Creates the profile and policy, then lets ensure() create the TenantCluster itself. */
    private ProvisionReport provision(String tenant) {
        live.createTenant(tenant, o -> {
            if ("TenantCluster".equals(Json.string(o, "kind"))) {
                Json.child(o, "metadata").addProperty("name", "unused-" + tenant);
            }
        });
        live.hostKube.delete("TenantCluster", live.namespace, "unused-" + tenant);
        return plane.ensure(tenantCluster(tenant));
    }

    private JsonObject tc(String tenant) {
        return live.hostKube.require("TenantCluster", live.namespace, tenant);
    }

    private static Map<String, JsonObject> conditions(JsonObject tc) {
        Map<String, JsonObject> m = new HashMap<>();
        JsonArray arr = tc.getAsJsonObject("status").getAsJsonArray("conditions");
        for (JsonElement e : arr) {
            m.put(Json.string(e.getAsJsonObject(), "type"), e.getAsJsonObject());
        }
        return m;
    }

    /** Plays the StatefulSet and Deployment controllers: every control plane and DNS replica ready. */
    private void controlPlaneBecomesReady(String tenant) {
        live.hostKube.controlPlaneRuns(live.namespace, tenant);
    }

    @Test
    @Tag(Live.HOOKS)
    void provisioningAppliesTheBoundaryAndControlPlaneAndWritesStatusConditions() {
        ProvisionReport first = provision("dev");

        assertTrue(first.succeeded(), first.outcomes()::toString);
        assertTrue(first.statusWritten());
        for (String[] o : new String[][] {{"StatefulSet", "dev-control-plane"}, {"Service", "dev-api"},
                {"Secret", "dev-kubeconfig"}, {"NetworkPolicy", "dev-default-deny"}, {"ResourceQuota", "dev-quota"},
                {"LimitRange", "dev-limits"}, {"ServiceAccount", "dev-workload"}, {"Role", "dev-control-plane"}}) {
            JsonObject host = live.hostKube.require(o[0], live.namespace, o[1]);
            assertEquals("dev", Json.labels(host).get("tenantplane.io/tenant"), o[0] + " " + o[1]);
        }
        assertEquals("restricted", Json.labels(live.hostKube.require("Namespace", null, live.namespace))
                .get("pod-security.kubernetes.io/enforce"), "the shared namespace gets the Pod Security labels");
        JsonObject tc = tc("dev");
        assertTrue(Json.gson().fromJson(tc.getAsJsonObject("metadata").get("finalizers"), List.class)
                .contains("tenantplane.io/cleanup"));
        assertEquals("Provisioning", Json.string(tc, "status", "phase"));
        assertEquals(live.namespace, Json.string(tc, "status", "hostNamespace"));
        assertEquals("dev-kubeconfig", Json.string(tc, "status", "kubeconfigSecretRef", "name"));
        assertEquals(1L, tc.getAsJsonObject("status").get("observedGeneration").getAsLong());
        Map<String, JsonObject> c = conditions(tc);
        assertEquals("False", Json.string(c.get("Ready"), "status"));
        assertEquals("ControlPlaneNotReady", Json.string(c.get("Ready"), "reason"));
        assertEquals("True", Json.string(c.get("IsolationApplied"), "status"));
        assertEquals("False", Json.string(c.get("Degraded"), "status"));
        assertEquals("Unknown", Json.string(c.get("Synced"), "status"));
        assertEquals("ReplicasNotReady", Json.string(c.get("ControlPlaneReady"), "reason"));
        // The status write is a decision like any other: reported, so it is in the ring (and an Event, a metric).
        assertTrue(plane.decisions(live.key("dev"), 100).stream().anyMatch(d -> d.outcome().decision().reason()
                .equals(Reasons.STATUS_UPDATED) && d.outcome() instanceof io.tenantplane.observe.Outcome.Applied),
                "the status write is reported");
        String isolatedSince = Json.string(c.get("IsolationApplied"), "lastTransitionTime");

        controlPlaneBecomesReady("dev");
        ProvisionReport second = plane.ensure(live.key("dev"));

        JsonObject ready = tc("dev");
        Map<String, JsonObject> c2 = conditions(ready);
        assertEquals("Ready", Json.string(ready, "status", "phase"));
        assertEquals("True", Json.string(c2.get("Ready"), "status"));
        assertEquals("TenantReady", Json.string(c2.get("Ready"), "reason"));
        assertEquals("True", Json.string(c2.get("ControlPlaneReady"), "status"));
        assertEquals(isolatedSince, Json.string(c2.get("IsolationApplied"), "lastTransitionTime"),
                "an unchanged condition keeps its lastTransitionTime");
        assertTrue(second.outcomes().stream().allMatch(o -> o.decision().action() == Action.UNCHANGED),
                second.outcomes()::toString);

        KubeApiServer server = live.requireHostServer();
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)), "Events of earlier passes are written");
        server.requests().reset();
        ProvisionReport third = plane.ensure(live.key("dev"));
        assertFalse(third.statusWritten());
        assertEquals(0, server.requests().writes(), server.requests()::toString);
    }

    @Test
    @Tag(Live.HOOKS)
    void aBadSpecGetsReadyFalseNamingTheFieldAndNothingElseIsWritten() {
        KubeApiServer server = live.requireHostServer();
        // The API server refuses sqlite with 3 replicas (a CEL rule of the CRD); such a TenantCluster exists only
        // when it was stored before its CRD had the rule.
        live.storedBeforeCelRules("tenantclusters.tenantplane.io", () -> live.createTenant("dev", o -> {
            if ("TenantCluster".equals(Json.string(o, "kind"))) {
                Json.child(o, "spec", "controlPlane").addProperty("replicas", 3);
            }
        }));
        server.requests().reset();

        ProvisionReport r = plane.ensure(live.key("dev"));

        assertFalse(r.succeeded());
        JsonObject tc = tc("dev");
        Map<String, JsonObject> c = conditions(tc);
        assertEquals("False", Json.string(c.get("Ready"), "status"));
        assertEquals("InvalidSpec", Json.string(c.get("Ready"), "reason"));
        assertTrue(Json.string(c.get("Ready"), "message").contains("spec.controlPlane"),
                Json.string(c.get("Ready"), "message"));
        assertEquals("InvalidSpec", Json.string(c.get("Accepted"), "reason"));
        assertEquals("Pending", Json.string(tc, "status", "phase"));
        // The status is the one object written (the Event recording that write, if already out, is not state).
        List<RequestLog.Entry> writes = server.requests().entries().stream().filter(RequestLog.Entry::isWrite)
                .filter(e -> !e.resource().equals("events")).toList();
        assertEquals(1, writes.size(), writes::toString);
        assertEquals("tenantclusters/status", writes.get(0).resource());
        assertEquals("tenantplane.io", writes.get(0).group());
        assertTrue(live.hostKube.get("StatefulSet", live.namespace, "dev-control-plane").isEmpty());

        assertTrue(plane.observer().flush(Duration.ofSeconds(10)), "Events of earlier passes are written");
        server.requests().reset();
        plane.ensure(live.key("dev"));
        assertEquals(0, server.requests().writes(), "the same problem is not written twice");
    }

    /**
     * A control-plane StatefulSet made by an earlier version, with other volumeClaimTemplates (a field a StatefulSet
     * cannot change): the update is refused, so the StatefulSet is deleted orphaning its pod, which keeps running,
     * and the next pass creates it as rendered; it never stays refused.
     */
    @Test
    @Tag(Live.HOOKS)
    void aStatefulSetWhoseImmutableFieldsChangedIsReplacedOrphaningItsPods() {
        // The host's garbage collector finishes an orphaning delete: the simulated host runs one.
        live.close();
        live = Live.simulated(io.tenantplane.testkit.Simulation.builder().nodes(1).build());
        plane = live.plane();
        assertTrue(provision("dev").succeeded());
        String name = "dev-control-plane";
        JsonObject rendered = live.hostKube.require("StatefulSet", live.namespace, name);
        live.hostKube.delete("StatefulSet", live.namespace, name);
        JsonObject older = rendered.deepCopy();
        JsonObject meta = Json.child(older, "metadata");
        for (String f : List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields")) {
            meta.remove(f);
        }
        older.remove("status");
        JsonObject claim = older.getAsJsonObject("spec").getAsJsonArray("volumeClaimTemplates").get(0)
                .getAsJsonObject();
        Json.child(claim, "spec", "resources", "requests").addProperty("storage", "1Gi");
        // The rendered set's pod goes with it (the host's garbage collector); the older set's StatefulSet controller
        // makes its own.
        assertTrue(Live.eventually(java.time.Duration.ofSeconds(10), () -> live.hostKube.get("Pod", live.namespace,
                name + "-0").isEmpty()), "the rendered set's pod is collected");
        JsonObject sts = live.hostKube.create(older);
        String olderUid = Json.string(sts, "metadata", "uid");
        assertTrue(Live.eventually(java.time.Duration.ofSeconds(10), () -> live.hostKube.get("Pod", live.namespace,
                name + "-0").map(p -> p.toString().contains(olderUid)).orElse(false)), "the older set runs its pod");
        JsonObject pod = live.hostKube.require("Pod", live.namespace, name + "-0");

        ProvisionReport r = plane.ensure(tenantCluster("dev"));
        Decision replaced = r.outcomes().stream().map(o -> o.decision())
                .filter(d -> d.kind().equals("StatefulSet")).findFirst().orElseThrow();
        assertEquals(Action.DELETE, replaced.action(), r.outcomes()::toString);
        assertEquals("StatefulSetReplaced", replaced.reason());
        assertEquals(java.util.Optional.of(List.of()), r.context().listed("apps/v1", "StatefulSet", live.namespace,
                "tenantplane.io/tenant=dev"), "the list handed on no longer holds the StatefulSet it deleted");
        assertTrue(Live.eventually(java.time.Duration.ofSeconds(10),
                () -> live.hostKube.get("StatefulSet", live.namespace, name).isEmpty()), "the old one is gone");
        JsonObject kept = live.hostKube.require("Pod", live.namespace, pod.getAsJsonObject("metadata")
                .get("name").getAsString());
        assertTrue(Json.object(kept, "metadata").get("ownerReferences") == null
                || Json.object(kept, "metadata").getAsJsonArray("ownerReferences").isEmpty(),
                "the pod is orphaned, not deleted: " + kept.get("metadata"));

        ProvisionReport again = plane.ensure(tenantCluster("dev"));
        Decision created = again.outcomes().stream().map(o -> o.decision())
                .filter(d -> d.kind().equals("StatefulSet")).findFirst().orElseThrow();
        assertEquals(Action.CREATE, created.action(), again.outcomes()::toString);
        JsonObject now = live.hostKube.require("StatefulSet", live.namespace, name);
        assertEquals(rendered.getAsJsonObject("spec").get("volumeClaimTemplates"),
                now.getAsJsonObject("spec").get("volumeClaimTemplates"));
    }

    @Test
    void aForeignObjectHoldingANameTheTenantNeedsMakesItDegradedAndIsNeverOverwritten() {
        JsonObject foreign = live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"dev-api","namespace":"%s"},
                 "spec":{"selector":{"app":"billing"},"ports":[{"port":443,"targetPort":8443}]}}"""
                .formatted(live.namespace)));

        ProvisionReport r = provision("dev");

        Decision conflict = r.outcomes().stream().map(o -> o.decision())
                .filter(d -> d.kind().equals("Service") && "dev-api".equals(d.host().name())).findFirst().orElseThrow();
        assertEquals(Action.CONFLICT, conflict.action());
        assertEquals("ForeignObject", conflict.reason());
        JsonObject after = live.hostKube.require("Service", live.namespace, "dev-api");
        assertEquals(Json.string(foreign, "metadata", "resourceVersion"), Json.string(after, "metadata",
                "resourceVersion"));
        Map<String, JsonObject> c = conditions(tc("dev"));
        assertEquals("True", Json.string(c.get("Degraded"), "status"));
        assertEquals("ForeignObject", Json.string(c.get("Degraded"), "reason"));
        assertTrue(Json.string(c.get("Degraded"), "message").contains("dev-api"));
        assertEquals("Degraded", Json.string(tc("dev"), "status", "phase"));
    }

    @Test
    void aTenantInPrivateModeLosesTheDnsRenderedForItAndNoForeignObjectOfTheSameName() {
        provision("dev");
        String dns = "dev-dns";
        for (String kind : List.of("ConfigMap", "Deployment", "Service", "NetworkPolicy")) {
            assertTrue(live.hostKube.get(kind, live.namespace, dns).isPresent(), kind + " rendered in shared mode");
        }
        assertTrue(live.hostKube.get("Secret", live.namespace, "dev-dns-kubeconfig").isPresent());
        // Someone else's Service now holds the DNS Service's name (the tenant's was deleted and the name reused).
        live.hostKube.delete("Service", live.namespace, dns);
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"dev-dns","namespace":"%s"},
                 "spec":{"selector":{"app":"other"},"ports":[{"port":53}]}}""".formatted(live.namespace)));
        // The tenant is in private mode: asked for, and in effect (as a finished migration leaves it).
        JsonObject tc = tc("dev");
        Json.child(tc, "spec").addProperty("mode", "private");
        JsonObject updated = live.hostKube.update(tc);
        Json.child(updated, "status").addProperty("mode", "private");
        Json.child(updated, "status").addProperty("hostNamespace", live.namespace + "-x-dev");
        live.hostKube.updateStatus(updated);

        ProvisionReport r = plane.ensure(live.key("dev"));

        List<Decision> retired = r.outcomes().stream().map(o -> o.decision())
                .filter(d -> "DnsRetired".equals(d.reason())).toList();
        assertEquals(List.of("ConfigMap", "Deployment", "NetworkPolicy", "Secret"), retired.stream()
                .map(Decision::kind).sorted().toList(), retired::toString);
        for (String kind : List.of("ConfigMap", "Deployment", "NetworkPolicy")) {
            assertTrue(live.hostKube.get(kind, live.namespace, dns).isEmpty(), kind + " removed");
        }
        assertTrue(live.hostKube.get("Secret", live.namespace, "dev-dns-kubeconfig").isEmpty());
        assertTrue(live.hostKube.get("Service", live.namespace, dns).isPresent(), "the foreign Service stays");
    }

    /**
     * On a host that runs a StatefulSet controller (the simulated one, as a real host runs kube-controller-manager's),
     * the control plane's StatefulSet makes its pod and data claim in the tenant's namespace, under the namespace's
     * Pod Security level, LimitRange and ResourceQuota, and the tenant becomes Ready from that pod's readiness alone,
     * with no test writing the StatefulSet's status. Removal then leaves neither the pod nor the claim, which the
     * StatefulSet keeps ({@code whenDeleted: Retain}) and tenantplane deletes.
     */
    @Test
    @Tag(Live.HOOKS)
    void theHostsStatefulSetControllerRunsTheControlPlaneAndRemovalLeavesNoClaimBehind() {
        live.close();
        live = Live.simulated(io.tenantplane.testkit.Simulation.builder().nodes(1).build());
        plane = live.plane();
        assertTrue(provision("dev").succeeded());
        assertTrue(Live.eventually(Duration.ofSeconds(20), () -> live.hostKube.get("Pod", live.namespace,
                "dev-control-plane-0").map(p -> "Running".equals(Json.string(p, "status", "phase"))).orElse(false)),
                () -> "the host's StatefulSet controller runs the control plane's pod; events: " + live.hostKube
                        .list("Event", live.namespace, null).stream().map(e -> Json.string(e, "message")).toList());
        JsonObject pod = live.hostKube.require("Pod", live.namespace, "dev-control-plane-0");
        assertEquals("dev-control-plane-headless", Json.string(pod, "spec", "subdomain"));
        assertEquals("0", Json.labels(pod).get("apps.kubernetes.io/pod-index"));
        JsonObject claim = live.hostKube.require("PersistentVolumeClaim", live.namespace, "data-dev-control-plane-0");
        assertEquals("dev", Json.labels(claim).get("tenantplane.io/tenant"), "the claim carries the tenant's labels");
        assertTrue(Live.eventually(Duration.ofSeconds(20), () -> {
            plane.ensure(live.key("dev"));
            return "Ready".equals(Json.string(tc("dev"), "status", "phase"));
        }), () -> "Ready from the pod's readiness: " + tc("dev").get("status"));

        live.hostKube.delete("TenantCluster", live.namespace, "dev");
        ProvisionReport removed = plane.ensure(live.key("dev"));
        assertTrue(removed.gone(), removed.outcomes()::toString);
        assertTrue(removed.outcomes().stream().anyMatch(o -> o.decision().kind().equals("PersistentVolumeClaim")
                && o.decision().action() == Action.DELETE), removed.outcomes()::toString);
        assertTrue(live.hostKube.get("PersistentVolumeClaim", live.namespace, "data-dev-control-plane-0").isEmpty(),
                "the data claim is removed with the tenant");
        assertTrue(Live.eventually(Duration.ofSeconds(20), () -> live.hostKube.get("Pod", live.namespace,
                "dev-control-plane-0").isEmpty()), "the host's garbage collector removes the pod of the deleted set");
    }

    /**
     * A host namespace whose quota has no room for the control plane's pod: the host's StatefulSet controller cannot
     * make it and says why in a FailedCreate Event; the TenantCluster's conditions carry that reason instead of a bare
     * count, and the tenant becomes Ready once the quota makes room.
     */
    @Test
    @Tag(Live.HOOKS)
    void aControlPlanePodTheHostRefusesIsNamedWithTheHostsReasonInTheConditions() {
        live.close();
        live = Live.simulated(io.tenantplane.testkit.Simulation.builder().nodes(1).build());
        plane = live.plane();
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"platform-pods","namespace":"%s"},
                 "spec":{"hard":{"pods":"0"}}}""".formatted(live.namespace)));
        assertTrue(provision("dev").succeeded());
        assertTrue(Live.eventually(Duration.ofSeconds(20), () -> {
            plane.ensure(live.key("dev"));
            return "PodRefused".equals(Json.string(conditions(tc("dev")).get("ControlPlaneReady"), "reason"));
        }), () -> "the refusal is named: " + tc("dev").get("status"));
        Map<String, JsonObject> c = conditions(tc("dev"));
        String message = Json.string(c.get("ControlPlaneReady"), "message");
        assertTrue(message.startsWith("0 of 1 control plane replicas are ready: the host refused to create a control "
                + "plane pod (create Pod dev-control-plane-0 in StatefulSet dev-control-plane failed error: pods "
                + "\"dev-control-plane-0\" is forbidden: exceeded quota: platform-pods"), message);
        assertEquals("ControlPlaneNotReady", Json.string(c.get("Ready"), "reason"));
        assertEquals(message, Json.string(c.get("Ready"), "message"), "Ready says why, too");

        live.hostKube.delete("ResourceQuota", live.namespace, "platform-pods");
        assertTrue(Live.eventually(Duration.ofSeconds(20), () -> {
            plane.ensure(live.key("dev"));
            return "Ready".equals(Json.string(tc("dev"), "status", "phase"));
        }), () -> "Ready once the quota makes room: " + tc("dev").get("status"));
        assertEquals("ReplicasReady", Json.string(conditions(tc("dev")).get("ControlPlaneReady"), "reason"),
                "the old refusal is not reported once the pod exists");
    }

    @Test
    void deletingATenantClusterRemovesExactlyWhatWasCreatedForItAndThenItsFinalizer() {
        provision("dev");
        provision("qa");
        Kube devApi = live.tenant("dev");
        Kube qaApi = live.tenant("qa");
        devApi.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        qaApi.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        assertTrue(plane.converge(live.key("dev")).converged());
        assertTrue(plane.converge(live.key("qa")).converged());
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"platform-settings","namespace":"%s",
                 "labels":{"tenantplane.io/tenant":"dev"}},"data":{"a":"b"}}""".formatted(live.namespace)));

        live.hostKube.delete("TenantCluster", live.namespace, "dev");
        assertNotNull(Json.string(tc("dev"), "metadata", "deletionTimestamp"), "the finalizer holds it");
        ProvisionReport r = plane.ensure(live.key("dev"));

        assertTrue(r.gone(), r.outcomes()::toString);
        assertTrue(live.hostKube.get("TenantCluster", live.namespace, "dev").isEmpty());
        assertTrue(r.outcomes().stream().allMatch(o -> o.decision().action() == Action.DELETE
                || "FinalizerRemoved".equals(o.decision().reason())), r.outcomes()::toString);
        for (String[] o : new String[][] {{"Pod", "web-x-default-x-dev"}, {"StatefulSet", "dev-control-plane"},
                {"Service", "dev-api"}, {"NetworkPolicy", "dev-default-deny"}, {"ServiceAccount", "dev-workload"}}) {
            assertTrue(live.hostKube.get(o[0], live.namespace, o[1]).isEmpty(), o[0] + " " + o[1] + " is removed");
        }
        for (String[] o : new String[][] {{"Pod", "web-x-default-x-qa"}, {"StatefulSet", "qa-control-plane"},
                {"Service", "qa-api"}, {"NetworkPolicy", "qa-default-deny"}, {"ConfigMap", "platform-settings"}}) {
            assertTrue(live.hostKube.get(o[0], live.namespace, o[1]).isPresent(), o[0] + " " + o[1] + " stays");
        }
        assertTrue(live.hostKube.get("Namespace", null, live.namespace).isPresent());
        assertTrue(live.hostKube.get("TenantCluster", live.namespace, "qa").isPresent());
    }

    @Test
    void provisioningAndRemovalReportEveryDecisionIntoTheirOwnScopeOnce() {
        ScopeRecorder heard = new ScopeRecorder();
        plane = live.plane(b -> b.observer(heard));
        ProvisionReport first = provision("dev");

        String key = live.key("dev").toString();
        assertEquals(List.of("provision " + key + "#0"), heard.opened, "one provisioning scope, no pass scope");
        assertEquals(heard.opened, heard.closed, "and it was closed");
        List<io.tenantplane.observe.Outcome> events = heard.inScope.get("provision " + key + "#0");
        assertEquals(heard.reported, events, "every reported outcome is a span event of the provisioning, once");
        assertTrue(events.containsAll(first.outcomes()), "the report's outcomes were all reported");
        assertTrue(events.stream().anyMatch(o -> o.decision().reason().equals(Reasons.FINALIZER_ADDED)),
                events::toString);
        assertTrue(events.stream().anyMatch(o -> o.decision().reason().equals(Reasons.STATUS_UPDATED)),
                "the status write is reported into the scope too, though not among the report's outcomes");
        assertTrue(first.outcomes().stream().noneMatch(o -> o.decision().reason().equals(Reasons.STATUS_UPDATED)));

        live.hostKube.delete("TenantCluster", live.namespace, "dev");
        ProvisionReport removed = plane.ensure(live.key("dev"));
        assertTrue(removed.gone(), removed.outcomes()::toString);
        assertEquals(List.of("provision " + key + "#0", "provision " + key + "#1"), heard.closed);
        assertTrue(heard.inScope.get("provision " + key + "#1").containsAll(removed.outcomes()),
                "the removal's deletes and the finalizer's removal are span events of its scope");
        assertEquals(heard.reported.size(), heard.inScope.values().stream().mapToInt(List::size).sum(),
                "no outcome was reported outside a scope or twice");
    }
}
