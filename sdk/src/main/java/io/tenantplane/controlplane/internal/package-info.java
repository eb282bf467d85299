/**
 * Not supported API: the renderings of a tenant's k3s agents (private mode) and its DNS (shared and dedicated
 * mode), public only because the isolation renderer and the migration planner call them; they may change in any
 * release. Pure functions, no API calls.
 */
package io.tenantplane.controlplane.internal;
