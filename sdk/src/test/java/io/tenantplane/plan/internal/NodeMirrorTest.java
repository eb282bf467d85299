package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import org.junit.jupiter.api.Test;

class NodeMirrorTest {

    private static final String HOST_NODE = """
            {"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-1","uid":"u1","labels":{"zone":"a"}},
             "spec":{"podCIDR":"10.42.1.0/24","taints":[{"key":"x","effect":"NoSchedule"}]},
             "status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"3800m"},"addresses":[{"type":"InternalIP","address":"192.168.1.10"}],
              "conditions":[{"type":"MemoryPressure","status":"False"},
                {"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"2025-01-01T00:00:00Z",
                 "lastTransitionTime":"2024-12-01T00:00:00Z"}]}}""";

    @Test
    void mirrorsLabelsCapacityAddressesAndReadinessButNotTheSpec() {
        JsonObject mirror = NodeMirror.desired("worker-1", JsonParser.parseString(HOST_NODE).getAsJsonObject());
        assertEquals("a", Json.labels(mirror).get("zone"));
        assertEquals("true", Json.labels(mirror).get(NodeMirror.MIRROR_LABEL));
        assertEquals("3800m", Json.string(mirror, "status", "allocatable", "cpu"));
        assertEquals(1, mirror.getAsJsonObject("status").getAsJsonArray("conditions").size());
        assertFalse(mirror.has("spec"), "host taints and pod CIDRs stay on the host");
        assertEquals(null, Json.string(mirror, "metadata", "uid"));
    }

    @Test
    void aNewHeartbeatAloneIsNoReasonToWrite() {
        JsonObject host = JsonParser.parseString(HOST_NODE).getAsJsonObject();
        JsonObject written = NodeMirror.desired("worker-1", host);
        String later = HOST_NODE.replace("2025-01-01T00:00:00Z", "2025-01-01T00:05:00Z");
        JsonObject next = NodeMirror.desired("worker-1", JsonParser.parseString(later).getAsJsonObject());
        assertFalse(NodeMirror.statusDiffers(next, written));
        String notReady = HOST_NODE.replace("\"status\":\"True\",\"reason\":\"KubeletReady\"",
                "\"status\":\"False\",\"reason\":\"KubeletNotReady\"");
        assertTrue(NodeMirror.statusDiffers(NodeMirror.desired("worker-1",
                JsonParser.parseString(notReady).getAsJsonObject()), written));
    }

    @Test
    void withAKubeletEndpointTheMirrorNamesOnlyItsAddressAndPort() {
        JsonObject host = JsonParser.parseString(HOST_NODE).getAsJsonObject();
        JsonObject mirror = NodeMirror.desired("worker-1", host, "tenantplane-kubelet.tenantplane-system.svc", 10250);

        assertEquals("[{\"type\":\"Hostname\",\"address\":\"tenantplane-kubelet.tenantplane-system.svc\"}]",
                Json.object(mirror, "status").get("addresses").toString(),
                "the tenant API dials the endpoint, never the host node's kubelet");
        assertEquals(10250, Json.object(mirror, "status", "daemonEndpoints", "kubeletEndpoint").get("Port")
                .getAsInt());
        JsonObject byIp = NodeMirror.desired("worker-1", host, "10.96.0.20", 10250);
        assertEquals(2, Json.object(byIp, "status").getAsJsonArray("addresses").size(), "Hostname and InternalIP");

        // A mirror written before the endpoint (host addresses, the API server's Port 0) is rewritten once.
        JsonObject before = NodeMirror.desired("worker-1", host);
        Json.object(before, "status").add("daemonEndpoints", JsonParser.parseString(
                "{\"kubeletEndpoint\":{\"Port\":0}}"));
        assertTrue(NodeMirror.statusDiffers(mirror, before));
        assertFalse(NodeMirror.statusDiffers(NodeMirror.desired("worker-1", host), before),
                "Port 0 is what a real API server answers for no port: no difference");
        assertFalse(NodeMirror.statusDiffers(mirror, mirror.deepCopy()));
    }

    @Test
    void anUnreadableHostNodeGivesAMirrorWithUnknownReadiness() {
        JsonObject mirror = NodeMirror.desired("worker-1", null);
        JsonObject ready = mirror.getAsJsonObject("status").getAsJsonArray("conditions").get(0).getAsJsonObject();
        assertEquals("Unknown", Json.string(ready, "status"));
        assertEquals("HostNodeNotReadable", Json.string(ready, "reason"));
    }

