/**
 * Renders a tenant's k3s control plane from its TenantCluster: StatefulSet, Services, kubeconfig Secret, datastore
 * volume claims and RBAC. Pure functions, no API calls.
 */
package io.tenantplane.controlplane;
