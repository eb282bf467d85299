package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.model.SyncPolicy;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The addresses a tenant's own Endpoints and EndpointSlices may name on the host (the class of CVE-2021-25740): its
 * own host pods' IPs and the CIDRs its profile allows, nothing else. Each row is tried in an Endpoints address, an
 * Endpoints notReadyAddress and an EndpointSlice.
 */
class EndpointAddressesTest {

    /** The tenant's pods on the host: one IPv4, one IPv6 (written in full form to check that forms are compared). */
    private static final Set<String> OWN_PODS = Set.of("10.42.0.17", "fd00:10:42:0:0:0:0:17");
    private static final List<String> ALLOWED = List.of("203.0.113.0/24", "2001:db8:5::/48");

    static Stream<Arguments> addresses() {
        return Stream.of(
                Arguments.of("one of the tenant's own pods", "10.42.0.17", null),
                Arguments.of("its own IPv6 pod, short form", "fd00:10:42::17", null),
                Arguments.of("inside an allowed external CIDR", "203.0.113.200", null),
                Arguments.of("inside an allowed IPv6 CIDR", "2001:db8:5:1::9", null),
                Arguments.of("another tenant's pod", "10.42.3.9", "is neither the IP of one of tenant dev's pods"),
                Arguments.of("a node", "192.168.1.10", "is neither"),
                Arguments.of("the host API's Service IP", "10.96.0.1", "is neither"),
                Arguments.of("another Service IP on the host", "10.96.14.2", "is neither"),
                Arguments.of("just outside the allowed CIDR", "203.0.114.1", "is neither"),
                Arguments.of("the cloud metadata service", "169.254.169.254", "link-local range"),
                Arguments.of("IPv6 link-local", "fe80::1", "link-local range"),
                Arguments.of("loopback", "127.0.0.1", "loopback range"),
                Arguments.of("IPv6 loopback", "::1", "loopback range"),
                Arguments.of("unspecified", "0.0.0.0", "is unspecified"),
                Arguments.of("link-local multicast", "224.0.0.251", "link-local multicast"),
                Arguments.of("a DNS name", "metadata.google.internal", "is not an IP address"),
                Arguments.of("an IPv4 with a leading zero", "010.42.0.17", "is not an IP address"));
    }

    private static Transformer transformer() {
        List<SyncPolicy.KindRule> rules = Stream.of("Service", "Endpoints", "EndpointSlice", "Pod")
                .map(k -> new SyncPolicy.KindRule(k, null, true, null, null, null)).toList();
        return new Transformer("dev", "team-dev", new SyncPolicy(null, null, null, new SyncPolicy.Spec(rules)),
                TransformOptions.defaults().withEndpointAddresses(
                        new TransformOptions.EndpointAddresses(OWN_PODS, ALLOWED)));
    }

    private static List<JsonObject> objects(String ip) {
        boolean v6 = ip.contains(":");
        return List.of(
                JsonParser.parseString("""
                        {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"db","namespace":"default"},
                         "subsets":[{"addresses":[{"ip":"%s"}],"ports":[{"port":5432}]}]}""".formatted(ip))
                        .getAsJsonObject(),
                JsonParser.parseString("""
                        {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"db","namespace":"default"},
                         "subsets":[{"notReadyAddresses":[{"ip":"%s"}],"ports":[{"port":5432}]}]}""".formatted(ip))
                        .getAsJsonObject(),
                JsonParser.parseString("""
                        {"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
                         "metadata":{"name":"db-1","namespace":"default","labels":{"kubernetes.io/service-name":"db"}},
                         "addressType":"%s","endpoints":[{"addresses":["%s"]}],"ports":[{"port":5432}]}"""
                        .formatted(v6 ? "IPv6" : "IPv4", ip)).getAsJsonObject());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("addresses")
    void onlyTheTenantsOwnPodsAndAllowedCidrsReachTheHost(String about, String ip, String refusal) {
        for (JsonObject o : objects(ip)) {
            TransformResult r = transformer().transform(o);
            if (refusal == null) {
                assertInstanceOf(TransformResult.Transformed.class, r, () -> about + " in " + o.get("kind") + ": " + r);
                continue;
            }
            TransformResult.Rejected rejected = assertInstanceOf(TransformResult.Rejected.class, r,
                    () -> about + " in " + o.get("kind") + " must be refused: " + r);
            assertEquals(TransformResult.ENDPOINT_ADDRESS_NOT_ALLOWED, rejected.reason());
            assertTrue(rejected.message().contains(ip), () -> "the message names the address: " + rejected.message());
            assertTrue(rejected.message().contains(refusal), rejected::message);
            assertTrue(rejected.message().startsWith(rejected.fieldPath() + ": "), rejected::message);
            assertFalse(rejected.fieldPath().isEmpty());
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("addresses")
    void withoutKnownPodsOrCidrsNothingIsAdmitted(String about, String ip, String refusal) {
        Transformer none = new Transformer("dev", "team-dev", new SyncPolicy(null, null, null, new SyncPolicy.Spec(
                List.of(new SyncPolicy.KindRule("Endpoints", null, true, null, null, null)))),
                TransformOptions.defaults());
        TransformResult r = none.transform(objects(ip).get(0));
        assertInstanceOf(TransformResult.Rejected.class, r, () -> about + ": " + r);
    }
}