    /** A mirror as the tenant API holds it, both markers set; {@code cordoned}: a migration cordoned it. */
    private static JsonObject mirror(String name, boolean cordoned) {
        JsonObject m = JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","uid":"m1","resourceVersion":"7"}}"""
                .formatted(name)).getAsJsonObject();
        Json.child(m, "metadata", "labels").addProperty(NodeMirror.MIRROR_LABEL, "true");
        Json.child(m, "metadata", "labels").addProperty(io.tenantplane.naming.ReverseMapping.MANAGED_BY,
                io.tenantplane.naming.ReverseMapping.MANAGED_BY_VALUE);
        if (cordoned) {
            Json.child(m, "metadata", "annotations").addProperty(
                    NodeMirror.CORDONED_BY, "dedicated");
        }
        return m;
    }

    private static JsonObject unmarked() {
        JsonObject m = mirror("worker-1", false);
        Json.child(m, "metadata", "labels").remove(io.tenantplane.naming.ReverseMapping.MANAGED_BY);
        return m;
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> unusedMirrors() {
        return java.util.stream.Stream.of(
                org.junit.jupiter.params.provider.Arguments.of("no Pod is bound to it: deleted",
                        mirror("worker-1", false), java.util.Set.of("worker-2"), true),
                org.junit.jupiter.params.provider.Arguments.of("a Pod is bound to it: kept",
                        mirror("worker-1", false), java.util.Set.of("worker-1"), false),
                org.junit.jupiter.params.provider.Arguments.of("cordoned by a migration: the migration's to retire",
                        mirror("worker-1", true), java.util.Set.of(), false),
                org.junit.jupiter.params.provider.Arguments.of("a Node without the mirror markers: never deleted",
                        unmarked(), java.util.Set.of(), false));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("unusedMirrors")
    void aMirrorNoTenantPodIsBoundToIsDeletedWithItsUidAndVersion(String name, JsonObject mirror,
                                                                  java.util.Set<String> bound, boolean deleted) {
        java.util.Optional<io.tenantplane.plan.Decision> d = NodeMirror.unused("dev", mirror, bound);

        assertEquals(deleted, d.isPresent(), () -> d.toString());
        if (deleted) {
            assertEquals(io.tenantplane.plan.Action.DELETE, d.get().action());
            assertEquals(io.tenantplane.plan.Reasons.NODE_MIRROR_UNUSED, d.get().reason());
            assertEquals(mirror, d.get().observed(), "its uid and resourceVersion guard the delete");
            assertEquals(new io.tenantplane.plan.Decision.HostRef(null, "worker-1"), d.get().host());
        }
    }

    @Test
    void aMirrorTakesTheLabelsAndStatusOfItsHostNodeOnlyWhereTheyDiffer() {
        JsonObject host = JsonParser.parseString(HOST_NODE).getAsJsonObject();
        JsonObject desired = NodeMirror.desired("worker-1", host);
        io.tenantplane.plan.Decision create = NodeMirror.create("dev", "worker-1", desired);
        assertEquals(io.tenantplane.plan.Action.CREATE, create.action());
        assertEquals(desired, create.desired());

        JsonObject current = desired.deepCopy();
        current.getAsJsonObject("metadata").addProperty("resourceVersion", "3");
        assertTrue(NodeMirror.labels("worker-1", desired, current).isEmpty(), "same labels");
        assertTrue(NodeMirror.status("worker-1", desired, current).isEmpty(), "same status");

        Json.child(current, "metadata", "labels").addProperty("zone", "b");
        io.tenantplane.plan.Decision labels = NodeMirror.labels("worker-1", desired, current).orElseThrow();
        assertEquals(io.tenantplane.plan.Action.UPDATE, labels.action());
        assertEquals("a", Json.labels(labels.desired()).get("zone"));
        assertEquals("3", Json.string(labels.desired(), "metadata", "resourceVersion"), "an update of what was read");

        current.getAsJsonObject("status").getAsJsonObject("allocatable").addProperty("cpu", "1");
        io.tenantplane.plan.Decision status = NodeMirror.status("worker-1", desired, current).orElseThrow();
        assertEquals("3800m", Json.string(status.desired(), "status", "allocatable", "cpu"));
        assertEquals(current, status.observed());
    }
}
