package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.FaultRule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Tenant Nodes that mirror host nodes are collected by the full pass once no tenant Pod is bound to them, against
 * in-process API servers: only Nodes carrying both mirror markers, with a uid precondition, and a failed delete is
 * retried by the next pass.
 */
@Tag(Live.HOOKS)
class NodeMirrorCollectionIT {

    private Live live;
    private TenantPlane plane;
    private Kube dev;

    @BeforeEach
    void start(TestInfo test) {
        live = Live.start(true);
        live.createTenant("dev");
        live.syncPrerequisites("dev");
        dev = live.tenant("dev");
        plane = live.plane();
    }

    @AfterEach
    void stop() {
        live.close();
    }

    /** Pods {@code web} on worker-1 and {@code api} on worker-2, as the host scheduled them, mirrored in the tenant. */
    private void twoPodsOnTwoMirroredNodes() {
        dev.create(SyncIT.pod("default", "web", Map.of("app", "web")));
        dev.create(SyncIT.pod("default", "api", Map.of("app", "api")));
        plane.converge(live.key("dev"));
        for (String node : List.of("worker-1", "worker-2")) {
            live.hostKube.create(Kube.json("""
                    {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s",
                      "labels":{"kubernetes.io/hostname":"%s"}}}""".formatted(node, node)));
        }
        live.hostKube.bind(live.namespace, "web-x-default-x-dev", "worker-1");
        live.hostKube.bind(live.namespace, "api-x-default-x-dev", "worker-2");
        plane.converge(live.key("dev"));
        assertEquals("worker-1", Json.string(dev.require("Pod", "default", "web"), "spec", "nodeName"));
        assertEquals("worker-2", Json.string(dev.require("Pod", "default", "api"), "spec", "nodeName"));
        dev.require("Node", null, "worker-1");
        dev.require("Node", null, "worker-2");
    }

    /**
     * Deletes tenant Pods as a user does and lets the deletion finish: bound to a mirror, each waits in Terminating;
     * the first pass deletes its host copy with the same grace period, the host's kubelet confirms that (by hand here:
     * this host has no kubelet), and the next pass finalizes the tenant Pod as the mirrored node's kubelet would.
     */
    private void deleteAndLetFinish(String... pods) {
        for (String pod : pods) {
            dev.delete("Pod", "default", pod);
            assertNotNull(Json.string(dev.require("Pod", "default", pod), "metadata", "deletionTimestamp"),
                    "a bound Pod waits in Terminating for its kubelet");
        }
        ConvergenceReport first = plane.converge(live.key("dev"));
        for (String pod : pods) {
            String hostName = pod + "-x-default-x-dev";
            Decision hostDelete = first.decisions().stream().filter(d -> d.kind().equals("Pod")
                    && d.action() == Action.DELETE && d.host() != null && hostName.equals(d.host().name()))
                    .findFirst().orElseThrow();
            assertEquals(30, hostDelete.desired().get("gracePeriodSeconds").getAsInt(), "the tenant's grace period");
            JsonObject copy = live.hostKube.require("Pod", live.namespace, hostName);
            assertNotNull(Json.string(copy, "metadata", "deletionTimestamp"), "the host copy terminates gracefully");
            assertTrue(dev.get("Pod", "default", pod).isPresent(), "the tenant Pod waits for its host copy");
            live.hostKube.confirmPodDeletion(copy);
        }

        ConvergenceReport second = plane.converge(live.key("dev"));

        for (String pod : pods) {
            assertTrue(second.decisions().stream().anyMatch(d -> d.reason().equals(Reasons.POD_FINALIZED)
                    && d.action() == Action.DELETE && pod.equals(d.source().name())), second.decisions()::toString);
            assertTrue(dev.get("Pod", "default", pod).isEmpty(), "finalized as its kubelet would");
        }
    }

    private static List<Decision> nodeDecisions(ConvergenceReport r, Action action) {
        return r.decisions().stream().filter(d -> d.kind().equals("Node") && d.action() == action).toList();
    }

