package io.tenantplane.service;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Who sent a REST request, as the host's TokenReview told it: the user the host's authorizers know.
 *
 * @param name   the user name, e.g. {@code system:serviceaccount:platform:dashboard} or {@code jane@example.com}
 * @param uid    the user's uid; may be empty
 * @param groups the groups the user is in
 * @param extra  the authenticator's extra attributes (passed on to SubjectAccessReview as they came)
 */
public record Caller(String name, String uid, List<String> groups, Map<String, List<String>> extra) {

    /** Copies the collections. */
    public Caller {
        Objects.requireNonNull(name, "name");
        uid = Objects.requireNonNullElse(uid, "");
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }
}
