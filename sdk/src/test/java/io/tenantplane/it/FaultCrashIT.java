package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.sync.Syncer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Crashes between writes: a pass (or a provisioning) whose process dies after its n-th write, and a Syncer closed
 * while its workers are writing. A new plane or Syncer, which knows nothing of the old one, finishes the job: the host
 * ends up matching the tenants with no duplicate, nothing that should stay is collected, no foreign object is written.
 */
@Tag(Live.HOOKS)
class FaultCrashIT {

    private static final List<String> TENANTS = List.of("dev", "qa");
    private static final Duration CONVERGE = Duration.ofSeconds(60);

    /** What a process crash looks like to the code in flight: not an exception any layer catches and goes on from. */
    private static final class Crash extends Error {
        Crash() {
            super("the process died here", null, false, false);
        }
    }

    /** Throws {@link Crash} right after the {@code n}-th write that succeeded. */
    private static Observer crashAfter(int n) {
        AtomicInteger writes = new AtomicInteger();
        return new Observer() {
            @Override
            public void decision(TenantKey tenant, Outcome outcome) {
                if (outcome instanceof Outcome.Applied && writes.incrementAndGet() == n) {
                    throw new Crash();
                }
            }
        };
    }

    @Test
    void aConvergencePassThatDiesAfterItsNthWriteIsFinishedByANewPlane() {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, 10, 11)) {
            w.plane().ensure(w.live.key("dev"));
            w.plane().ensure(w.live.key("qa"));
            int crashes = 0;
            for (int n : List.of(1, 4, 11, 30)) {
                for (String t : TENANTS) {
                    w.changeTenant(t, 12);
                }
                for (String t : TENANTS) {
                    TenantPlane doomed = w.plane(Duration.ofSeconds(10), b -> b.observer(crashAfter(n)));
                    try {
                        doomed.converge(w.live.key(t));
                    } catch (Crash expected) {
                        crashes++;
                    }
                }
                for (String t : TENANTS) {
                    ConvergenceReport r = w.plane().converge(w.live.key(t));
                    assertEquals(null, r.failure(), t + " after a crash at write " + n);
                    assertTrue(r.failures().isEmpty(), () -> r.failures().toString());
                }
                assertEquals(null, w.problem(), "after a crash at write " + n);
                for (String t : TENANTS) {
                    ConvergenceReport again = w.plane().converge(w.live.key(t));
                    assertEquals(0, again.writes(), () -> t + ": the next pass has nothing to do: "
                            + again.decisions());
                }
            }
            assertTrue(crashes >= 6, "passes that died mid-way: " + crashes);
            assertEquals(List.of(), w.writesToForeignObjects());
            System.out.println("crash: " + crashes + " convergence passes died after their 1st to 30th write; a new "
                    + "plane converged each time with no duplicate, orphan or foreign write");
        }
    }

    @Test
    void aProvisioningThatDiesAfterItsNthWriteIsFinishedByANewPlane() {
        try (ReliabilityWorld w = ReliabilityWorld.start(List.of("dev"), 1, 12)) {
            TenantKey key = w.live.key("dev");
            JsonObject tcJson = w.live.hostKube.require("TenantCluster", w.live.namespace, "dev");
            TenantCluster tc = TenantCluster.fromJson(tcJson).orElseThrow();
            IsolationProfile ip = IsolationProfile.fromJson(w.live.hostKube.require("IsolationProfile",
                    w.live.namespace, "restricted")).orElseThrow();
            List<JsonObject> rendered = w.plane().render(tc, ip);
            int crashes = 0;
            while (true) {
                TenantPlane doomed = w.plane(Duration.ofSeconds(10), b -> b.observer(crashAfter(3)));
                try {
                    doomed.ensure(key);
                    break;
                } catch (Crash expected) {
                    crashes++;
                }
                assertTrue(crashes < 50, "provisioning makes progress between crashes");
            }
            assertTrue(crashes >= rendered.size() / 3 - 1, "provisionings that died after their 3rd write: " + crashes);
            System.out.println("crash: " + crashes + " provisionings of " + rendered.size() + " rendered objects died "
                    + "after their 3rd write; the next one completed each object once");
            ProvisionReport r = w.plane().ensure(key);
            assertTrue(r.outcomes().stream().noneMatch(o -> o instanceof Outcome.Failed
                    || o.decision().action() == Action.CONFLICT), r::toString);
            Set<String> present = new HashSet<>();
            for (JsonObject o : rendered) {
                String kind = Json.string(o, "kind");
                String ns = kind.equals("Namespace") ? null : Json.string(o, "metadata", "namespace");
                assertTrue(w.live.hostKube.get(kind, ns, Json.string(o, "metadata", "name")).isPresent(),
                        () -> kind + " " + Json.string(o, "metadata", "name") + " was provisioned");
                assertTrue(present.add(kind + "/" + Json.string(o, "metadata", "name")), "rendered once");
            }
            JsonObject isolated = ReliabilityCorpusIT.condition(w.live.hostKube.require("TenantCluster",
                    w.live.namespace, "dev"), "IsolationApplied");
            assertEquals("True", Json.string(isolated, "status"));
            ProvisionReport again = w.plane().ensure(key);
            assertFalse(again.outcomes().stream().anyMatch(o -> o instanceof Outcome.Applied),
                    () -> "a provisioned tenant needs no write: " + again.outcomes());
            assertEquals(List.of(), w.writesToForeignObjects());
        }
    }

    @Test
    void aSyncerClosedWhileItsWorkersWriteIsFinishedByANewSyncer() throws Exception {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, 10, 13)) {
            int closedMidway = 0;
            for (int n : List.of(15, 25)) {
                AtomicReference<Syncer> running = new AtomicReference<>();
                CountDownLatch closed = new CountDownLatch(1);
                AtomicInteger writes = new AtomicInteger();
                TenantPlane plane = w.plane(Duration.ofSeconds(10), b -> b.observer(new Observer() {
                    @Override
                    public void decision(TenantKey tenant, Outcome outcome) {
                        if (outcome instanceof Outcome.Applied && writes.incrementAndGet() == n) {
                            Thread.ofPlatform().start(() -> {
                                running.get().close();
                                closed.countDown();
                            });
                            // Hold this worker until close() interrupts it: the close lands mid-pass however fast
                            // the remaining writes would otherwise be done.
                            try {
                                Thread.sleep(30_000);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                }));
                Syncer syncer = Syncer.create(plane, w.syncerOptions());
                running.set(syncer);
                syncer.start();
                for (String t : TENANTS) {
                    w.changeTenant(t, 15);
                }
                if (closed.await(30, TimeUnit.SECONDS)) {
                    closedMidway++;
                    assertFalse(syncer.isRunning());
                    assertTrue(w.problem() != null, "closed at write " + n + " before it was done");
                } else {
                    syncer.close();
                }
            }
            assertEquals(2, closedMidway, "both Syncers were closed while writing");
            try (Syncer last = Syncer.create(w.plane(), w.syncerOptions()).start()) {
                assertTrue(last.awaitStarted(Duration.ofSeconds(10)));
                long millis = w.awaitConverged(CONVERGE);
                System.out.println("crash: two Syncers closed at their 15th and 25th write; a new one converged in "
                        + millis + " ms with no duplicate, orphan or foreign write");
            }
            assertEquals(List.of(), w.writesToForeignObjects());
        }
    }
}
