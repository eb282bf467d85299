/**
 * The in-cluster tenantplane service: MicroProfile wiring (configuration, host client, shard Leases, health,
 * metrics, REST) around the SDK. Only Jakarta EE and MicroProfile APIs are used here, so any MicroProfile runtime
 * can host it; the runtime itself is chosen in the build and the start-up class alone.
 */
package io.tenantplane.service;
