package io.tenantplane.model;

import io.tenantplane.errors.TenantPlaneException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An object was used that does not pass validation, e.g. an invalid TenantCluster handed to a renderer.
 * The message lists every problem, one per line; {@link #problems()} gives them as values.
 */
public final class InvalidResourceException extends TenantPlaneException {

    private final List<Problem> problems;

    /**
     * @param what     what was being done, e.g. {@code cannot render the control plane of TenantCluster team-dev/dev}
     * @param problems every problem found; at least one
     */
    public InvalidResourceException(String what, List<Problem> problems) {
        super(what + ":" + problems.stream().map(p -> "\n  " + p).collect(Collectors.joining()));
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, in the order they were found. */
    public List<Problem> problems() {
        return problems;
    }
}
