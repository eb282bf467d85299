package io.tenantplane.migration;

import java.util.Objects;

/**
 * Why a migration does not start (or does not go on): nothing is written to the host or the tenant.
 *
 * @param reason  a stable CamelCase reason, {@value #INVALID_TARGET} or {@value #BLOCKED}
 * @param field   the field to change, e.g. {@code IsolationProfile team-dev/strict spec.nodePlacement}
 * @param message a sentence saying what is wrong and how to fix it
 */
public record Rejection(String reason, String field, String message) {

    /** The target mode cannot be reached with the tenant's IsolationProfile or spec. */
    public static final String INVALID_TARGET = "InvalidMigrationTarget";
    /** The tenant holds something that cannot move safely (bare Pods, volume data). */
    public static final String BLOCKED = "MigrationBlocked";

    public Rejection {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }
}
