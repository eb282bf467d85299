package io.tenantplane.apply.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.google.gson.JsonObject;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one reporter: what reaches the observers, the spans and the report, for each way an outcome is handed in. */
class ExecutionTest {

    private static final TenantKey DEV = new TenantKey("team-dev", "dev");

    private final List<String> heard = new ArrayList<>();
    private final Observer observer = new Observer() {
        @Override
        public void decision(TenantKey tenant, Outcome outcome) {
            heard.add("observer " + tenant.name() + " " + outcome.decision().host().name());
        }
    };

    private Observer.PassScope scope(String name) {
        return new Observer.PassScope() {
            @Override
            public void decision(Outcome outcome) {
                heard.add("span " + name + " " + outcome.decision().host().name());
            }
        };
    }

    private static Outcome written(String name) {
        JsonObject desired = new JsonObject();
        return new Outcome.Applied(Decision.create("ConfigMap", null, new Decision.HostRef("team-dev", name),
                "NotOnHost", "create " + name, desired), desired, 1);
    }

    private static Outcome unchanged(String name) {
        JsonObject observed = new JsonObject();
        return new Outcome.NotWritten(Decision.unchanged("ConfigMap", null, new Decision.HostRef("team-dev", name),
                "InSync", name + " is in sync", null, observed));
    }

    @Test
    void aReportedOutcomeReachesTheObserversAndTheSpanOnceAndIsListed() {
        Execution exec = Execution.of(DEV, observer, scope("pass"));
        Outcome a = written("a");

        assertSame(a, exec.report(a));

        assertEquals(List.of("span pass a", "observer dev a"), heard);
        assertEquals(List.of(a), exec.outcomes());
    }

    @Test
    void aViewReportsIntoItsOwnScopeAndSharesTheOutcomes() {
        Execution exec = Execution.of(DEV, observer, scope("pass"));
        exec.in(scope("Pod")).report(written("p"));
        exec.report(written("q"));

        assertEquals(List.of("span Pod p", "observer dev p", "span pass q", "observer dev q"), heard);
        assertEquals(List.of("p", "q"), exec.outcomes().stream().map(o -> o.decision().host().name()).toList());
        assertEquals(DEV, exec.in(scope("Pod")).tenant());
    }

    @Test
    void announcedOutcomesAreReportedAsTheyComeAndListedInTheOrderGiven() {
        Execution exec = Execution.of(DEV, observer, scope("pass"));
        Outcome first = written("first");
        Outcome second = written("second");
        exec.announce(second);
        exec.announce(first);

        assertEquals(List.of(), exec.outcomes(), "announced, not listed yet");
        exec.list(List.of(first, second));

        assertEquals(List.of("span pass second", "observer dev second", "span pass first", "observer dev first"),
                heard);
        assertEquals(List.of(first, second), exec.outcomes(), "listed in plan order");
    }

    @Test
    void aStatusWriteIsReportedWhenItWroteButNeverListed() {
        Execution exec = Execution.of(DEV, observer, scope("provision"));
        exec.statusWritten(unchanged("same-status"));
        Outcome w = written("new-status");

        assertSame(w, exec.statusWritten(w));

        assertEquals(List.of("span provision new-status", "observer dev new-status"), heard,
                "an unchanged status is not news");
        assertEquals(List.of(), exec.outcomes(), "the report lists the objects the work converges");
    }

    @Test
    void aFailedStatusWriteIsReported() {
        Execution exec = Execution.of(DEV, observer, Observer.PassScope.NOOP);
        Outcome failed = new Outcome.Failed(unchanged("status").decision(), 422, "Invalid", "refused", 1);

        exec.statusWritten(failed);

        assertEquals(List.of("observer dev status"), heard);
    }

    @Test
    void scopedWorkReportsIntoTheScopeItOpensAndClosesItAlsoWhenItFails() {
        List<String> scope = new ArrayList<>();
        java.util.function.Function<TenantKey, Observer.PassScope> start = t -> {
            scope.add("opened " + t.name());
            return new Observer.PassScope() {
                @Override
                public void decision(Outcome outcome) {
                    scope.add("event " + outcome.decision().host().name());
                }

                @Override
                public void failed(Throwable error) {
                    scope.add("failed " + error.getMessage());
                }

                @Override
                public void close() {
                    scope.add("closed");
                }
            };
        };

        List<Outcome> listed = Execution.scoped(DEV, observer, start, exec -> {
            exec.report(written("a"));
            return exec.outcomes();
        });
        IllegalStateException boom = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> Execution.scoped(DEV, observer, start, exec -> {
                    throw new IllegalStateException("boom");
                }));

        assertEquals(1, listed.size());
        assertEquals("boom", boom.getMessage());
        assertEquals(List.of("opened dev", "event a", "closed", "opened dev", "failed boom", "closed"), scope);
    }
}
