package io.tenantplane.service;

import jakarta.enterprise.context.RequestScoped;
import java.util.Optional;

/**
 * The caller {@link AuthFilter} authenticated for the current REST request, for {@link AccessControl}. A CDI
 * request-scoped bean rather than the JAX-RS {@code SecurityContext}, which the server's own security layer replaces
 * with its anonymous subject in the packaged runtime.
 */
@RequestScoped
public class RequestCaller {

    private Caller caller;

    /** Set once per request by the filter. */
    void set(Caller caller) {
        this.caller = caller;
    }

    /** The authenticated caller, or empty when the mode authenticates no one by name. */
    Optional<Caller> get() {
        return Optional.ofNullable(caller);
    }
}
