package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantPlane;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.junit.jupiter.api.Test;

/** With {@code tenantplane.watch.namespaces} set, tenants elsewhere are neither cached nor touched. */
class WatchedNamespacesTest {

    @Test
    void onlyTenantClustersInTheWatchedNamespacesAreCachedAndReconciled() {
        try (KubeApiServer host = KubeApiServer.builder().namespaces("default", "tenantplane-system", "team-a",
                "team-b").build().start();
             KubeApiServer tenant = KubeApiServer.builder().build().start()) {
            Kube hostKube = Kube.at(host.url()).installCrds();
            ApiClient tenantClient = new ClientBuilder().setBasePath(tenant.url()).build();
            new Kube(tenantClient).create(JsonParser.parseString("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"}}""")
                    .getAsJsonObject());
            Map<String, String> config = Map.of(ServiceSettings.HOST_URL, host.url(),
                    ServiceSettings.WATCH_NAMESPACES, "team-a");
            ServiceSettings settings = ServiceSettings.from(k -> Optional.ofNullable(config.get(k)), () -> "test");
            var clients = new HostClients(settings, ConfigProviderResolver.instance().getBuilder().build());
            TenantPlane plane = TenantPlane.builder().hostClient(clients.newClient())
                    .tenantConnector(tc -> {
                        if (!tc.namespace().equals("team-a")) {
                            throw new TenantApiUnavailableException("only team-a has a tenant server here");
                        }
                        return tenantClient;
                    }).build();
            var reconciler = new Reconciler(settings, clients.newWatchClient(), plane,
                    new ServiceStatus(Clock.systemUTC()));
            try {
                reconciler.start(t -> true);
                hostKube.createAll(Kube.exampleTenant("team-b", "b"));
                hostKube.createAll(Kube.exampleTenant("team-a", "a"));

                assertTrue(Kube.eventually(Duration.ofSeconds(15), () -> hostKube.get("ConfigMap", "team-a",
                        "settings-x-default-x-a").isPresent()), "the watched tenant is synced");
                assertEquals(1, reconciler.tenantClusters().size());
                assertEquals("a", Json.string(reconciler.tenantClusters().get(0), "metadata", "name"));
                assertFalse(reconciler.tenantCluster(new io.tenantplane.observe.TenantKey("team-b", "b")).isPresent());
                assertFalse(hostKube.require("TenantCluster", "team-b", "b").has("status"),
                        "the tenant in an unwatched namespace got no status");
                assertTrue(hostKube.list("NetworkPolicy", "team-b").isEmpty(), "and no boundary");
            } finally {
                reconciler.close();
            }
        }
    }
}
