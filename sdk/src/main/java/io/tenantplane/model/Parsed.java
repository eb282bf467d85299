package io.tenantplane.model;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of turning input into a typed value: either the value, or every problem found in the input.
 *
 * @param <T> the type of the value
 */
public sealed interface Parsed<T> permits Parsed.Ok, Parsed.Invalid {

    /** The input was usable. */
    record Ok<T>(T value) implements Parsed<T> {
        public Ok {
            java.util.Objects.requireNonNull(value, "value");
        }

        @Override
        public List<Problem> problems() {
            return List.of();
        }
    }

    /** The input was not usable; {@code problems} lists every reason, never empty. */
    record Invalid<T>(List<Problem> problems) implements Parsed<T> {
        public Invalid {
            problems = List.copyOf(problems);
            if (problems.isEmpty()) {
                throw new IllegalArgumentException("an Invalid result needs at least one problem");
            }
        }
    }

    /** The problems found; empty for {@link Ok}. */
    List<Problem> problems();

    /** True for {@link Ok}. */
    default boolean isOk() {
        return this instanceof Ok<T>;
    }

    /** The value when {@link Ok}, else empty. */
    default Optional<T> toOptional() {
        return this instanceof Ok<T> ok ? Optional.of(ok.value()) : Optional.empty();
    }

    /**
     * The value.
     *
     * @throws InvalidResourceException listing every problem, when this is {@link Invalid}
     */
    default T orElseThrow() {
        return switch (this) {
            case Ok<T> ok -> ok.value();
            case Invalid<T> invalid -> throw new InvalidResourceException("invalid input", invalid.problems());
        };
    }

    /**
     * The value, naming what was read when it is not usable.
     *
     * @param what what the input was, for the exception's message (e.g. {@code TenantCluster team-a/dev})
     * @throws InvalidResourceException listing every problem, when this is {@link Invalid}
     */
    default T orElseThrow(String what) {
        return switch (this) {
            case Ok<T> ok -> ok.value();
            case Invalid<T> invalid -> throw new InvalidResourceException(what, invalid.problems());
        };
    }

    /** {@link Ok} when {@code problems} is empty, else {@link Invalid}. */
    static <T> Parsed<T> of(T value, List<Problem> problems) {
        return problems.isEmpty() ? new Ok<>(value) : new Invalid<>(problems);
    }
}
