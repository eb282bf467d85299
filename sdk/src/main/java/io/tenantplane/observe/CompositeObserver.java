package io.tenantplane.observe;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Fans every call out to several observers, in order. One observer that throws does not keep the others from being
 * called and does not fail the pass: the error is logged here, where it is handled.
 */
final class CompositeObserver implements Observer {

    private static final System.Logger LOG = System.getLogger(CompositeObserver.class.getName());

    private final List<Observer> observers;

    CompositeObserver(List<Observer> observers) {
        this.observers = List.copyOf(observers);
    }

    @Override
    public PassScope passStarted(TenantKey tenant) {
        return scope("passStarted", o -> o.passStarted(tenant));
    }

    @Override
    public PassScope provisionStarted(TenantKey tenant) {
        return scope("provisionStarted", o -> o.provisionStarted(tenant));
    }

    @Override
    public PassScope migrationStarted(TenantKey tenant) {
        return scope("migrationStarted", o -> o.migrationStarted(tenant));
    }

    /** One scope of every observer's, in order; an observer that throws is logged and left out. */
    private PassScope scope(String what, java.util.function.Function<Observer, PassScope> start) {
        List<PassScope> scopes = new ArrayList<>(observers.size());
        for (Observer o : observers) {
            try {
                scopes.add(start.apply(o));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "observer " + o + " failed in " + what, e);
            }
        }
        return new CompositeScope(scopes);
    }

    @Override
    public void decision(TenantKey tenant, Outcome outcome) {
        each(() -> "on a decision of " + tenant, o -> o.decision(tenant, outcome));
    }

    @Override
    public void kubeletRequest(TenantKey tenant, KubeletRequest request) {
        each(() -> "on a kubelet request of " + tenant, o -> o.kubeletRequest(tenant, request));
    }

    @Override
    public void apiError(String verb, String resource, int code) {
        each(() -> "in apiError", o -> o.apiError(verb, resource, code));
    }

    @Override
    public void queueDepth(int depth) {
        each(() -> "in queueDepth", o -> o.queueDepth(depth));
    }

    @Override
    public void queueOverflowed(TenantKey tenant) {
        each(() -> "in queueOverflowed", o -> o.queueOverflowed(tenant));
    }

    /** Calls every observer; one that throws is logged ({@code what} is built only then) and the rest still run. */
    private void each(java.util.function.Supplier<String> what, java.util.function.Consumer<Observer> call) {
        for (Observer o : observers) {
            try {
                call.accept(o);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "observer " + o + " failed " + what.get(), e);
            }
        }
    }

    /** Flushes every observer in order, within one deadline shared by all. */
    @Override
    public boolean flush(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean all = true;
        for (Observer o : observers) {
            try {
                all &= o.flush(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "observer " + o + " failed in flush", e);
                all = false;
            }
        }
        return all;
    }

    private record CompositeScope(List<PassScope> scopes) implements PassScope {

        @Override
        public PassScope kind(String kind) {
            List<PassScope> children = new ArrayList<>(scopes.size());
            for (PassScope s : scopes) {
                try {
                    children.add(s.kind(kind));
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "observer scope failed in kind", e);
                }
            }
            return new CompositeScope(List.copyOf(children));
        }

        @Override
        public void decision(Outcome outcome) {
            each(s -> s.decision(outcome));
        }

        @Override
        public void failed(Throwable error) {
            each(s -> s.failed(error));
        }

        @Override
        public void finished(Duration took) {
            each(s -> s.finished(took));
        }

        @Override
        public void close() {
            each(PassScope::close);
        }

        private void each(java.util.function.Consumer<PassScope> call) {
            for (PassScope s : scopes) {
                try {
                    call.accept(s);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "observer scope failed", e);
                }
            }
        }
    }
}
