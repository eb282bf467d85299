package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

class DifferencesTest {

    private static JsonObject json(String text) {
        return Json.gson().fromJson(text, JsonObject.class);
    }

    private static List<String> paths(String desired, String observed) {
        return Differences.of(json(desired), json(observed)).stream().map(Differences.Difference::path).toList();
    }

    @Test
    void pathsNameKeysIndicesAndKeysThatAreNotPlainWords() {
        assertEquals(List.of("spec.containers[1].image", "metadata.labels[\"app.kubernetes.io/name\"]",
                        "[\"odd key\"].inner", "data[\"\"]"),
                paths("""
                        {"spec":{"containers":[{"image":"a"},{"image":"b"}]},
                         "metadata":{"labels":{"app.kubernetes.io/name":"x","same":"s"}},
                         "odd key":{"inner":1},"data":{"":"v"}}""",
                      """
                        {"spec":{"containers":[{"image":"a"},{"image":"c"}]},
                         "metadata":{"labels":{"app.kubernetes.io/name":"y","same":"s"}},
                         "odd key":{"inner":2},"data":{}}"""));
    }

    @Test
    void theReasonAndHashAnnotationsAreNotComparedAnywhereElseTheyAre() {
        assertEquals(List.of("spec.annotations[\"tenantplane.io/reason\"]"), paths("""
                {"metadata":{"annotations":{"tenantplane.io/reason":"a","tenantplane.io/source-hash":"1"}},
                 "spec":{"annotations":{"tenantplane.io/reason":"a"}}}""", """
                {"metadata":{"annotations":{"tenantplane.io/reason":"b","tenantplane.io/source-hash":"2"}},
                 "spec":{"annotations":{"tenantplane.io/reason":"b"}}}"""));
    }

    @Test
    void numbersCompareByValueAndZeroValuesMatchAbsentFields() {
        JsonObject desired = new JsonObject();
        desired.addProperty("int", 3);
        desired.addProperty("long", 3L);
        desired.addProperty("zero", 0);
        desired.addProperty("off", false);
        desired.addProperty("empty", "");
        desired.addProperty("big", 9_007_199_254_740_993L);
        JsonObject observed = json("{\"int\":3.0,\"long\":3,\"big\":9007199254740993}");
        assertEquals(List.of(), Differences.of(desired, observed));
        observed.addProperty("big", 9_007_199_254_740_992L);
        observed.addProperty("zero", 0.0);
        observed.addProperty("int", 4);
        assertEquals(List.of("int", "big"), Differences.of(desired, observed).stream().map(Differences.Difference::path).toList());
    }

    @Test
    void fieldsAreFoundWhateverOrderTheHostKeepsThemIn() {
        assertEquals(List.of("spec.b", "spec.d"), paths("""
                {"spec":{"a":1,"b":2,"c":3,"d":4,"e":5}}""", """
                {"spec":{"x":0,"c":3,"a":1,"b":5,"e":5,"extra":true}}"""));
    }
}
