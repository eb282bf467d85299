package io.tenantplane.naming;

/**
 * Whether a host object is managed by tenantplane for a tenant, per the ownership rule of {@link ReverseMapping}.
 * Anything not {@link Managed} is foreign: never updated, never deleted.
 */
public sealed interface Ownership {

    /** The object is a tenantplane copy of {@code source}. */
    record Managed(TenantObjectRef source) implements Ownership {
    }

    /** The object is foreign; {@code why} is a sentence fragment such as "it has no tenantplane.io/managed-by label". */
    record NotManaged(String why) implements Ownership {
    }
}