    @Test
    void aMirrorWhoseLastPodIsGoneIsDeletedOnTheNextPassWhileAUsedMirrorIsKept() {
        twoPodsOnTwoMirroredNodes();
        JsonObject worker2 = dev.require("Node", null, "worker-2");
        deleteAndLetFinish("api");

        ConvergenceReport r = plane.converge(live.key("dev"));

        List<Decision> deletes = nodeDecisions(r, Action.DELETE);
        assertEquals(1, deletes.size(), r.decisions()::toString);
        Decision d = deletes.get(0);
        assertEquals("NodeMirrorUnused", d.reason());
        assertEquals("worker-2", d.host().name());
        assertEquals(Json.string(worker2, "metadata", "uid"), Json.string(d.observed(), "metadata", "uid"));
        assertTrue(r.outcomes().stream().anyMatch(o -> o instanceof Outcome.Applied a && a.decision() == d),
                r.outcomes()::toString);
        assertTrue(dev.get("Node", null, "worker-2").isEmpty(), "the unused mirror is gone");
        assertEquals("true", Json.labels(dev.require("Node", null, "worker-1")).get("tenantplane.io/host-node"),
                "the mirror web is bound to stays");

        live.tenantServer("dev").requests().reset();
        ConvergenceReport again = plane.converge(live.key("dev"));
        assertEquals(0, again.writes(), again.decisions()::toString);
        assertEquals(0, live.tenantServer("dev").requests().writes(), "a converged tenant gets no writes");
    }

    @Test
    void aHostPodThatVanishesOnTheHostIsNotRecreatedAndItsTenantPodIsDeleted() {
        twoPodsOnTwoMirroredNodes();
        JsonObject copy = live.hostKube.require("Pod", live.namespace, "api-x-default-x-dev");
        copy.add("status", Kube.json("""
                {"phase":"Running","hostIP":"172.18.0.3","podIP":"10.244.2.7","qosClass":"BestEffort"}"""));
        live.hostKube.updateStatus(copy);
        plane.converge(live.key("dev"));
        assertEquals("172.18.0.3", Json.string(dev.require("Pod", "default", "api"), "status", "hostIP"));
        // Evicted and collected, or deleted by someone on the host: the tenant did not ask for it.
        live.hostKube.confirmPodDeletion(live.hostKube.require("Pod", live.namespace, "api-x-default-x-dev"));

        ConvergenceReport r = plane.converge(live.key("dev"));

        List<Decision> gone = r.decisions().stream().filter(d -> Reasons.HOST_POD_GONE.equals(d.reason())).toList();
        assertEquals(List.of(Action.SKIP, Action.DELETE), gone.stream().map(Decision::action).toList(), gone::toString);
        assertTrue(gone.get(0).message().contains("has disappeared from the host"), gone.get(0).message());
        assertTrue(dev.get("Pod", "default", "api").isEmpty(), "deleted in the tenant, for its controller to replace");
        assertTrue(live.hostKube.get("Pod", live.namespace, "api-x-default-x-dev").isEmpty(), "not recreated");
        dev.require("Pod", "default", "web");
        live.hostKube.require("Pod", live.namespace, "web-x-default-x-dev");
    }

    @Test
    void aMirrorWhoseHostNodeWasRemovedGoesWithTheTenantPodsThatRanThere() {
        twoPodsOnTwoMirroredNodes();
        // The host node goes away with its pods; the tenant's controllers (or the user) delete the tenant Pod.
        live.hostKube.delete("Node", null, "worker-2");
        deleteAndLetFinish("api");

        ConvergenceReport r = plane.converge(live.key("dev"));

        assertEquals(List.of("worker-2"), nodeDecisions(r, Action.DELETE).stream().map(d -> d.host().name()).toList());
        assertTrue(dev.get("Node", null, "worker-2").isEmpty());
        dev.require("Node", null, "worker-1");
    }

