package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the health checks report, fed by the parts of the service that do the work.
 *
 * <ul>
 *   <li>Liveness: every work loop registers a {@link Heartbeat} and beats once per iteration; a loop that has not
 *       beaten within its stall limit makes the service not alive, so Kubernetes restarts it.</li>
 *   <li>Readiness: the host API answered the last call, and every registered {@link Gate} is ready (the reconcile
 *       loop registers one for "informers synced").</li>
 *   <li>Startup: {@link #markStarted()} once configuration, host client and shard Leases are up.</li>
 * </ul>
 *
 * <p>Thread-safe; callers never block.
 */
@ApplicationScoped
public class ServiceStatus {

    private final Clock clock;
    private final Map<String, Heartbeat> loops = new ConcurrentHashMap<>();
    private final Map<String, Gate> gates = new ConcurrentHashMap<>();
    private volatile HostApi hostApi = new HostApi(false, "not contacted yet", null);
    private volatile boolean started;

    @Inject
    ServiceStatus(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** For CDI proxies only. */
    protected ServiceStatus() {
        this.clock = null;
    }

    /**
     * Registers a work loop for liveness. The loop counts as beating from now on.
     *
     * @param loop       a short name shown in the liveness response, unique among loops
     * @param stallAfter how long without a beat means the loop is stuck
     */
    public Heartbeat heartbeat(String loop, Duration stallAfter) {
        if (stallAfter.isNegative() || stallAfter.isZero()) {
            throw new IllegalArgumentException("stallAfter must be positive, got " + stallAfter);
        }
        var beat = new Heartbeat(this, loop, stallAfter, clock.instant());
        if (loops.putIfAbsent(loop, beat) != null) {
            throw new IllegalStateException("a loop named '" + loop + "' is already registered");
        }
        return beat;
    }

    /** Registers a readiness gate, initially not ready for {@code reason}. */
    public Gate readinessGate(String name, String reason) {
        var gate = new Gate(this, name, reason);
        if (gates.putIfAbsent(name, gate) != null) {
            throw new IllegalStateException("a readiness gate named '" + name + "' is already registered");
        }
        return gate;
    }

    /** The host API server answered a call as expected. */
    public void hostApiAnswered() {
        hostApi = new HostApi(true, "reachable", clock.instant());
    }

    /** A call to the host API server failed: no answer, a server error, or credentials refused. */
    public void hostApiFailed(String why) {
        hostApi = new HostApi(false, why, hostApi.lastAnswer());
    }

    /** Start-up finished; the startup probe reports UP from now on. */
    public void markStarted() {
        started = true;
    }

    boolean started() {
        return started;
    }

    HostApi hostApi() {
        return hostApi;
    }

    List<LoopState> loops() {
        Instant now = clock.instant();
        var result = new ArrayList<LoopState>();
        for (Heartbeat h : loops.values()) {
            Duration since = Duration.between(h.last, now);
            result.add(new LoopState(h.name, since, since.compareTo(h.stallAfter) > 0));
        }
        result.sort(Comparator.comparing(LoopState::name));
        return result;
    }

    List<GateState> gates() {
        var result = new ArrayList<GateState>();
        for (Gate g : gates.values()) {
            result.add(new GateState(g.name, g.reason == null, g.reason));
        }
        result.sort(Comparator.comparing(GateState::name));
        return result;
    }

    /** Reachability of the host API server as last seen. */
    record HostApi(boolean reachable, String detail, Instant lastAnswer) {
    }

    /** One work loop as the liveness check sees it. */
    record LoopState(String name, Duration sinceLastBeat, boolean stalled) {
    }

    /** One readiness gate; {@code reason} is null when ready. */
    record GateState(String name, boolean ready, String reason) {
    }

    /** The liveness handle of one work loop. */
    public static final class Heartbeat implements AutoCloseable {
        private final ServiceStatus owner;
        private final String name;
        private final Duration stallAfter;
        private volatile Instant last;

        private Heartbeat(ServiceStatus owner, String name, Duration stallAfter, Instant now) {
            this.owner = owner;
            this.name = Objects.requireNonNull(name, "name");
            this.stallAfter = stallAfter;
            this.last = now;
        }

        /** The loop completed an iteration. */
        public void beat() {
            last = owner.clock.instant();
        }

        /** The loop ended on purpose; it no longer counts for liveness. */
        @Override
        public void close() {
            owner.loops.remove(name, this);
        }
    }

    /** A condition readiness waits for. */
    public static final class Gate implements AutoCloseable {
        private final ServiceStatus owner;
        private final String name;
        private volatile String reason;

        private Gate(ServiceStatus owner, String name, String reason) {
            this.owner = owner;
            this.name = Objects.requireNonNull(name, "name");
            this.reason = Objects.requireNonNull(reason, "reason");
        }

        /** The condition holds. */
        public void ready() {
            reason = null;
        }

        /** The condition does not hold, for this reason (shown in the readiness response). */
        public void notReady(String why) {
            reason = Objects.requireNonNull(why, "why");
        }

        /** The condition no longer applies. */
        @Override
        public void close() {
            owner.gates.remove(name, this);
        }
    }
}
