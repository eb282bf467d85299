package io.tenantplane.migration;

import java.util.List;
import java.util.Objects;

/**
 * A condition a step waits for before it goes on, as read from the snapshot the plan was made from.
 *
 * @param what    what must hold, e.g. "the Pods copied to team-dev-x-dev are Running and Ready"
 * @param pending what does not hold yet (empty when satisfied), e.g. {@code Pod team-dev-x-dev/web-x-default-x-dev}
 */
public record Wait(String what, List<String> pending) {

    public Wait {
        Objects.requireNonNull(what, "what");
        pending = List.copyOf(pending);
    }

    /** True when nothing is pending. */
    public boolean satisfied() {
        return pending.isEmpty();
    }
}
