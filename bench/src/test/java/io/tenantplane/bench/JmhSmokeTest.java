package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Each JMH benchmark runs in this JVM with a tiny size and one short iteration, and gives a positive, finite score.
 * No timing is asserted: the numbers only mean something from {@code bench/run.sh}.
 */
class JmhSmokeTest {

    private static List<RunResult> run(Class<?> benchmark, String... params) throws RunnerException {
        OptionsBuilder o = new OptionsBuilder();
        o.include(benchmark.getName() + "\\.")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .verbosity(org.openjdk.jmh.runner.options.VerboseMode.SILENT);
        for (int i = 0; i < params.length; i += 2) {
            o.param(params[i], params[i + 1]);
        }
        // A smoke run measures nothing, so a full benchmark run on the same machine (which holds JMH's machine-wide
        // lock) must not make it fail.
        System.setProperty("jmh.ignoreLock", "true");
        Collection<RunResult> results = new Runner(o.build()).run();
        return List.copyOf(results);
    }

    private static void assertSane(RunResult r) {
        double score = r.getPrimaryResult().getScore();
        assertTrue(score > 0 && Double.isFinite(score),
                r.getParams().getBenchmark() + " gave " + score + " " + r.getPrimaryResult().getScoreUnit());
    }

    @Test
    void planBenchmarkPlansTinySnapshotsAgainstEmptyAndConvergedHosts() throws RunnerException {
        List<RunResult> results = run(PlanBenchmark.class, "objects", "20");
        assertEquals(2, results.size(), "one result per host kind");
        results.forEach(JmhSmokeTest::assertSane);
    }

    @Test
    void customPlanBenchmarkPlansTheCustomKindMixAndCopiesItsBaseline() throws RunnerException {
        List<RunResult> results = run(CustomPlanBenchmark.class, "objects", "20");
        assertEquals(4, results.size(), "plan and deep copy, per host kind");
        results.forEach(JmhSmokeTest::assertSane);
    }

    @Test
    void theCustomKindMixIsPlannedWithoutSkipsAndConvergesToUnchanged() {
        var tenant = CustomFixtures.tenantObjects(100);
        var planner = new io.tenantplane.plan.Planner();
        var empty = planner.plan(CustomFixtures.emptyHost(tenant));
        assertTrue(empty.decisions().stream().allMatch(d -> d.action() == io.tenantplane.plan.Action.CREATE),
                () -> empty.decisions().stream().filter(d -> d.action() != io.tenantplane.plan.Action.CREATE)
                        .findFirst().map(Object::toString).orElse(""));
        assertEquals(20, empty.decisions().stream().filter(d -> d.kind().equals("Certificate")
                || d.kind().equals("Backup")).count(), "two in ten are custom resources");
        var converged = planner.plan(CustomFixtures.convergedHost(tenant));
        assertTrue(converged.decisions().stream().allMatch(d -> d.action() == io.tenantplane.plan.Action.UNCHANGED));
    }

    @Test
    void deepCopyBenchmarkCopiesATinyWorkloadAloneAndComparedWithItsTwins() throws RunnerException {
        List<RunResult> results = run(DeepCopyBenchmark.class, "objects", "20");
        assertEquals(2, results.size(), "the copy and the copy with a comparison");
        results.forEach(JmhSmokeTest::assertSane);
    }

    @Test
    void namingBenchmarkCountsNamesPerSecondAndItsReference() throws RunnerException {
        List<RunResult> results = run(NamingBenchmark.class);
        assertEquals(2, results.size());
        results.forEach(JmhSmokeTest::assertSane);
    }

    @Test
    void explainBenchmarkTimesExplainAndItsReference() throws RunnerException {
        List<RunResult> results = run(ExplainBenchmark.class);
        assertEquals(2, results.size());
        results.forEach(JmhSmokeTest::assertSane);
    }
}
