package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/**
 * The three MicroProfile Health checks, read from {@link ServiceStatus} and {@link Sharding}.
 *
 * <ul>
 *   <li>{@code /health/live} "work-loops": DOWN when a registered loop has stopped beating (the process is stuck;
 *       a restart helps).</li>
 *   <li>{@code /health/ready} "host": DOWN when the host API did not answer the last call or a readiness gate is
 *       closed. A replica that owns no shard yet is ready too ({@code data.shardsOwned} says how many it owns), so
 *       a rollout never waits for a hand-over.</li>
 *   <li>{@code /health/started} "startup": UP once configuration, host client and election are up.</li>
 * </ul>
 */
@ApplicationScoped
class HealthChecks {

    private final ServiceStatus status;
    private final Sharding sharding;

    @Inject
    HealthChecks(ServiceStatus status, Sharding sharding) {
        this.status = status;
        this.sharding = sharding;
    }

    /** For CDI proxies only. */
    protected HealthChecks() {
        this.status = null;
        this.sharding = null;
    }

    @Produces
    @Liveness
    HealthCheck liveness() {
        return () -> {
            var b = HealthCheckResponse.named("work-loops");
            boolean alive = true;
            for (ServiceStatus.LoopState loop : status.loops()) {
                long seconds = loop.sinceLastBeat().toSeconds();
                b.withData(loop.name(), loop.stalled() ? "stalled, last beat " + seconds + "s ago"
                        : "beating, last beat " + seconds + "s ago");
                alive &= !loop.stalled();
            }
            return b.status(alive).build();
        };
    }

    @Produces
    @Readiness
    HealthCheck readiness() {
        return () -> {
            ServiceStatus.HostApi host = status.hostApi();
            var b = HealthCheckResponse.named("host")
                    .withData("shardsOwned", sharding.view().owned())
                    .withData("identity", sharding.identity())
                    .withData("hostApi", host.detail());
            boolean ready = host.reachable();
            for (ServiceStatus.GateState gate : status.gates()) {
                b.withData(gate.name(), gate.ready() ? "ready" : gate.reason());
                ready &= gate.ready();
            }
            return b.status(ready).build();
        };
    }

    @Produces
    @Startup
    HealthCheck startup() {
        return () -> HealthCheckResponse.named("startup").status(status.started()).build();
    }
}
