package io.tenantplane.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Wall time of one CLI command from process start to exit, as a user runs it, against kubectl's client-side dry run:
 * the median of several runs after one warm-up run each (the CLI's first run builds the jar when needed and
 * creates its class-data sharing archive).
 */
final class ColdStartSection {

    static final double TARGET = 3.0;
    static final List<String> EXPLAIN = List.of("explain-sync", "--tenant", "dev", "--tenant-namespace", "team-dev",
            "--virtual-namespace", "default", "--kind", "Pod", "--name", "nginx");
    static final List<String> KUBECTL = List.of("create", "configmap", "x", "--dry-run=client", "-o", "yaml");

    private ColdStartSection() {
    }

    /** What the launcher checks for changes, and what it runs, relative to the repository root. */
    static final List<String> STAGED = List.of("tenantplane", ".ci/find-jdk.sh", "pom.xml", "sdk/pom.xml",
            "cli/pom.xml", "sdk/src/main", "cli/src/main", "examples/yaml");
    static final String JAR = "cli/target/tenantplane.jar";

    static Report.Section run(Path repo, int runs) throws IOException, InterruptedException {
        if (!Files.isExecutable(repo.resolve("tenantplane"))) {
            throw new IllegalStateException("no executable launcher at " + repo.resolve("tenantplane")
                    + "; pass --repo <repository root>");
        }
        List<String> notes = new ArrayList<>();
        List<String> update = new ArrayList<>(List.of(repo.resolve("tenantplane").toString()));
        update.addAll(EXPLAIN);
        try {
            time(update, repo, 900);
        } catch (IllegalStateException e) {
            if (!Files.isRegularFile(repo.resolve(JAR))) {
                throw e;
            }
            notes.add("The launcher could not rebuild the CLI from the current sources (" + e.getMessage().lines()
                    .filter(l -> l.contains("ERROR")).findFirst().orElse("build failed").strip()
                    + "); the jar built at " + Files.getLastModifiedTime(repo.resolve(JAR)) + " was measured.");
        }
        Path stage = stage(repo);
        try {
            return measure(stage, runs, notes);
        } finally {
            try (var files = Files.walk(stage)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * A copy of the launcher, the CLI jar and the sources the launcher checks, with the sources dated before the
     * jar: the launcher does exactly its usual work, but edits made to the repository while the benchmark runs do
     * not make it rebuild.
     */
    static Path stage(Path repo) throws IOException {
        Path stage = Files.createTempDirectory("tenantplane-coldstart");
        Path jar = repo.resolve(JAR);
        java.nio.file.attribute.FileTime before = java.nio.file.attribute.FileTime.fromMillis(
                (Files.isRegularFile(jar) ? Files.getLastModifiedTime(jar).toMillis() : System.currentTimeMillis())
                        - 3_600_000L);
        for (String rel : STAGED) {
            Path from = repo.resolve(rel);
            if (!Files.exists(from)) {
                continue;
            }
            try (var files = Files.walk(from)) {
                for (Path f : files.toList()) {
                    Path to = stage.resolve(repo.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(to);
                    } else {
                        Files.createDirectories(to.getParent());
                        Files.copy(f, to, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                        Files.setLastModifiedTime(to, before);
                    }
                }
            }
        }
        if (Files.isRegularFile(jar)) {
            Files.createDirectories(stage.resolve(JAR).getParent());
            Files.copy(jar, stage.resolve(JAR), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
        return stage;
    }

    private static Report.Section measure(Path repo, int runs, List<String> notes) throws IOException, InterruptedException {
        List<String> cli = new ArrayList<>(List.of(repo.resolve("tenantplane").toString()));
        cli.addAll(EXPLAIN);
        Path jar = repo.resolve(JAR);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Optional<Path> kubectl = onPath("kubectl");
        List<String> kube = new ArrayList<>();
        kubectl.ifPresent(k -> {
            kube.add(k.toString());
            kube.addAll(KUBECTL);
        });

        timeLauncher(cli, repo);
        List<String> bare = new ArrayList<>(List.of(java, startupCache(repo), "-XX:TieredStopAtLevel=1", "-jar",
                jar.toString()));
        bare.addAll(EXPLAIN);
        List<String> jvm = List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-version");
        if (!kube.isEmpty()) {
            time(kube, repo, 60);
        }
        time(jvm, repo, 60);
        List<Long> cliTimes = new ArrayList<>();
        List<Long> bareTimes = new ArrayList<>();
        List<Long> kubeTimes = new ArrayList<>();
        List<Long> jvmTimes = new ArrayList<>();
        boolean jarBuilt = Files.isRegularFile(jar);
        for (int i = 0; i < runs; i++) {
            cliTimes.add(timeLauncher(cli, repo));
            if (jarBuilt) {
                bareTimes.add(time(bare, repo, 60));
            }
            jvmTimes.add(time(jvm, repo, 60));
            if (!kube.isEmpty()) {
                kubeTimes.add(time(kube, repo, 60));
            }
        }
        double cliMs = median(cliTimes);
        String reproduce = "bench/run.sh cli";
        List<Figure> figures = new ArrayList<>();
        String what = "CLI cold start: `./tenantplane explain-sync` (median of " + runs + ")";
        if (kube.isEmpty()) {
            figures.add(new Figure(what, Figure.number(cliMs) + " ms", "kubectl not installed", null,
                    "≤ " + Figure.number(TARGET) + "× kubectl", null, reproduce));
        } else {
            double kubeMs = median(kubeTimes);
            double ratio = cliMs / kubeMs;
            figures.add(new Figure(what, Figure.number(cliMs) + " ms",
                    "`kubectl create configmap x --dry-run=client -o yaml` " + Figure.number(kubeMs) + " ms", ratio,
                    "≤ " + Figure.number(TARGET) + "×", ratio <= TARGET, reproduce));
            if (ratio > TARGET && jarBuilt) {
                notes.add(classLoading(java, repo, jar));
            }
        }
        if (jarBuilt) {
            figures.add(Figure.plain("The same with `java -jar` and the launcher's flags, no script",
                    Figure.number(median(bareTimes)) + " ms", reproduce));
        }
        figures.add(Figure.plain("JVM start alone (`java -version`)", Figure.number(median(jvmTimes)) + " ms",
                reproduce));
        return new Report.Section(Main.TITLES.get("cli"), figures, notes);
    }

    /**
     * The flag that makes a JVM use the start-up cache the launcher made in its warm-up run: the AOT cache on JDK
     * 25+, a class-data sharing archive before.
     */
    static String startupCache(Path repo) {
        Path aot = repo.resolve("cli/target/tenantplane.aot");
        return Files.isRegularFile(aot) ? "-XX:AOTCache=" + aot
                : "-XX:SharedArchiveFile=" + repo.resolve("cli/target/tenantplane.jsa");
    }

    /** How many classes the command loads and how many come from the CDS archive. */
    private static String classLoading(String java, Path repo, Path jar) throws IOException, InterruptedException {
        Path log = Files.createTempFile("tenantplane-classes", ".log");
        try {
            List<String> cmd = new ArrayList<>(List.of(java, startupCache(repo), "-XX:TieredStopAtLevel=1",
                    "-Xlog:class+load=info:file=" + log, "-jar", jar.toString()));
            cmd.addAll(EXPLAIN);
            time(cmd, repo, 60);
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            long total = lines.stream().filter(l -> l.contains("source:")).count();
            long shared = lines.stream().filter(l -> l.contains("shared objects file")).count();
            return String.format(Locale.ROOT, "The CLI run loads %,d classes, %,d of them (%.0f%%) from the class-data "
                    + "sharing archive or AOT cache.", total, shared, total == 0 ? 0 : 100.0 * shared / total);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * Wall time of one launcher run that did not rebuild the jar. The launcher rebuilds when sources are newer than
     * the jar (someone edited them meanwhile): such a run, and the one after it that recreates the class-data sharing
     * archive, are not samples of a cold start.
     */
    static long timeLauncher(List<String> cmd, Path dir) throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 5; attempt++) {
            StringBuilder err = new StringBuilder();
            long t = time(cmd, dir, 900, err);
            if (!err.toString().contains("building the CLI")) {
                return t;
            }
            time(cmd, dir, 120, new StringBuilder());
        }
        throw new IllegalStateException("the launcher rebuilt the CLI on 5 runs in a row: are sources being edited?");
    }

    /** Wall time in nanoseconds of one run of {@code cmd}, which must exit 0. */
    static long time(List<String> cmd, Path dir, int timeoutSeconds) throws IOException, InterruptedException {
        return time(cmd, dir, timeoutSeconds, new StringBuilder());
    }

    /** As {@link #time(List, Path, int)}, appending what the command wrote to standard error to {@code stderr}. */
    static long time(List<String> cmd, Path dir, int timeoutSeconds, StringBuilder stderr)
            throws IOException, InterruptedException {
        Path err = Files.createTempFile("tenantplane-bench", ".err");
        try {
            long start = System.nanoTime();
            Process p = new ProcessBuilder(cmd).directory(dir.toFile())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(err.toFile())
                    .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish in " + timeoutSeconds + " s");
            }
            long elapsed = System.nanoTime() - start;
            stderr.append(Files.readString(err));
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ": "
                        + Files.readString(err).strip());
            }
            return elapsed;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    static double median(List<Long> nanos) {
        List<Long> s = nanos.stream().sorted().toList();
        int n = s.size();
        double mid = n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2.0;
        return mid / 1e6;
    }

    static Optional<Path> onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, command);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
