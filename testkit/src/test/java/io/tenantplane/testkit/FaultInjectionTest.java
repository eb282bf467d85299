package io.tenantplane.testkit;

import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.util.Watch;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.tenantplane.testkit.Clients.configMap;
import static io.tenantplane.testkit.Clients.expectApiError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hooks a real server lacks: the request log, fault rules and outages. */
class FaultInjectionTest {
    @RegisterExtension
    final KubeApiServerExtension kube = new KubeApiServerExtension(KubeApiServer.builder().faultSeed(42));

    private ApiClient client;
    private CoreV1Api core;

    @BeforeEach
    void connect() {
        client = Clients.client(kube.server());
        core = new CoreV1Api(client);
    }

    private V1ConfigMap create(String name) throws ApiException {
        return core.createNamespacedConfigMap("default", configMap("default", name, Map.of())).execute();
    }

    @Test
    void theRequestLogCountsRequestsByVerbAndResource() throws Exception {
        RequestLog log = kube.server().requests();
        log.reset();
        V1ConfigMap cm = create("a");
        core.readNamespacedConfigMap("a", "default").execute();
        core.listNamespacedConfigMap("default").execute();
        core.listConfigMapForAllNamespaces().execute();
        core.replaceNamespacedConfigMap("a", "default", cm.data(Map.of("k", "v"))).execute();
        expectApiError(404, () -> core.readNamespacedSecret("nope", "default").execute());
        core.deleteNamespacedConfigMap("a", "default").execute();
        new io.kubernetes.client.openapi.apis.AppsV1Api(client).listDeploymentForAllNamespaces().execute();

        assertEquals(1, log.count("create", "configmaps"));
        assertEquals(1, log.count("get", "configmaps"));
        assertEquals(2, log.count("list", "configmaps"));
        assertEquals(1, log.count("update", "configmaps"));
        assertEquals(1, log.count("delete", "configmaps"));
        assertEquals(1, log.count("get", "secrets"));
        assertEquals(1, log.count("list", "deployments.apps"));
        assertEquals(1, log.count("list", "deployments"));
        assertEquals(3, log.writes());
        assertEquals(3, log.writes("configmaps"));
        assertEquals(8, log.total());
        RequestLog.Entry missing = log.entries().get(5);
        assertEquals(new RequestLog.Entry("get", "", "secrets", "default", "nope",
                "/api/v1/namespaces/default/secrets/nope", 404, missing.userAgent()), missing);
        assertTrue(missing.userAgent() != null && !missing.userAgent().isBlank(), "the client's User-Agent is kept");
        log.reset();
        assertEquals(0, log.total());
    }

    @Test
    void aStatusRuleAnswersWithTheCodeAndTheReasonARealServerUses() throws Exception {
        kube.server().faults().add(FaultRule.on("create", "configmaps").respond(500));
        ApiException e = expectApiError(500, () -> create("a"));
        assertTrue(e.getResponseBody().contains("\"reason\":\"InternalError\""), e.getResponseBody());
        kube.server().faults().clear();
        create("a");
        kube.server().faults().add(FaultRule.on("get", "configmaps").respond(429));
        ApiException throttled = expectApiError(429, () -> core.readNamespacedConfigMap("a", "default").execute());
        assertEquals(List.of("1"), throttled.getResponseHeaders().get("Retry-After"));
        assertEquals(2, kube.server().faults().fired());
    }

    @Test
    void aRuleFiresForItsFractionOfRequestsReproduciblyForASeed() throws Exception {
        V1ConfigMap cm = create("a");
        kube.server().faults().add(FaultRule.on("update", "configmaps").fraction(0.5).respond(409));
        List<Boolean> outcomes = conflictStorm(cm, 40);
        long conflicts = outcomes.stream().filter(c -> c).count();
        assertTrue(conflicts > 8 && conflicts < 32, conflicts + " of 40");

        kube.server().faults().seed(42);
        V1ConfigMap again = core.readNamespacedConfigMap("a", "default").execute();
        assertEquals(outcomes, conflictStorm(again, 40), "the same seed gives the same sequence");
    }

    /** Updates unconditionally n times; true where the update hit an injected 409. */
    private List<Boolean> conflictStorm(V1ConfigMap cm, int n) throws ApiException {
        List<Boolean> outcomes = new ArrayList<>();
        cm.getMetadata().setResourceVersion(null);
        for (int i = 0; i < n; i++) {
            try {
                core.replaceNamespacedConfigMap("a", "default", cm.data(Map.of("i", Integer.toString(i)))).execute();
                outcomes.add(false);
            } catch (ApiException e) {
                assertEquals(409, e.getCode());
                outcomes.add(true);
            }
        }
        return outcomes;
    }

    @Test
    void aRuleLimitedInTimesStopsFiring() throws Exception {
        kube.server().faults().add(FaultRule.on("*", "configmaps").inNamespace("default").times(2).respond(503));
        expectApiError(503, () -> create("a"));
        expectApiError(503, () -> create("a"));
        create("a");
        assertEquals(2, kube.server().faults().fired());
    }

    @Test
    void aRuleForAnotherNamespaceOrResourceDoesNotFire() throws Exception {
        kube.server().faults().add(FaultRule.on("create", "configmaps").inNamespace("other").respond(500))
                .add(FaultRule.on("create", "secrets").respond(500));
        create("a");
        assertEquals(0, kube.server().faults().fired());
    }

    @Test
    void aDelayRuleSlowsTheRequestDownAndThenServesIt() throws Exception {
        kube.server().faults().add(FaultRule.on("create", "configmaps").delay(Duration.ofMillis(300)));
        long start = System.nanoTime();
        create("a");
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 300);
    }

    @Test
    void aConnectionResetFailsTheCallWithAnIoError() {
        kube.server().faults().add(FaultRule.on("create", "configmaps").resetConnection());
        ApiException e = assertThrows(ApiException.class, () -> create("a"));
        assertEquals(0, e.getCode(), "no HTTP response");
        assertInstanceOf(java.io.IOException.class, e.getCause());
        assertTrue(kube.server().requests().entries().stream().anyMatch(x -> x.code() == 0 && x.verb().equals("create")));
    }

    @Test
    void aDropWatchRuleEndsTheStreamRightAway() throws Exception {
        kube.server().faults().add(FaultRule.on("watch", "configmaps").dropWatch());
        try (Watch<V1ConfigMap> watch = Watch.createWatch(client, core.listNamespacedConfigMap("default").watch(true)
                .buildCall(null), new TypeToken<Watch.Response<V1ConfigMap>>() { }.getType())) {
            assertFalse(watch.hasNext());
        }
        assertEquals(1, kube.server().requests().count("watch", "configmaps"));
    }

    @Test
    void pauseRefusesConnectionsAndResumeServesTheSameState() throws Exception {
        create("kept");
        String url = kube.url();
        kube.server().pause();
        assertTrue(kube.server().isPaused());
        ApiException e = assertThrows(ApiException.class, () -> core.readNamespacedConfigMap("kept", "default")
                .execute());
        assertInstanceOf(ConnectException.class, e.getCause());
        kube.server().resume();
        assertEquals(url, kube.url());
        assertEquals("kept", core.readNamespacedConfigMap("kept", "default").execute().getMetadata().getName());
    }

    @Test
    void aRuleWithoutAnActionIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> kube.server().faults()
                .add(FaultRule.on("get", "pods")));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.on("get", "pods").fraction(1.5));
        assertThrows(IllegalArgumentException.class, () -> FaultRule.on("get", "pods").respond(200));
    }
}
