package io.tenantplane;

import io.tenantplane.plan.Reasons;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The decision for a tenant's kubelet client Secret, table-driven: one row per state the Secret can be in. */
class KubeletClientsTest {

    private static final Instant NOW = Instant.parse("2026-12-01T00:00:00Z");
    private static final KubeletCa CA = KubeletCa.generate("test-ca", Clock.fixed(NOW, ZoneOffset.UTC));
    private static final KubeletCa OTHER_CA = KubeletCa.generate("other-ca", Clock.fixed(NOW, ZoneOffset.UTC));
    private static final TenantKey KEY = new TenantKey("team-dev", "dev");
    private static final String UID = "uid-1";
    private static final KubeletEndpoint ENDPOINT = new KubeletEndpoint("tenantplane-kubelet.tenantplane-system.svc",
            10250, () -> Optional.of(CA), Duration.ofDays(30));
    private static final TenantCluster PLACE = TenantCluster.fromJson(JsonParser.parseString("""
            {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
             "metadata":{"name":"dev","namespace":"team-dev","uid":"uid-1"},
             "spec":{"mode":"shared","isolationProfileRef":{"name":"p"},"syncPolicyRef":{"name":"s"}}}""")
            .getAsJsonObject()).orElseThrow();

    /** The Secret as the decision for a missing one would write it, then changed by {@code edit}. */
    private static JsonObject stored(UnaryOperator<JsonObject> edit) {
        JsonObject s = KubeletClients.decide(KEY, UID, PLACE, ENDPOINT, null, NOW).desired().deepCopy();
        Json.child(s, "metadata").addProperty("resourceVersion", "7");
        return edit.apply(s);
    }

    private static JsonObject withData(JsonObject s, String key, String value) {
        s.getAsJsonObject("data").addProperty(key, Base64.getEncoder().encodeToString(value.getBytes(
                StandardCharsets.UTF_8)));
        return s;
    }

    static Stream<Arguments> rows() {
        KubeletCa.Credential otherUid = CA.issueTenantClient(KEY, "uid-0", Duration.ofDays(30));
        return Stream.of(
                Arguments.of("no Secret yet", ENDPOINT, null, NOW, Action.CREATE, Reasons.KUBELET_CLIENT_ISSUED, null),
                Arguments.of("CA not loaded", new KubeletEndpoint("h", 1, () -> Optional.empty(), Duration.ofDays(1)),
                        null, NOW, Action.SKIP, Reasons.KUBELET_CA_UNAVAILABLE, "waits for the kubelet CA"),
                Arguments.of("current", ENDPOINT, stored(s -> s), NOW.plus(Duration.ofDays(10)), Action.UNCHANGED,
                        Reasons.KUBELET_CLIENT_CURRENT, null),
                Arguments.of("a third of its life left", ENDPOINT, stored(s -> s), NOW.plus(Duration.ofDays(21)),
                        Action.UPDATE, Reasons.KUBELET_CLIENT_RENEWED, "a third of its life"),
                Arguments.of("another CA", ENDPOINT, stored(s -> withData(s, "ca.crt", OTHER_CA.certificatePem())),
                        NOW, Action.UPDATE, Reasons.KUBELET_CLIENT_RENEWED, "another kubelet CA"),
                Arguments.of("issued for an earlier TenantCluster of that name", ENDPOINT, stored(s -> withData(
                        withData(s, "tls.crt", otherUid.certificatePem()), "tls.key", otherUid.privateKeyPem())),
                        NOW, Action.UPDATE, Reasons.KUBELET_CLIENT_RENEWED, "another TenantCluster"),
                Arguments.of("unreadable certificate", ENDPOINT, stored(s -> withData(s, "tls.crt", "garbage")), NOW,
                        Action.UPDATE, Reasons.KUBELET_CLIENT_RENEWED, "cannot be read"),
                Arguments.of("drop-in edited", ENDPOINT, stored(s -> withData(s, "kubelet.yaml", "x: 1")), NOW,
                        Action.UPDATE, Reasons.KUBELET_CLIENT_RENEWED, "drop-in differs"),
                Arguments.of("component label drifted", ENDPOINT, stored(s -> {
                    Json.child(s, "metadata", "labels").addProperty("tenantplane.io/component", "drifted");
                    return s;
                }), NOW, Action.UPDATE, Reasons.KUBELET_CLIENT_RENEWED, "labels were changed"),
                Arguments.of("a foreign Secret of that name", ENDPOINT, JsonParser.parseString("""
                        {"apiVersion":"v1","kind":"Secret","metadata":{"name":"dev-kubelet-client",
                         "namespace":"team-dev","resourceVersion":"3"}}""").getAsJsonObject(), NOW,
                        Action.CONFLICT, "ForeignObject", "does not manage"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void decidesFromTheStoredSecret(String name, KubeletEndpoint endpoint, JsonObject observed, Instant now,
                                    Action action, String reason, String says) {
        Decision d = KubeletClients.decide(KEY, UID, PLACE, endpoint, observed, now);

        assertEquals(action, d.action(), d::message);
        assertEquals(reason, d.reason());
        assertEquals("team-dev", d.host().namespace());
        assertEquals("dev-kubelet-client", d.host().name());
        if (says != null) {
            assertTrue(d.message().contains(says), d.message());
        }
        if (action == Action.CREATE || action == Action.UPDATE) {
            JsonObject data = d.desired().getAsJsonObject("data");
            for (String key : new String[] {"ca.crt", "tls.crt", "tls.key", "kubelet.yaml"}) {
                assertNotNull(data.get(key), key);
            }
            KubeletCa.Credential c = KubeletCa.Credential.fromPem(decode(data, "tls.crt"), decode(data, "tls.key"));
            assertEquals(Optional.of(new KubeletCa.Identity(KEY, UID)), KubeletCa.tenantOf(c.certificate()));
            assertTrue(decode(data, "kubelet.yaml").contains("kubelet-client-certificate="), "the k3s drop-in");
            assertEquals("kubernetes.io/tls", Json.string(d.desired(), "type"));
            assertEquals("control-plane", Json.labels(d.desired()).get("tenantplane.io/component"),
                    "removed with the tenant's control plane");
        }
        if (action == Action.UPDATE) {
            assertEquals("7", Json.string(d.desired(), "metadata", "resourceVersion"), "conflict-checked");
        }
    }

    private static String decode(JsonObject data, String key) {
        return new String(Base64.getDecoder().decode(data.get(key).getAsString()), StandardCharsets.UTF_8);
    }
}
