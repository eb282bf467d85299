package io.tenantplane.service;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.annotation.RegistryScope;

/**
 * The service's own metrics, in the application registry (Prometheus text at {@code /metrics}).
 *
 * <ul>
 *   <li>{@value #LEADER}: 1 while this replica leads, else 0</li>
 *   <li>{@value #WORKQUEUE_DEPTH}: keys waiting in the reconcile work queue</li>
 *   <li>{@value #API_ERRORS}{@code {code}}: failed calls to the host API, by HTTP status ({@code 0} = no answer)</li>
 * </ul>
 *
 * <p>The argument shapes match the SDK observer's {@code queueDepth(int)} and {@code apiError(..., int code)}, so
 * an observer implementation forwards to these methods unchanged.
 */
@ApplicationScoped
public class ServiceMetrics {

    /** Gauge: this replica leads. */
    public static final String LEADER = "tenantplane_leader";
    /** Gauge: reconcile work-queue depth. */
    public static final String WORKQUEUE_DEPTH = "tenantplane_workqueue_depth";
    /** Counter: failed host API calls by status code. */
    public static final String API_ERRORS = "tenantplane_api_errors_total";

    private final MetricRegistry registry;
    private final AtomicInteger leader = new AtomicInteger();
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
                .withName(LEADER)
                .withDescription("1 while this replica holds the leader Lease and reconciles, else 0")
                .withUnit(MetricUnits.NONE)
                .build(), leader, AtomicInteger::get);
        registry.gauge(Metadata.builder()
                .withName(WORKQUEUE_DEPTH)
                .withDescription("Keys waiting in the reconcile work queue")
                .withUnit(MetricUnits.NONE)
                .build(), queueDepth, AtomicInteger::get);
    }

    /** This replica started or stopped leading. */
    public void leader(boolean leading) {
        leader.set(leading ? 1 : 0);
    }

    /** The reconcile work queue now holds this many keys. */
    public void queueDepth(int depth) {
        queueDepth.set(Math.max(0, depth));
    }

    /** A host API call failed with this HTTP status; {@code 0} when no answer came. */
    public void apiError(int code) {
        registry.counter(Metadata.builder()
                        .withName(API_ERRORS)
                        .withDescription("Failed calls to the host API server, by HTTP status (0 = no answer)")
                        .withUnit(MetricUnits.NONE)
                        .build(),
                new Tag("code", Integer.toString(code))).inc();
    }
}
