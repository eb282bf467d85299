package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParsedTest {

    @Test
    void aUsableValueIsReturnedAndAnUnusableOneNamesWhatWasReadAndEveryProblem() {
        assertEquals("dev", Parsed.of("dev", List.of()).orElseThrow("TenantCluster team-a/dev"));

        Parsed<String> bad = Parsed.of("dev", List.of(Problem.of("spec.mode", "must be one of shared, dedicated, "
                + "private"), Problem.of("spec.isolationProfileRef.name", "is required")));
        InvalidResourceException e = assertThrows(InvalidResourceException.class,
                () -> bad.orElseThrow("TenantCluster team-a/dev"));
        assertEquals(bad.problems(), e.problems());
        assertTrue(e.getMessage().startsWith("TenantCluster team-a/dev"), e.getMessage());
        assertTrue(e.getMessage().contains("spec.mode") && e.getMessage().contains("spec.isolationProfileRef.name"),
                "the message names every field: " + e.getMessage());
    }
}
