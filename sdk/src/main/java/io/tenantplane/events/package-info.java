/**
 * Decisions as Kubernetes Events: {@link io.tenantplane.events.EventObserver} writes them through the applier, above
 * the {@link io.tenantplane.observe.Observer} interface it implements.
 */
package io.tenantplane.events;
