package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which address a tenant's running host Pods took from its API and DNS Services, from the Pods alone. */
class ServiceAddressTest {

    private static JsonObject pod(String apiHost, String dnsPolicy, String nameserver) {
        String env = apiHost == null ? "" : "{\"name\":\"KUBERNETES_SERVICE_HOST\",\"value\":\"" + apiHost + "\"}";
        String dns = nameserver == null ? "" : ",\"dnsConfig\":{\"nameservers\":[\"" + nameserver + "\"]}";
        return JsonParser.parseString("""
                {"kind":"Pod","spec":{"dnsPolicy":"%s"%s,"containers":[{"name":"app","env":[%s]}]}}"""
                .formatted(dnsPolicy, dns, env)).getAsJsonObject();
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("no pods: nothing to keep", Provisioner.ServiceAddress.API, List.of(), null),
                Arguments.of("the API address of the pods", Provisioner.ServiceAddress.API,
                        List.of(pod("10.96.0.50", "None", "10.96.0.10")), "10.96.0.50"),
                Arguments.of("most pods win over an older one", Provisioner.ServiceAddress.API,
                        List.of(pod("10.96.0.7", "None", null), pod("10.96.0.50", "None", null),
                                pod("10.96.0.50", "None", null)), "10.96.0.50"),
                Arguments.of("a name is not an address (an offline plan's)", Provisioner.ServiceAddress.API,
                        List.of(pod("dev-api.team-dev.svc", "None", null)), null),
                Arguments.of("an IPv6 address", Provisioner.ServiceAddress.API,
                        List.of(pod("fd00::50", "None", null)), "fd00::50"),
                Arguments.of("the DNS nameserver of pods that use the tenant DNS", Provisioner.ServiceAddress.DNS,
                        List.of(pod("10.96.0.50", "None", "10.96.0.10")), "10.96.0.10"),
                Arguments.of("a pod with its own DNS policy names no tenant DNS", Provisioner.ServiceAddress.DNS,
                        List.of(pod("10.96.0.50", "Default", "1.1.1.1")), null),
                Arguments.of("a pod without variables names no tenant API", Provisioner.ServiceAddress.API,
                        List.of(pod(null, "None", "10.96.0.10")), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theAddressInUse(String about, Provisioner.ServiceAddress address, List<JsonObject> pods, String expected) {
        assertEquals(expected, address.inUse(pods), about);
    }
}
