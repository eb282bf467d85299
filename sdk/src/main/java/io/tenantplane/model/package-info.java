/**
 * The tenantplane custom resources (TenantCluster, IsolationProfile, SyncPolicy) as records, their validation, and
 * reading and writing Kubernetes manifests. Everything here is pure: no API calls.
 */
package io.tenantplane.model;
