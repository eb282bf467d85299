package io.tenantplane.service;

import io.tenantplane.testkit.KubeApiServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts an in-process host API server (with the {@code tenantplane-system} namespace) and points
 * {@code tenantplane.host.url} at it before the CDI container starts; declare it before {@code @HelidonTest}.
 */
final class HostServerExtension implements BeforeAllCallback, AfterAllCallback {

    private static KubeApiServer server;

    static KubeApiServer server() {
        return server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = KubeApiServer.builder().namespaces("default", "tenantplane-system").build().start();
        System.setProperty(ServiceSettings.HOST_URL, server.url());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        System.clearProperty(ServiceSettings.HOST_URL);
        server.close();
    }
}
