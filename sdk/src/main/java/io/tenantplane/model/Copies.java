package io.tenantplane.model;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Immutable copies for record components. Maps are sorted by key so that output is stable from run to run
 * ({@code Map.copyOf} iterates in an order that changes between JVM runs).
 */
final class Copies {

    private Copies() {
    }

    static <V> Map<String, V> map(Map<String, V> m) {
        return m == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(m));
    }

    static <T> List<T> list(List<T> l) {
        return l == null ? List.of() : List.copyOf(l);
    }

    /** Keeps null apart from empty, for lists where the two mean different things. */
    static <T> List<T> listOrNull(List<T> l) {
        return l == null ? null : List.copyOf(l);
    }
}
