package io.tenantplane.observe;

import io.tenantplane.plan.Decision;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * An {@link Observer} that remembers the last {@code capacity} decisions of each tenant, in memory, for
 * {@code TenantPlane.decisions(...)}, the service's REST endpoint and {@code tenantplane decisions}.
 *
 * <p>Every write is remembered. A decision that wrote nothing ({@code Unchanged}, {@code Skip}, {@code Conflict},
 * {@code Error}) is remembered when it is new: while the ring still holds the same decision about the same object
 * (same action and reason), a repeat from a later pass is not added again, so periodic passes over a quiet tenant do
 * not push its real history out. Decisions are kept without the objects they carry ({@link Decision#desired()},
 * {@link Decision#observed()} and {@link Outcome.Applied#result()} are null), so a ring costs a few hundred bytes per
 * decision. Thread-safe; memory is bounded by {@code capacity} per tenant, and
 * {@link #forget(TenantKey)} drops a deleted tenant.
 */
public final class DecisionRing implements Observer {

    private final int capacity;
    private final Clock clock;
    private final ConcurrentMap<TenantKey, ArrayDeque<RecordedDecision>> rings = new ConcurrentHashMap<>();

    /**
     * @param capacity decisions kept per tenant, at least 1
     * @param clock    stamps each decision as it is reported
     * @throws IllegalArgumentException when {@code capacity} is less than 1
     */
    public DecisionRing(int capacity, Clock clock) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Decisions kept per tenant. */
    public int capacity() {
        return capacity;
    }

    @Override
    public void decision(TenantKey tenant, Outcome outcome) {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(outcome, "outcome");
        RecordedDecision recorded = new RecordedDecision(tenant, clock.instant(), withoutObjects(outcome));
        ArrayDeque<RecordedDecision> ring = rings.computeIfAbsent(tenant, k -> new ArrayDeque<>());
        synchronized (ring) {
            if (outcome instanceof Outcome.NotWritten && holds(ring, outcome.decision())) {
                return;
            }
            if (ring.size() == capacity) {
                ring.removeFirst();
            }
            ring.addLast(recorded);
        }
    }

    /**
     * The outcome without the objects it carries (the desired, observed and written object): the ring answers what
     * was done and why, and a few hundred full objects per tenant would make it most of an idle tenant's memory.
     */
    static Outcome withoutObjects(Outcome o) {
        Decision d = o.decision();
        Decision slim = d.withoutObjects();
        return switch (o) {
            case Outcome.Applied a -> new Outcome.Applied(slim, null, a.attempts());
            case Outcome.NotWritten n -> slim == d ? n : new Outcome.NotWritten(slim);
            case Outcome.Failed f -> new Outcome.Failed(slim, f.code(), f.reason(), f.message(), f.attempts());
        };
    }

    private static boolean holds(ArrayDeque<RecordedDecision> ring, Decision d) {
        for (RecordedDecision r : ring) {
            Decision x = r.outcome().decision();
            if (r.outcome() instanceof Outcome.NotWritten && x.action() == d.action() && x.kind().equals(d.kind())
                    && x.reason().equals(d.reason()) && Objects.equals(x.source(), d.source())
                    && Objects.equals(x.host(), d.host())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The most recent decisions of {@code tenant}, newest first.
     *
     * @param limit at most this many; values above the capacity return the whole ring
     * @throws IllegalArgumentException when {@code limit} is negative
     */
    public List<RecordedDecision> recent(TenantKey tenant, int limit) {
        Objects.requireNonNull(tenant, "tenant");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, got " + limit);
        }
        ArrayDeque<RecordedDecision> ring = rings.get(tenant);
        if (ring == null) {
            return List.of();
        }
        List<RecordedDecision> out = new ArrayList<>(Math.min(limit, capacity));
        synchronized (ring) {
            Iterator<RecordedDecision> it = ring.descendingIterator();
            while (it.hasNext() && out.size() < limit) {
                out.add(it.next());
            }
        }
        return List.copyOf(out);
    }

    /** The tenants with at least one remembered decision. */
    public Set<TenantKey> tenants() {
        return Set.copyOf(rings.keySet());
    }

    /** Drops everything remembered about {@code tenant} (after the tenant is deleted). */
    public void forget(TenantKey tenant) {
        rings.remove(Objects.requireNonNull(tenant, "tenant"));
    }
}
