package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** A decision carries a registered reason, and the objects its action needs, or is not made at all. */
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

    @Test
    void aFactoryRefusesADecisionWithoutTheObjectsItsActionNeeds() {
        Decision.HostRef h = new Decision.HostRef("team-dev", "web");
        JsonObject o = new JsonObject();
        Map<String, Supplier<Decision>> refused = Map.of(
                "desired of Create decision", () -> Decision.create("Pod", null, h, Reasons.NOT_ON_HOST, "m", null),
                "desired of Update decision", () -> Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", null,
                        o),
                "observed of Update decision", () -> Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", o,
                        null),
                "observed of Unchanged decision", () -> Decision.unchanged("Pod", null, h, Reasons.IN_SYNC, "m", o,
                        null),
                "observed of Delete decision", () -> Decision.delete("Pod", null, h, Reasons.SOURCE_DELETED, "m", null,
                        null),
                "observed of Update decision ", () -> Decision.binding(null, h, Reasons.BOUND_TO_NODE, "m", null));
        refused.forEach((message, make) -> {
            NullPointerException e = assertThrows(NullPointerException.class, make::get, message);
            assertEquals(message.strip(), e.getMessage());
        });
    }

    @Test
    void eachFactoryMakesItsActionWithTheObjectsItWasGiven() {
        Decision.HostRef h = new Decision.HostRef("team-dev", "web");
        JsonObject want = new JsonObject();
        JsonObject seen = new JsonObject();
        seen.addProperty("kind", "Pod");
        assertEquals(new Decision(Action.CREATE, "Pod", null, h, Reasons.NOT_ON_HOST, "m", want, null),
                Decision.create("Pod", null, h, Reasons.NOT_ON_HOST, "m", want));
        assertEquals(new Decision(Action.DELETE, "Pod", null, h, Reasons.SOURCE_DELETED, "m", null, seen),
                Decision.delete("Pod", null, h, Reasons.SOURCE_DELETED, "m", null, seen));
        assertEquals(new Decision(Action.SKIP, "Pod", null, h, Reasons.KIND_NOT_SYNCED, "m", null, null),
                Decision.skip("Pod", null, h, Reasons.KIND_NOT_SYNCED, "m", null));
        assertEquals(new Decision(Action.CONFLICT, "Pod", null, h, Reasons.NAME_COLLISION, "m", null, null),
                Decision.conflict("Pod", null, h, Reasons.NAME_COLLISION, "m", null), "two tenant objects, one name");
        assertEquals(new Decision(Action.ERROR, "Pod", null, h, Reasons.INVALID_SOURCE, "m", null, seen),
                Decision.error("Pod", null, h, Reasons.INVALID_SOURCE, "m", seen));
        assertEquals(new Decision(Action.UPDATE, "Pod", null, h, Reasons.BOUND_TO_NODE, "m", null, seen),
                Decision.binding(null, h, Reasons.BOUND_TO_NODE, "m", seen));
        Decision d = Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", want, seen);
        assertEquals("m; more", d.withMessage("m; more").message());
        assertEquals(new Decision(Action.UPDATE, "Pod", null, h, Reasons.SOURCE_CHANGED, "m", null, null),
                d.withObjects(null, null), "what a ring keeps");
    }
}
