package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Test bean: the {@link LeadershipChanged} events as a reconcile loop would observe them. */
@ApplicationScoped
public class LeadershipRecorder {

    private final List<LeadershipChanged> events = new CopyOnWriteArrayList<>();

    void on(@Observes LeadershipChanged event) {
        events.add(event);
    }

    List<LeadershipChanged> events() {
        return List.copyOf(events);
    }
}
