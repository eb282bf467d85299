/**
 * The pure planner: from tenant objects, host objects and policy to an ordered {@link io.tenantplane.plan.Plan} of
 * {@link io.tenantplane.plan.Decision}s, each with a stable reason ({@link io.tenantplane.plan.Reasons}). No I/O.
 */
package io.tenantplane.plan;
