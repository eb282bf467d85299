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

    /** A pass scope whose kinds' scopes record their events and their closing in {@link #heard}. */
    private Observer.PassScope withKinds(String name) {
        return new Observer.PassScope() {
            @Override
            public Observer.PassScope kind(String kind) {
                heard.add("open " + kind);
                return new Observer.PassScope() {
                    @Override
                    public void decision(Outcome outcome) {
                        heard.add("span " + kind + " " + outcome.decision().host().name());
                    }

                    @Override
                    public void close() {
                        heard.add("close " + kind);
                    }
                };
            }

            @Override
            public void decision(Outcome outcome) {
                heard.add("span " + name + " " + outcome.decision().host().name());
            }

            @Override
            public void close() {
                heard.add("close " + name);
            }
        };
    }

    private static Decision configMap(String kind, String name) {
        return Decision.create(kind, null, new Decision.HostRef("team-dev", name), "NotOnHost", "create " + name,
                new JsonObject());
    }

    private static Outcome applied(Decision d) {
        return new Outcome.Applied(d, d.desired(), 1);
    }

    @Test
    void aKindViewReportsIntoTheKindsScopeAndClosesOnlyThat() {
        Execution exec = Execution.of(DEV, observer, withKinds("pass"));
        try (Execution secrets = exec.kind("Secret")) {
            secrets.report(written("s"));
            assertEquals(DEV, secrets.tenant());
        }
        exec.report(written("q"));
        exec.close();

        assertEquals(List.of("open Secret", "span Secret s", "observer dev s", "close Secret", "span pass q",
                "observer dev q"), heard, "closing the pass's own execution leaves its scope to whoever opened it");
        assertEquals(List.of("s", "q"), exec.outcomes().stream().map(o -> o.decision().host().name()).toList(),
                "the view shares the outcomes");
    }

    @Test
    void eachRunsDecisionsInOrderUnderOneScopePerRunOfAKind() {
        Execution exec = Execution.of(DEV, observer, withKinds("pass"));
        List<String> written = new ArrayList<>();

        exec.each(List.of(configMap("ConfigMap", "a"), configMap("ConfigMap", "b"), configMap("Pod", "p"),
                configMap("ConfigMap", "c")), d -> {
                    written.add(d.host().name());
                    return applied(d);
                });

        assertEquals(List.of("a", "b", "p", "c"), written);
        assertEquals(List.of("open ConfigMap", "span ConfigMap a", "observer dev a", "span ConfigMap b",
                "observer dev b", "close ConfigMap", "open Pod", "span Pod p", "observer dev p", "close Pod",
                "open ConfigMap", "span ConfigMap c", "observer dev c", "close ConfigMap"), heard);
        assertEquals(List.of("a", "b", "p", "c"), exec.outcomes().stream().map(o -> o.decision().host().name())
                .toList());
    }

    @Test
    void eachClosesTheOpenKindScopeWhenAWriteThrows() {
        Execution exec = Execution.of(DEV, observer, withKinds("pass"));

        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> exec.each(
                List.of(configMap("ConfigMap", "a"), configMap("ConfigMap", "b")), d -> {
                    if (d.host().name().equals("b")) {
                        throw new IllegalStateException("interrupted");
                    }
                    return applied(d);
                }));

        assertEquals(List.of("open ConfigMap", "span ConfigMap a", "observer dev a", "close ConfigMap"), heard);
    }

    @Test
    void concurrentlyReportsEachAsItComesAndListsThemInTheOrderGiven() throws Exception {
        java.util.concurrent.CountDownLatch secondReported = new java.util.concurrent.CountDownLatch(1);
        Observer counting = new Observer() {
            @Override
            public void decision(TenantKey tenant, Outcome outcome) {
                heard.add("observer " + tenant.name() + " " + outcome.decision().host().name());
                if (outcome.decision().host().name().equals("second")) {
                    secondReported.countDown();
                }
            }
        };
        Execution exec = Execution.of(DEV, counting, withKinds("pass"));
        List<Decision> decisions = List.of(configMap("ConfigMap", "first"), configMap("Secret", "second"));

        exec.concurrently(decisions, 2, "test-write", d -> {
            if (d.host().name().equals("first")) {
                // The second ends (and is reported) first: its report comes first, its place in the list does not.
                try {
                    assertEquals(true, secondReported.await(10, java.util.concurrent.TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return applied(d);
        });

        assertEquals(List.of("first", "second"), exec.outcomes().stream().map(o -> o.decision().host().name())
                .toList(), "listed in the order given");
        assertEquals(List.of("open ConfigMap", "open Secret"), heard.subList(0, 2), "one scope per kind, opened first");
        assertEquals(List.of("close ConfigMap", "close Secret"), heard.subList(heard.size() - 2, heard.size()),
                "closed once all are done");
        assertEquals(true, heard.indexOf("span Secret second") < heard.indexOf("span ConfigMap first"),
                "reported as they come: " + heard);
    }
}
