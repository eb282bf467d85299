package io.tenantplane.it;

import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** What an observer heard: the scopes opened (which kind of work, which tenant), the outcomes each got, and closed. */
final class ScopeRecorder implements Observer {
    final List<String> opened = new CopyOnWriteArrayList<>();
    final List<String> closed = new CopyOnWriteArrayList<>();
    final Map<String, List<Outcome>> inScope = new ConcurrentHashMap<>();
    final List<Outcome> reported = new CopyOnWriteArrayList<>();

    private PassScope scope(String what) {
        String id = what + "#" + opened.size();
        opened.add(id);
        inScope.put(id, new CopyOnWriteArrayList<>());
        return new PassScope() {
            @Override
            public PassScope kind(String kind) {
                return this;
            }

            @Override
            public void decision(Outcome outcome) {
                inScope.get(id).add(outcome);
            }

            @Override
            public void close() {
                closed.add(id);
            }
        };
    }

    @Override
    public PassScope passStarted(TenantKey tenant) {
        return scope("converge " + tenant);
    }

    @Override
    public PassScope provisionStarted(TenantKey tenant) {
        return scope("provision " + tenant);
    }

    @Override
    public PassScope migrationStarted(TenantKey tenant) {
        return scope("migrate " + tenant);
    }

    @Override
    public void decision(TenantKey tenant, Outcome outcome) {
        reported.add(outcome);
    }
}