    @Test
    void aNodeWithoutBothMirrorMarkersIsNeverTouched() {
        twoPodsOnTwoMirroredNodes();
        // The tenant's own Node, one with the host-node label alone, and one with the managed-by label alone.
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"own","labels":{"team":"a"}}}"""));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"half-a",
                  "labels":{"tenantplane.io/host-node":"true"}}}"""));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"half-b",
                  "labels":{"tenantplane.io/managed-by":"tenantplane"}}}"""));
        List<JsonObject> before = List.of(dev.require("Node", null, "own"), dev.require("Node", null, "half-a"),
                dev.require("Node", null, "half-b"));
        deleteAndLetFinish("web", "api");

        ConvergenceReport r = plane.converge(live.key("dev"));

        assertEquals(List.of("worker-1", "worker-2"),
                nodeDecisions(r, Action.DELETE).stream().map(d -> d.host().name()).sorted().toList());
        assertTrue(r.decisions().stream().filter(d -> d.kind().equals("Node"))
                .noneMatch(d -> List.of("own", "half-a", "half-b").contains(d.host().name())), r.decisions()::toString);
        for (JsonObject b : before) {
            JsonObject now = dev.require("Node", null, Json.string(b, "metadata", "name"));
            assertEquals(Json.string(b, "metadata", "resourceVersion"), Json.string(now, "metadata", "resourceVersion"),
                    "untouched: " + Json.string(b, "metadata", "name"));
        }
    }

    @Test
    void aFailedMirrorDeleteLosesNothingAndTheNextPassConverges() {
        twoPodsOnTwoMirroredNodes();
        deleteAndLetFinish("api");
        live.tenantServer("dev").faults().add(FaultRule.on("delete", "nodes").respond(500));

        ConvergenceReport failed = plane.converge(live.key("dev"));

        Decision d = nodeDecisions(failed, Action.DELETE).get(0);
        assertEquals("NodeMirrorUnused", d.reason());
        Outcome o = failed.outcomes().stream().filter(x -> x.decision().kind().equals("Node")
                && x.decision().action() == Action.DELETE).findFirst().orElseThrow();
        assertInstanceOf(Outcome.Failed.class, o);
        dev.require("Node", null, "worker-2");
        dev.require("Node", null, "worker-1");
        assertEquals("worker-1", Json.string(dev.require("Pod", "default", "web"), "spec", "nodeName"));
        assertTrue(live.hostKube.get("Pod", live.namespace, "web-x-default-x-dev").isPresent());
        assertTrue(live.hostKube.get("Pod", live.namespace, "api-x-default-x-dev").isEmpty(),
                "the rest of the pass was applied");

        live.tenantServer("dev").faults().clear();
        ConvergenceReport next = plane.converge(live.key("dev"));

        assertEquals(List.of("worker-2"), nodeDecisions(next, Action.DELETE).stream()
                .map(x -> x.host().name()).toList());
        assertTrue(dev.get("Node", null, "worker-2").isEmpty());
        dev.require("Node", null, "worker-1");
        assertEquals(0, plane.converge(live.key("dev")).writes());
    }

    @Test
    void aMirrorThatThePassBindsAPodToIsKeptThoughNoPodWasBoundWhenThePassBegan() {
        twoPodsOnTwoMirroredNodes();
        dev.create(SyncIT.pod("default", "api2", Map.of("app", "api")));
        plane.converge(live.key("dev"));
        live.hostKube.bind(live.namespace, "api2-x-default-x-dev", "worker-2");
        dev.delete("Pod", "default", "api");

        ConvergenceReport r = plane.converge(live.key("dev"));

        assertEquals(List.of(), nodeDecisions(r, Action.DELETE), r.decisions()::toString);
        assertEquals("worker-2", Json.string(dev.require("Pod", "default", "api2"), "spec", "nodeName"));
        dev.require("Node", null, "worker-2");
    }

    @Test
    void mirrorsAreRefreshedFromTheirHostNodesOnAFullPass() {
        twoPodsOnTwoMirroredNodes();
        JsonObject host = live.hostKube.require("Node", null, "worker-1");
        Json.child(host, "metadata", "labels").addProperty("topology.kubernetes.io/zone", "b");
        live.hostKube.update(host);

        ConvergenceReport r = plane.converge(live.key("dev"));

        assertEquals("b", Json.labels(dev.require("Node", null, "worker-1")).get("topology.kubernetes.io/zone"));
        assertTrue(nodeDecisions(r, Action.UPDATE).stream().allMatch(d -> d.reason().equals("NodeMirrored")));
        assertEquals(1, nodeDecisions(r, Action.UPDATE).size(), r.decisions()::toString);
    }
}
