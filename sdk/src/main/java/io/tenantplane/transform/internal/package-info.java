/**
 * Not supported API: rules of {@code transform} that the planners and the applier share. Public only because other
 * packages of the SDK call them; they may change in any release. Pure functions, no I/O.
 */
package io.tenantplane.transform.internal;
