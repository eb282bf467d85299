package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Replicas sharing idle tenants by shard Leases: 1, 2 and 3 replica processes ({@link ScaleProbe}, each one Syncer
 * with its {@code ShardLeases}) against the same API servers ({@link FootprintServers}, another process), a fresh set
 * of servers per replica count. For each: the time until every tenant's objects are on the host, and per replica the
 * heap its owned tenants add (after full GCs, against its own heap before the tenants existed) and its platform
 * threads.
 */
final class ScaleSection {

    static final double TARGET_MIB = 1.0;
    static final String REPRODUCE = "bench/run.sh scale";
    private static final double MIB = 1024.0 * 1024;

    /** Replica counts, tenants, objects per tenant, shards. */
    record Config(List<Integer> replicas, int tenants, int objects, int shards) {
        static Config full() {
            return new Config(List.of(1, 2, 3), 300, 50, 32);
        }

        static Config quick() {
            return new Config(List.of(1, 2), 6, 4, 4);
        }
    }

    /** One replica count's result: convergence seconds, and per replica its baseline and idle measurements. */
    record Run(int replicas, double convergeSeconds, List<JsonObject> baselines, List<JsonObject> idle) {
        double heapPerTenantMiB() {
            double worst = 0;
            for (int i = 0; i < idle.size(); i++) {
                int owned = idle.get(i).get("ownedTenants").getAsInt();
                if (owned > 0) {
                    double added = idle.get(i).get("heap").getAsDouble() - baselines.get(i).get("heap").getAsDouble();
                    worst = Math.max(worst, added / owned / MIB);
                }
            }
            return worst;
        }
    }

    private ScaleSection() {
    }

    static Report.Section run(Config c) throws IOException, InterruptedException {
        List<Run> runs = new ArrayList<>();
        for (int r : c.replicas()) {
            runs.add(runOnce(c, r));
        }
        return summarise(c, runs);
    }

