package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tenantplane.PlanRequest;
import io.tenantplane.TenantPlane;
import io.tenantplane.model.Problem;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Reasons;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every file of the bad-input corpus, offline: custom resources fail validation with a problem that names the field
 * and the rule; tenant objects get exactly the expected decisions, and the plan writes nothing else.
 */
class BadInputCorpusTest {

    private final TenantPlane plane = TenantPlane.builder().build();

    @Test
    void theCorpusHoldsAtLeastThirtyCasesOfBothInputs() {
        List<Corpus.Case> cases = Corpus.cases();
        assertTrue(cases.size() >= 30, "only " + cases.size() + " cases");
        assertTrue(cases.stream().filter(c -> c.input() == Corpus.Input.CUSTOM_RESOURCES).count() >= 10);
        assertTrue(cases.stream().filter(c -> c.input() == Corpus.Input.TENANT_OBJECTS).count() >= 10);
    }

    @Test
    void theExamplesTheCorpusStartsFromAreValid() {
        List<Problem> problems = plane.validate(new Corpus.Case("examples", "examples", Corpus.Input.CUSTOM_RESOURCES,
                List.of(), null, List.of(), List.of(), false, List.of()).loadedCustomResources());
        assertTrue(problems.isEmpty(), problems::toString);
    }

    @TestFactory
    Stream<DynamicTest> eachCorpusFileGetsItsNamedProblemOrDecision() {
        return Corpus.cases().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            switch (c.input()) {
                case CUSTOM_RESOURCES -> customResources(c);
                case TENANT_OBJECTS -> tenantObjects(c);
            }
        }));
    }

    private void customResources(Corpus.Case c) {
        List<Problem> problems = plane.validate(c.loadedCustomResources());
        for (Corpus.ExpectedProblem want : c.problems()) {
            assertTrue(problems.stream().anyMatch(p -> want.field().equals(p.field())
                            && p.message().contains(want.message())),
                    () -> c.file() + ": no problem at " + want.field() + " saying '" + want.message() + "' in "
                            + problems);
        }
    }

    private void tenantObjects(Corpus.Case c) {
        assertTrue(plane.validate(c.loadedCustomResources()).isEmpty(), c.file() + ": its custom resources are valid");
        Plan plan = plane.plan(new PlanRequest(c.parsedTenantCluster(), c.parsedProfile(), c.parsedPolicy(),
                c.tenantObjects(), List.of()));
        for (Corpus.ExpectedDecision want : c.decisions()) {
            Decision d = plan.decisions().stream().filter(want::isAbout).findFirst().orElseGet(() ->
                    fail(c.file() + ": no decision about " + want + " in " + plan.decisions()));
            assertEquals(want.action(), d.action(), () -> c.file() + ": " + d);
            assertEquals(want.reason(), d.reason(), () -> c.file() + ": " + d);
            assertTrue(d.message().contains(want.message()), () -> c.file() + ": '" + d.message()
                    + "' does not say '" + want.message() + "'");
            assertTrue(Reasons.all().containsKey(d.reason()), () -> d.reason() + " is a documented reason");
        }
        long writes = plan.decisions().stream().filter(d -> d.action().writes()).count();
        assertEquals(c.expectedWrites(), writes, () -> c.file() + ": the plan writes exactly what is expected: "
                + plan.decisions());
        for (Corpus.HostCheck h : c.hostChecks()) {
            Decision d = plan.decisions().stream().filter(x -> x.kind().equals(h.kind()) && x.source() != null
                    && Objects.equals(h.name(), x.source().name())
                    && Objects.equals(h.namespace(), x.source().virtualNamespace())).findFirst()
                    .orElseGet(() -> fail(c.file() + ": no decision for host check " + h));
            assertNotNull(d.desired(), () -> c.file() + ": " + d + " has a host object");
            Corpus.assertHost(c, h, d.desired());
        }
    }
}
