package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import java.util.ArrayList;
import java.util.List;
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
 * {@link PlanBenchmark} for the custom-kind mix ({@link CustomFixtures}), with its baseline in the same class and
 * fork: a bare deep copy of the same objects.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-Xmn6g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
public class CustomPlanBenchmark {

    /** Tenant objects in the snapshot. */
    @Param({"1000", "10000", "100000"})
    public int objects;

    /** {@code empty} or {@code converged}. */
    @Param({"empty", "converged"})
    public String host;

    private final Planner planner = new Planner();
    private Snapshot snapshot;
    private List<JsonObject> tenant;

    /** Builds the snapshot once per trial; only planning (or copying) is timed. */
    @Setup
    public void setUp() {
        tenant = CustomFixtures.tenantObjects(objects);
        snapshot = switch (host) {
            case "empty" -> CustomFixtures.emptyHost(tenant);
            case "converged" -> CustomFixtures.convergedHost(tenant);
            default -> throw new IllegalArgumentException("host must be empty or converged, not " + host);
        };
    }

    /** One full plan of the snapshot. */
    @Benchmark
    public Plan plan() {
        return planner.plan(snapshot);
    }

    /** The baseline: a deep copy of every tenant object of the mix. */
    @Benchmark
    public List<JsonObject> deepCopy() {
        List<JsonObject> out = new ArrayList<>(tenant.size());
        for (JsonObject o : tenant) {
            out.add(o.deepCopy());
        }
        return out;
    }
}
