package io.tenantplane.service;

import jakarta.ws.rs.WebApplicationException;

/** Ends a REST request with RFC 9457 problem details. */
final class ProblemException extends WebApplicationException {

    private static final long serialVersionUID = 1L;

    private ProblemException(Problem problem) {
        super(problem.detail(), problem.toResponse());
    }

    /** 400: a query parameter is missing or bad; {@code detail} names it. */
    static ProblemException badRequest(String detail) {
        return new ProblemException(new Problem("about:blank", "Bad Request", 400, detail));
    }

    /** 400: query parameter {@code name} is required. */
    static ProblemException missing(String name, String example) {
        return badRequest("query parameter '" + name + "' is required, e.g. " + name + "=" + example);
    }

    /** 400: query parameter {@code name} has a bad value. */
    static ProblemException invalid(String name, String value, String rule) {
        return badRequest("query parameter '" + name + "' = '" + value + "': " + rule);
    }

    /** 403: the caller is known but may not see this; {@code detail} names the permission it lacks. */
    static ProblemException forbidden(String detail) {
        return new ProblemException(new Problem("about:blank", "Forbidden", 403, detail));
    }

    /** 404: the thing asked about does not exist. */
    static ProblemException notFound(String detail) {
        return new ProblemException(new Problem("about:blank", "Not Found", 404, detail));
    }

    /** 409: the thing exists but its state does not allow an answer (e.g. its references are missing). */
    static ProblemException conflict(String detail) {
        return new ProblemException(new Problem("about:blank", "Conflict", 409, detail));
    }

    /** 503: an API server needed for the answer did not answer. */
    static ProblemException unavailable(String detail) {
        return new ProblemException(new Problem("about:blank", "Service Unavailable", 503, detail));
    }
}
