package io.tenantplane.cli;

import io.tenantplane.errors.TenantPlaneException;
import io.tenantplane.model.InvalidResourceException;

/**
 * Turns the exceptions that mean "bad input" into the one line the user sees; anything else is an internal error.
 */
final class ErrorLines {

    private ErrorLines() {
    }

    /** The line (without the {@code tenantplane: } prefix), or null when {@code ex} is not a bad-input failure. */
    static String line(Throwable ex) {
        if (ex instanceof CliException c) {
            return c.line();
        }
        if (ex instanceof InvalidResourceException ire && !ire.problems().isEmpty()) {
            return Workspace.problems(ire.problems()).line();
        }
        if (ex instanceof TenantPlaneException tpe) {
            // The SDK writes these messages for the user: they name the file or object, the field and the fix.
            return CliException.oneLine(tpe.getMessage());
        }
        return null;
    }
}
