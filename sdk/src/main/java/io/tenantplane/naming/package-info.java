/**
 * Host names of synced tenant objects ({@code nginx-x-default-x-dev}) and the reverse mapping from a host object back
 * to its tenant source: pure functions, no I/O.
 */
package io.tenantplane.naming;
