/**
 * The {@code tenantplane} command line: offline validate, render, plan, explain-sync and trace over the SDK's
 * front door, and {@code decisions} from a host cluster. The only public type is {@link io.tenantplane.cli.Main}.
 */
package io.tenantplane.cli;
