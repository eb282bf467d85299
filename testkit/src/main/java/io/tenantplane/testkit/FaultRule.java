package io.tenantplane.testkit;

import java.time.Duration;
import java.util.Objects;

/**
 * One fault to inject: which requests it matches (verb, resource, namespace), how often it fires (a fraction of
 * matching requests, at most a number of times), and what happens (an error status, a delay, a reset connection, a
 * dropped watch). Immutable; every method returns a new rule.
 *
 * <pre>{@code
 * server.faults().add(FaultRule.on("update", "pods").fraction(0.3).respond(409));
 * server.faults().add(FaultRule.on("*", "*").delay(Duration.ofMillis(50)));
 * server.faults().add(FaultRule.on("watch", "pods").times(1).dropWatch());
 * }</pre>
 *
 * <p>Delays add up and the request then proceeds; of the other faults, the first matching rule that fires decides.
 */
public final class FaultRule {
    /** What a firing rule does. */
    public enum Kind {
        /** Answer with an error {@code Status} of the rule's code instead of serving the request. */
        STATUS,
        /** Wait, then serve the request normally. */
        DELAY,
        /** Close the connection without answering. */
        RESET_CONNECTION,
        /** For a watch: answer 200, then end the stream at once, as when an API server restarts. */
        DROP_WATCH
    }

    private final String verb;
    private final String resource;
    private final String namespace;
    private final double fraction;
    private final long times;
    private final Kind kind;
    private final int code;
    private final String message;
    private final Duration delay;

    private FaultRule(String verb, String resource, String namespace, double fraction, long times, Kind kind, int code,
            String message, Duration delay) {
        this.verb = verb;
        this.resource = resource;
        this.namespace = namespace;
        this.fraction = fraction;
        this.times = times;
        this.kind = kind;
        this.code = code;
        this.message = message;
        this.delay = delay;
    }

    /**
     * Starts a rule that matches requests with this verb on this resource; it does nothing until given an action
     * ({@link #respond}, {@link #delay}, {@link #resetConnection}, {@link #dropWatch}).
     *
     * @param verb a Kubernetes verb ({@code get}, {@code list}, {@code watch}, {@code create}, {@code update},
     *     {@code patch}, {@code delete}, {@code deletecollection}) or {@code "*"}
     * @param resource {@code pods}, {@code pods/status}, {@code deployments.apps}, or {@code "*"} (any resource,
     *     discovery excluded)
     * @throws NullPointerException if an argument is null
     */
    public static FaultRule on(String verb, String resource) {
        Objects.requireNonNull(verb, "verb");
        Objects.requireNonNull(resource, "resource");
        return new FaultRule(verb, resource, null, 1.0, Long.MAX_VALUE, null, 0, null, null);
    }

    /** Matches only requests in this namespace. */
    public FaultRule inNamespace(String namespace) {
        Objects.requireNonNull(namespace, "namespace");
        return new FaultRule(verb, resource, namespace, fraction, times, kind, code, message, delay);
    }

    /**
     * Fires for this fraction of matching requests, drawn from the injector's seeded random source.
     *
     * @throws IllegalArgumentException if {@code fraction} is not within [0, 1]
     */
    public FaultRule fraction(double fraction) {
        if (!(fraction >= 0.0 && fraction <= 1.0)) {
            throw new IllegalArgumentException("fraction must be within [0, 1]: " + fraction);
        }
        return new FaultRule(verb, resource, namespace, fraction, times, kind, code, message, delay);
    }

    /**
     * Fires at most this many times, then never again.
     *
     * @throws IllegalArgumentException if {@code times} is negative
     */
    public FaultRule times(long times) {
        if (times < 0) {
            throw new IllegalArgumentException("times must not be negative: " + times);
        }
        return new FaultRule(verb, resource, namespace, fraction, times, kind, code, message, delay);
    }

    /**
     * Answers with a {@code Status} of this code and the reason a real server uses for it (409 Conflict,
     * 429 TooManyRequests with Retry-After, 500 InternalError, 503 ServiceUnavailable, ...).
     *
     * @throws IllegalArgumentException if {@code code} is not within 400..599
     */
    public FaultRule respond(int code) {
        return respond(code, "injected fault: " + code);
    }

    /** As {@link #respond(int)}, with this message in the Status. */
    public FaultRule respond(int code, String message) {
        if (code < 400 || code > 599) {
            throw new IllegalArgumentException("code must be an error status within 400..599: " + code);
        }
        Objects.requireNonNull(message, "message");
        return new FaultRule(verb, resource, namespace, fraction, times, Kind.STATUS, code, message, null);
    }

    /**
     * Waits this long before serving the request.
     *
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public FaultRule delay(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + delay);
        }
        return new FaultRule(verb, resource, namespace, fraction, times, Kind.DELAY, 0, null, delay);
    }

    /** Closes the connection without an answer; the client sees an I/O error (end of stream). */
    public FaultRule resetConnection() {
        return new FaultRule(verb, resource, namespace, fraction, times, Kind.RESET_CONNECTION, 0, null, null);
    }

    /** For watch requests: answers 200 and ends the stream at once. */
    public FaultRule dropWatch() {
        return new FaultRule(verb, resource, namespace, fraction, times, Kind.DROP_WATCH, 0, null, null);
    }

    /** The action, or null when none was set yet. */
    public Kind kind() {
        return kind;
    }

    /** The status code answered by a {@link Kind#STATUS} rule, else 0. */
    public int code() {
        return code;
    }

    String message() {
        return message;
    }

    Duration delayDuration() {
        return delay;
    }

    double fractionValue() {
        return fraction;
    }

    long timesValue() {
        return times;
    }

    boolean matches(RequestLog.Entry request) {
        if (!verb.equals("*") && !verb.equals(request.verb())) {
            return false;
        }
        if (request.resource().isEmpty()) {
            return false;
        }
        if (!resource.equals("*") && !request.matches("*", resource)) {
            return false;
        }
        return namespace == null || namespace.equals(request.namespace());
    }

    @Override
    public String toString() {
        return "FaultRule[" + verb + " " + resource + (namespace == null ? "" : " -n " + namespace)
                + (fraction < 1 ? " fraction=" + fraction : "") + (times < Long.MAX_VALUE ? " times=" + times : "")
                + " -> " + kind + (kind == Kind.STATUS ? " " + code : kind == Kind.DELAY ? " " + delay : "") + "]";
    }
}
