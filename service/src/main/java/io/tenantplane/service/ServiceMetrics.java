package io.tenantplane.service;

import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.annotation.RegistryScope;

/**
 * The service's own metrics, in the application registry (Prometheus text at {@code /metrics}).
 *
 * <ul>
 *   <li>{@value #SHARDS_HELD}: shards this replica owns (writes for); {@value #SHARDS}: shards of the installation;
 *       {@value #SHARD_MEMBERS}: live replicas this one sees; {@value #SHARD_OWNED}{@code {shard}}: 1 per shard
 *       this replica owns. They succeed {@code tenantplane_leader}: a replica
 *       writes when {@value #SHARDS_HELD} {@code > 0}, and every tenant has a writer when the sum over replicas of
 *       {@value #SHARDS_HELD} equals {@value #SHARDS}</li>
 *   <li>{@value #WORKQUEUE_DEPTH}: keys waiting in the reconcile work queue</li>
 *   <li>{@value #API_ERRORS}{@code {code}}: failed calls to the host and tenant APIs, by HTTP status ({@code 0} = no
 *       answer)</li>
 *   <li>{@value #DECISIONS}{@code {namespace,tenant,kind,action}}: executed decisions</li>
 *   <li>{@value #PASS_DURATION}{@code _seconds{namespace,tenant}}: duration of convergence passes</li>
 *   <li>{@value #TENANTS}{@code {phase}}: TenantClusters by {@code status.phase}</li>
 * </ul>
 *
 * <p>The argument shapes match the SDK observer's {@code queueDepth(int)} and {@code apiError(..., int code)}, so
 * an observer implementation forwards to these methods unchanged.
 */
@ApplicationScoped
public class ServiceMetrics {

    /** Gauge: shards this replica owns. */
    public static final String SHARDS_HELD = "tenantplane_shards_held";
    /** Gauge: shards of the installation. */
    public static final String SHARDS = "tenantplane_shards";
    /** Gauge, per shard: 1 while this replica owns it, else 0. */
    public static final String SHARD_OWNED = "tenantplane_shard_owned";
    /** Gauge: live replicas this one sees. */
    public static final String SHARD_MEMBERS = "tenantplane_shard_members";
    /** Gauge: reconcile work-queue depth. */
    public static final String WORKQUEUE_DEPTH = "tenantplane_workqueue_depth";
    /** Counter: object changes that found the work queue full and became a full pass over their tenant. */
    public static final String WORKQUEUE_OVERFLOWS = "tenantplane_workqueue_overflows_total";
    /** Counter: failed host and tenant API calls by status code. */
    public static final String API_ERRORS = "tenantplane_api_errors_total";
    /** Counter: executed decisions by tenant, kind and action. */
    public static final String DECISIONS = "tenantplane_sync_decisions_total";
    /** Counter: calls of tenant API servers to the kubelet endpoint, by tenant, verb and HTTP status. */
    public static final String KUBELET_REQUESTS = "tenantplane_kubelet_requests_total";
    /** Timer: calls to the kubelet endpoint, stream included, by verb; in seconds as {@code ..._seconds}. */
    public static final String KUBELET_REQUEST_DURATION = "tenantplane_kubelet_request_duration";
    /** Timer: convergence pass duration per tenant; Prometheus shows it in seconds as {@code ..._seconds}. */
    public static final String PASS_DURATION = "tenantplane_pass_duration";
    /** Gauge: decisions whose Event was dropped because too many Events were waiting to be written. */
    public static final String EVENTS_DROPPED = "tenantplane_events_dropped";
    /** Gauge: TenantClusters by phase. */
    public static final String TENANTS = "tenantplane_tenants";

    private final MetricRegistry registry;
    private final AtomicInteger queueDepth = new AtomicInteger();

    @Inject
    ServiceMetrics(@RegistryScope(scope = MetricRegistry.APPLICATION_SCOPE) MetricRegistry registry) {
        this.registry = registry;
    }

    /** For CDI proxies only. */
    protected ServiceMetrics() {
        this.registry = null;
    }

    @PostConstruct
    void register() {
        registry.gauge(Metadata.builder()
                .withName(WORKQUEUE_DEPTH)
                .withDescription("Keys waiting in the reconcile work queue")
                .withUnit(MetricUnits.NONE)
                .build(), queueDepth, AtomicInteger::get);
        // Exported at 0 from the start, so that rate() and the dashboard see the series before the first overflow.
        overflows();
    }

    /** Exports how many decisions' Events the plane has dropped so far (read when scraped). */
    public void eventsDropped(java.util.function.LongSupplier dropped) {
        registry.gauge(Metadata.builder()
                .withName(EVENTS_DROPPED)
                .withDescription("Decisions whose Kubernetes Event was dropped because too many Events were waiting"
                        + " to be written (the decisions themselves are kept)")
                .withUnit(MetricUnits.NONE)
                .build(), dropped, java.util.function.LongSupplier::getAsLong);
    }

