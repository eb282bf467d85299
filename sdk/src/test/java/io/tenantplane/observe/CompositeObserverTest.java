package io.tenantplane.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompositeObserverTest {

    @Test
    void aThrowingObserverNeitherFailsThePassNorStarvesTheOthers() {
        List<String> seen = new ArrayList<>();
        Observer broken = new Observer() {
            @Override
            public void decision(TenantKey tenant, Outcome outcome) {
                throw new IllegalStateException("broken on purpose");
            }
        };
        Observer recording = new Observer() {
            @Override
            public void decision(TenantKey tenant, Outcome outcome) {
                seen.add(outcome.decision().source().name());
            }

            @Override
            public void apiError(String verb, String resource, int code) {
                seen.add(verb + " " + resource + " " + code);
            }
        };
        Observer all = Observer.composite(broken, recording);
        all.decision(new TenantKey("ns", "dev"), DecisionRingTest.created("nginx"));
        all.apiError("update", "pods", 409);
        try (Observer.PassScope scope = all.passStarted(new TenantKey("ns", "dev"))) {
            scope.kind("Pod").close();
        }
        assertEquals(List.of("nginx", "update pods 409"), seen);
    }

    @Test
    void aCompositeOfOneIsThatObserver() {
        Observer one = new Observer() {
        };
        assertEquals(one, Observer.composite(one));
    }
}
