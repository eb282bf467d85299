package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.migration.LiveMigration;
import io.tenantplane.migration.MigrationPlan;
import io.tenantplane.migration.MigrationPlanner;
import io.tenantplane.migration.MigrationProgress;
import io.tenantplane.migration.MigrationRunner;
import io.tenantplane.migration.MigrationStep;
import io.tenantplane.migration.Step;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.FaultRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A migration interrupted at every step (every write fails from some point on, as when the controller crashes or
 * the API server goes away) is resumed by a new runner from the step recorded in {@code status.migration}, and ends
 * where an uninterrupted migration ends.
 */
class MigrationInterruptionIT {

    static Stream<Arguments> crashes() {
        List<Arguments> out = new ArrayList<>();
        for (Mode[] d : new Mode[][] {{Mode.SHARED, Mode.DEDICATED}, {Mode.SHARED, Mode.PRIVATE},
                {Mode.PRIVATE, Mode.SHARED}}) {
            for (Step s : Step.values()) {
                out.add(Arguments.of(d[0], d[1], s));
            }
        }
        out.add(Arguments.of(Mode.DEDICATED, Mode.SHARED, Step.MOVE_WORKLOADS));
        out.add(Arguments.of(Mode.DEDICATED, Mode.PRIVATE, Step.MOVE_WORKLOADS));
        out.add(Arguments.of(Mode.PRIVATE, Mode.DEDICATED, Step.MOVE_WORKLOADS));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} -> {1}, crash at the first write of {2}")
    @MethodSource("crashes")
    void resumesFromTheRecordedStepAndEndsWhereAnUninterruptedRunEnds(Mode from, Mode to, Step at) {
        Clean clean = CLEAN.computeIfAbsent(from + "->" + to, k -> clean(from, to));
        List<String> expected = clean.endState();
        int crashAfter = writesBefore(clean.plan(), at);
        if (crashAfter < 0) {
            return; // the step writes nothing in this direction (e.g. Cleanup into dedicated): nothing to interrupt
        }
        try (LiveMigration world = LiveMigration.start(from, false)) {
            world.setMode(to);
            AtomicInteger writes = new AtomicInteger();
            Observer crash = new Observer() {
                @Override
                public void decision(TenantKey tenant, Outcome outcome) {
                    // The plan's writes are counted; the runner's own record of its progress is not one of them.
                    if (outcome instanceof Outcome.Applied
                            && !Reasons.MIGRATION_PROGRESS.equals(outcome.decision().reason())
                            && writes.incrementAndGet() == crashAfter) {
                        for (String verb : List.of("create", "update", "delete", "patch")) {
                            world.hostServer.faults().add(FaultRule.on(verb, "*").respond(500));
                            world.tenantServer.faults().add(FaultRule.on(verb, "*").respond(500));
                        }
                    }
                }
            };
            MigrationRunner dying = MigrationRunner.builder().hostClient(world.host).observer(crash)
                    .retries(2, Duration.ofMillis(1), Duration.ofMillis(2)).build();
            if (crashAfter == 0) {
                for (String verb : List.of("create", "update", "delete", "patch")) {
                    world.hostServer.faults().add(FaultRule.on(verb, "*").respond(500));
                    world.tenantServer.faults().add(FaultRule.on(verb, "*").respond(500));
                }
            }
            for (int i = 0; i < 40; i++) {
                dying.resume(world.key(), world.tenant);
                if (!world.hostServer.faults().rules().isEmpty()) {
                    break; // the controller died during this pass
                }
                world.actAsCluster();
            }
            assertTrue(world.hostServer.faults().fired() > 0, "the controller died at " + at.display());
            world.hostServer.faults().clear();
            world.tenantServer.faults().clear();

            String recorded = Json.string(world.tenantCluster(), "status", "migration", "step");
            MigrationPlan resumed = new MigrationPlanner().plan(world.runner().snapshot(world.key(), world.tenant));
            if (recorded == null) {
                assertEquals(Step.PREPARE_TARGET, at, "only a death before the first write leaves nothing recorded");
                assertEquals(Step.PREPARE_TARGET, resumed.steps().get(0).step());
            } else {
                assertEquals(recorded, resumed.steps().get(0).step().display(),
                        "the next pass starts at the recorded step");
                assertTrue(Step.parse(recorded).orElseThrow().ordinal() <= at.ordinal(),
                        "recorded " + recorded + " is not past " + at.display());
            }

            LiveMigration.Result rest = world.migrate(world.runner());
            assertInstanceOf(MigrationProgress.Completed.class, rest.passes.get(rest.passes.size() - 1));
            assertEquals(expected, endState(world));
        }
    }

