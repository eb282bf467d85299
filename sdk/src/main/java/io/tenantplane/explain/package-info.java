/**
 * Answers "where does this tenant object land on the host, and why?" ({@link io.tenantplane.explain.Explainer#explainSync})
 * and "which tenant object is this host object?" ({@link io.tenantplane.explain.Explainer#trace}). Pure; built on the planner.
 */
package io.tenantplane.explain;
