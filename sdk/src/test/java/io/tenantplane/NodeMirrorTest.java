package io.tenantplane;

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
        var ca = io.tenantplane.kubelet.KubeletCa.generate("ca", java.time.Clock.systemUTC());
        var endpoint = new io.tenantplane.kubelet.KubeletEndpoint("tenantplane-kubelet.tenantplane-system.svc", 10250,
                ca);
        JsonObject host = JsonParser.parseString(HOST_NODE).getAsJsonObject();
        JsonObject mirror = NodeMirror.desired("worker-1", host, endpoint);

        assertEquals("[{\"type\":\"Hostname\",\"address\":\"tenantplane-kubelet.tenantplane-system.svc\"}]",
                Json.object(mirror, "status").get("addresses").toString(),
                "the tenant API dials the endpoint, never the host node's kubelet");
        assertEquals(10250, Json.object(mirror, "status", "daemonEndpoints", "kubeletEndpoint").get("Port")
                .getAsInt());
        JsonObject byIp = NodeMirror.desired("worker-1", host, new io.tenantplane.kubelet.KubeletEndpoint("10.96.0.20",
                10250, ca));
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
}
