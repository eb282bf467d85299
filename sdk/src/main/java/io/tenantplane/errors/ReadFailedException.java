package io.tenantplane.errors;

/**
 * A read a pass depends on failed (the API server refused it or did not answer). The pass stops before planning, so
 * that nothing is decided on a partial view; the report says what failed and the next pass tries again.
 */
public final class ReadFailedException extends TenantPlaneException {

    private final int code;

    /**
     * @param what    what was being read, e.g. {@code list pods in team-dev}
     * @param code    the HTTP status, or 0 when no answer came
     * @param message the server's message
     */
    public ReadFailedException(String what, int code, String message) {
        super("could not " + what + ": " + (code == 0 ? "" : code + " ") + message);
        this.code = code;
    }

    /** The HTTP status, or 0 when no answer came. */
    public int code() {
        return code;
    }
}
