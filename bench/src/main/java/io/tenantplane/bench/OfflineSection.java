package io.tenantplane.bench;

import java.awt.Color;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The offline figures: planning against deep copy at each size, growth with size, naming and explain; all from one
 * JMH run. Profiles planning with JFR when it misses its target.
 */
final class OfflineSection {

    static final double PLAN_TARGET = 2.0;
    static final double GROWTH_TARGET = 11.0;
    static final String JMH = "bench/run.sh jmh ";

    /** How hard to measure: sizes, iterations per trial, forks (0 runs in this JVM, for smoke tests). */
    record Config(List<Integer> sizes, int warmups, int iterations, TimeValue time, int forks, Duration profileFor) {
        static Config full() {
            return new Config(List.of(1_000, 10_000, 100_000), 5, 10, TimeValue.seconds(1), 1, Duration.ofSeconds(8));
        }

        static Config quick() {
            return new Config(List.of(100, 1_000), 1, 2, TimeValue.milliseconds(300), 1, Duration.ofSeconds(1));
        }
    }

    /** The section and the plot's lines. */
    record Result(Report.Section section, List<Plot.Series> plot) {
    }

    private OfflineSection() {
    }

    /**
     * Runs JMH once per size (the deep copy, then planning against both hosts) so that each ratio compares
     * measurements taken minutes apart at most, then naming and explain.
     */
    static Result run(Config c) throws RunnerException, IOException {
        List<RunResult> results = new ArrayList<>();
        for (int n : c.sizes()) {
            results.addAll(new Runner(options(c)
                    .include(DeepCopyBenchmark.class.getSimpleName())
                    .include(PlanBenchmark.class.getSimpleName())
                    .include(CustomPlanBenchmark.class.getSimpleName())
                    .param("objects", Integer.toString(n))
                    .build()).run());
        }
        results.addAll(new Runner(options(c)
                .include(NamingBenchmark.class.getSimpleName())
                .include(ExplainBenchmark.class.getSimpleName())
                .build()).run());
        return summarise(c, results);
    }

    private static ChainedOptionsBuilder options(Config c) {
        ChainedOptionsBuilder o = new OptionsBuilder()
                .warmupIterations(c.warmups())
                .warmupTime(c.time())
                .measurementIterations(c.iterations())
                .measurementTime(c.time())
                .shouldFailOnError(true);
        if (c.forks() >= 0) {
            o.forks(c.forks());
        }
        return o;
    }

