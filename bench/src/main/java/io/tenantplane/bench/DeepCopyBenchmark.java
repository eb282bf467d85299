package io.tenantplane.bench;

import com.google.gson.JsonObject;
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
 * The baseline of {@link PlanBenchmark}: a bare gson {@code deepCopy()} of the same tenant objects, kept in a list
 * as a plan keeps its desired objects. It is the least work any transform to host objects must do.
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
public class DeepCopyBenchmark {

    /** Tenant objects copied. */
    @Param({"1000", "10000", "100000"})
    public int objects;

    private List<JsonObject> tenant;
    private List<JsonObject> twins;

    /** Builds the objects once per trial. */
    @Setup
    public void setUp() {
        tenant = Fixtures.tenantObjects(objects);
        twins = new ArrayList<>(tenant.size());
        for (JsonObject o : tenant) {
            twins.add(o.deepCopy());
        }
    }

    /** A deep copy of every object. */
    @Benchmark
    public List<JsonObject> deepCopy() {
        List<JsonObject> out = new ArrayList<>(tenant.size());
        for (JsonObject o : tenant) {
            out.add(o.deepCopy());
        }
        return out;
    }

    /**
     * A deep copy of every object compared field by field with an equal object held elsewhere: the least work of
     * finding that a converged host needs nothing (the desired object must be made and the host's copy read whole).
     * Context for planning against a converged host, which reads both snapshots.
     */
    @Benchmark
    public List<JsonObject> deepCopyAndCompare() {
        List<JsonObject> out = new ArrayList<>(tenant.size());
        for (int i = 0; i < tenant.size(); i++) {
            JsonObject copy = tenant.get(i).deepCopy();
            if (!copy.equals(twins.get(i))) {
                throw new IllegalStateException("a copy differs from its twin");
            }
            out.add(copy);
        }
        return out;
    }
}
