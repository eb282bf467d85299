package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.TenantPlane;
import io.tenantplane.sync.Syncer;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The watch-driven Syncer under faults injected at the in-process API servers: server errors and timeouts on a
 * fraction of requests, a storm of 409 conflicts, watches that drop and come back with 410 Gone, and a host outage
 * (3 s by default; 30 s more with {@code -Dtenantplane.reliability.long=true}). Two tenants share the host namespace
 * with platform-owned objects and an object holding a name a tenant wants. In every case the Syncer keeps running,
 * converges afterwards with no duplicate, nothing lost, and no write to a foreign object. Each case prints its figures
 * (passes, SDK requests to the host, time to converge) for docs/reliability.md.
 */
@Tag(Live.HOOKS)
class FaultSyncerIT {

    static final String LONG = "tenantplane.reliability.long";
    private static final List<String> TENANTS = List.of("dev", "qa");
    private static final int PER_KIND = 8;
    private static final Duration CONVERGE = Duration.ofSeconds(60);

    /** One line of figures; {@code millis} is counted from {@code since}. */
    private static void report(String scenario, long passes, long requests, long writes, long faults, long millis,
                               String since) {
        System.out.printf("fault %s: %d passes, %d SDK requests to the host (%d writes), %d faults fired, "
                + "converged %d ms %s%n", scenario, passes, requests, writes, faults, millis, since);
    }

    private static void checkNothingForeignWritten(ReliabilityWorld w) {
        List<RequestLog.Entry> foreign = w.writesToForeignObjects();
        assertEquals(List.of(), foreign, "no write ever reached a foreign object");
    }

