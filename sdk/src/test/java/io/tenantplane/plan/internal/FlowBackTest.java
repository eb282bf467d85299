package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What flows back from a host copy to its tenant object, decided from the two objects alone. */
class FlowBackTest {

    private static JsonObject json(String s) {
        return JsonParser.parseString(s).getAsJsonObject();
    }

    private static JsonObject service(String namespace, String name, String clusterIp, String extra) {
        return json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","namespace":"%s","uid":"u1"%s},
                 "spec":{%s}}""".formatted(name, namespace, extra,
                clusterIp == null ? "" : "\"clusterIP\":\"" + clusterIp + "\""));
    }

    static Stream<Arguments> clusterIps() {
        JsonObject hostWithList = service("team-dev", "web-x-default-x-dev", "10.96.0.7", "");
        Json.child(hostWithList, "spec").add("clusterIPs", JsonParser.parseString("[\"10.96.0.7\",\"fd00::7\"]"));
        return Stream.of(
                Arguments.of("the same address: nothing to do", service("default", "web", "10.96.0.7", ""),
                        service("team-dev", "web-x-default-x-dev", "10.96.0.7", ""), null, null),
                Arguments.of("a headless tenant Service has none to share", service("default", "web", "None", ""),
                        service("team-dev", "web-x-default-x-dev", "10.96.0.7", ""), null, null),
                Arguments.of("a headless host copy has none to share", service("default", "web", "10.43.0.9", ""),
                        service("team-dev", "web-x-default-x-dev", "None", ""), null, null),
                Arguments.of("the host has not allocated one yet", service("default", "web", "10.43.0.9", ""),
                        service("team-dev", "web-x-default-x-dev", "", ""), null, null),
                Arguments.of("an ExternalName Service has no ClusterIP",
                        service("default", "web", null, ""), service("team-dev", "web-x-default-x-dev", null, ""),
                        null, null),
                Arguments.of("a tenant Service being deleted is left alone",
                        service("default", "web", "10.43.0.9", ",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\""),
                        service("team-dev", "web-x-default-x-dev", "10.96.0.7", ""), null, null),
                Arguments.of("a different address is taken from the host",
                        service("default", "web", "10.43.0.9", ""),
                        service("team-dev", "web-x-default-x-dev", "10.96.0.7", ""), "10.96.0.7", "[\"10.96.0.7\"]"),
                Arguments.of("every family of a dual-stack host copy is taken",
                        service("default", "web", "10.43.0.9", ""), hostWithList, "10.96.0.7",
                        "[\"10.96.0.7\",\"fd00::7\"]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clusterIps")
    void aTenantServiceTakesTheClusterIpOfItsHostCopy(String name, JsonObject tenant, JsonObject host, String ip,
                                                       String ips) {
        Optional<Decision> d = FlowBack.clusterIp("dev", tenant, host);

        if (ip == null) {
            assertTrue(d.isEmpty(), () -> d.toString());
            return;
        }
        Decision got = d.orElseThrow();
        assertEquals(Action.UPDATE, got.action());
        assertEquals(Reasons.CLUSTER_IP_FROM_HOST, got.reason());
        assertEquals(new Decision.SourceRef("dev", "default", "web", "u1"), got.source());
        assertEquals(new Decision.HostRef("team-dev", "web-x-default-x-dev"), got.host());
        assertEquals(ip, Json.string(got.desired(), "spec", "clusterIP"));
        assertEquals(JsonParser.parseString(ips), got.desired().getAsJsonObject("spec").get("clusterIPs"));
        assertEquals(tenant, got.observed(), "the tenant Service as read: its uid and resourceVersion guard the delete");
        assertEquals("10.43.0.9", Json.string(tenant, "spec", "clusterIP"), "the tenant object as read is untouched");
        assertTrue(got.message().contains("10.43.0.9") && got.message().contains(ip), got.message());
    }

    private static JsonObject pod(String namespace, String name, String nodeName, String status) {
        return json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","uid":"p1"},
                 "spec":{%s}%s}""".formatted(name, namespace,
                nodeName == null ? "" : "\"nodeName\":\"" + nodeName + "\"",
                status == null ? "" : ",\"status\":" + status));
    }

    static Stream<Arguments> bindings() {
        return Stream.of(
                Arguments.of("the copy is not scheduled yet", pod("default", "web", null, null),
                        pod("team-dev", "web-x-default-x-dev", null, null), null),
                Arguments.of("the copy is scheduled: bind to its node", pod("default", "web", null, null),
                        pod("team-dev", "web-x-default-x-dev", "node-1", null), "node-1"),
                Arguments.of("the tenant Pod names a node already", pod("default", "web", "node-2", null),
                        pod("team-dev", "web-x-default-x-dev", "node-1", null), null),
                Arguments.of("an empty nodeName is no node", pod("default", "web", "", null),
                        pod("team-dev", "web-x-default-x-dev", "node-1", null), "node-1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bindings")
    void anUnscheduledTenantPodIsBoundWhereTheHostScheduledItsCopy(String name, JsonObject tenant, JsonObject host,
                                                                   String node) {
        assertEquals(Optional.ofNullable(node), FlowBack.nodeToBind(tenant, host));
        if (node != null) {
            Decision d = FlowBack.binding("dev", tenant, host, node);
            assertEquals(Action.UPDATE, d.action());
            assertEquals(Reasons.BOUND_TO_NODE, d.reason());
            assertNull(d.desired(), "a binding is posted, not an object");
            assertEquals(tenant, d.observed());
            assertTrue(d.message().contains(node), d.message());
        }
    }

    static Stream<Arguments> statuses() {
        return Stream.of(
                Arguments.of("the host copy has no status yet", "Pod", pod("default", "web", "n", null),
                        pod("team-dev", "web-x-default-x-dev", "n", null), null),
                Arguments.of("the tenant object has it already", "Pod",
                        pod("default", "web", "n", "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                        pod("team-dev", "web-x-default-x-dev", "n", "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                        null),
                Arguments.of("a new phase flows back", "Pod",
                        pod("default", "web", "n", "{\"phase\":\"Pending\",\"qosClass\":\"Burstable\"}"),
                        pod("team-dev", "web-x-default-x-dev", "n", "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                        "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                Arguments.of("a Pod keeps its own QoS class", "Pod",
                        pod("default", "web", "n", "{\"phase\":\"Pending\",\"qosClass\":\"BestEffort\"}"),
                        pod("team-dev", "web-x-default-x-dev", "n", "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                        "{\"phase\":\"Running\",\"qosClass\":\"BestEffort\"}"),
                Arguments.of("only the QoS class differs: nothing to write", "Pod",
                        pod("default", "web", "n", "{\"phase\":\"Running\",\"qosClass\":\"BestEffort\"}"),
                        pod("team-dev", "web-x-default-x-dev", "n", "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                        null),
                Arguments.of("a tenant Pod without a QoS class takes none", "Pod",
                        pod("default", "web", "n", null),
                        pod("team-dev", "web-x-default-x-dev", "n", "{\"phase\":\"Running\",\"qosClass\":\"Burstable\"}"),
                        "{\"phase\":\"Running\"}"),
                Arguments.of("other kinds take the status as it is", "Service",
                        service("default", "web", "10.96.0.7", ""),
                        json("""
                                {"kind":"Service","metadata":{"name":"web-x-default-x-dev","namespace":"team-dev"},
                                 "status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.9"}]}}}"""),
                        "{\"loadBalancer\":{\"ingress\":[{\"ip\":\"203.0.113.9\"}]}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void theStatusOfTheHostCopyFlowsBack(String name, String kind, JsonObject tenant, JsonObject host, String status) {
        Optional<Decision> d = FlowBack.status("dev", kind, tenant, host);

        if (status == null) {
            assertTrue(d.isEmpty(), () -> d.toString());
            return;
        }
        Decision got = d.orElseThrow();
        assertEquals(Action.UPDATE, got.action());
        assertEquals(Reasons.STATUS_FROM_HOST, got.reason());
        assertEquals(JsonParser.parseString(status), got.desired().get("status"));
        assertEquals(tenant.get("spec"), got.desired().get("spec"), "only the status changes");
        assertEquals(tenant, got.observed());
        String phase = Json.string(got.desired(), "status", "phase");
        assertEquals(phase != null, got.message().contains("(phase " + phase + ")"), got.message());
    }

    private static JsonObject nodePortService(String namespace, String name, String type, String ports, String extra) {
        return json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","namespace":"%s","uid":"u1"%s},
                 "spec":{"type":"%s","clusterIP":"10.96.0.7","ports":%s}}""".formatted(name, namespace, extra, type,
                ports));
    }

    static Stream<Arguments> nodePorts() {
        String tenantPorts = "[{\"name\":\"http\",\"port\":80,\"nodePort\":30080},"
                + "{\"name\":\"admin\",\"port\":81,\"nodePort\":30081}]";
        return Stream.of(
                Arguments.of("the same node ports: nothing to do",
                        nodePortService("default", "web", "NodePort", tenantPorts, ""),
                        nodePortService("team-dev", "web-x-default-x-dev", "NodePort", tenantPorts, ""), null, null),
                Arguments.of("one taken on the host: the tenant takes the host's, matched by name",
                        nodePortService("default", "web", "NodePort", tenantPorts, ""),
                        nodePortService("team-dev", "web-x-default-x-dev", "NodePort", "[{\"name\":\"admin\","
                                + "\"port\":81,\"nodePort\":30081},{\"name\":\"http\",\"port\":80,"
                                + "\"nodePort\":31457}]", ""),
                        "[31457, 30081]", "node port http 30080 -> 31457 of its host copy"),
                Arguments.of("unnamed ports match by number and protocol",
                        nodePortService("default", "web", "LoadBalancer", "[{\"port\":53,\"protocol\":\"UDP\","
                                + "\"nodePort\":30053},{\"port\":53,\"protocol\":\"TCP\",\"nodePort\":30053}]",
                                ""),
                        nodePortService("team-dev", "web-x-default-x-dev", "LoadBalancer", "[{\"port\":53,"
                                + "\"protocol\":\"TCP\",\"nodePort\":30999},{\"port\":53,\"protocol\":\"UDP\","
                                + "\"nodePort\":30999}]", ""),
                        "[30999, 30999]", "node ports 53 30053 -> 30999, 53 30053 -> 30999"),
                Arguments.of("a tenant Service without node ports takes the host's",
                        nodePortService("default", "web", "NodePort", "[{\"port\":80}]", ""),
                        nodePortService("team-dev", "web-x-default-x-dev", "NodePort",
                                "[{\"port\":80,\"protocol\":\"TCP\",\"nodePort\":31000}]", ""),
                        "[31000]", "node port 80 none -> 31000"),
                Arguments.of("a host copy without node ports (none allocated) gives none",
                        nodePortService("default", "web", "LoadBalancer", tenantPorts, ""),
                        nodePortService("team-dev", "web-x-default-x-dev", "LoadBalancer",
                                "[{\"name\":\"http\",\"port\":80},{\"name\":\"admin\",\"port\":81}]", ""),
                        null, null),
                Arguments.of("a ClusterIP Service has none to take",
                        nodePortService("default", "web", "ClusterIP", "[{\"port\":80}]", ""),
                        nodePortService("team-dev", "web-x-default-x-dev", "NodePort",
                                "[{\"port\":80,\"nodePort\":31000}]", ""), null, null),
                Arguments.of("a tenant Service being deleted is left alone",
                        nodePortService("default", "web", "NodePort", tenantPorts,
                                ",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\""),
                        nodePortService("team-dev", "web-x-default-x-dev", "NodePort", "[{\"name\":\"http\","
                                + "\"port\":80,\"nodePort\":31457}]", ""), null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nodePorts")
    void aTenantNodePortServiceTakesTheNodePortsOfItsHostCopy(String name, JsonObject tenant, JsonObject host,
                                                              String ports, String says) {
        JsonObject before = tenant.deepCopy();
        Optional<Decision> d = FlowBack.nodePorts("dev", tenant, host);

        if (ports == null) {
            assertTrue(d.isEmpty(), () -> d.toString());
            return;
        }
        Decision got = d.orElseThrow();
        assertEquals(Action.UPDATE, got.action());
        assertEquals(Reasons.NODE_PORTS_FROM_HOST, got.reason());
        assertEquals(new Decision.SourceRef("dev", "default", "web", "u1"), got.source());
        assertEquals(ports, got.desired().getAsJsonObject("spec").getAsJsonArray("ports").asList().stream()
                .map(p -> p.getAsJsonObject().get("nodePort").getAsInt()).toList().toString());
        assertEquals(tenant, got.observed(), "the tenant Service as read: its resourceVersion guards the update");
        assertEquals(before, tenant, "the tenant object as read is untouched");
        assertTrue(got.message().contains(says), got.message());
    }

    @Test
    void aTenantServiceCreatedAgainForItsClusterIpTakesTheHostsNodePortsToo() {
        JsonObject tenant = nodePortService("default", "web", "NodePort", "[{\"port\":80,\"nodePort\":30080}]", "");
        Json.child(tenant, "spec").addProperty("clusterIP", "10.43.0.9");
        JsonObject host = nodePortService("team-dev", "web-x-default-x-dev", "NodePort",
                "[{\"port\":80,\"nodePort\":31457}]", "");
        Decision d = FlowBack.clusterIp("dev", tenant, host).orElseThrow();
        assertEquals("10.96.0.7", Json.string(d.desired(), "spec", "clusterIP"));
        assertEquals(31457, d.desired().getAsJsonObject("spec").getAsJsonArray("ports").get(0).getAsJsonObject()
                .get("nodePort").getAsInt());
    }
}
