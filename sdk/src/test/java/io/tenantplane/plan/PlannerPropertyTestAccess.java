package io.tenantplane.plan;

import io.tenantplane.model.SyncPolicy;

/** Lets tests in other packages build the simple policies the planner tests use. */
public final class PlannerPropertyTestAccess {

    private PlannerPropertyTestAccess() {
    }

    /** A policy syncing exactly {@code kinds} to the host. */
    public static SyncPolicy policy(String... kinds) {
        return PlannerPropertyTest.policy(kinds);
    }
}
