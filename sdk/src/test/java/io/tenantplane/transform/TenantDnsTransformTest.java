package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A synced pod resolves names as the kubelet would set up a pod of the tenant (pkg/kubelet/network/dns/dns.go): the
 * policies that mean cluster DNS get the tenant's DNS, search path and ndots; the others keep theirs. One row per
 * case: the pod's dnsPolicy, hostNetwork and dnsConfig, then the host pod's dnsPolicy and dnsConfig (null: unchanged).
 */
class TenantDnsTransformTest {

    private static final String DNS = "10.96.0.53";
    private static final String SEARCH = "[\"web.svc.cluster.local\",\"svc.cluster.local\",\"cluster.local\"]";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("no policy means ClusterFirst", null, false, null,
                        "None", "{\"nameservers\":[\"" + DNS + "\"],\"searches\":" + SEARCH
                                + ",\"options\":[{\"name\":\"ndots\",\"value\":\"5\"}]}"),
                Arguments.of("ClusterFirst with the pod's own dnsConfig appended, its options winning",
                        "ClusterFirst", false, "{\"nameservers\":[\"1.1.1.1\"],\"searches\":[\"corp.example\"],"
                                + "\"options\":[{\"name\":\"ndots\",\"value\":\"2\"},{\"name\":\"edns0\"}]}",
                        "None", "{\"nameservers\":[\"" + DNS + "\",\"1.1.1.1\"],\"searches\":[\"web.svc.cluster.local\","
                                + "\"svc.cluster.local\",\"cluster.local\",\"corp.example\"],\"options\":[{\"name\":"
                                + "\"ndots\",\"value\":\"2\"},{\"name\":\"edns0\"}]}"),
                Arguments.of("nameservers beyond three are omitted, as the kubelet omits them", "ClusterFirst", false,
                        "{\"nameservers\":[\"1.1.1.1\",\"8.8.8.8\",\"9.9.9.9\"]}",
                        "None", "{\"nameservers\":[\"" + DNS + "\",\"1.1.1.1\",\"8.8.8.8\"],\"searches\":" + SEARCH
                                + ",\"options\":[{\"name\":\"ndots\",\"value\":\"5\"}]}"),
                Arguments.of("ClusterFirst on the host network falls back to the node's resolver", "ClusterFirst",
                        true, null, null, null),
                Arguments.of("ClusterFirstWithHostNet uses cluster DNS on the host network too",
                        "ClusterFirstWithHostNet", true, null,
                        "None", "{\"nameservers\":[\"" + DNS + "\"],\"searches\":" + SEARCH
                                + ",\"options\":[{\"name\":\"ndots\",\"value\":\"5\"}]}"),
                Arguments.of("Default keeps the node's resolver", "Default", false, null, null, null),
                Arguments.of("None keeps the pod's own configuration", "None", false,
                        "{\"nameservers\":[\"1.1.1.1\"]}", null, null));
    }

    private static JsonObject pod(String policy, boolean hostNetwork, String dnsConfig) {
        JsonObject pod = JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"client","namespace":"web"},
                 "spec":{"containers":[{"name":"app","image":"busybox"}]}}""").getAsJsonObject();
        JsonObject spec = pod.getAsJsonObject("spec");
        if (policy != null) {
            spec.addProperty("dnsPolicy", policy);
        }
        if (hostNetwork) {
            spec.addProperty("hostNetwork", true);
        }
        if (dnsConfig != null) {
            spec.add("dnsConfig", JsonParser.parseString(dnsConfig));
        }
        return pod;
    }

    private static Transformer transformer(String dns) {
        List<SyncPolicy.KindRule> rules = Stream.of("Pod", "ConfigMap", "Secret")
                .map(k -> new SyncPolicy.KindRule(k, null, true, null, null, null)).toList();
        return new Transformer("dev", "team-dev", new SyncPolicy(null, null, null, new SyncPolicy.Spec(rules)),
                TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED)
                        .withTenantApi(new TransformOptions.TenantApi("10.96.0.50", 443, dns)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void podsThatUseClusterDnsGetTheTenantsDns(String about, String policy, boolean hostNetwork, String dnsConfig,
            String hostPolicy, String hostDnsConfig) {
        JsonObject tenantPod = pod(policy, hostNetwork, dnsConfig);
        TransformResult.Transformed t = assertInstanceOf(TransformResult.Transformed.class,
                transformer(DNS).transform(tenantPod));
        JsonObject spec = t.host().getAsJsonObject("spec");
        if (hostPolicy == null) {
            assertEquals(Json.string(tenantPod, "spec", "dnsPolicy"), Json.string(spec, "dnsPolicy"), about);
            assertEquals(tenantPod.getAsJsonObject("spec").get("dnsConfig"), spec.get("dnsConfig"), about);
            assertFalse(t.notes().stream().anyMatch(n -> n.contains("DNS")), () -> about + ": " + t.notes());
            return;
        }
        assertEquals(hostPolicy, Json.string(spec, "dnsPolicy"), about);
        assertEquals(JsonParser.parseString(hostDnsConfig), spec.get("dnsConfig"), about);
        assertTrue(t.notes().stream().anyMatch(n -> n.contains("tenant dev's DNS at " + DNS)
                && n.contains("search web.svc.cluster.local svc.cluster.local cluster.local")), t.notes()::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void withoutAKnownTenantDnsThePodKeepsItsOwn(String about, String policy, boolean hostNetwork, String dnsConfig,
            String hostPolicy, String hostDnsConfig) {
        JsonObject tenantPod = pod(policy, hostNetwork, dnsConfig);
        JsonObject host = assertInstanceOf(TransformResult.Transformed.class, transformer(null).transform(tenantPod))
                .host();
        assertEquals(tenantPod.getAsJsonObject("spec").get("dnsConfig"), host.getAsJsonObject("spec")
                .get("dnsConfig"), about);
    }
}
