package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.internal.MetricsRegistration;
import io.tenantplane.testkit.KubeApiServer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code metrics.k8s.io} step of a convergence pass, over HTTP against the testkit as tenant and host API: what it
 * reads, writes and remembers in shared mode and across a move to private mode.
 */
class MetricsApiTendingTest {

    private static final KubeletCa CA = KubeletCa.generate("kubelet-ca", Clock.systemUTC());
    private static final KubeletEndpoint ENDPOINT = new KubeletEndpoint("tenantplane-kubelet.tenantplane-system.svc",
            10250, CA);
    private static final ResourceKind SERVICES = ResourceKind.wellKnown("v1", "Service").orElseThrow();
    private static final ResourceKind API_SERVICES = ResourceKind.wellKnown("apiregistration.k8s.io/v1",
            "APIService").orElseThrow();

    private KubeApiServer host;
    private KubeApiServer tenant;
    private Applier hostApplier;
    private Applier tenantApplier;
    private final Set<TenantKey> retired = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() {
        host = KubeApiServer.builder().namespaces("default", "kube-system", "team-dev").build().start();
        tenant = KubeApiServer.builder().build().start();
        hostApplier = Applier.builder().client(client(host)).build();
        tenantApplier = Applier.builder().client(client(tenant)).build();
    }

    @AfterEach
    void stop() {
        tenant.close();
        host.close();
    }

    private static ApiClient client(KubeApiServer server) {
        return new ClientBuilder().setBasePath(server.url()).build();
    }

    private static TenantContext context(Mode mode) {
        TenantCluster tc = LiveMigration.cluster(LiveMigration.clusterJson(mode));
        return new TenantContext(tc, ((Parsed.Ok<SyncPolicy>) SyncPolicy.fromJson(LiveMigration.policyJson())).value(),
                ((Parsed.Ok<IsolationProfile>) IsolationProfile.fromJson(LiveMigration.profileJson())).value());
    }

    /** One run of the step; the outcomes it reported. */
    private List<Outcome> tend(TenantContext ctx) {
        Execution exec = Execution.of(ctx.key(), Observer.NOOP, Observer.PassScope.NOOP);
        new MetricsApiTending(ctx, tenantApplier.reader(), tenantApplier, hostApplier.reader(), ENDPOINT, exec,
                retired).tend();
        return exec.outcomes();
    }

    private static List<String> told(List<Outcome> outcomes) {
        return outcomes.stream().map(o -> o.decision().action().display() + " " + o.decision().kind() + " "
                + o.decision().reason()).toList();
    }

    /**
     * The kubeconfig Secret the control plane publishes on the host, with the request-header CA once k3s has written
     * it (replacing one published before).
     */
    private void publish(TenantCluster tc, boolean requestHeaderCa) throws ApiException {
        ControlPlaneNames n = ControlPlaneNames.of(tc);
        CoreV1Api api = new CoreV1Api(client(host));
        if (api.listNamespacedSecret(n.namespace()).execute().getItems().stream()
                .anyMatch(s -> n.kubeconfigSecret().equals(s.getMetadata().getName()))) {
            api.deleteNamespacedSecret(n.kubeconfigSecret(), n.namespace()).execute();
        }
        V1Secret secret = new V1Secret().metadata(new V1ObjectMeta().name(n.kubeconfigSecret())
                .namespace(n.namespace())).putDataItem(ControlPlaneNames.KUBECONFIG_KEY,
                "apiVersion: v1".getBytes(StandardCharsets.UTF_8));
        if (requestHeaderCa) {
            secret.putDataItem(ControlPlaneNames.REQUEST_HEADER_CA_KEY,
                    "-----BEGIN CERTIFICATE-----".getBytes(StandardCharsets.US_ASCII));
        }
        api.createNamespacedSecret(n.namespace(), secret).execute();
    }

    private JsonObject apiService() {
        return tenantApplier.reader().get(API_SERVICES, null, MetricsRegistration.API_SERVICE).orElseThrow();
    }

    @Test
    void sharedModeRegistersOnceTheRequestHeaderCaIsPublishedAndThenLeavesItAsItIs() throws ApiException {
        TenantContext shared = context(Mode.SHARED);
        publish(shared.cluster(), false);
        assertEquals(List.of(), tend(shared), "no registration the tenant's aggregator could not reach");
        assertEquals(0, tenant.requests().writes());

        publish(shared.cluster(), true);
        assertEquals(List.of("Create Service MetricsApiRegistered", "Create APIService MetricsApiRegistered"),
                told(tend(shared)));
        assertEquals(List.of(), tend(shared), "registered as desired: nothing written again");
        assertEquals(2, tenant.requests().writes());
    }

    @Test
    void aMoveToPrivateModeDeletesTheRegistrationStillPointingHereAndLooksOnlyOnce() throws ApiException {
        TenantContext shared = context(Mode.SHARED);
        publish(shared.cluster(), true);
        tend(shared);

        TenantContext moved = context(Mode.PRIVATE);
        assertEquals(List.of("Delete Service MetricsApiRetired", "Delete APIService MetricsApiRetired"),
                told(tend(moved)));
        assertTrue(tenantApplier.reader().get(SERVICES, MetricsRegistration.NAMESPACE, MetricsRegistration.SERVICE)
                .isEmpty());
        tenant.requests().reset();
        assertEquals(List.of(), tend(moved), "the next pass finds them gone");
        assertEquals(2, tenant.requests().total());
        assertEquals(0, tenant.requests().writes());
        tenant.requests().reset();
        assertEquals(List.of(), tend(moved));
        assertEquals(0, tenant.requests().total(), "then it is not looked at again while the tenant stays private");
        assertTrue(retired.contains(moved.key()));

        // Back in shared mode it registers again, and a later private stretch looks again.
        assertEquals(List.of("Create Service MetricsApiRegistered", "Create APIService MetricsApiRegistered"),
                told(tend(shared)));
        assertEquals(List.of("Delete Service MetricsApiRetired", "Delete APIService MetricsApiRetired"),
                told(tend(moved)));
    }

    @Test
    void inPrivateModeARegistrationK3sRepointedAtItsMetricsServerIsLeft() throws ApiException {
        TenantContext shared = context(Mode.SHARED);
        publish(shared.cluster(), true);
        tend(shared);
        // k3s's deploy controller applies its metrics-server's APIService over ours: same name, its Service.
        JsonObject repointed = apiService();
        Json.child(repointed, "spec", "service").addProperty("name", "metrics-server");
        new DynamicKubernetesApi("apiregistration.k8s.io", "v1", "apiservices", client(tenant))
                .update(new DynamicKubernetesObject(repointed)).throwsApiException();
        new CoreV1Api(client(tenant)).deleteNamespacedService(MetricsRegistration.SERVICE,
                MetricsRegistration.NAMESPACE).execute();

        assertEquals(List.of(), tend(context(Mode.PRIVATE)));
        assertEquals("metrics-server", Json.string(apiService(), "spec", "service", "name"));
        assertTrue(retired.contains(context(Mode.PRIVATE).key()), "nothing left of ours: not looked at again");
    }
}
