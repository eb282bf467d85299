package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.TenantTokens;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A synced tenant Pod reaches its own API as in a real cluster: a token minted by the tenant API for its
 * ServiceAccount, bound to the Pod, mounted from a managed host Secret with the CA and namespace; the KUBERNETES_*
 * variables and host aliases naming the tenant API Service; the token refreshed before 80% of its life and the Secret
 * collected with the Pod.
 */
@Tag(Live.HOOKS)
class TenantTokensIT {

    private Live live;
    private Kube dev;
    private TenantPlane plane;
    private final MovingClock clock = new MovingClock(Instant.parse("2026-06-01T10:00:00Z"));
    private String apiIp;

    /** A clock a test moves forward. */
    static final class MovingClock extends Clock {
        private volatile Instant now;

        MovingClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @BeforeEach
    void start() {
        live = Live.start(true);
        live.createTenant("dev");
        dev = live.tenant("dev");
        plane = live.plane(b -> b.clock(clock));
        // The tenant API Service the control plane renders (its ClusterIP is what tenant pods dial), its DNS
        // Service and the workload ServiceAccount the host Pods run as, as provisioning makes them.
        apiIp = live.syncPrerequisites("dev");
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"builder","namespace":"default"}}"""));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"runner","namespace":"default"},
                 "spec":{"serviceAccountName":"builder",
                   "securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                   "containers":[{"name":"app","image":"nginxinc/nginx-unprivileged:1.27",
                     "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}},
                     "volumeMounts":[{"name":"kube-api-access-7x2kq",
                       "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}]}],
                   "volumes":[{"name":"kube-api-access-7x2kq","projected":{"sources":[
                     {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
                     {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
                     {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1",
                       "fieldPath":"metadata.namespace"}}]}}]}}]}}"""));
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private static String decoded(JsonObject secret, String key) {
        return new String(Base64.getDecoder().decode(Json.string(secret, "data", key)), StandardCharsets.UTF_8);
    }

    private static Map<String, String> env(JsonObject hostPod) {
        Map<String, String> out = new HashMap<>();
        for (JsonElement e : hostPod.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject()
                .getAsJsonArray("env")) {
            out.put(Json.string(e.getAsJsonObject(), "name"), Json.string(e.getAsJsonObject(), "value"));
        }
        return out;
    }

    @Test
    void aSyncedPodGetsItsOwnTokenAddressAndNamesAndTheTokenWorksAgainstTheTenantApi() throws Exception {
        ConvergenceReport r = plane.converge(live.key("dev"));

        List<String> order = r.decisions().stream().filter(d -> d.action() == Action.CREATE)
                .map(d -> d.kind() + "/" + d.reason()).toList();
        assertTrue(order.indexOf("Secret/" + TenantTokens.ISSUED) >= 0, order::toString);
        assertTrue(order.indexOf("Secret/" + TenantTokens.ISSUED) < order.indexOf("Pod/NotOnHost"),
                "the token Secret is written before the Pod that mounts it: " + order);
        JsonObject hostPod = live.hostKube.require("Pod", live.namespace, "runner-x-default-x-dev");
        Map<String, String> env = env(hostPod);
        assertEquals(apiIp, env.get("KUBERNETES_SERVICE_HOST"));
        assertEquals("443", env.get("KUBERNETES_SERVICE_PORT"));
        assertEquals("tcp://" + apiIp + ":443", env.get("KUBERNETES_PORT_443_TCP"));
        assertEquals(apiIp, Json.string(hostPod.getAsJsonObject("spec").getAsJsonArray("hostAliases").get(0)
                .getAsJsonObject(), "ip"));
        JsonObject secret = live.hostKube.require("Secret", live.namespace, "runner-x-default-x-dev-token");
        assertEquals("default", decoded(secret, "namespace"), "the namespace file holds the virtual namespace");
        assertEquals("runner-x-default-x-dev", Json.annotations(secret).get(TenantTokens.TOKEN_FOR));
        String token = decoded(secret, "token");

        // Inside the pod a client uses exactly the mounted token and namespace; the address is the tenant API's
        // (here its in-process URL: the Service IP routes only on a real host).
        ApiClient inPod = new ClientBuilder().setBasePath(live.tenantServer("dev").url())
                .setAuthentication(new AccessTokenAuthentication(token)).build();
        assertEquals("runner", new CoreV1Api(inPod).listNamespacedPod(decoded(secret, "namespace")).execute()
                .getItems().get(0).getMetadata().getName());
        V1TokenReview review = new AuthenticationV1Api(inPod).createTokenReview(new V1TokenReview()
                .apiVersion("authentication.k8s.io/v1").kind("TokenReview")
                .spec(new V1TokenReviewSpec().token(token))).execute();
        assertEquals(Boolean.TRUE, review.getStatus().getAuthenticated(), () -> String.valueOf(review.getStatus()));
        assertEquals("system:serviceaccount:default:builder", review.getStatus().getUser().getUsername());
        assertEquals(List.of("runner"), review.getStatus().getUser().getExtra().get("authentication.kubernetes.io/pod-name"),
                "the token is bound to the tenant Pod");

        assertEquals(0, plane.converge(live.key("dev")).writes(), "a fresh token is not written again");
    }

    @Test
    void theTokenIsRefreshedBeforeEightyPercentOfItsLifeAndTheSecretGoesWithThePod() {
        plane.converge(live.key("dev"));
        JsonObject before = live.hostKube.require("Secret", live.namespace, "runner-x-default-x-dev-token");
        Instant refreshAt = Instant.parse(Json.annotations(before).get(TenantTokens.REFRESH_AT));
        assertEquals(clock.instant().plusSeconds(3607 * 8 / 10), refreshAt);

        clock.advance(Duration.ofMinutes(47));
        assertEquals(0, plane.converge(live.key("dev")).writes(), "not yet 80%");
        clock.advance(Duration.ofMinutes(2));
        ConvergenceReport r = plane.converge(live.key("dev"));

        assertTrue(r.decisions().stream().anyMatch(d -> d.reason().equals(TenantTokens.REFRESHED)
                && d.action() == Action.UPDATE), r.decisions()::toString);
        JsonObject after = live.hostKube.require("Secret", live.namespace, "runner-x-default-x-dev-token");
        assertNotEquals(decoded(before, "token"), decoded(after, "token"));

        dev.delete("Pod", "default", "runner");
        // The pass that deletes the host Pod deletes its Secret too: nothing is left for a later pass.
        ConvergenceReport collected = plane.converge(live.key("dev"));
        Decision delete = collected.decisions().stream().filter(d -> d.reason().equals(TenantTokens.UNUSED))
                .findFirst().orElseThrow(() -> new AssertionError(collected.decisions()));
        assertNotNull(delete.observed());
        assertTrue(live.hostKube.get("Secret", live.namespace, "runner-x-default-x-dev-token").isEmpty());
        assertEquals(0, plane.converge(live.key("dev")).writes(), "the next pass has nothing to do");
    }
}
