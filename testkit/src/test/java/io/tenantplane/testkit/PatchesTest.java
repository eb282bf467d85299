package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three patch formats, table-driven from {@code fixtures/patches.yaml}. */
class PatchesTest {
    static Stream<Named<JsonObject>> cases() {
        return Fixtures.cases("patches.yaml").stream().map(c -> Named.of(Json.str(c, "name"), c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void patchGivesTheExpectedObject(JsonObject c) {
        JsonObject original = Json.obj(c, "original").deepCopy();
        JsonElement patch = c.get("patch");
        JsonElement result = switch (Json.str(c, "type")) {
            case "merge" -> Patches.mergePatch(original, patch);
            case "json" -> Patches.jsonPatch(original, patch);
            case "strategic" -> Patches.strategicMergePatch(original, patch.getAsJsonObject(),
                    Fixtures.builtin(Json.str(c, "resource")));
            default -> throw new IllegalArgumentException(Json.str(c, "type"));
        };
        assertTrue(Json.same(c.get("expected"), result), () -> "expected " + c.get("expected") + "\n but got "
                + result);
    }
}
