package io.tenantplane.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs the benchmarks and writes {@code docs/performance.md} with its plot. Usage (through {@code bench/run.sh}):
 *
 * <pre>
 * bench/run.sh                         every section; rewrites docs/performance.md and docs/performance-plan.png
 * bench/run.sh plan live footprint cli some sections; prints their table
 * bench/run.sh --quick                 every section with small sizes and few runs; prints the table
 * bench/run.sh jmh [JMH options]       JMH itself, e.g. jmh PlanBenchmark -p objects=10000
 * </pre>
 * Options: {@code --repo DIR} (the repository root, default the working directory), {@code --runs N} (CLI runs).
 */
public final class Main {

    static final List<String> SECTIONS = List.of("plan", "live", "firstsync", "footprint", "scale", "kubelet",
            "cli");
    static final java.util.Map<String, String> TITLES = java.util.Map.of("plan", "Offline plan, naming and explain (JMH)",
            "live", "Live convergence (testkit API servers)", "footprint", "Footprint (one Syncer, idle tenants)",
            "scale", "Scale out (replicas sharing tenants by shard Leases)",
            "kubelet", "Kubelet endpoint (kubectl logs, exec and top inside tenants)",
            "cli", "CLI cold start", "firstsync", "First sync with concurrent writers (testkit API servers)");
    static final String DOC = "docs/performance.md";
    static final String PLOT = "performance-plan.png";

    private Main() {
    }

    /** Entry point; see the class comment. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            org.openjdk.jmh.Main.main(List.of(args).subList(1, args.length).toArray(String[]::new));
            return;
        }
        Path repo = Path.of("").toAbsolutePath();
        boolean quick = false;
        int runs = 15;
        Set<String> chosen = new LinkedHashSet<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--repo" -> repo = Path.of(value(args, ++i, "--repo")).toAbsolutePath();
                case "--runs" -> runs = Integer.parseInt(value(args, ++i, "--runs"));
                case "--quick" -> quick = true;
                case "-h", "--help" -> {
                    System.out.println("usage: bench/run.sh [--quick] [--repo DIR] [--runs N] [plan|live|firstsync|footprint|cli ...]"
                            + "\n       bench/run.sh jmh [JMH options]");
                    return;
                }
                default -> {
                    if (!SECTIONS.contains(args[i])) {
                        throw new IllegalArgumentException("unknown argument '" + args[i] + "'; sections are " + SECTIONS);
                    }
                    chosen.add(args[i]);
                }
            }
        }
        boolean everything = chosen.isEmpty() || chosen.containsAll(SECTIONS);
        if (chosen.isEmpty()) {
            chosen.addAll(SECTIONS);
        }
        if (quick) {
            runs = Math.min(runs, 3);
        }
        Machine machine = Machine.current();
        ZonedDateTime started = ZonedDateTime.now();
        System.out.println("tenantplane benchmarks on " + machine.describe());
        List<Report.Section> sections = new ArrayList<>();
        List<Plot.Series> plot = List.of();
        boolean failed = false;
        for (String s : chosen) {
            try {
                switch (s) {
                    case "plan" -> {
                        OfflineSection.Result r = OfflineSection.run(quick ? OfflineSection.Config.quick()
                                : OfflineSection.Config.full());
                        sections.add(r.section());
                        plot = r.plot();
                    }
                    case "live" -> sections.add(LiveSection.run(quick ? LiveSection.Config.quick()
                            : LiveSection.Config.full()));
                    case "firstsync" -> sections.add(FirstSyncSection.run(quick ? FirstSyncSection.Config.quick()
                            : FirstSyncSection.Config.full()));
                    case "footprint" -> sections.add(FootprintSection.run(quick ? FootprintSection.Config.quick()
                            : FootprintSection.Config.full()));
                    case "scale" -> sections.add(ScaleSection.run(quick ? ScaleSection.Config.quick()
                            : ScaleSection.Config.full()));
                    case "kubelet" -> sections.add(KubeletSection.run(quick ? KubeletSection.Config.quick()
                            : KubeletSection.Config.full()));
                    case "cli" -> sections.add(ColdStartSection.run(repo, runs));
                    default -> throw new IllegalStateException(s);
                }
            } catch (Exception e) {
                // One broken section should not cost the others' results; the report says what failed.
                failed = true;
                e.printStackTrace();
                sections.add(new Report.Section(TITLES.get(s), List.of(), List.of("**Not measured**: " + e)));
            }
            System.out.print(Report.text(sections.subList(sections.size() - 1, sections.size())));
        }
        System.out.println();
        System.out.print(Report.text(sections));
        if (everything && !quick) {
            Path doc = repo.resolve(DOC);
            if (!plot.isEmpty()) {
                Plot.write(doc.resolveSibling(PLOT), "Planning time against tenant objects",
                        "tenant objects", "milliseconds per plan", plot);
            }
            Report.write(doc, Files.exists(doc) ? "" : intro(), Report.generated(machine, started, sections,
                    plot.isEmpty() ? null : PLOT));
            System.out.println("wrote " + doc + " and " + doc.resolveSibling(PLOT));
        }
        if (failed) {
            System.exit(1);
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    static String intro() {
        return """
                # Performance

                What tenantplane costs, measured against the least work the same job needs, in the same run on the \
                same machine. `bench/run.sh` regenerates the results below and the plot.
                """;
    }
}
