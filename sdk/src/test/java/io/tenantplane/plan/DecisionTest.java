package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A decision carries a registered reason or is not made at all. */
class DecisionTest {

    @Test
    void aReasonThatIsNotRegisteredIsRefusedWhenTheDecisionIsMade() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Decision(Action.SKIP,
                "Pod", null, new Decision.HostRef("team-dev", "web"), "SomethingElse", "message", null, null));
        assertTrue(e.getMessage().contains("SomethingElse") && e.getMessage().contains("Reasons"), e.getMessage());
    }

    @Test
    void everyRegisteredReasonMakesADecisionAndHasAMeaning() {
        for (var r : Reasons.all().entrySet()) {
            assertEquals(r.getKey(), new Decision(Action.SKIP, "Pod", null, null, r.getKey(), "m", null, null)
                    .reason());
            assertTrue(r.getValue().length() > 20, "the meaning of " + r.getKey() + " says what it is");
            assertTrue(r.getKey().matches("[A-Z][A-Za-z]+"), r.getKey() + " is CamelCase");
        }
    }
}
