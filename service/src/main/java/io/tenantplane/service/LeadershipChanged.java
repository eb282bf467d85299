package io.tenantplane.service;

/**
 * CDI event fired when this replica starts or stops leading. The reconcile loop observes it: start watching and
 * reconciling on {@code leading == true}, stop all writes at once on {@code false}. Delivered synchronously on the
 * elector thread, so observers hand long work to their own threads.
 *
 * @param leading  whether this replica now leads
 * @param identity this replica's identity in the Lease
 */
public record LeadershipChanged(boolean leading, String identity) {
}
