package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ClusterIP a Service create asks for: which control-plane Service keeps the address its running Pods took, which
 * address that is, the create that asks for it, which refusals a create without it cures, and that create.
 */
class ServiceAddressesTest {

    private static JsonObject json(String s) {
        return JsonParser.parseString(s).getAsJsonObject();
    }

    private static JsonObject pod(String apiHost, String dnsPolicy, String nameserver) {
        String env = apiHost == null ? "" : "{\"name\":\"KUBERNETES_SERVICE_HOST\",\"value\":\"" + apiHost + "\"}";
        String dns = nameserver == null ? "" : ",\"dnsConfig\":{\"nameservers\":[\"" + nameserver + "\"]}";
        return json("""
                {"kind":"Pod","spec":{"dnsPolicy":"%s"%s,"containers":[{"name":"app","env":[%s]}]}}"""
                .formatted(dnsPolicy, dns, env));
    }

    private static JsonObject service(String name, String clusterIp) {
        return json("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"team-dev\",\"labels\":{\"tenantplane.io/managed-by\":\"tenantplane\","
                + "\"tenantplane.io/tenant\":\"dev\",\"tenantplane.io/component\":\"control-plane\"}},\"spec\":{"
                + (clusterIp == null ? "" : "\"clusterIP\":\"" + clusterIp + "\",")
                + "\"ports\":[{\"port\":443,\"targetPort\":6443}]}}");
    }

