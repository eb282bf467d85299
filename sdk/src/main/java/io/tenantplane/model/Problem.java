package io.tenantplane.model;

import java.util.Objects;

/**
 * One thing wrong with an input, phrased so that the reader can fix it.
 *
 * @param source  where the input came from: a file (and document) and the object, e.g.
 *                {@code examples/yaml/tenantcluster.yaml (TenantCluster team-dev/dev)}; null when unknown
 * @param field   the field path inside the object, e.g. {@code spec.controlPlane.datastore.type}; null when the
 *                problem is about the object as a whole
 * @param message what is wrong, the allowed values where there is a fixed set, and the fix
 */
public record Problem(String source, String field, String message) {

    public Problem {
        Objects.requireNonNull(message, "message");
    }

    /** A problem with no source yet; the caller that knows the file adds it with {@link #withSource(String)}. */
    public static Problem of(String field, String message) {
        return new Problem(null, field, message);
    }

    /** This problem attributed to {@code source}. */
    public Problem withSource(String source) {
        return new Problem(source, field, message);
    }

    /** {@code source: field: message}, leaving out the parts that are null. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        if (source != null && !source.isEmpty()) {
            b.append(source).append(": ");
        }
        if (field != null && !field.isEmpty()) {
            b.append(field).append(": ");
        }
        return b.append(message).toString();
    }
}
