package io.tenantplane.service;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantConnector;
import io.tenantplane.errors.TenantApiUnavailableException;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.testkit.KubeApiServer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts an in-process host API server (namespaces {@code default}, {@code tenantplane-system}, {@code team-dev} and
 * {@code team-slow}, with the tenantplane CRDs) and points {@code tenantplane.host.url} at it before the CDI
 * container starts; declare it before {@code @HelidonTest}. Tenant API servers are started on demand, one per tenant
 * name, and reached through {@link #connector()} (see {@link TestTenantConnector}).
 */
final class HostServerExtension implements BeforeAllCallback, AfterAllCallback {

    private static KubeApiServer server;
    private static final Map<String, KubeApiServer> TENANT_SERVERS = new ConcurrentHashMap<>();
    private static final Map<String, ApiClient> TENANT_CLIENTS = new ConcurrentHashMap<>();

    static KubeApiServer server() {
        return server;
    }

    /** The host, as a test drives it. */
    static Kube host() {
        return Kube.at(server.url());
    }

    /** The API server of {@code tenant}, started on first use. */
    static KubeApiServer tenantServer(String tenant) {
        return TENANT_SERVERS.computeIfAbsent(tenant, t -> KubeApiServer.builder().build().start());
    }

    /** The tenant's API, as a test drives it. */
    static Kube tenant(String tenant) {
        return Kube.at(tenantServer(tenant).url());
    }

    /** Maps each tenant to its in-process server, as a platform with its own gateway would. */
    static TenantConnector connector() {
        return HostServerExtension::connect;
    }

    private static ApiClient connect(TenantCluster tc) {
        KubeApiServer s = TENANT_SERVERS.get(tc.tenant());
        if (s == null) {
            throw new TenantApiUnavailableException("no API server started for tenant " + tc.tenant());
        }
        return TENANT_CLIENTS.computeIfAbsent(tc.tenant(), t -> new ClientBuilder().setBasePath(s.url()).build());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = KubeApiServer.builder().namespaces("default", "tenantplane-system", "team-dev", "team-slow")
                .build().start();
        host().installCrds();
        System.setProperty(ServiceSettings.HOST_URL, server.url());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        System.clearProperty(ServiceSettings.HOST_URL);
        TENANT_SERVERS.values().forEach(KubeApiServer::close);
        TENANT_SERVERS.clear();
        TENANT_CLIENTS.clear();
        server.close();
    }
}