    static Result summarise(Config c, Collection<RunResult> results) throws IOException {
        Map<String, Double> score = new HashMap<>();
        Map<String, Double> error = new HashMap<>();
        for (RunResult r : results) {
            var p = r.getParams();
            String method = p.getBenchmark().substring(p.getBenchmark().lastIndexOf('.', p.getBenchmark().lastIndexOf('.') - 1) + 1);
            String key = method + paramSuffix(p.getParam("host")) + paramSuffix(p.getParam("objects"));
            score.put(key, r.getPrimaryResult().getScore());
            error.put(key, r.getPrimaryResult().getScoreError());
        }
        List<Figure> figures = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<Plot.Series> plot = new ArrayList<>();
        boolean planMissed = false;
        List<Plot.Point> copyPoints = new ArrayList<>();
        List<Plot.Point> targetPoints = new ArrayList<>();
        for (int n : c.sizes()) {
            double copy = score.getOrDefault("DeepCopyBenchmark.deepCopy/" + n, Double.NaN);
            copyPoints.add(new Plot.Point(n, copy));
            targetPoints.add(new Plot.Point(n, PLAN_TARGET * copy));
        }
        for (String host : List.of("empty", "converged")) {
            List<Plot.Point> points = new ArrayList<>();
            for (int n : c.sizes()) {
                double plan = score.getOrDefault("PlanBenchmark.plan/" + host + "/" + n, Double.NaN);
                double copy = score.getOrDefault("DeepCopyBenchmark.deepCopy/" + n, Double.NaN);
                double ratio = plan / copy;
                boolean met = ratio <= PLAN_TARGET;
                planMissed |= !met;
                figures.add(new Figure(String.format(Locale.ROOT, "Plan %,d objects, %s host", n, host),
                        withError(plan, error.get("PlanBenchmark.plan/" + host + "/" + n), " ms"),
                        "deep copy " + withError(copy, error.get("DeepCopyBenchmark.deepCopy/" + n), " ms"), ratio,
                        "≤ " + Figure.number(PLAN_TARGET) + "×", met,
                        JMH + "'PlanBenchmark|DeepCopyBenchmark' -p objects=" + n + " -p host=" + host));
                points.add(new Plot.Point(n, plan));
            }
            plot.add(new Plot.Series("plan, " + host + " host", host.equals("empty") ? new Color(31, 119, 180)
                    : new Color(214, 39, 40), false, points));
        }
        // The custom-kind mix, against a deep copy of the same objects measured in the same fork.
        for (String host : List.of("empty", "converged")) {
            for (int n : c.sizes()) {
                String key = host + "/" + n;
                double plan = score.getOrDefault("CustomPlanBenchmark.plan/" + key, Double.NaN);
                double copy = score.getOrDefault("CustomPlanBenchmark.deepCopy/" + key, Double.NaN);
                if (Double.isNaN(plan)) {
                    continue;
                }
                double ratio = plan / copy;
                boolean met = ratio <= PLAN_TARGET;
                planMissed |= !met;
                figures.add(new Figure(String.format(Locale.ROOT, "Plan %,d objects, custom-kind mix, %s host", n,
                        host), withError(plan, error.get("CustomPlanBenchmark.plan/" + key), " ms"),
                        "deep copy " + withError(copy, error.get("CustomPlanBenchmark.deepCopy/" + key), " ms"),
                        ratio, "≤ " + Figure.number(PLAN_TARGET) + "×", met,
                        JMH + "CustomPlanBenchmark -p objects=" + n + " -p host=" + host));
            }
        }
        for (int n : c.sizes()) {
            double plan = score.getOrDefault("PlanBenchmark.plan/converged/" + n, Double.NaN);
            double copyCompare = score.getOrDefault("DeepCopyBenchmark.deepCopyAndCompare/" + n, Double.NaN);
            if (!Double.isNaN(copyCompare)) {
                figures.add(new Figure(String.format(Locale.ROOT, "Plan %,d objects, converged host, against copy and compare", n),
                        withError(plan, error.get("PlanBenchmark.plan/converged/" + n), " ms"),
                        "deep copy + `equals` with the host's twin " + withError(copyCompare,
                                error.get("DeepCopyBenchmark.deepCopyAndCompare/" + n), " ms"),
                        plan / copyCompare, "—", null,
                        JMH + "'PlanBenchmark|DeepCopyBenchmark' -p objects=" + n + " -p host=converged"));
            }
        }
        plot.add(new Plot.Series("bare gson deepCopy (baseline)", new Color(90, 90, 90), false, copyPoints));
        plot.add(new Plot.Series("target: 2× deepCopy", new Color(44, 160, 44), true, targetPoints));
        for (String host : List.of("empty", "converged")) {
            for (int i = 1; i < c.sizes().size(); i++) {
                int a = c.sizes().get(i - 1);
                int b = c.sizes().get(i);
                double growth = score.get("PlanBenchmark.plan/" + host + "/" + b) / score.get("PlanBenchmark.plan/" + host + "/" + a);
                double copyGrowth = score.get("DeepCopyBenchmark.deepCopy/" + b) / score.get("DeepCopyBenchmark.deepCopy/" + a);
                double allowed = GROWTH_TARGET * b / (10.0 * a);
                figures.add(new Figure(String.format(Locale.ROOT, "Plan growth %,d → %,d objects, %s host", a, b, host),
                        Figure.times(growth), "deep copy " + Figure.times(copyGrowth), null,
                        "≤ " + Figure.number(allowed) + "× for " + Figure.number(b / (double) a) + "× objects",
                        growth <= allowed,
                        JMH + "'PlanBenchmark' -p host=" + host + " -p objects=" + a + "," + b));
            }
        }
        double names = score.getOrDefault("NamingBenchmark.hostName", Double.NaN);
        double sha = score.getOrDefault("NamingBenchmark.sha256OfPlainForm", Double.NaN);
        figures.add(new Figure("Naming (host names per second, 1 in 8 hashed)",
                withError(names, error.get("NamingBenchmark.hostName"), " /s"),
                "one SHA-256 per name " + Figure.number(sha) + " /s", sha / names, "—", null, JMH + "NamingBenchmark"));
        double explain = score.getOrDefault("ExplainBenchmark.explainSync", Double.NaN);
        double planOne = score.getOrDefault("ExplainBenchmark.planOnePod", Double.NaN);
        figures.add(new Figure("Explain one Pod (latency)", withError(explain, error.get("ExplainBenchmark.explainSync"), " µs"),
                "plan of one Pod " + Figure.number(planOne) + " µs", explain / planOne, "—", null, JMH + "ExplainBenchmark"));
        if (planMissed && !c.profileFor().isZero()) {
            int n = c.sizes().get(Math.min(1, c.sizes().size() - 1));
            for (String host : List.of("empty", "converged")) {
                var tenant = Fixtures.tenantObjects(n);
                Snapshot s = host.equals("empty") ? Fixtures.emptyHost(tenant) : Fixtures.convergedHost(tenant);
                Planner planner = new Planner();
                notes.add(Profiler.profile(String.format(Locale.ROOT, "planning %,d objects against the %s host", n, host),
                        c.profileFor(), () -> planner.plan(s)).markdown(12));
            }
        }
        String missing = figures.stream().filter(f -> f.value().startsWith("n/a")).map(Figure::name)
                .collect(Collectors.joining(", "));
        if (!missing.isEmpty()) {
            throw new IllegalStateException("JMH gave no score for: " + missing);
        }
        return new Result(new Report.Section(Main.TITLES.get("plan"), figures, notes), plot);
    }

    /** "865 ± 40 ms": the score with JMH's 99.9% confidence half-width, when JMH could compute one. */
    static String withError(double score, Double error, String unit) {
        return Figure.number(score) + (error == null || error.isNaN() ? "" : " ± " + Figure.number(error)) + unit;
    }

    private static String paramSuffix(String value) {
        return value == null ? "" : "/" + value;
    }
}
