package io.tenantplane.plan;

/** What a {@link Decision} does to one host object. Printed in CamelCase ({@code Create}, {@code Update}, ...). */
public enum Action {
    /** The host object is absent and will be created. */
    CREATE,
    /** The host object exists, is ours, and differs from the desired state. */
    UPDATE,
    /** The host object exists, is ours, and already equals the desired state. */
    UNCHANGED,
    /** The host object is ours and its tenant source (or its kind's sync rule) is gone. */
    DELETE,
    /** The tenant object is deliberately not synced (policy, system namespace, unsynced reference). */
    SKIP,
    /** The host name is taken by an object tenantplane does not manage for this tenant; nothing is written. */
    CONFLICT,
    /** The tenant object cannot be transformed (invalid input); nothing is written. */
    ERROR;

    /** The CamelCase form used in output, Events and metrics: {@code Create}, {@code Unchanged}, ... */
    public String display() {
        String n = name();
        return n.charAt(0) + n.substring(1).toLowerCase(java.util.Locale.ROOT);
    }

    /** True for actions that write to the host. */
    public boolean writes() {
        return this == CREATE || this == UPDATE || this == DELETE;
    }
}
