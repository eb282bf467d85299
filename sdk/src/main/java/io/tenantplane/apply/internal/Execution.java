package io.tenantplane.apply.internal;

import io.tenantplane.apply.Applier;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The one reporter of the work done for one tenant: a convergence pass, a provisioning or a migration step. Every
 * outcome the SDK executes (written, deliberately not written, or failed) is reported through an execution, once: to
 * the observers (Events, counters, the decision ring) and as a span event of the scope it was made in, and it is
 * listed among the outcomes the caller's report returns. Writes go through the {@link Applier}, and {@link #apply}
 * is the write and its report in one call; a write that needs more than one call (a retry with other fields, a
 * replacement) is made through the Applier and its last outcome {@linkplain #report reported}.
 *
 * <p>Thread-safe: writes made concurrently may report as they come; the observers are called one report at a time
 * per execution (and the views {@link #in} makes of it).
 */
public final class Execution implements AutoCloseable {

    private final TenantKey tenant;
    private final Observer observer;
    private final Observer.PassScope scope;
    private final List<Outcome> outcomes;
    /** True for a view {@link #kind} opened: {@link #close} closes its scope. */
    private final boolean owned;

    private Execution(TenantKey tenant, Observer observer, Observer.PassScope scope, List<Outcome> outcomes,
                      boolean owned) {
        this.tenant = tenant;
        this.observer = observer;
        this.scope = scope;
        this.outcomes = outcomes;
        this.owned = owned;
    }

    /** An execution for {@code tenant} that reports to {@code observer} and into {@code scope}'s span. */
    public static Execution of(TenantKey tenant, Observer observer, Observer.PassScope scope) {
        return new Execution(Objects.requireNonNull(tenant, "tenant"), Objects.requireNonNull(observer, "observer"),
                Objects.requireNonNull(scope, "scope"), new ArrayList<>(), false);
    }

    /**
     * Runs {@code work} with an execution for {@code tenant} inside the scope {@code start} opens (e.g.
     * {@link Observer#provisionStarted}): a failure is recorded on the scope, and the scope is told how long the work
     * took and closed, whatever happens.
     */
    public static <T> T scoped(TenantKey tenant, Observer observer,
                               Function<TenantKey, Observer.PassScope> start, Function<Execution, T> work) {
        long began = System.nanoTime();
        Observer.PassScope scope = start.apply(tenant);
        try {
            return work.apply(of(tenant, observer, scope));
        } catch (RuntimeException e) {
            scope.failed(e);
            throw e;
        } finally {
            scope.finished(Duration.ofNanos(System.nanoTime() - began));
            scope.close();
        }
    }

    /**
     * The same execution reporting into a new child scope for {@code kind} (its span), which {@link #close} closes:
     * {@code try (Execution secrets = exec.kind("Secret")) { ... }}.
     */
    public Execution kind(String kind) {
        return new Execution(tenant, observer, scope.kind(Objects.requireNonNull(kind, "kind")), outcomes, true);
    }

    /** Closes the scope {@link #kind} opened; an execution made otherwise leaves its scope to its maker. */
    @Override
    public void close() {
        if (owned) {
            scope.close();
        }
    }

    /**
     * Executes {@code decisions} in order, each by {@code write} (the applier's write, or a write that needs more than
     * one call) and reported under the scope of its kind, opened once for each run of decisions of one kind.
     */
    public void each(List<Decision> decisions, Function<Decision, Outcome> write) {
        String current = null;
        Execution kind = null;
        try {
            for (Decision d : decisions) {
                if (!d.kind().equals(current)) {
                    if (kind != null) {
                        kind.close();
                    }
                    current = d.kind();
                    kind = kind(current);
                }
                kind.report(write.apply(d));
            }
        } finally {
            if (kind != null) {
                kind.close();
            }
        }
    }

    /**
     * Executes {@code decisions} by {@code write} with up to {@code workers} in flight ({@link Bounded}, threads named
     * {@code threads-<n>}): each outcome is reported as it comes under the scope of its kind (one scope per kind, open
     * until all are done), and the outcomes are listed in the order of {@code decisions}.
     */
    public void concurrently(List<Decision> decisions, int workers, String threads,
                             Function<Decision, Outcome> write) {
        if (decisions.isEmpty()) {
            return;
        }
        Map<String, Execution> kinds = new LinkedHashMap<>();
        for (Decision d : decisions) {
            kinds.computeIfAbsent(d.kind(), this::kind);
        }
        Outcome[] results = new Outcome[decisions.size()];
        try {
            Bounded.run(decisions.size(), workers, threads, i -> {
                Decision d = decisions.get(i);
                Outcome o = write.apply(d);
                results[i] = o;
                kinds.get(d.kind()).announce(o);
            });
        } finally {
            kinds.values().forEach(Execution::close);
            list(Arrays.stream(results).filter(Objects::nonNull).toList());
        }
    }

    /** The tenant this execution reports for. */
    public TenantKey tenant() {
        return tenant;
    }

    /** Executes {@code decision} through {@code applier} and reports its outcome. */
    public Outcome apply(Applier applier, Decision decision, Applier.Replanner replanner) {
        return report(applier.apply(decision, replanner));
    }

    /** Writes {@code decision}'s desired status through {@code applier} and reports its outcome. */
    public Outcome applyStatus(Applier applier, Decision decision) {
        return report(applier.applyStatus(decision));
    }

    /** Reports {@code outcome} and lists it among this execution's outcomes; returns it. */
    public Outcome report(Outcome outcome) {
        synchronized (outcomes) {
            announce(outcome);
            outcomes.add(outcome);
        }
        return outcome;
    }

    /**
     * Reports {@code outcome} to the observers and the span without listing it yet: for writes made concurrently,
     * reported as they come and then {@linkplain #list listed} in the order they were planned.
     */
    public void announce(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        synchronized (outcomes) {
            scope.decision(outcome);
            observer.decision(tenant, outcome);
        }
    }

    /** Lists outcomes already {@linkplain #announce announced}, in the order given. */
    public void list(List<Outcome> announced) {
        synchronized (outcomes) {
            outcomes.addAll(announced);
        }
    }

    /**
     * Reports the outcome of a status write on the tenant's own TenantCluster: to the observers and the span when
     * something was written or failed (an unchanged status is not news), never listed among the outcomes, which are
     * about the objects the work converges.
     */
    public Outcome statusWritten(Outcome outcome) {
        if (!(outcome instanceof Outcome.NotWritten)) {
            announce(outcome);
        }
        return outcome;
    }

    /** The outcomes listed so far, in order. */
    public List<Outcome> outcomes() {
        synchronized (outcomes) {
            return List.copyOf(outcomes);
        }
    }
}
