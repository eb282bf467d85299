package io.tenantplane.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Samples a piece of work with Java Flight Recorder and summarises where the time goes: the top frames by own time,
 * and the project's methods by inclusive time (share of samples with the method anywhere on the stack). The same
 * as {@code java -XX:StartFlightRecording ...} followed by {@code jfr print --events jdk.ExecutionSample}, grouped.
 */
public final class Profiler {

    private static final String OURS = "io.tenantplane.";

    /** Frames with their share of samples, most first. */
    public record Summary(String label, int samples, Map<String, Double> self, Map<String, Double> inclusive) {

        /** As a Markdown block. */
        public String markdown(int top) {
            StringBuilder sb = new StringBuilder();
            sb.append("Profile of ").append(label).append(" (JFR, ").append(samples).append(" execution samples):\n\n");
            sb.append("| Own time | Top frame |\n|---:|---|\n");
            self.entrySet().stream().limit(top).forEach(e -> sb.append(String.format(Locale.ROOT, "| %.1f%% | `%s` |%n",
                    100 * e.getValue(), e.getKey())));
            sb.append("\n| Inclusive | tenantplane method |\n|---:|---|\n");
            inclusive.entrySet().stream().limit(top).forEach(e -> sb.append(String.format(Locale.ROOT, "| %.1f%% | `%s` |%n",
                    100 * e.getValue(), e.getKey())));
            return sb.toString().stripTrailing();
        }
    }

    private Profiler() {
    }

    /** Runs {@code work} repeatedly for {@code duration} under JFR and summarises the samples. */
    public static Summary profile(String label, Duration duration, Runnable work) throws IOException {
        Path file = Files.createTempFile("tenantplane-bench", ".jfr");
        try {
            Configuration conf;
            try {
                conf = Configuration.getConfiguration("profile");
            } catch (ParseException e) {
                throw new IOException("JFR has no 'profile' configuration", e);
            }
            try (Recording r = new Recording(conf)) {
                r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
                r.start();
                long end = System.nanoTime() + duration.toNanos();
                do {
                    work.run();
                } while (System.nanoTime() < end);
                r.stop();
                r.dump(file);
            }
            return summarise(label, RecordingFile.readAllEvents(file));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    static Summary summarise(String label, List<RecordedEvent> events) {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        int samples = 0;
        for (RecordedEvent e : events) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                continue;
            }
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            if (frames.isEmpty()) {
                continue;
            }
            samples++;
            self.merge(name(frames.get(0)), 1, Integer::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame f : frames) {
                String n = name(f);
                if (n.startsWith(OURS) && !n.startsWith(OURS + "bench.") && !n.contains("$$Lambda") && seen.add(n)) {
                    inclusive.merge(n, 1, Integer::sum);
                }
            }
        }
        return new Summary(label, samples, shares(self, samples), shares(inclusive, samples));
    }

    private static Map<String, Double> shares(Map<String, Integer> counts, int total) {
        Map<String, Double> out = new LinkedHashMap<>();
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> out.put(e.getKey(), total == 0 ? 0 : e.getValue() / (double) total));
        return out;
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }
}
