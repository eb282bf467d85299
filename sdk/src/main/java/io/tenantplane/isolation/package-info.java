/**
 * Renders the host-side boundary of a tenant from its IsolationProfile: NetworkPolicies, ResourceQuota, LimitRange,
 * Pod Security labels and the host ServiceAccount for tenant pods. Pure functions, no API calls.
 */
package io.tenantplane.isolation;
