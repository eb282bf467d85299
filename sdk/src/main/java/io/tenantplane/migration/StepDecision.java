package io.tenantplane.migration;

import io.tenantplane.plan.Decision;
import java.util.Objects;

/**
 * One decision of a migration step and the API it is executed against.
 *
 * @param api      where the decision is written
 * @param decision what is done and why
 */
public record StepDecision(Api api, Decision decision) {

    /** Where a decision is written. */
    public enum Api {
        /** An object on the host cluster. */
        HOST,
        /** An object in the tenant's own API (a Pod to reschedule, a Node). */
        TENANT,
        /** The status subresource of the TenantCluster itself. */
        STATUS
    }

    public StepDecision {
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(decision, "decision");
    }
}