    @Test
    void convergesThroughRandomApiErrorsWithRetries() {
        List<String> expected = CLEAN.computeIfAbsent("SHARED->PRIVATE", k -> clean(Mode.SHARED, Mode.PRIVATE))
                .endState();
        try (LiveMigration world = LiveMigration.start(Mode.SHARED, false)) {
            world.setMode(Mode.PRIVATE);
            world.hostServer.faults().seed(7);
            for (String verb : List.of("create", "update", "delete")) {
                world.hostServer.faults().add(FaultRule.on(verb, "*").fraction(0.1).respond(500));
                world.tenantServer.faults().add(FaultRule.on(verb, "*").fraction(0.1).respond(500));
            }
            world.hostServer.faults().add(FaultRule.on("update", "*").fraction(0.1).respond(409));
            world.tenantServer.faults().seed(8);
            LiveMigration.Result run = world.migrate(MigrationRunner.builder().hostClient(world.host)
                    .retries(4, Duration.ofMillis(1), Duration.ofMillis(4)).build(), true);
            assertInstanceOf(MigrationProgress.Completed.class, run.passes.get(run.passes.size() - 1));
            assertTrue(world.hostServer.faults().fired() > 0, "faults fired");
            System.out.println("passes under random API errors: " + run.passes.size());
            world.hostServer.faults().clear();
            world.tenantServer.faults().clear();
            assertEquals(expected, endState(world));
        }
    }

    private static final Map<String, Clean> CLEAN = new HashMap<>();

    /** An uninterrupted migration: its plan and where it ended. */
    private record Clean(MigrationPlan plan, List<String> endState) {
    }

    private static Clean clean(Mode from, Mode to) {
        try (LiveMigration clean = LiveMigration.start(from, false)) {
            clean.setMode(to);
            MigrationPlan plan = new MigrationPlanner().plan(clean.runner().snapshot(clean.key(), clean.tenant));
            clean.migrate(clean.runner());
            return new Clean(plan, endState(clean));
        }
    }

    /** How many writes the migration makes before the first write of {@code step}; -1 when that step writes nothing. */
    private static int writesBefore(MigrationPlan plan, Step step) {
        int n = 0;
        for (MigrationStep s : plan.steps()) {
            long writes = s.decisions().stream().filter(d -> d.decision().action().writes()).count();
            if (s.step() == step) {
                return writes == 0 ? -1 : n;
            }
            n += (int) writes;
        }
        return -1;
    }

    /** Host objects and tenant status, with rescheduled Pod names left out (controllers name replacements). */
    private static List<String> endState(LiveMigration world) {
        List<String> out = new ArrayList<>();
        for (String line : world.hostInventory()) {
            out.add(line.replaceAll("web-6b7f9-[a-z0-9]+", "web-6b7f9-*"));
        }
        JsonObject tc = world.tenantCluster();
        out.add("mode=" + Json.string(tc, "status", "mode") + " hostNamespace="
                + Json.string(tc, "status", "hostNamespace") + " migration=" + Json.object(tc, "status", "migration"));
        world.tenantIdentities().keySet().forEach(k -> out.add("tenant " + k.replaceAll("web-6b7f9-[a-z0-9]+",
                "web-6b7f9-*")));
        return out.stream().sorted().toList();
    }
}
