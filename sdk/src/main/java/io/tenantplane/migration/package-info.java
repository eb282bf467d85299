/**
 * Moving a tenant between shared, dedicated and private mode: a pure {@link io.tenantplane.migration.MigrationPlanner}
 * that turns a {@code spec.mode} change into ordered steps of decisions, and a {@link io.tenantplane.migration.MigrationRunner}
 * that executes them through the {@link io.tenantplane.apply.Applier}, resumably, without recreating tenant API state.
 */
package io.tenantplane.migration;
