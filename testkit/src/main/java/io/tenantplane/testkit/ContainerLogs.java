package io.tenantplane.testkit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The logs of the simulated containers: what a kubelet keeps per container (CRI log files), read through
 * {@code pods/log}. A test writes lines with {@link KubeApiServer#appendContainerLog}; each line gets the server's
 * clock time, which {@code timestamps}, {@code sinceSeconds} and {@code sinceTime} use. Keyed by pod uid, so a pod
 * created again under the same name starts with an empty log, as a new container does. Thread-safe.
 */
final class ContainerLogs {

    /** One line as the kubelet keeps it. */
    record Line(Instant time, String text) {
    }

    private final Map<String, List<Line>> logs = new ConcurrentHashMap<>();
    private final Object changed = new Object();

    void append(String podUid, String container, Instant time, String text) {
        List<Line> lines = logs.computeIfAbsent(podUid + "/" + container, k -> new ArrayList<>());
        synchronized (lines) {
            lines.add(new Line(time, text));
        }
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    /** A copy of the lines from index {@code from} on. */
    List<Line> lines(String podUid, String container, int from) {
        List<Line> lines = logs.get(podUid + "/" + container);
        if (lines == null) {
            return List.of();
        }
        synchronized (lines) {
            return from >= lines.size() ? List.of() : new ArrayList<>(lines.subList(from, lines.size()));
        }
    }

    /** Waits up to {@code millis} for any log to change. */
    void await(long millis) throws InterruptedException {
        synchronized (changed) {
            changed.wait(millis);
        }
    }
}