    private static Run runOnce(Config c, int replicas) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Process servers = new ProcessBuilder(java, "-Xmx4g", "-cp", cp, FootprintServers.class.getName(),
                Integer.toString(c.tenants()), Integer.toString(c.objects()))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<Process> probes = new ArrayList<>();
        List<OutputStream> ins = new ArrayList<>();
        List<BufferedReader> outs = new ArrayList<>();
        OutputStream serversIn = servers.getOutputStream();
        try {
            String urls = new BufferedReader(new InputStreamReader(servers.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (urls == null) {
                throw new IllegalStateException("the servers exited with " + servers.waitFor());
            }
            String host = Json.string(Cluster.parse(urls), "host");
            for (int i = 0; i < replicas; i++) {
                Process p = new ProcessBuilder(java, "-Xmx2g", "-XX:+UseG1GC", "-cp", cp, ScaleProbe.class.getName(),
                        "replica-" + i, Integer.toString(c.shards()), Integer.toString(c.tenants()))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                probes.add(p);
                ins.add(p.getOutputStream());
                outs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
                send(p.getOutputStream(), urls);
            }
            if (!Cluster.await(Duration.ofMinutes(2), Duration.ofMillis(250), () -> shared(host, c, replicas))) {
                throw new IllegalStateException(replicas + " replicas did not share the " + c.shards() + " shards");
            }
            List<JsonObject> baselines = ask(ins, outs, "baseline");
            long t0 = System.nanoTime();
            for (int i = 0; i < c.tenants(); i++) {
                Cluster.create(host, Cluster.tenantResources(FootprintServers.tenant(i), FootprintServers.hostNamespace(i))
                        .get(2));
            }
            int expected = c.tenants() * c.objects();
            if (!Cluster.await(Duration.ofMinutes(10), Duration.ofMillis(250),
                    () -> FootprintProbe.managed(host) == expected)) {
                throw new IllegalStateException(replicas + " replicas did not converge: " + FootprintProbe.managed(host)
                        + " of " + expected + " host objects");
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Thread.sleep(2000);
            List<JsonObject> idle = ask(ins, outs, "measure");
            int owned = idle.stream().mapToInt(o -> o.get("ownedTenants").getAsInt()).sum();
            if (owned != c.tenants()) {
                throw new IllegalStateException("the replicas own " + owned + " of " + c.tenants() + " tenants");
            }
            return new Run(replicas, seconds, baselines, idle);
        } finally {
            for (OutputStream in : ins) {
                in.close();
            }
            for (Process p : probes) {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
            // The servers stop when their input closes: after the replicas have handed their shards over.
            serversIn.close();
            if (!servers.waitFor(30, TimeUnit.SECONDS)) {
                servers.destroy();
            }
        }
    }

    /** Every shard Lease held, by exactly {@code replicas} holders, none above its fair share. */
    private static boolean shared(String host, Config c, int replicas) {
        Map<String, Integer> byHolder = new HashMap<>();
        int held = 0;
        for (JsonObject lease : Cluster.list(host, "Lease", ScaleProbe.LEASE_NAMESPACE, null)) {
            String name = Json.string(lease, "metadata", "name");
            String holder = Json.string(lease, "spec", "holderIdentity");
            if (name.startsWith(ScaleProbe.LEASE_NAME + "-shard-") && holder != null && !holder.isEmpty()) {
                held++;
                byHolder.merge(holder, 1, Integer::sum);
            }
        }
        int fair = (c.shards() + replicas - 1) / replicas;
        return held == c.shards() && byHolder.size() == replicas
                && byHolder.values().stream().allMatch(n -> n <= fair);
    }

    private static void send(OutputStream in, String line) throws IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static List<JsonObject> ask(List<OutputStream> ins, List<BufferedReader> outs, String command)
            throws IOException {
        for (OutputStream in : ins) {
            send(in, command);
        }
        List<JsonObject> answers = new ArrayList<>();
        for (BufferedReader out : outs) {
            for (String line = out.readLine(); ; line = out.readLine()) {
                if (line == null) {
                    throw new IllegalStateException("a replica exited before answering " + command);
                }
                if (line.startsWith("{")) {
                    answers.add(Cluster.parse(line));
                    break;
                }
            }
        }
        return answers;
    }

    static Report.Section summarise(Config c, List<Run> runs) {
        List<Figure> figures = new ArrayList<>();
        Run one = runs.get(0);
        for (Run r : runs) {
            figures.add(new Figure(String.format(Locale.ROOT, "Converge %d idle tenants (%d objects) on %d replica%s",
                    c.tenants(), c.objects(), r.replicas(), r.replicas() == 1 ? "" : "s"),
                    Figure.number(r.convergeSeconds()) + " s", "1 replica " + Figure.number(one.convergeSeconds())
                    + " s", r.convergeSeconds() / one.convergeSeconds(), "—", null, REPRODUCE));
        }
        for (Run r : runs) {
            double perTenant = r.heapPerTenantMiB();
            figures.add(new Figure(String.format(Locale.ROOT,
                    "Heap per idle tenant, worst replica of %d (its own tenants against its heap before them)",
                    r.replicas()), Figure.number(perTenant) + " MiB", "—", null,
                    "≤ " + Figure.number(TARGET_MIB) + " MiB", perTenant <= TARGET_MIB, REPRODUCE));
        }
        for (Run r : runs) {
            StringBuilder threads = new StringBuilder();
            StringBuilder owned = new StringBuilder();
            for (int i = 0; i < r.idle().size(); i++) {
                threads.append(i == 0 ? "" : " / ").append(r.baselines().get(i).get("threads").getAsInt()).append(" → ")
                        .append(r.idle().get(i).get("threads").getAsInt());
                owned.append(i == 0 ? "" : " / ").append(r.idle().get(i).get("ownedTenants").getAsInt());
            }
            figures.add(Figure.plain(String.format(Locale.ROOT,
                    "%d replica%s: platform threads per replica before → after the tenants; tenants owned %s",
                    r.replicas(), r.replicas() == 1 ? "" : "s", owned), threads.toString(), REPRODUCE));
        }
        List<String> notes = List.of("Each replica is a process with one SDK Syncer writing only for the tenants of "
                + "the shards its ShardLeases own (" + c.shards() + " shards, Leases renewed every 2 s); provisioning "
                + "off, as in the footprint section. Each tenant has its own testkit API server and host namespace; "
                + "the servers run in another process, fresh for each replica count. Convergence is timed from the "
                + "creation of the TenantClusters until every tenant object is on the host.");
        return new Report.Section(Main.TITLES.get("scale"), figures, notes);
    }
}
