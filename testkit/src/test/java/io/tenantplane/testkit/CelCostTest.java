package io.tenantplane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The estimated cost of a rule, against the API server's own table ({@code TestCostEstimation} in
 * {@code staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation_test.go}): each case once
 * without bounds (sizes from what fits in a request) and once with {@code maxItems}, {@code maxProperties} or
 * {@code maxLength} set, with upstream's expected costs.
 */
class CelCostTest {

    /** The schema generators of compilation_test.go; {@code %s} is the bound, or absent. */
    private static String array(String type, String max) {
        return "{\"type\":\"array\",\"items\":" + scalar(type) + bound("maxItems", max) + "}";
    }

    private static String map(String type, String max) {
        return "{\"type\":\"object\",\"additionalProperties\":" + scalar(type) + bound("maxProperties", max) + "}";
    }

    /** A scalar schema as {@code parseRuleType} makes it: a format of string, int-or-string, or a type. */
    private static String scalar(String type) {
        return switch (type) {
            case "duration", "date", "date-time" -> "{\"type\":\"string\",\"format\":\"" + type + "\"}";
            case "int-or-string" -> "{\"x-kubernetes-int-or-string\":true}";
            default -> "{\"type\":\"" + type + "\"}";
        };
    }

    private static String string(String max) {
        return "{\"type\":\"string\"" + bound("maxLength", max) + "}";
    }

    private static String objects(String max) {
        return "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"required\":[\"required\"],\"properties\":"
                + "{\"required\":{\"type\":\"string\"},\"optional\":{\"type\":\"string\"}}}" + bound("maxItems", max)
                + "}";
    }

    private static String bound(String name, String max) {
        return max == null ? "" : ",\"" + name + "\":" + max;
    }

