package io.tenantplane.model;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A field path inside a Kubernetes object, as a SyncPolicy declares it for references, label selectors and patches:
 * field names joined by dots, each optionally followed by brackets: {@code [*]} for every item of a list, {@code [2]}
 * for one item, {@code [example.com/team]} for a map key that contains dots or slashes. Examples:
 * {@code spec.issuerRef.name}, {@code spec.tls[*].secretName}, {@code metadata.labels[example.com/team]}.
 *
 * <p>No expressions, no filters: a path names fields, nothing more.
 */
public final class FieldPath {

    /** One step of a path. */
    public sealed interface Step {
    }

    /** An object member: {@code .name} or {@code [key]}. */
    public record Member(String name) implements Step {
    }

    /** One list item: {@code [n]}. */
    public record Index(int index) implements Step {
    }

    /** Every list item: {@code [*]}. */
    public record Each() implements Step {
    }

    private final String text;
    private final List<Step> steps;

    private FieldPath(String text, List<Step> steps) {
        this.text = text;
        this.steps = List.copyOf(steps);
    }

    /** The steps, first to last. */
    public List<Step> steps() {
        return steps;
    }

    /** The first step's name (a path always starts with a member). */
    public String root() {
        return ((Member) steps.get(0)).name();
    }

    /** True when the path goes through {@code [*]}. */
    public boolean hasEach() {
        return steps.stream().anyMatch(s -> s instanceof Each);
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException with a message that names the position and the fix
     */
    public static FieldPath parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the path is empty; write field names joined by dots, e.g. "
                    + "spec.issuerRef.name");
        }
        List<Step> steps = new ArrayList<>();
        int i = 0;
        int n = text.length();
        boolean expectName = true;
        while (i < n) {
            char c = text.charAt(i);
            if (expectName) {
                int start = i;
                while (i < n && isNameChar(text.charAt(i))) {
                    i++;
                }
                if (i == start) {
                    throw new IllegalArgumentException("expected a field name at position " + (start + 1) + " of '"
                            + text + "'; field names are letters, digits, '_' and '-'");
                }
                steps.add(new Member(text.substring(start, i)));
                expectName = false;
            } else if (c == '.') {
                i++;
                expectName = true;
                if (i == n) {
                    throw new IllegalArgumentException("'" + text + "' ends with a dot; remove it or add a field name");
                }
            } else if (c == '[') {
                int close = text.indexOf(']', i);
                if (close < 0) {
                    throw new IllegalArgumentException("'[' at position " + (i + 1) + " of '" + text
                            + "' is not closed; write [*], [0] or [key]");
                }
                String inside = text.substring(i + 1, close);
                if (inside.isEmpty()) {
                    throw new IllegalArgumentException("empty brackets at position " + (i + 1) + " of '" + text
                            + "'; write [*], [0] or [key]");
                }
                if (inside.equals("*")) {
                    steps.add(new Each());
                } else if (inside.chars().allMatch(Character::isDigit) && inside.length() < 9) {
                    steps.add(new Index(Integer.parseInt(inside)));
                } else {
                    steps.add(new Member(inside));
                }
                i = close + 1;
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at position " + (i + 1) + " of '" + text
                        + "'; join field names with dots and put list items and map keys in brackets");
            }
        }
        return new FieldPath(text, steps);
    }

    private static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                || c == '$';
    }

    /**
     * Calls {@code at} for every value the path names in {@code root} that exists, with the concrete path of each
     * (e.g. {@code spec.tls[1].secretName}).
     */
    public void forEach(JsonObject root, Consumer<Found> at) {
        walk(root, 0, new StringBuilder(), at);
    }

    /** A value found at a path, which can be replaced or removed in place. */
    public record Found(String path, JsonElement value, JsonElement holder, Step last) {

        /** Replaces the value with {@code f(value)}. */
        public void replace(UnaryOperator<JsonElement> f) {
            JsonElement now = f.apply(value);
            switch (last) {
                case Member m -> holder.getAsJsonObject().add(m.name(), now);
                case Index ix -> holder.getAsJsonArray().set(ix.index(), now);
                case Each e -> throw new IllegalStateException("not a single value");
            }
        }
    }

    private void walk(JsonElement at, int step, StringBuilder path, Consumer<Found> out) {
        Step s = steps.get(step);
        boolean last = step == steps.size() - 1;
        switch (s) {
            case Member m -> {
                if (!(at instanceof JsonObject o) || !o.has(m.name()) || o.get(m.name()).isJsonNull()) {
                    return;
                }
                int mark = path.length();
                appendMember(path, m.name());
                if (last) {
                    out.accept(new Found(path.toString(), o.get(m.name()), o, m));
                } else {
                    walk(o.get(m.name()), step + 1, path, out);
                }
                path.setLength(mark);
            }
            case Index ix -> {
                if (!(at instanceof JsonArray a) || ix.index() >= a.size()) {
                    return;
                }
                int mark = path.length();
                path.append('[').append(ix.index()).append(']');
                if (last) {
                    out.accept(new Found(path.toString(), a.get(ix.index()), a, ix));
                } else {
                    walk(a.get(ix.index()), step + 1, path, out);
                }
                path.setLength(mark);
            }
            case Each e -> {
                if (!(at instanceof JsonArray a)) {
                    return;
                }
                for (int k = 0; k < a.size(); k++) {
                    int mark = path.length();
                    path.append('[').append(k).append(']');
                    if (last) {
                        out.accept(new Found(path.toString(), a.get(k), a, new Index(k)));
                    } else {
                        walk(a.get(k), step + 1, path, out);
                    }
                    path.setLength(mark);
                }
            }
        }
    }

    private static void appendMember(StringBuilder path, String name) {
        boolean plain = name.chars().allMatch(ch -> isNameChar((char) ch));
        if (plain) {
            if (!path.isEmpty()) {
                path.append('.');
            }
            path.append(name);
        } else {
            path.append('[').append(name).append(']');
        }
    }

    /**
     * Sets the value at this path in {@code root} to {@code value}: missing objects on the way are created, list
     * items are never created ({@code [n]} beyond the end and {@code [*]} of a missing list set nothing).
     *
     * @return how many places were set
     */
    public int set(JsonObject root, JsonElement value) {
        return set(root, 0, value);
    }

    private int set(JsonElement at, int step, JsonElement value) {
        Step s = steps.get(step);
        boolean last = step == steps.size() - 1;
        switch (s) {
            case Member m -> {
                if (!(at instanceof JsonObject o)) {
                    return 0;
                }
                if (last) {
                    o.add(m.name(), value.deepCopy());
                    return 1;
                }
                JsonElement next = o.get(m.name());
                if (next == null || next.isJsonNull()) {
                    if (steps.get(step + 1) instanceof Member) {
                        next = new JsonObject();
                        o.add(m.name(), next);
                    } else {
                        return 0;
                    }
                }
                return set(next, step + 1, value);
            }
            case Index ix -> {
                if (!(at instanceof JsonArray a) || ix.index() >= a.size()) {
                    return 0;
                }
                if (last) {
                    a.set(ix.index(), value.deepCopy());
                    return 1;
                }
                return set(a.get(ix.index()), step + 1, value);
            }
            case Each e -> {
                if (!(at instanceof JsonArray a)) {
                    return 0;
                }
                int count = 0;
                for (int k = 0; k < a.size(); k++) {
                    if (last) {
                        a.set(k, value.deepCopy());
                        count++;
                    } else {
                        count += set(a.get(k), step + 1, value);
                    }
                }
                return count;
            }
        }
    }

    /**
     * Removes the value at this path from {@code root} (a list item named by {@code [n]} or {@code [*]} is removed
     * from its list).
     *
     * @return how many values were removed
     */
    public int remove(JsonObject root) {
        List<Found> found = new ArrayList<>();
        forEach(root, found::add);
        int count = 0;
        // From the end, so that removing list items does not shift the ones still to remove.
        for (int k = found.size() - 1; k >= 0; k--) {
            Found f = found.get(k);
            switch (f.last()) {
                case Member m -> holderObject(f).remove(m.name());
                case Index ix -> f.holder().getAsJsonArray().remove(ix.index());
                case Each e -> {
                }
            }
            count++;
        }
        return count;
    }

    private static JsonObject holderObject(Found f) {
        return f.holder().getAsJsonObject();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldPath p && p.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The path as written. */
    @Override
    public String toString() {
        return text;
    }
}
