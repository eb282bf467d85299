/**
 * Not supported API: the planners the SDK's passes call besides {@link io.tenantplane.plan.Planner} (provisioning's
 * rule for rendered objects, pod lifecycle, tenant tokens, status flow-back). Public only because other packages of
 * the SDK call them; they may change in any release. Pure functions, no I/O, like the rest of {@code plan}.
 */
package io.tenantplane.plan.internal;
