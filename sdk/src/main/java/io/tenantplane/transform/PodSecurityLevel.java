package io.tenantplane.transform;

import java.util.Locale;

/** The Kubernetes Pod Security Standard a tenant's host namespace enforces; the transform checks pods against it. */
public enum PodSecurityLevel {
    /** No checks. */
    PRIVILEGED,
    /** No host namespaces, host paths, host ports, privileged containers or extra capabilities. */
    BASELINE,
    /** Baseline, plus non-root, no privilege escalation, a seccomp profile, all capabilities dropped, safe volume types. */
    RESTRICTED;

    /**
     * The level for {@code privileged}, {@code baseline} or {@code restricted} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the allowed values
     */
    public static PodSecurityLevel parse(String value) {
        if (value != null) {
            for (PodSecurityLevel l : values()) {
                if (l.display().equalsIgnoreCase(value)) {
                    return l;
                }
            }
        }
        throw new IllegalArgumentException("podSecurity level '" + value + "' is not one of privileged, baseline, restricted");
    }

    /** The lowercase name Kubernetes uses: {@code privileged}, {@code baseline}, {@code restricted}. */
    public String display() {
        return name().toLowerCase(Locale.ROOT);
    }
}