    @Test
    void serverErrorsAndTimeoutsOnAFractionOfRequestsSlowConvergenceButNeverBreakIt() throws Exception {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, PER_KIND, 1)) {
            TenantPlane plane = w.plane(Duration.ofSeconds(1), b -> { });
            try (Syncer syncer = Syncer.create(plane, w.syncerOptions()).start()) {
                assertTrue(syncer.awaitStarted(Duration.ofSeconds(10)));
                w.awaitConverged(CONVERGE);
                long passes = w.passes.get();
                long requests = w.sdkHostRequests.get();
                long writes = w.sdkHostWrites.get();

                w.host.faults().add(FaultRule.on("*", "*").fraction(0.1).respond(500));
                w.host.faults().add(FaultRule.on("*", "*").fraction(0.05).delay(Duration.ofMillis(1500)));
                for (String t : TENANTS) {
                    w.changeTenant(t, 30);
                }
                for (String t : TENANTS) {
                    KubeApiServer tenant = w.live.tenantServer(t);
                    tenant.faults().add(FaultRule.on("*", "*").fraction(0.05).respond(503));
                    tenant.faults().add(FaultRule.on("*", "*").fraction(0.05).delay(Duration.ofMillis(1500)));
                }
                long underFaults = awaitConvergedUnderFaults(w);
                long fired = w.host.faults().fired() + TENANTS.stream()
                        .mapToLong(t -> w.live.tenantServer(t).faults().fired()).sum();
                assertTrue(fired > 20, "faults fired: " + fired);
                assertTrue(syncer.isRunning());
                report("500/503 on 10%/5% and 1.5 s delays (client timeout 1 s) on 5% of requests, 60 changes",
                        w.passes.get() - passes, w.sdkHostRequests.get() - requests,
                        w.sdkHostWrites.get() - writes, fired, underFaults,
                        "after the changes, with the faults still firing");

                w.host.faults().clear();
                TENANTS.forEach(t -> w.live.tenantServer(t).faults().clear());
                w.changeTenant("dev", 10);
                w.awaitConverged(CONVERGE);
                checkNothingForeignWritten(w);
            }
        }
    }

    /** Converged while the faults are still firing: the oracle's own reads may fail too, so it tries again. */
    private static long awaitConvergedUnderFaults(ReliabilityWorld w) {
        long start = System.nanoTime();
        String last = "not checked";
        while (System.nanoTime() - start < CONVERGE.toNanos()) {
            try {
                last = w.problem();
                if (last == null) {
                    return Duration.ofNanos(System.nanoTime() - start).toMillis();
                }
            } catch (AssertionError readFailed) {
                last = readFailed.getMessage();
            }
            sleep(100);
        }
        throw new AssertionError("not converged under faults within " + CONVERGE + ": " + last);
    }

    @Test
    void aStormOfConflictsOnEveryKindOfWriteIsRiddenOut() throws Exception {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, PER_KIND, 2)) {
            TenantPlane plane = w.plane();
            try (Syncer syncer = Syncer.create(plane, w.syncerOptions()).start()) {
                assertTrue(syncer.awaitStarted(Duration.ofSeconds(10)));
                w.awaitConverged(CONVERGE);
                long passes = w.passes.get();
                long requests = w.sdkHostRequests.get();
                long writes = w.sdkHostWrites.get();

                for (String verb : List.of("create", "update", "delete")) {
                    w.host.faults().add(FaultRule.on(verb, "*").fraction(0.7).times(150).respond(409));
                }
                for (String t : TENANTS) {
                    w.changeTenant(t, 40);
                }
                long millis = w.awaitConverged(CONVERGE);
                long fired = w.host.faults().fired();
                assertTrue(fired > 50, "conflicts answered: " + fired);
                assertTrue(syncer.isRunning());
                report("409 on 70% of creates, updates and deletes (450 at most), 80 changes",
                        w.passes.get() - passes, w.sdkHostRequests.get() - requests,
                        w.sdkHostWrites.get() - writes, fired, millis, "after the changes, through the storm");
                checkNothingForeignWritten(w);
            }
        }
    }

    @Test
    void droppedWatchesResumeAndWatchesAnsweredGoneListAgain() throws Exception {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, PER_KIND, 3)) {
            TenantPlane plane = w.plane();
            try (Syncer syncer = Syncer.create(plane, w.syncerOptions()).start()) {
                assertTrue(syncer.awaitStarted(Duration.ofSeconds(10)));
                w.awaitConverged(CONVERGE);
                long passes = w.passes.get();
                long requests = w.sdkHostRequests.get();
                long writes = w.sdkHostWrites.get();
                List<KubeApiServer> servers = new ArrayList<>(List.of(w.host));
                TENANTS.forEach(t -> servers.add(w.live.tenantServer(t)));
                long listsBefore = servers.stream().mapToLong(s -> s.requests().count("list")).sum();
                int watches = servers.stream().mapToInt(KubeApiServer::openWatches).sum();
                assertTrue(watches > 0);

                for (KubeApiServer s : servers) {
                    s.faults().add(FaultRule.on("watch", "*").times(s.openWatches()).respond(410));
                    s.faults().dropWatches();
                }
                for (String t : TENANTS) {
                    w.changeTenant(t, 20);
                }
                // A host controller deletes two copies while the host watches are down.
                for (String name : List.of("configmap-0-x-default-x-dev", "secret-1-x-shop-x-qa")) {
                    w.live.hostKube.delete(name.startsWith("configmap") ? "ConfigMap" : "Secret", w.live.namespace,
                            name);
                }
                long millis = w.awaitConverged(CONVERGE);
                long fired = servers.stream().mapToLong(s -> s.faults().fired()).sum();
                long relists = servers.stream().mapToLong(s -> s.requests().count("list")).sum() - listsBefore;
                assertTrue(fired >= watches, "every dropped watch came back to a 410: " + fired + " of " + watches);
                assertTrue(relists > 0, "a 410 makes the watcher list again");
                assertTrue(Live.eventually(Duration.ofSeconds(10), () -> servers.stream()
                        .mapToInt(KubeApiServer::openWatches).sum() >= watches), "every watch is open again");
                assertTrue(syncer.isRunning());
                report(watches + " watches dropped, each re-watch answered 410 Gone, 40 changes and 2 host deletions "
                        + "meanwhile (" + relists + " lists after)", w.passes.get() - passes,
                        w.sdkHostRequests.get() - requests, w.sdkHostWrites.get() - writes, fired, millis,
                        "after the changes");
                checkNothingForeignWritten(w);
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> aHostOutageIsRiddenOutAndConvergesAfterwards() {
        List<Duration> outages = new ArrayList<>(List.of(Duration.ofSeconds(3)));
        if (Boolean.getBoolean(LONG)) {
            outages.add(Duration.ofSeconds(30));
        }
        return outages.stream().map(d -> DynamicTest.dynamicTest("a host outage of " + d.toSeconds() + " s",
                () -> outage(d)));
    }

    private void outage(Duration outage) throws Exception {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, PER_KIND, 4)) {
            TenantPlane plane = w.plane();
            try (Syncer syncer = Syncer.create(plane, w.syncerOptions()).start()) {
                assertTrue(syncer.awaitStarted(Duration.ofSeconds(10)));
                w.awaitConverged(CONVERGE);
                long passes = w.passes.get();
                long requests = w.sdkHostRequests.get();
                long writes = w.sdkHostWrites.get();

                w.host.pause();
                long started = System.nanoTime();
                for (String t : TENANTS) {
                    w.changeTenant(t, 20);
                }
                sleep(outage.toMillis() - Duration.ofNanos(System.nanoTime() - started).toMillis());
                long duringOutage = w.sdkHostRequests.get() - requests;
                w.host.resume();
                long millis = w.awaitConverged(CONVERGE.plus(outage));
                assertTrue(syncer.isRunning(), "the Syncer kept running through the outage");
                report("host API outage of " + outage.toSeconds() + " s with 40 tenant changes during it ("
                        + duringOutage + " refused connection attempts)", w.passes.get() - passes,
                        w.sdkHostRequests.get() - requests, w.sdkHostWrites.get() - writes, 0, millis,
                        "after the host came back");
                checkNothingForeignWritten(w);
            }
        }
    }

    static void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
