package io.tenantplane.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The machine a run measured on.
 *
 * @param cores    available processors
 * @param memoryGiB physical memory
 * @param cpu      the CPU model, or "unknown"
 * @param jdk      the JDK running the benchmarks
 * @param os       operating system and architecture
 * @param load     the one-minute load average when the run started (other work on the machine skews results)
 */
public record Machine(int cores, double memoryGiB, String cpu, String jdk, String os, double load) {

    /** This machine, now. */
    public static Machine current() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        double mem = os instanceof com.sun.management.OperatingSystemMXBean sun
                ? sun.getTotalMemorySize() / (1024.0 * 1024 * 1024) : Double.NaN;
        return new Machine(Runtime.getRuntime().availableProcessors(), mem, cpuModel(),
                System.getProperty("java.vm.name") + " " + Runtime.version(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                os.getSystemLoadAverage());
    }

    /** One line for the report. */
    public String describe() {
        return String.format(Locale.ROOT, "%d cores (%s), %.1f GiB memory, %s, %s; load average %.2f at the start",
                cores, cpu, memoryGiB, jdk, os, load);
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
