/**
 * What every executed decision reports: {@link io.tenantplane.observe.Observer}, the
 * {@link io.tenantplane.observe.Outcome} of a write, and the in-memory ring of recent decisions. No I/O of its own.
 */
package io.tenantplane.observe;