    static Stream<Arguments> upstream() {
        return Stream.of(
                Arguments.of("number array with all", array("number", null), "self.all(x, true)", 4718591L),
                Arguments.of("number array with all, maxItems 10", array("number", "10"), "self.all(x, true)", 32L),
                Arguments.of("string array with all", array("string", null), "self.all(x, true)", 3145727L),
                Arguments.of("string array with all, maxItems 20", array("string", "20"), "self.all(x, true)", 62L),
                Arguments.of("boolean array with all", array("boolean", null), "self.all(x, true)", 1887437L),
                Arguments.of("array of objects with all", objects(null), "self.all(x, true)", 555128L),
                Arguments.of("array of objects with all, maxItems 50", objects("50"), "self.all(x, true)", 152L),
                Arguments.of("map of numbers with all", map("number", null), "self.all(x, true)", 1348169L),
                Arguments.of("map of strings with all", map("string", null), "self.all(x, true)", 1179647L),
                Arguments.of("map of strings with all, maxProperties 3", map("string", "3"), "self.all(x, true)", 11L),
                Arguments.of("map of booleans with all", map("boolean", null), "self.all(x, true)", 943718L),
                Arguments.of("string with contains", string(null), "self.contains('test')", 314574L),
                Arguments.of("string with contains, maxLength 10", string("10"), "self.contains('test')", 5L),
                Arguments.of("string with startsWith", string(null), "self.startsWith('test')", 2L),
                Arguments.of("concat string", string(null), "size(self + \"hello\") > size(\"hello\")", 314578L),
                Arguments.of("concat string, maxLength 4", string("4"), "size(self + \"hello\") > size(\"hello\")",
                        7L),
                Arguments.of("index of array with numbers", array("number", null), "self[1] == 0.0", 2L),
                Arguments.of("index of array with strings", array("string", null), "self[1] == self[1]", 314577L),
                Arguments.of("O(n^2) loop with numbers, maxItems 10", array("number", "10"),
                        "self.all(x, self.all(y, true))", 352L),
                Arguments.of("O(n^3) loop with numbers, maxItems 10", array("number", "10"),
                        "self.all(x, self.all(y, self.all(z, true)))", 3552L),
                Arguments.of("regex matches simple", string(null), "self.matches(\"x\")", 314574L),
                Arguments.of("regex matches simple, maxLength 50", string("50"), "self.matches(\"x\")", 22L),
                Arguments.of("regex matches empty string", string(null), "\"\".matches(\"(((((((((())))))))))[0-9]\")",
                        7L),
                Arguments.of("regex matches empty regex", string(null), "self.matches(\"\")", 1L),
                Arguments.of("set string maxLength to zero", string("0"), "self == \"x\"", 1L),
                Arguments.of("set string maxLength unset", string(null), "self == \"x\"", 2L),
                Arguments.of("maxItems above the estimate", array("number", String.valueOf(3 * 1024 * 2048)),
                        "self.all(x, x == 0.0)", 25165826L),
                Arguments.of("int-or-string array with all", array("int-or-string", null), "self.all(x, true)",
                        4718591L),
                Arguments.of("index of array with int-or-strings", array("int-or-string", null), "self[0] == 5", 3L),
                Arguments.of("duration array with all", array("duration", null), "self.all(x, true)", 2359295L),
                Arguments.of("index of duration array", array("duration", null), "self[0].getHours() == 2", 4L),
                Arguments.of("date array with all", array("date", null), "self.all(x, true)", 725936L),
                Arguments.of("date-time array with all", array("date-time", null), "self.all(x, true)", 428963L),
                Arguments.of("map of durations with all", map("duration", null), "self.all(x, true)", 1048577L),
                Arguments.of("map of date-times with all", map("date-time", null), "self.all(x, true)", 349526L),
                Arguments.of("extended library regex find", string(null), "self.find('[0-9]+') == ''", 629147L),
                Arguments.of("extended library regex find, maxLength 10", string("10"), "self.find('[0-9]+') == ''",
                        11L),
                Arguments.of("extended library lowerAscii", string(null), "self.lowerAscii() == 'lower!'", 314575L),
                Arguments.of("check cost of size call", map("integer", null), "oldSelf.size() == self.size()", 5L),
                Arguments.of("check cost of timestamp comparison", map("date-time", null), "self[\"a\"] == self[\"b\"]",
                        8L),
                Arguments.of("enum with its longest value", "{\"type\":\"string\",\"enum\":[\"A\",\"B\",\"C\","
                        + "\"LongValue\"]}", "self.contains('A')", 2L),
                Arguments.of("enum with maxLength 1000", "{\"type\":\"string\",\"maxLength\":1000,\"enum\":[\"A\","
                        + "\"B\",\"C\",\"LongValue\"]}", "self.contains('A')", 401L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("upstream")
    void theEstimateIsTheApiServers(String name, String schema, String rule, long expected) {
        JsonObject s = JsonParser.parseString(schema).getAsJsonObject();
        assertEquals(expected, CelRules.estimatedCost(s, rule), name);
    }

    @org.junit.jupiter.api.Test
    void anUnboundedLoopInALoopIsOverTheRuleLimit() {
        long cost = CelRules.estimatedCost(JsonParser.parseString(array("number", null)).getAsJsonObject(),
                "self.all(x, self.all(y, true))");
        assertTrue(cost > CelCost.RULE_LIMIT, "O(n^2) over an unbounded list: " + cost);
    }

    @org.junit.jupiter.api.Test
    void theMessageSaysByHowMuch() {
        assertEquals("estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or "
                + "adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
                CelCost.exceeds("estimated rule cost", 2_000_000_000L, CelCost.RULE_LIMIT));
        assertEquals("estimated rule cost exceeds budget by factor of 2.5x (try simplifying the rule, or adding "
                + "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
                CelCost.exceeds("estimated rule cost", 25_000_000L, CelCost.RULE_LIMIT));
        assertEquals("x exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, "
                + "maxProperties, and maxLength where arrays, maps, and strings are declared)",
                CelCost.exceeds("x", 12_000_000L, CelCost.RULE_LIMIT));
    }
}
