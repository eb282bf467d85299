package io.tenantplane.apply;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a write the server refused with a conflict, throttling, a server error or no answer is tried again: at most
 * {@code maxAttempts} attempts (the first included), waiting {@code initialBackoff} before the second, doubled for
 * each further one up to {@code maxBackoff}, each wait jittered down by up to half. One policy, checked here, for
 * every writer (the applier, the status writer, the migration runner and the Events observer) and for every read
 * ({@link Reader}: a read the server answered with throttling or a server error, or did not answer).
 *
 * @param maxAttempts    attempts per write, at least 1
 * @param initialBackoff the first wait, not negative
 * @param maxBackoff     the longest wait, not less than {@code initialBackoff}
 */
public record Retries(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    /** 5 attempts, 100 ms doubled up to 2 s. */
    public static final Retries DEFAULT = new Retries(5, Duration.ofMillis(100), Duration.ofSeconds(2));

    /** @throws IllegalArgumentException naming the value that is out of range */
    public Retries {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative()) {
            throw new IllegalArgumentException("initialBackoff must not be negative, got " + initialBackoff);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is less than initialBackoff "
                    + initialBackoff);
        }
    }

    /**
     * How long to wait after the {@code attempt}-th attempt failed (1 for the first): {@code initialBackoff}
     * doubled {@code attempt - 1} times, at most {@code maxBackoff}, jittered down by up to half.
     */
    public Duration backoff(int attempt) {
        long base = initialBackoff.toMillis() << Math.min(Math.max(attempt - 1, 0), 20);
        long capped = Math.min(base, maxBackoff.toMillis());
        return Duration.ofMillis(capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1));
    }
}
