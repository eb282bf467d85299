package io.tenantplane.model;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Status condition helpers that follow the Kubernetes conventions: {@code lastTransitionTime} changes only when a
 * condition's {@code status} changes, so recomputing the same conditions yields an equal list and the caller can skip
 * the status write.
 */
public final class Conditions {

    private static final Comparator<Condition> FRESHEST = Comparator
            .comparing(Condition::observedGeneration, Comparator.nullsFirst(Long::compareTo))
            .thenComparing(Condition::lastTransitionTime, Comparator.nullsFirst(String::compareTo))
            .thenComparing(Condition::status, Comparator.nullsFirst(Comparator.naturalOrder()));

    private Conditions() {
    }

    /**
     * The conditions to write: every {@code desired} condition, plus each {@code current} condition of a type that
     * {@code desired} does not mention (another component may own it), sorted by type.
     *
     * <p>A desired condition keeps the current {@code lastTransitionTime} of its type when its status is unchanged;
     * only a new type or a changed status is stamped with {@code clock}, truncated to seconds as Kubernetes stores it.
     * The clock is not read when nothing changed. When {@code current} has several conditions of one type (it
     * should not), the one with the highest observedGeneration, then the latest time, counts.
     *
     * @throws IllegalArgumentException when {@code desired} has two conditions of one type, or one without a type
     */
    public static List<Condition> merge(List<Condition> current, Collection<Condition> desired, Clock clock) {
        Objects.requireNonNull(clock, "clock");
        Map<String, Condition> byType = new TreeMap<>();
        if (current != null) {
            current.stream().filter(c -> c != null && c.type() != null)
                    .collect(Collectors.groupingBy(Condition::type))
                    .forEach((type, cs) -> byType.put(type, cs.stream().max(FRESHEST).orElseThrow()));
        }
        Map<String, Condition> result = new TreeMap<>(byType);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Condition d : desired) {
            if (d.type() == null || d.type().isEmpty()) {
                throw new IllegalArgumentException("a desired condition has no type: " + d);
            }
            if (!seen.add(d.type())) {
                throw new IllegalArgumentException("desired conditions list type " + d.type() + " twice");
            }
            Condition prev = byType.get(d.type());
            String time = prev != null && prev.status() == d.status() && prev.lastTransitionTime() != null
                    ? prev.lastTransitionTime()
                    : timestamp(clock.instant());
            result.put(d.type(), d.withLastTransitionTime(time));
        }
        return List.copyOf(result.values());
    }

    /** The condition of {@code type}, if present. */
    public static Optional<Condition> find(List<Condition> conditions, String type) {
        return conditions == null ? Optional.empty()
                : conditions.stream().filter(c -> c != null && type.equals(c.type())).findFirst();
    }

    /**
     * The {@link Condition#ACCEPTED} condition for a validation result: True with reason {@code Valid}, or False with
     * reason {@code InvalidSpec} and every problem (field and message) in the message.
     */
    public static Condition accepted(List<Problem> problems, Long observedGeneration) {
        if (problems.isEmpty()) {
            return Condition.of(Condition.ACCEPTED, Condition.Status.TRUE, "Valid", "The spec is valid.",
                    observedGeneration);
        }
        List<String> lines = new ArrayList<>();
        for (Problem p : problems) {
            lines.add(new Problem(null, p.field(), p.message()).toString());
        }
        return Condition.of(Condition.ACCEPTED, Condition.Status.FALSE, "InvalidSpec", String.join("; ", lines),
                observedGeneration);
    }

    /** The Kubernetes form of a time: RFC 3339 in UTC with whole seconds, e.g. {@code 2025-01-31T12:00:00Z}. */
    public static String timestamp(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }
}