    /** Exports the shard gauges, read when scraped. */
    public void shards(int count, java.util.function.IntSupplier held, java.util.function.IntSupplier members,
                       java.util.function.IntPredicate owns) {
        for (int i = 0; i < count; i++) {
            int shard = i;
            registry.gauge(Metadata.builder().withName(SHARD_OWNED)
                    .withDescription("1 while this replica owns the shard (writes for its tenants), else 0")
                    .withUnit(MetricUnits.NONE).build(), () -> owns.test(shard) ? 1 : 0,
                    new Tag("shard", Integer.toString(shard)));
        }
        registry.gauge(Metadata.builder().withName(SHARDS_HELD)
                .withDescription("Shards this replica owns: it writes for their tenants")
                .withUnit(MetricUnits.NONE).build(), held, java.util.function.IntSupplier::getAsInt);
        registry.gauge(Metadata.builder().withName(SHARDS)
                .withDescription("Shards the installation's tenants are spread over (tenantplane.shards)")
                .withUnit(MetricUnits.NONE).build(), () -> count);
        registry.gauge(Metadata.builder().withName(SHARD_MEMBERS)
                .withDescription("Live replicas this replica sees sharing the shards, itself included")
                .withUnit(MetricUnits.NONE).build(), members, java.util.function.IntSupplier::getAsInt);
    }

    /** The reconcile work queue now holds this many keys. */
    public void queueDepth(int depth) {
        queueDepth.set(Math.max(0, depth));
    }

    /** An object change found the work queue full and was folded into a full pass over its tenant. */
    public void queueOverflowed() {
        overflows().inc();
    }

    private org.eclipse.microprofile.metrics.Counter overflows() {
        return registry.counter(Metadata.builder()
                .withName(WORKQUEUE_OVERFLOWS)
                .withDescription("Object changes that found the work queue full and were folded into a full pass"
                        + " over their tenant (nothing is lost; raise the queue capacity if this keeps growing)")
                .withUnit(MetricUnits.NONE)
                .build());
    }

    /** A host API call failed with this HTTP status; {@code 0} when no answer came. */
    public void apiError(int code) {
        registry.counter(Metadata.builder()
                        .withName(API_ERRORS)
                        .withDescription("Failed calls to the host and tenant API servers, by HTTP status (0 = no answer)")
                        .withUnit(MetricUnits.NONE)
                        .build(),
                new Tag("code", Integer.toString(code))).inc();
    }

    /** One decision was executed for {@code tenant}: {@code action} in CamelCase ({@code Create}, ...). */
    public void decision(TenantKey tenant, String kind, String action) {
        registry.counter(Metadata.builder()
                        .withName(DECISIONS)
                        .withDescription("Decisions executed, by tenant, kind and action (Create, Update, Unchanged,"
                                + " Delete, Skip, Conflict, Error)")
                        .withUnit(MetricUnits.NONE)
                        .build(),
                new Tag("namespace", tenant.namespace()), new Tag("tenant", tenant.name()), new Tag("kind", kind),
                new Tag("action", action)).inc();
    }

    /** A tenant API server's call to the kubelet endpoint ended: {@code verb}, answered {@code code}. */
    public void kubeletRequest(TenantKey tenant, String verb, int code, Duration took) {
        registry.counter(Metadata.builder()
                        .withName(KUBELET_REQUESTS)
                        .withDescription("Calls of tenant API servers to tenantplane's kubelet endpoint (kubectl logs,"
                                + " exec, attach, port-forward inside tenants), by tenant, verb and HTTP status")
                        .withUnit(MetricUnits.NONE)
                        .build(),
                new Tag("namespace", tenant.namespace()), new Tag("tenant", tenant.name()), new Tag("verb", verb),
                new Tag("code", Integer.toString(code))).inc();
        registry.timer(Metadata.builder()
                        .withName(KUBELET_REQUEST_DURATION)
                        .withDescription("Duration of calls to tenantplane's kubelet endpoint, stream included, by verb")
                        .withUnit(MetricUnits.SECONDS)
                        .build(),
                new Tag("verb", verb)).update(took);
    }

    /** One convergence pass over {@code tenant} took {@code took}. */
    public void passFinished(TenantKey tenant, Duration took) {
        registry.timer(Metadata.builder()
                        .withName(PASS_DURATION)
                        .withDescription("Duration of one convergence pass over a tenant (all its kinds, or one"
                                + " object after a watch event)")
                        .withUnit(MetricUnits.SECONDS)
                        .build(),
                new Tag("namespace", tenant.namespace()), new Tag("tenant", tenant.name())).update(took);
    }

    /**
     * Registers one {@value #TENANTS} gauge per phase (so every phase shows, zeros included).
     *
     * @param countInPhase how many TenantClusters are in a phase now, given its CamelCase value ({@code Ready})
     */
    public void tenantsByPhase(ToLongFunction<String> countInPhase) {
        for (TenantCluster.Phase phase : TenantCluster.Phase.values()) {
            String value = phase.value();
            registry.gauge(Metadata.builder()
                    .withName(TENANTS)
                    .withDescription("TenantClusters by status.phase, as the watch cache sees them")
                    .withUnit(MetricUnits.NONE)
                    .build(), countInPhase, f -> f.applyAsLong(value), new Tag("phase", value));
        }
    }
}
