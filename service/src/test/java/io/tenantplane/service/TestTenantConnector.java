package io.tenantplane.service;

import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.TenantConnector;
import io.tenantplane.model.TenantCluster;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

/**
 * Test bean: replaces the service's kubeconfig-Secret connector (an enabled CDI alternative), reaching each tenant's
 * in-process API server started by {@link HostServerExtension}. The way a platform plugs in its own connector.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class TestTenantConnector implements TenantConnector {

    @Override
    public ApiClient connect(TenantCluster tenantCluster) {
        return HostServerExtension.connector().connect(tenantCluster);
    }
}
