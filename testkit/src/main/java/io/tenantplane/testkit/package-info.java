/**
 * An in-process Kubernetes API server for tests ({@link io.tenantplane.testkit.KubeApiServer}) with request logs,
 * fault injection and outages, plus the switch that runs the same tests against a real cluster
 * ({@link io.tenantplane.testkit.TestCluster}).
 */
package io.tenantplane.testkit;
