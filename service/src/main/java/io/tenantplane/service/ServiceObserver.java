package io.tenantplane.service;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

/**
 * The SDK observer of the service: every decision, pass, API error and queue change becomes metrics
 * ({@link ServiceMetrics}) and OpenTelemetry spans. The SDK's own observers (the decision ring and the Events on the
 * TenantCluster) run next to this one, composed by the {@link io.tenantplane.TenantPlane}.
 *
 * <p>Spans: one {@value #PASS_SPAN} per convergence pass (attributes {@code tenantplane.tenant},
 * {@code tenantplane.tenant.namespace}), a child {@code tenantplane.converge <Kind>} per kind, and each decision as
 * a {@value #DECISION_EVENT} event on the span it was made in (action, reason, kind, source, host namespace and
 * name, result).
 */
@ApplicationScoped
public class ServiceObserver implements Observer {

    /** Name of the span around one convergence pass. */
    public static final String PASS_SPAN = "tenantplane.converge";
    /** Name of the span around one provisioning of a tenant (boundary, control plane, finalizer, status, removal). */
    public static final String PROVISION_SPAN = "tenantplane.provision";
    /** Name of the span around one migration pass of a tenant. */
    public static final String MIGRATION_SPAN = "tenantplane.migrate";
    /** Name of the span of one call to the kubelet endpoint. */
    public static final String KUBELET_SPAN = "tenantplane.kubelet";
    static final AttributeKey<String> VERB = AttributeKey.stringKey("tenantplane.kubelet.verb");
    static final AttributeKey<String> POD = AttributeKey.stringKey("tenantplane.pod");
    static final AttributeKey<String> USER = AttributeKey.stringKey("tenantplane.user");
    /** Name of the span event of one decision. */
    public static final String DECISION_EVENT = "tenantplane.decision";

    static final AttributeKey<String> TENANT = AttributeKey.stringKey("tenantplane.tenant");
    static final AttributeKey<String> TENANT_NAMESPACE = AttributeKey.stringKey("tenantplane.tenant.namespace");
    static final AttributeKey<String> KIND = AttributeKey.stringKey("tenantplane.kind");
    static final AttributeKey<String> ACTION = AttributeKey.stringKey("tenantplane.action");
    static final AttributeKey<String> REASON = AttributeKey.stringKey("tenantplane.reason");
    static final AttributeKey<String> SOURCE = AttributeKey.stringKey("tenantplane.source");
    static final AttributeKey<String> HOST_NAMESPACE = AttributeKey.stringKey("tenantplane.host.namespace");
    static final AttributeKey<String> HOST_NAME = AttributeKey.stringKey("tenantplane.host.name");
    static final AttributeKey<String> RESULT = AttributeKey.stringKey("tenantplane.result");
    static final AttributeKey<Long> CODE = AttributeKey.longKey("tenantplane.code");
    static final AttributeKey<Long> SHARD = AttributeKey.longKey("tenantplane.shard");
    static final AttributeKey<String> REPLICA = AttributeKey.stringKey("tenantplane.replica");

    private final ServiceMetrics metrics;
    private final Tracer tracer;
    private final ServiceSettings settings;

    @Inject
    ServiceObserver(ServiceMetrics metrics, Tracer tracer, ServiceSettings settings) {
        this.metrics = metrics;
        this.tracer = tracer;
        this.settings = settings;
    }

    /** For CDI proxies only. */
    protected ServiceObserver() {
        this.metrics = null;
        this.tracer = null;
        this.settings = null;
    }

    @Override
    public PassScope passStarted(TenantKey tenant) {
        return new SpanScope(tenant, root(PASS_SPAN, tenant), true);
    }

    @Override
    public PassScope provisionStarted(TenantKey tenant) {
        return new SpanScope(tenant, root(PROVISION_SPAN, tenant), false);
    }

    @Override
    public PassScope migrationStarted(TenantKey tenant) {
        return new SpanScope(tenant, root(MIGRATION_SPAN, tenant), false);
    }

