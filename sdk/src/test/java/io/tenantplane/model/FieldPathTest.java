package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Field paths as a SyncPolicy writes them: parsing, finding, setting and removing. */
class FieldPathTest {

    private static JsonObject object() {
        return Json.gson().fromJson("""
                {"spec":{"tls":[{"secretName":"a"},{"secretName":"b"},{"other":1}],"name":"n",
                  "labels":{"example.com/team":"x"}}}""", JsonObject.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "spec.name|spec.name",
            "spec.tls[*].secretName|spec.tls[0].secretName,spec.tls[1].secretName",
            "spec.tls[1].secretName|spec.tls[1].secretName",
            "spec.tls[7].secretName|",
            "spec.labels[example.com/team]|spec.labels[example.com/team]",
            "spec.missing.name|"})
    void findsEveryValueThePathNames(String path, String expected) {
        List<String> found = new ArrayList<>();
        FieldPath.parse(path).forEach(object(), f -> found.add(f.path()));
        assertEquals(expected == null ? List.of() : List.of(expected.split(",")), found);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''|the path is empty",
            "spec.|ends with a dot",
            "spec.tls[0|is not closed",
            "spec.tls[]|empty brackets",
            "spec..name|expected a field name at position 6",
            "spec.na me|unexpected ' ' at position 8"})
    void refusesBadPathsNamingWhereAndTheFix(String path, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FieldPath.parse(path));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void setCreatesObjectsButNeverListItems() {
        JsonObject o = object();
        assertEquals(1, FieldPath.parse("spec.issuerRef.name").set(o, new JsonPrimitive("ca")));
        assertEquals("ca", Json.string(o, "spec", "issuerRef", "name"));
        assertEquals(3, FieldPath.parse("spec.tls[*].secretName").set(o, new JsonPrimitive("s")));
        assertEquals(0, FieldPath.parse("spec.missing[*].x").set(o, new JsonPrimitive("s")));
        assertEquals(0, FieldPath.parse("spec.tls[9]").set(o, new JsonPrimitive("s")));
        assertEquals("s", Json.string(o.getAsJsonObject("spec").getAsJsonArray("tls").get(2).getAsJsonObject(),
                "secretName"));
    }

    @Test
    void removeTakesFieldsAndListItems() {
        JsonObject o = object();
        assertEquals(2, FieldPath.parse("spec.tls[*].secretName").remove(o));
        assertEquals(1, FieldPath.parse("spec.tls[0]").remove(o));
        assertEquals(2, o.getAsJsonObject("spec").getAsJsonArray("tls").size());
        assertEquals(1, FieldPath.parse("spec.labels[example.com/team]").remove(o));
        assertEquals(0, FieldPath.parse("spec.nothing").remove(o));
        assertEquals(2, FieldPath.parse("spec.tls[*]").remove(o));
        assertEquals(0, o.getAsJsonObject("spec").getAsJsonArray("tls").size());
    }
}
