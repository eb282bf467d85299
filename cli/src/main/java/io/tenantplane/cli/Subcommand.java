package io.tenantplane.cli;

import io.tenantplane.errors.TenantPlaneException;
import picocli.CommandLine.Model.CommandSpec;

/**
 * One {@code tenantplane} command. Its picocli model is built in code rather than read from annotations: annotation
 * reflection (and the proxy classes it spins) was the largest part of a cold start.
 */
interface Subcommand {

    /** The model: name, options, description and a footer with at least one example. */
    CommandSpec spec();

    /**
     * Runs with the parsed options.
     *
     * @return the exit code ({@link Main#OK}, {@link Main#PLAN_PROBLEMS}, ...); bad input is thrown as a
     *         {@link CliException} or an SDK {@code TenantPlaneException} and becomes one line on stderr
     */
    int run(Args args);
}
