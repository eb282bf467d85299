/**
 * tenantplane's unchecked exceptions, below every other package so that each can throw them:
 * {@link io.tenantplane.errors.TenantPlaneException} and the failures of reading the host or a tenant API.
 */
package io.tenantplane.errors;
