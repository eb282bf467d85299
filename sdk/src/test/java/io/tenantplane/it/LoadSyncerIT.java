package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.TenantPlane;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many tenants converging in one Syncer, from nothing: 10 tenants of 50 objects by default, 100 tenants of 200
 * objects with {@code -Dtenantplane.load.full=true}. No write fails and no object is refused, the work queue stays
 * within its capacity of object keys plus one full pass per tenant, and the Syncer's heap per idle tenant (measured
 * after GC as the difference between the idle Syncer with its plane and the same servers without them) stays within
 * 2 MiB. Prints time to converge and requests.
 */
@Tag(Live.HOOKS)
class LoadSyncerIT {

    static final String FULL = "tenantplane.load.full";
    private static final double TARGET_MIB_PER_TENANT = 2.0;

    @Test
    void manyTenantsConvergeInOneSyncerWithoutErrorsWithinTheMemoryTarget() throws Exception {
        boolean full = Boolean.getBoolean(FULL);
        int tenantCount = full ? 100 : 10;
        int objects = full ? 200 : 50;
        List<String> tenants = new ArrayList<>();
        for (int i = 0; i < tenantCount; i++) {
            tenants.add("t" + i);
        }
        long setupStart = System.nanoTime();
        try (ReliabilityWorld w = ReliabilityWorld.start(tenants, objects / ReliabilityWorld.KINDS.size(), 21)) {
            long setupMillis = Duration.ofNanos(System.nanoTime() - setupStart).toMillis();
            AtomicLong failedWrites = new AtomicLong();
            List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            AtomicLong errors = new AtomicLong();
            AtomicLong conflicts = new AtomicLong();
            AtomicLong decisions = new AtomicLong();
            SyncerOptions options = w.syncerOptions().withWorkers(8);
            long before = heapAfterGc();
            TenantPlane plane = w.plane(Duration.ofSeconds(30), b -> b.recordEvents(true).observer(new Observer() {
                @Override
                public void decision(TenantKey tenant, Outcome outcome) {
                    decisions.incrementAndGet();
                    if (outcome instanceof Outcome.Failed f) {
                        failedWrites.incrementAndGet();
                        failures.add(f.decision().kind() + " " + f.decision().host() + ": " + f.code() + " "
                                + f.reason() + " " + f.message());
                    }
                    if (outcome.decision().action() == Action.ERROR) {
                        errors.incrementAndGet();
                    }
                    if (outcome.decision().action() == Action.CONFLICT) {
                        conflicts.incrementAndGet();
                    }
                }
            }));
            Syncer syncer = Syncer.create(plane, options).start();
            long start = System.nanoTime();
            assertTrue(syncer.awaitStarted(Duration.ofSeconds(30)));
            long convergeMillis = w.awaitConverged(Duration.ofMinutes(full ? 15 : 2));
            long requests = w.sdkHostRequests.get();
            long writes = w.sdkHostWrites.get();
            long passes = w.passes.get();
            awaitIdle(w);
            long idleWithSyncer = heapAfterGc();
            assertEquals(tenantCount, syncer.tenants().size(), "the Syncer knows every tenant");
            syncer.close();
            plane = null;
            syncer = null;
            w.forgetSdkClients();
            long withoutSyncer = heapAfterGc();
            double perTenantMiB = (idleWithSyncer - withoutSyncer) / (1024.0 * 1024.0) / tenantCount;

            assertEquals(0, failedWrites.get(), () -> "no write failed: " + failures);
            assertEquals(0, errors.get(), "no object was refused");
            assertEquals(1, conflicts.get(), "only the one name held by a foreign object is a conflict");
            // Object keys beyond the capacity become full passes over their tenants, at most one per tenant.
            assertTrue(w.maxQueueDepth.get() <= options.queueCapacity() + tenantCount,
                    "queue depth " + w.maxQueueDepth.get());
            assertEquals(List.of(), w.writesToForeignObjects());
            System.out.printf("load: %d tenants x %d objects (%d synced copies): setup %d ms; converged in %d ms "
                            + "(%d ms from start); %d passes, %d decisions, %d SDK requests to the host (%d writes); "
                            + "queue depth at most %d; heap after GC %.1f MiB before the Syncer, %.1f MiB with it "
                            + "idle, %.1f MiB after it closed: %.2f MiB per idle tenant%n", tenantCount, objects,
                    tenantCount * objects, setupMillis, convergeMillis,
                    Duration.ofNanos(System.nanoTime() - start).toMillis(), passes, decisions.get(), requests,
                    writes, w.maxQueueDepth.get(), mib(before), mib(idleWithSyncer), mib(withoutSyncer), perTenantMiB);
            assertTrue(perTenantMiB <= TARGET_MIB_PER_TENANT, String.format("%.2f MiB per idle tenant", perTenantMiB));
        }
    }

    /** Waits until no pass has started for two seconds. */
    private static void awaitIdle(ReliabilityWorld w) throws InterruptedException {
        long last = -1;
        while (w.passes.get() != last) {
            last = w.passes.get();
            Thread.sleep(2000);
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(200);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}
