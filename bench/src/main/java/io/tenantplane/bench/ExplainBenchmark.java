package io.tenantplane.bench;

import io.tenantplane.explain.Explainer;
import io.tenantplane.explain.Explanation;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Latency of explaining where one tenant Pod lands ({@code tenantplane explain-sync} without manifests), against
 * planning that one Pod, which is the work the explanation is built on.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ExplainBenchmark {

    private final Explainer explainer = new Explainer();
    private final Planner planner = new Planner();
    private Snapshot onePod;

    /** Builds the one-Pod snapshot once per trial. */
    @Setup
    public void setUp() {
        onePod = Fixtures.emptyHost(List.of(Fixtures.tenantObject(4)));
    }

    /** Explains a Pod {@code default/nginx} of tenant {@code dev}. */
    @Benchmark
    public Explanation explainSync() {
        return explainer.explainSync("dev", "team-dev", "default", "Pod", "nginx");
    }

    /** Plans a snapshot holding one Pod. */
    @Benchmark
    public Plan planOnePod() {
        return planner.plan(onePod);
    }
}
