package io.tenantplane.bench;

import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Planning one tenant's objects against an empty host (every object a {@code Create}) and against a converged host
 * (every object {@code Unchanged}, the steady state). Compare with {@link DeepCopyBenchmark} at the same size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
// A young generation big enough for one operation's garbage: at 100,000 objects the collector would otherwise copy
// the live result again and again, and the figures would measure it rather than the code (same flags on both sides).
// The heap's pages are touched at start: otherwise the first pass over a fresh young generation pays the kernel's page
// faults, which vary from run to run and charge each side by the bytes it allocates rather than by the work it does.
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-Xmn6g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
public class PlanBenchmark {

    /** Tenant objects in the snapshot. */
    @Param({"1000", "10000", "100000"})
    public int objects;

    /** {@code empty} or {@code converged}. */
    @Param({"empty", "converged"})
    public String host;

    private final Planner planner = new Planner();
    private Snapshot snapshot;

    /** Builds the snapshot once per trial; only planning is timed. */
    @Setup
    public void setUp() {
        var tenant = Fixtures.tenantObjects(objects);
        snapshot = switch (host) {
            case "empty" -> Fixtures.emptyHost(tenant);
            case "converged" -> Fixtures.convergedHost(tenant);
            default -> throw new IllegalArgumentException("host must be empty or converged, not " + host);
        };
    }

    /** One full plan of the snapshot. */
    @Benchmark
    public Plan plan() {
        return planner.plan(snapshot);
    }
}
