package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pruning, defaulting and validation of custom resources, table-driven from {@code fixtures/schema-cases.yaml}. */
class SchemaValidatorTest {
    private static final JsonObject FILE = Fixtures.object("schema-cases.yaml");

    static Stream<Named<JsonObject>> cases() {
        List<Named<JsonObject>> cases = new ArrayList<>();
        FILE.getAsJsonArray("cases").forEach(c -> cases.add(Named.of(Json.str(c.getAsJsonObject(), "name"),
                c.getAsJsonObject())));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reportsTheCausesARealServerReports(JsonObject c) {
        JsonObject object = Json.obj(c, "object").deepCopy();
        List<String> unknown = new ArrayList<>();
        SchemaValidator.pruneAndDefault(object, Json.obj(FILE, "schema"), unknown);
        List<ApiError.Cause> causes = new ArrayList<>();
        SchemaValidator.validate(object, Json.obj(FILE, "schema"), causes);

        List<JsonElement> expected = Json.arr(c, "causes").asList();
        assertEquals(expected.size(), causes.size(), () -> "causes: " + causes);
        for (int i = 0; i < expected.size(); i++) {
            JsonObject want = expected.get(i).getAsJsonObject();
            ApiError.Cause got = causes.get(i);
            assertEquals(Json.str(want, "field"), got.field(), () -> "causes: " + causes);
            assertEquals(Json.str(want, "reason"), got.reason(), () -> "causes: " + causes);
            String message = Json.str(want, "message");
            assertTrue(message == null || got.message().contains(message), () -> got.message() + " lacks " + message);
        }
        if (c.has("unknown")) {
            assertEquals(Json.arr(c, "unknown").asList().stream().map(JsonElement::getAsString).toList(), unknown);
        }
        if (c.has("result")) {
            assertTrue(Json.same(c.get("result"), object), () -> "expected " + c.get("result") + "\n but got " + object);
        }
    }
}