    /** A root span about one tenant, with its shard and this replica. */
    private Span root(String name, TenantKey tenant) {
        return tracer.spanBuilder(name)
                .setNoParent()
                .setAttribute(TENANT, tenant.name())
                .setAttribute(TENANT_NAMESPACE, tenant.namespace())
                .setAttribute(SHARD, (long) tenant.shard(settings.lease().shards()))
                .setAttribute(REPLICA, settings.lease().identity())
                .startSpan();
    }

    @Override
    public void decision(TenantKey tenant, Outcome outcome) {
        Decision d = outcome.decision();
        metrics.decision(tenant, d.kind(), d.action().display());
    }

    /** Counts the call and records it as a span covering the call, stream included. */
    @Override
    public void kubeletRequest(TenantKey tenant, io.tenantplane.observe.KubeletRequest r) {
        metrics.kubeletRequest(tenant, r.verb(), r.code(), r.took());
        java.time.Instant end = java.time.Instant.now();
        Span span = tracer.spanBuilder(KUBELET_SPAN)
                .setNoParent()
                .setStartTimestamp(end.minus(r.took()))
                .setAttribute(TENANT, tenant.name())
                .setAttribute(TENANT_NAMESPACE, tenant.namespace())
                .setAttribute(VERB, r.verb())
                .setAttribute(USER, r.user())
                .setAttribute(REASON, r.reason())
                .setAttribute(CODE, (long) r.code())
                .setAttribute(REPLICA, settings.lease().identity())
                .startSpan();
        if (r.pod() != null) {
            span.setAttribute(POD, r.namespace() + "/" + r.pod());
        }
        if (r.hostPod() != null) {
            span.setAttribute(HOST_NAME, r.hostPod());
        }
        if (r.code() >= 400) {
            span.setStatus(io.opentelemetry.api.trace.StatusCode.ERROR, r.message());
        }
        span.end(end);
    }

    @Override
    public void apiError(String verb, String resource, int code) {
        metrics.apiError(code);
    }

    @Override
    public void queueDepth(int depth) {
        metrics.queueDepth(depth);
    }

    @Override
    public void queueOverflowed(TenantKey tenant) {
        metrics.queueOverflowed();
    }

    @Override
    public String toString() {
        return "ServiceObserver[metrics, traces]";
    }

    /** A pass or one kind within it, as a span. */
    private final class SpanScope implements PassScope {
        private final TenantKey tenant;
        private final Span span;
        private final boolean pass;

        SpanScope(TenantKey tenant, Span span, boolean pass) {
            this.tenant = tenant;
            this.span = span;
            this.pass = pass;
        }

        @Override
        public PassScope kind(String kind) {
            Span child = tracer.spanBuilder(PASS_SPAN + " " + kind)
                    .setParent(Context.root().with(span))
                    .setAttribute(TENANT, tenant.name())
                    .setAttribute(TENANT_NAMESPACE, tenant.namespace())
                    .setAttribute(KIND, kind)
                    .startSpan();
            return new SpanScope(tenant, child, false);
        }

        @Override
        public void decision(Outcome outcome) {
            span.addEvent(DECISION_EVENT, attributes(outcome));
        }

        @Override
        public void failed(Throwable error) {
            span.recordException(error);
            span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
        }

        @Override
        public void finished(Duration took) {
            if (pass) {
                metrics.passFinished(tenant, took);
            }
        }

        @Override
        public void close() {
            span.end();
        }
    }

    static Attributes attributes(Outcome outcome) {
        Decision d = outcome.decision();
        AttributesBuilder a = Attributes.builder()
                .put(ACTION, d.action().display())
                .put(REASON, d.reason())
                .put(KIND, d.kind());
        if (d.source() != null && d.source().name() != null) {
            a.put(SOURCE, d.source().virtualNamespace() == null ? d.source().name()
                    : d.source().virtualNamespace() + "/" + d.source().name());
        }
        if (d.host() != null) {
            if (d.host().namespace() != null) {
                a.put(HOST_NAMESPACE, d.host().namespace());
            }
            a.put(HOST_NAME, d.host().name());
        }
        switch (outcome) {
            case Outcome.Applied applied -> a.put(RESULT, "Applied");
            case Outcome.NotWritten notWritten -> a.put(RESULT, "NotWritten");
            case Outcome.Failed failed -> a.put(RESULT, "Failed").put(CODE, (long) failed.code());
        }
        return a.build();
    }
}