    static Stream<Arguments> inUse() {
        return Stream.of(
                Arguments.of("no pods: nothing to keep", ServiceAddresses.Kept.API, List.of(), null),
                Arguments.of("the API address of the pods", ServiceAddresses.Kept.API,
                        List.of(pod("10.96.0.50", "None", "10.96.0.10")), "10.96.0.50"),
                Arguments.of("most pods win over an older one", ServiceAddresses.Kept.API,
                        List.of(pod("10.96.0.7", "None", null), pod("10.96.0.50", "None", null),
                                pod("10.96.0.50", "None", null)), "10.96.0.50"),
                Arguments.of("a name is not an address (an offline plan's)", ServiceAddresses.Kept.API,
                        List.of(pod("dev-api.team-dev.svc", "None", null)), null),
                Arguments.of("an IPv6 address", ServiceAddresses.Kept.API,
                        List.of(pod("fd00::50", "None", null)), "fd00::50"),
                Arguments.of("the DNS nameserver of pods that use the tenant DNS", ServiceAddresses.Kept.DNS,
                        List.of(pod("10.96.0.50", "None", "10.96.0.10")), "10.96.0.10"),
                Arguments.of("a pod with its own DNS policy names no tenant DNS", ServiceAddresses.Kept.DNS,
                        List.of(pod("10.96.0.50", "Default", "1.1.1.1")), null),
                Arguments.of("a pod without variables names no tenant API", ServiceAddresses.Kept.API,
                        List.of(pod(null, "None", "10.96.0.10")), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inUse")
    void theAddressInUse(String about, ServiceAddresses.Kept address, List<JsonObject> pods, String expected) {
        assertEquals(expected, address.inUse(pods), about);
    }

    static Stream<Arguments> which() {
        return Stream.of(
                Arguments.of("the tenant API Service", service("dev-api", null), ServiceAddresses.Kept.API),
                Arguments.of("the tenant DNS Service", service("dev-dns", null), ServiceAddresses.Kept.DNS),
                Arguments.of("another Service of the control plane", service("dev-control-plane-headless", "None"),
                        null),
                Arguments.of("a Service of another tenant", service("qa-api", null), null),
                Arguments.of("not a Service", json("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dev-api\"}}"),
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("which")
    void whichRenderedServiceKeepsAnAddress(String about, JsonObject rendered, ServiceAddresses.Kept expected) {
        assertEquals(expected, ServiceAddresses.Kept.of(rendered, "dev-api", "dev-dns"), about);
    }

    @Test
    void aCreateAsksForTheKeptAddressAndSaysWhy() {
        Decision create = ProvisionPlan.decide("dev", "team-dev/dev", service("dev-api", null), null);
        Decision kept = ServiceAddresses.keeping(create, "10.96.0.50", ServiceAddresses.Kept.API);
        assertEquals(Action.CREATE, kept.action());
        assertEquals("10.96.0.50", Json.string(kept.desired(), "spec", "clusterIP"));
        assertEquals("[\"10.96.0.50\"]", Json.object(kept.desired(), "spec").get("clusterIPs").toString());
        assertTrue(kept.message().endsWith(" again with the ClusterIP 10.96.0.50 its running Pods use "
                + "(KUBERNETES_SERVICE_HOST), which they cannot change"), kept.message());
        assertNull(Json.string(create.desired(), "spec", "clusterIP"), "the rendered object is not changed");
        assertSame(create, ServiceAddresses.keeping(create, null, ServiceAddresses.Kept.API), "nothing to keep");
        Decision unchanged = ProvisionPlan.decide("dev", "team-dev/dev", service("dev-api", null),
                service("dev-api", "10.96.0.7"));
        assertSame(unchanged, ServiceAddresses.keeping(unchanged, "10.96.0.50", ServiceAddresses.Kept.API),
                "an existing Service keeps the address it has");
    }

    static Stream<Arguments> refusals() {
        Decision asked = ServiceAddresses.keeping(ProvisionPlan.decide("dev", "team-dev/dev",
                service("dev-api", null), null), "10.96.0.50", ServiceAddresses.Kept.API);
        Decision notAsked = ProvisionPlan.decide("dev", "team-dev/dev", service("dev-api", null), null);
        Decision headless = ProvisionPlan.decide("dev", "team-dev/dev",
                service("dev-control-plane-headless", "None"), null);
        String taken = "Service \"dev-api\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.50\"}: "
                + "failed to allocate IP 10.96.0.50: provided IP is already allocated";
        String outside = "Service \"dev-api\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.43.0.50\"}: "
                + "failed to allocate IP 10.43.0.50: the provided IP (10.43.0.50) is not in the valid range";
        return Stream.of(
                Arguments.of("taken on the host", asked, 422, taken, true),
                Arguments.of("outside the host's range", asked, 422, outside, true),
                Arguments.of("no address asked for", notAsked, 422, taken, false),
                Arguments.of("a headless Service asks for none", headless, 422, taken, false),
                Arguments.of("another field refused", asked, 422, "spec.ports[0].port: Invalid value: 0", false),
                Arguments.of("forbidden, not invalid", asked, 403, "exceeded quota: q, requested: services=1, "
                        + "used: services=1, limited: services=1 spec.clusterIP", false),
                Arguments.of("no message", asked, 422, null, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aCreateWithoutTheAddressCuresOnlyARefusalOfTheAddress(String about, Decision d, int code, String message,
                                                               boolean cured) {
        assertEquals(cured, ServiceAddresses.clusterIpRefused(d, code, message), about);
    }

    @Test
    void theRefusedCreateAgainLeavesTheAddressToTheHost() {
        Decision asked = ServiceAddresses.keeping(ProvisionPlan.decide("dev", "team-dev/dev",
                service("dev-api", null), null), "10.96.0.50", ServiceAddresses.Kept.API);
        Decision again = ServiceAddresses.clusterIpAllocatedByHost(asked, "provided IP is already allocated",
                "the tenant's ", " and the tenant Service takes it");
        assertEquals(Action.CREATE, again.action());
        assertNull(Json.string(again.desired(), "spec", "clusterIP"));
        assertNull(Json.object(again.desired(), "spec").get("clusterIPs"));
        assertEquals(Json.object(service("dev-api", null), "spec"), Json.object(again.desired(), "spec"),
                "all else as asked");
        assertTrue(again.message().endsWith("; the host refused the tenant's ClusterIP 10.96.0.50 (provided IP is "
                + "already allocated), so it allocates one and the tenant Service takes it"), again.message());
        assertEquals("10.96.0.50", Json.string(asked.desired(), "spec", "clusterIP"), "the refused one is kept");
    }

    private static Decision nodePortCreate(String ports) {
        return ProvisionPlan.decide("dev", "team-dev/dev", json("{\"apiVersion\":\"v1\",\"kind\":\"Service\","
                + "\"metadata\":{\"name\":\"web-x-default-x-dev\",\"namespace\":\"team-dev\",\"labels\":{"
                + "\"tenantplane.io/managed-by\":\"tenantplane\",\"tenantplane.io/tenant\":\"dev\"}},"
                + "\"spec\":{\"type\":\"NodePort\",\"ports\":" + ports + "}}"), null);
    }

    static Stream<Arguments> nodePortRefusals() {
        Decision asked = nodePortCreate("[{\"name\":\"http\",\"port\":80,\"nodePort\":30080}]");
        Decision none = nodePortCreate("[{\"name\":\"http\",\"port\":80}]");
        String taken = "Service \"web-x-default-x-dev\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: "
                + "provided port is already allocated";
        return Stream.of(
                Arguments.of("taken on the host", asked, 422, taken, true),
                Arguments.of("outside the host's range", asked, 422, "spec.ports[0].nodePort: Invalid value: 30080: "
                        + "provided port is not in the valid range. The range of valid ports is 31000-32767", true),
                Arguments.of("no node port asked for", none, 422, taken, false),
                Arguments.of("another field refused", asked, 422, "spec.ports[0].port: Invalid value: 0", false),
                Arguments.of("forbidden by quota, not invalid", asked, 403, "exceeded quota: q, requested: "
                        + "services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0 "
                        + "spec.ports[0].nodePort", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nodePortRefusals")
    void aCreateWithoutNodePortsCuresOnlyARefusalOfANodePort(String about, Decision d, int code, String message,
                                                             boolean cured) {
        assertEquals(cured, ServiceAddresses.nodePortsRefused(d, code, message), about);
    }

    @Test
    void theRefusedCreateAgainLeavesTheNodePortsToTheHost() {
        Decision asked = nodePortCreate("[{\"name\":\"http\",\"port\":80,\"nodePort\":30080},"
                + "{\"name\":\"admin\",\"port\":81,\"nodePort\":30081}]");
        Decision again = ServiceAddresses.nodePortsAllocatedByHost(asked, "provided port is already allocated");
        assertEquals(Action.CREATE, again.action());
        assertEquals(List.of(), ServiceAddresses.nodePorts(again.desired()));
        assertEquals(List.of(30080, 30081), ServiceAddresses.nodePorts(asked.desired()), "the refused one is kept");
        assertEquals("NodePort", Json.string(again.desired(), "spec", "type"));
        assertTrue(again.message().endsWith("; the host refused the tenant's node ports 30080, 30081 (provided port "
                + "is already allocated), so it allocates them and the tenant Service takes them"), again.message());
    }
}
