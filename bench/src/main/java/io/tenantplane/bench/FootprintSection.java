package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Heap and platform threads of one Syncer as idle tenants are added, each tenant with its own API server (testkit,
 * in a separate process) and host namespace. Runs {@link FootprintServers} and {@link FootprintProbe} as child
 * processes of the same JVM and class path.
 */
final class FootprintSection {

    static final double TARGET_MIB = 2.0;
    static final String REPRODUCE = "bench/run.sh footprint";
    private static final double MIB = 1024.0 * 1024;

    /** Tenants at each measurement and objects per tenant. */
    record Config(List<Integer> steps, int objects, int settleSeconds) {
        static Config full() {
            return new Config(List.of(1, 10, 100), 200, 61);
        }

        static Config quick() {
            return new Config(List.of(1, 3), 20, 0);
        }
    }

    private FootprintSection() {
    }

    static Report.Section run(Config c) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        int max = c.steps().get(c.steps().size() - 1);
        Process servers = new ProcessBuilder(java, "-Xmx4g", "-cp", cp, FootprintServers.class.getName(),
                Integer.toString(max), Integer.toString(c.objects()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<JsonObject> lines = new ArrayList<>();
        try (OutputStream serversIn = servers.getOutputStream()) {
            String urls = new BufferedReader(new InputStreamReader(servers.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (urls == null) {
                throw new IllegalStateException("the footprint servers exited with " + servers.waitFor());
            }
            List<String> probeCmd = new ArrayList<>(List.of(java, "-Xmx2g", "-XX:+UseG1GC",
                    "-Dbench.settleSeconds=" + c.settleSeconds(), "-cp", cp,
                    FootprintProbe.class.getName(), Integer.toString(c.objects())));
            c.steps().forEach(s -> probeCmd.add(Integer.toString(s)));
            Process probe = new ProcessBuilder(probeCmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (OutputStream probeIn = probe.getOutputStream()) {
                probeIn.write((urls + "\n").getBytes(StandardCharsets.UTF_8));
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith("{")) {
                        lines.add(Cluster.parse(line));
                    }
                }
            }
            if (!probe.waitFor(15, TimeUnit.MINUTES) || probe.exitValue() != 0) {
                probe.destroyForcibly();
                throw new IllegalStateException("the footprint probe failed (exit " + probe.exitValue() + ")");
            }
        } finally {
            if (!servers.waitFor(30, TimeUnit.SECONDS)) {
                servers.destroy();
            }
        }
        return summarise(c, lines);
    }

    static Report.Section summarise(Config c, List<JsonObject> lines) {
        JsonObject none = step(lines, 0);
        JsonObject first = step(lines, c.steps().get(0));
        int max = c.steps().get(c.steps().size() - 1);
        JsonObject last = step(lines, max);
        double bare = lines.stream().filter(o -> o.has("bareObjectsPerTenant")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no bare measurement in " + lines))
                .get("bareObjectsPerTenant").getAsDouble() / MIB;
        double perTenant = (heap(last) - heap(first)) / (max - c.steps().get(0)) / MIB;
        List<Figure> figures = new ArrayList<>();
        figures.add(new Figure(String.format(Locale.ROOT, "Heap per idle tenant (%d objects), %d → %d tenants in one Syncer",
                c.objects(), c.steps().get(0), max), Figure.number(perTenant) + " MiB",
                "the tenant's objects as gson trees " + Figure.number(bare) + " MiB", perTenant / bare,
                "≤ " + Figure.number(TARGET_MIB) + " MiB", perTenant <= TARGET_MIB, REPRODUCE));
        StringBuilder heaps = new StringBuilder(Figure.number(heap(none) / MIB));
        StringBuilder threads = new StringBuilder(Integer.toString(threads(none)));
        for (int s : c.steps()) {
            heaps.append(" / ").append(Figure.number(heap(step(lines, s)) / MIB));
            threads.append(" / ").append(threads(step(lines, s)));
        }
        String steps = "0 / " + String.join(" / ", c.steps().stream().map(String::valueOf).toList());
        figures.add(Figure.plain("Heap after GC with " + steps + " tenants", heaps + " MiB", REPRODUCE));
        int grown = threads(last) - threads(first);
        figures.add(new Figure("Platform threads with " + steps + " tenants", threads.toString(),
                "—", null, "no growth with tenants", grown <= 0, REPRODUCE));
        lines.stream().filter(o -> o.has("settledTenants")).findFirst().ifPresent(settled -> figures.add(new Figure(
                "Platform threads with " + max + " tenants after 60 s more idle (0 tenants: " + threads(none) + ")",
                Integer.toString(threads(settled)), "—", null, "no growth with tenants",
                threads(settled) <= threads(none), REPRODUCE)));
        List<String> notes = new ArrayList<>();
        notes.add("Each tenant has its own testkit API server and host namespace; the servers run in another process. "
                + "Platform threads at " + max + " tenants by name: " + last.get("threadNames")
                + lines.stream().filter(o -> o.has("settledTenants")).findFirst()
                        .map(o -> "; 60 s later: " + o.get("threadNames")).orElse("") + ". Time to converge "
                + "the added tenants: " + String.join(", ", c.steps().stream().map(s -> s + ": "
                + Figure.number(step(lines, s).get("convergeSeconds").getAsDouble()) + " s").toList()) + ".");
        if (perTenant > TARGET_MIB) {
            lines.stream().filter(o -> o.has("histogram")).findFirst().ifPresent(h -> notes.add(
                    "Heap histogram at " + max + " tenants (`jcmd PID GC.class_histogram`, top classes):\n\n```\n"
                            + h.get("histogram").getAsString() + "\n```"));
        }
        return new Report.Section(Main.TITLES.get("footprint"), figures, notes);
    }

    private static JsonObject step(List<JsonObject> lines, int tenants) {
        return lines.stream().filter(o -> o.has("tenants") && o.get("tenants").getAsInt() == tenants).findFirst()
                .orElseThrow(() -> new IllegalStateException("no measurement at " + tenants + " tenants in " + lines));
    }

    private static double heap(JsonObject o) {
        return o.get("heap").getAsDouble();
    }

    private static int threads(JsonObject o) {
        return o.get("threads").getAsInt();
    }

    static String describe(JsonObject o) {
        return Json.gson().toJson(o);
    }
}
