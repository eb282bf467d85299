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
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Decision.skip(
                "Pod", null, new Decision.HostRef("team-dev", "web"), "SomethingElse", "message", null));
        assertTrue(e.getMessage().contains("SomethingElse") && e.getMessage().contains("Reasons"), e.getMessage());
    }

    @Test
    void everyRegisteredReasonMakesADecisionAndHasAMeaning() {
        for (var r : Reasons.all().entrySet()) {
            assertEquals(r.getKey(), Decision.skip("Pod", null, null, r.getKey(), "m", null).reason());
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
        record Row(Decision d, Class<?> type, Action action, JsonObject desired, JsonObject observed) { }
        for (Row r : java.util.List.of(
                new Row(Decision.create("Pod", null, h, Reasons.NOT_ON_HOST, "m", want), Decision.Create.class,
                        Action.CREATE, want, null),
                new Row(Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", want, seen),
                        Decision.Update.class, Action.UPDATE, want, seen),
                new Row(Decision.unchanged("Pod", null, h, Reasons.IN_SYNC, "m", null, seen),
                        Decision.Unchanged.class, Action.UNCHANGED, null, seen),
                new Row(Decision.delete("Pod", null, h, Reasons.SOURCE_DELETED, "m", null, seen),
                        Decision.Delete.class, Action.DELETE, null, seen),
                new Row(Decision.skip("Pod", null, h, Reasons.KIND_NOT_SYNCED, "m", null), Decision.Skip.class,
                        Action.SKIP, null, null),
                new Row(Decision.conflict("Pod", null, h, Reasons.NAME_COLLISION, "m", null),
                        Decision.Conflict.class, Action.CONFLICT, null, null),
                new Row(Decision.error("Pod", null, h, Reasons.INVALID_SOURCE, "m", seen), Decision.Error.class,
                        Action.ERROR, null, seen),
                new Row(Decision.binding(null, h, Reasons.BOUND_TO_NODE, "m", seen), Decision.Bind.class,
                        Action.UPDATE, null, seen),
                new Row(Decision.summary(Action.DELETE, "Pod", null, h, Reasons.SOURCE_DELETED, "m"),
                        Decision.Summary.class, Action.DELETE, null, null))) {
            assertEquals(r.type(), r.d().getClass(), r.d().toString());
            assertEquals(r.action(), r.d().action(), r.d().toString());
            assertEquals("Pod", r.d().kind());
            assertEquals(h, r.d().host());
            assertTrue(r.desired() == r.d().desired() && r.observed() == r.d().observed(), r.d().toString());
        }
    }

    @Test
    void aDecisionKeepsItsActionThroughAnotherMessageOrOtherObjectsAndRefusesObjectsItsActionTakesNot() {
        Decision.HostRef h = new Decision.HostRef("team-dev", "web");
        JsonObject want = new JsonObject();
        JsonObject seen = new JsonObject();
        Decision d = Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", want, seen);
        assertEquals("m; more", d.withMessage("m; more").message());
        assertEquals(Decision.Update.class, d.withMessage("m; more").getClass());
        assertEquals(Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", seen, want), d.withObjects(seen, want));
        NullPointerException npe = assertThrows(NullPointerException.class, () -> d.withObjects(null, seen));
        assertEquals("desired of Update decision", npe.getMessage());
        Decision create = Decision.create("Pod", null, h, Reasons.NOT_ON_HOST, "m", want);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> create.withObjects(want, seen));
        assertEquals("a Create decision has no observed object", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Decision.skip("Pod", null, h, Reasons.KIND_NOT_SYNCED, "m",
                null).withObjects(want, null));
        assertThrows(IllegalArgumentException.class, () -> Decision.summary(Action.UPDATE, "Pod", null, h,
                Reasons.SOURCE_CHANGED, "m").withObjects(want, seen));
    }

    @Test
    void withoutItsObjectsADecisionIsASummaryOfTheSameActionOrTheSameDecisionWithoutWhatItObserved() {
        Decision.HostRef h = new Decision.HostRef("team-dev", "web");
        JsonObject want = new JsonObject();
        JsonObject seen = new JsonObject();
        assertEquals(Decision.summary(Action.UPDATE, "Pod", null, h, Reasons.SOURCE_CHANGED, "m"),
                Decision.update("Pod", null, h, Reasons.SOURCE_CHANGED, "m", want, seen).withoutObjects(),
                "what a ring keeps");
        assertEquals(Decision.summary(Action.UPDATE, "Pod", null, h, Reasons.BOUND_TO_NODE, "m"),
                Decision.binding(null, h, Reasons.BOUND_TO_NODE, "m", seen).withoutObjects());
        assertEquals(Decision.conflict("Pod", null, h, Reasons.FOREIGN_OBJECT, "m", null),
                Decision.conflict("Pod", null, h, Reasons.FOREIGN_OBJECT, "m", seen).withoutObjects());
        Decision bare = Decision.skip("Pod", null, h, Reasons.KIND_NOT_SYNCED, "m", null);
        assertTrue(bare == bare.withoutObjects(), "a decision without objects is kept as it is");
    }

    @Test
    void everyActionIsOneKindOfDecisionAndASwitchOverThemIsExhaustive() {
        Decision.HostRef h = new Decision.HostRef("team-dev", "web");
        JsonObject seen = new JsonObject();
        Decision d = Decision.delete("Pod", null, h, Reasons.SOURCE_DELETED, "m", null, seen);
        // No default branch: the compiler refuses this switch if a kind of decision is added and not handled here.
        String writes = switch (d) {
            case Decision.Create c -> "POST";
            case Decision.Update u -> "PUT";
            case Decision.Bind b -> "POST binding";
            case Decision.Delete x -> "DELETE";
            case Decision.Unchanged u -> "nothing";
            case Decision.Skip x -> "nothing";
            case Decision.Conflict x -> "nothing";
            case Decision.Error x -> "nothing";
            case Decision.Summary x -> "unknown";
        };
        assertEquals("DELETE", writes);
    }
}
