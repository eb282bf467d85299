package io.tenantplane.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The server's fault rules, evaluated for every resource request before it is served. Fractions draw from one
 * {@link Random} seeded at build time ({@link KubeApiServer.Builder#faultSeed}) or with {@link #seed}, so a failing
 * run can be replayed. Thread-safe.
 */
public final class FaultInjector {
    /** What the router does with one request. */
    record Decision(long delayMillis, FaultRule fault) {
        static final Decision NONE = new Decision(0, null);
    }

    private final List<FaultRule> rules = new ArrayList<>();
    private final List<Long> fired = new ArrayList<>();
    private final Runnable dropWatches;
    private Random random;
    private long total;

    FaultInjector(long seed, Runnable dropWatches) {
        this.random = new Random(seed);
        this.dropWatches = dropWatches;
    }

    /**
     * Adds a rule after the existing ones.
     *
     * @throws IllegalArgumentException if the rule has no action yet
     */
    public synchronized FaultInjector add(FaultRule rule) {
        if (rule.kind() == null) {
            throw new IllegalArgumentException("the rule has no action; call respond, delay, resetConnection or "
                    + "dropWatch: " + rule);
        }
        rules.add(rule);
        fired.add(0L);
        return this;
    }

    /** Removes every rule; counts of fired faults are kept. */
    public synchronized void clear() {
        rules.clear();
        fired.clear();
    }

    /** Reseeds the random source used for fractions. */
    public synchronized void seed(long seed) {
        random = new Random(seed);
    }

    /** How many times any rule fired since the server started. */
    public synchronized long fired() {
        return total;
    }

    /** The rules in evaluation order. */
    public synchronized List<FaultRule> rules() {
        return List.copyOf(rules);
    }

    /**
     * Ends every open watch stream now (cleanly: the client sees the stream end and re-watches), as when an API
     * server restarts.
     */
    public void dropWatches() {
        dropWatches.run();
    }

    synchronized Decision decide(RequestLog.Entry request) {
        long delay = 0;
        for (int i = 0; i < rules.size(); i++) {
            FaultRule rule = rules.get(i);
            if (!rule.matches(request) || fired.get(i) >= rule.timesValue()) {
                continue;
            }
            if (rule.kind() == FaultRule.Kind.DROP_WATCH && !request.verb().equals("watch")) {
                continue;
            }
            if (rule.fractionValue() < 1.0 && random.nextDouble() >= rule.fractionValue()) {
                continue;
            }
            fired.set(i, fired.get(i) + 1);
            total++;
            if (rule.kind() == FaultRule.Kind.DELAY) {
                delay += rule.delayDuration().toMillis();
                continue;
            }
            return new Decision(delay, rule);
        }
        return delay == 0 ? Decision.NONE : new Decision(delay, null);
    }
}
