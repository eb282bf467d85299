package io.tenantplane.observe;

import java.time.Duration;

/**
 * Receives what the SDK does, as it does it. The SDK calls it with every executed decision, once; implementations
 * turn calls into Events, metrics and spans. All methods have empty defaults; implementations must be thread-safe and
 * must not block for long (they run on the convergence thread): one that writes to an API server buffers and writes
 * in the background, and delivers its buffer on {@link #flush(Duration)}.
 */
public interface Observer {

    /** An observer that ignores everything. */
    Observer NOOP = new Observer() {
    };

    /**
     * One observer that calls each of {@code observers} in order; an observer that throws is logged and skipped,
     * so it cannot fail a pass or starve the others.
     */
    static Observer composite(Observer... observers) {
        java.util.Objects.requireNonNull(observers, "observers");
        for (int i = 0; i < observers.length; i++) {
            java.util.Objects.requireNonNull(observers[i], "observers[" + i + "]");
        }
        return observers.length == 1 ? observers[0] : new CompositeObserver(java.util.List.of(observers));
    }

    /**
     * A convergence pass over one tenant starts; the returned scope is closed when the pass ends, and the decisions it
     * makes are reported into its kinds' scopes.
     */
    default PassScope passStarted(TenantKey tenant) {
        return PassScope.NOOP;
    }

    /**
     * Provisioning of one tenant starts (its boundary, control plane, finalizer and status, or its removal); the
     * returned scope is closed when it ends, and the decisions it makes are reported into it.
     */
    default PassScope provisionStarted(TenantKey tenant) {
        return PassScope.NOOP;
    }

    /**
     * A migration pass over one tenant starts (one or more steps of a move between modes); the returned scope is
     * closed when it ends, and the decisions it makes are reported into it.
     */
    default PassScope migrationStarted(TenantKey tenant) {
        return PassScope.NOOP;
    }

    /** One decision was executed (or deliberately not written) with this outcome. */
    default void decision(TenantKey tenant, Outcome outcome) {
    }

    /**
     * A tenant's API server called tenantplane's kubelet endpoint (logs, exec, attach, port-forward, stats) and was
     * answered; called once the call ends, stream included.
     */
    default void kubeletRequest(TenantKey tenant, KubeletRequest request) {
    }

    /** The API server answered a request with an error (code 0 when no answer came). */
    default void apiError(String verb, String resource, int code) {
    }

    /** The number of keys waiting in the work queue changed. */
    default void queueDepth(int depth) {
    }

    /**
     * A change to one of {@code tenant}'s objects found the work queue full and was folded into a full pass over the
     * tenant (nothing is lost; a full pass costs more than one object's). Called while the queue is held: keep it
     * cheap and non-blocking, e.g. a counter.
     */
    default void queueOverflowed(TenantKey tenant) {
    }

    /**
     * Delivers what was reported so far and is still buffered (e.g. Events waiting to be written), waiting at most
     * {@code timeout}; call it before shutting down, or in a test before reading what was delivered.
     *
     * @return true when nothing was left undelivered within {@code timeout}
     */
    default boolean flush(Duration timeout) {
        return true;
    }

    /** A scope around one pass; kinds are child scopes. */
    interface PassScope extends AutoCloseable {
        PassScope NOOP = new PassScope() {
        };

        /** Work on one kind within the pass starts; close the returned scope when it ends. */
        default PassScope kind(String kind) {
            return NOOP;
        }

        /** A decision made inside this scope (for span events). */
        default void decision(Outcome outcome) {
        }

        /** The pass or kind failed unexpectedly. */
        default void failed(Throwable error) {
        }

        /** How long the scope took, reported when it closes. */
        default void finished(Duration took) {
        }

        @Override
        default void close() {
        }
    }
}
