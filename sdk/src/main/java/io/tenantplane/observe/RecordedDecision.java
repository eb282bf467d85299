package io.tenantplane.observe;

import java.time.Instant;
import java.util.Objects;

/**
 * One executed decision as the {@link DecisionRing} remembers it.
 *
 * @param tenant  the tenant it belongs to
 * @param at      when the outcome was reported, by the ring's clock
 * @param outcome the decision and what happened when it was executed, without the objects it carried (desired,
 *                observed and written objects are null)
 */
public record RecordedDecision(TenantKey tenant, Instant at, Outcome outcome) {

    public RecordedDecision {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(outcome, "outcome");
    }
}
