package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The source hash is stored on every host object ({@code tenantplane.io/source-hash}); a different value for the same
 * desired object would make the planner rewrite every host object after an upgrade. These hashes are pinned: they
 * were computed by the first implementation (deep copy, {@code Gson.toJson} per key, {@code BigDecimal} per number)
 * and must never change.
 */
class CanonicalTest {

    /** Objects parsed from JSON text (numbers are gson's lazily parsed numbers, as read from an API server). */
    private static final String[][] PARSED = {
        {"a typical ConfigMap with the reason and hash annotations present", """
            {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app-config-x-ns-1-x-bench",
             "namespace":"tenant-bench","labels":{"app":"app","tenantplane.io/tenant":"bench"},
             "annotations":{"team.example.com/owner":"team-1","tenantplane.io/reason":"NotOnHost",
             "tenantplane.io/source-hash":"0123456789abcdef"}},
             "data":{"LOG_LEVEL":"info","app.properties":"server.port=8080\\nserver.threads=16\\n"}}""",
            "8c90f5e68240143b"},
        {"the same ConfigMap without the reason and hash annotations, in another key order", """
            {"data":{"app.properties":"server.port=8080\\nserver.threads=16\\n","LOG_LEVEL":"info"},
             "metadata":{"annotations":{"team.example.com/owner":"team-1"},"namespace":"tenant-bench",
             "name":"app-config-x-ns-1-x-bench","labels":{"tenantplane.io/tenant":"bench","app":"app"}},
             "kind":"ConfigMap","apiVersion":"v1"}""",
            "8c90f5e68240143b"},
        {"escapes and unicode in keys and values", """
            {"quote\\"key":"a \\"quoted\\" value","back\\\\slash":"c:\\\\dir","":"empty key",
             "controls":"nl\\n tab\\t cr\\r bs\\b ff\\f nul\\u0000 soh\\u0001 us\\u001f del\\u007f",
             "html":"<b>&amp;='x'</b>","latin":"\u00e9\u00e8\u00fc\u00df","cjk":"\u4e2d\u6587",
             "emoji":"\ud83d\ude00","separators":"\\u2028 and \\u2029","slash":"a/b\\/c",
             "lone":"\\ud800 high only","\u00e9":"sorted by UTF-16","Z":"upper before lower","a":1}""",
            "6cc9efde76042e92"},
        {"numbers: integers, decimals, exponents and large values", """
            {"zero":0,"negZero":-0,"one":1,"minus":-1,"hundred":100,"oneDotZero":1.0,"onePointFive0":1.50,
             "exp":2.5e3,"expUpper":1E+2,"tiny":1e-7,"pi":3.14159,"tenth":0.1,"negDecimal":-12.340,
             "long":9223372036854775807,"minLong":-9223372036854775808,"big":12345678901234567890123,
             "bigDecimal":12345678901234567890.12345678901234567890,"decimalZero":0.000}""",
            "64d339c3b2472b9d"},
        {"nested arrays, objects, nulls and booleans", """
            {"arr":[[1,[2,[]]],{},[{"b":1,"a":[null,true,false]}],"s",null],"n":null,"t":true,"f":false,
             "o":{"inner":{"deeper":[{"z":{},"y":[]}]}},"empty":{},"emptyArr":[]}""",
            "23920a4f480c1d03"},
        {"reason and hash annotations elsewhere than metadata.annotations are hashed", """
            {"kind":"Deployment","metadata":{"annotations":{"tenantplane.io/reason":"x"}},
             "spec":{"template":{"metadata":{"annotations":{"tenantplane.io/reason":"Synced",
             "tenantplane.io/source-hash":"ffff"}}}},"annotations":{"tenantplane.io/source-hash":"top"}}""",
            "a59c4e4bd703b486"},
        {"annotations that are not an object, and metadata that is not an object", """
            {"metadata":{"annotations":"tenantplane.io/reason"},"other":{"metadata":{"annotations":null}}}""",
            "1738e63929968091"},
        {"metadata that is an array", """
            {"metadata":[{"annotations":{"tenantplane.io/reason":"r"}}]}""",
            "700d8d683b728277"},
        {"annotations that hold only the reason", """
            {"metadata":{"annotations":{"tenantplane.io/reason":"InSync"},"name":"n"}}""",
            "9407930f89934614"},
    };

    @TestFactory
    Stream<DynamicTest> sourceHashesOfParsedObjectsNeverChange() {
        return Stream.of(PARSED).map(c -> DynamicTest.dynamicTest(c[0], () -> {
            JsonObject o = Json.gson().fromJson(c[1], JsonObject.class);
            JsonObject before = o.deepCopy();
            assertEquals(c[2], Canonical.sourceHash(o));
            assertEquals(before, o, "hashing must not modify the object");
        }));
    }

    @Test
    void sourceHashesOfBuiltObjectsWithJavaNumberTypesNeverChange() {
        JsonObject o = new JsonObject();
        o.addProperty("int", 42);
        o.addProperty("negInt", -7);
        o.addProperty("intZero", 0);
        o.addProperty("long", 1234567890123456789L);
        o.addProperty("minLong", Long.MIN_VALUE);
        o.addProperty("short", (short) 12);
        o.addProperty("byte", (byte) -3);
        o.addProperty("double", 1.0);
        o.addProperty("doubleTenth", 0.1);
        o.addProperty("doubleBig", 1e20);
        o.addProperty("doubleSmall", 1.5e-10);
        o.addProperty("doubleNegZero", -0.0);
        o.addProperty("float", 1.5f);
        o.addProperty("bigDecimal", new BigDecimal("1.000"));
        o.addProperty("bigDecimalExp", new BigDecimal("1E+3"));
        o.addProperty("bigInteger", new BigInteger("98765432109876543210987654321"));
        o.addProperty("char", 'c');
        o.addProperty("bool", true);
        o.add("null", JsonNull.INSTANCE);
        JsonArray a = new JsonArray();
        a.add(1);
        a.add(2.50);
        a.add("three");
        a.add(JsonNull.INSTANCE);
        a.add(new JsonArray());
        o.add("array", a);
        assertEquals("c16f5cb5e5016f75", Canonical.sourceHash(o));
    }

    @Test
    void theSourceHashOfATransformedPodNeverChanges() {
        JsonObject pod = Json.gson().fromJson("""
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default","uid":"u-1",
             "labels":{"app":"web"},"annotations":{"note":"h\\u00e9llo \\"x\\""}},
             "spec":{"containers":[{"name":"c","image":"nginx:1.27","ports":[{"containerPort":8080}],
             "resources":{"limits":{"cpu":0.5,"memory":"64Mi"}},
             "envFrom":[{"configMapRef":{"name":"cfg"}}]}],"terminationGracePeriodSeconds":30}}""", JsonObject.class);
        Transformer t = new Transformer("dev", "tenant-dev", io.tenantplane.model.SyncPolicy.defaultPolicy(),
                TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED));
        JsonObject host = ((TransformResult.Transformed) t.transform(pod)).host();
        assertEquals("14fd9ebb579083a9", Json.annotations(host).get(ReverseMapping.SOURCE_HASH));
    }

    /** Random trees with awkward keys, strings and number types: the hash equals the first implementation's. */
    @Test
    void sourceHashesOfRandomTreesEqualTheFirstImplementation() {
        Random random = new Random(7);
        for (int i = 0; i < 3000; i++) {
            JsonObject o = randomObject(random, 0);
            if (random.nextBoolean()) {
                JsonObject ann = Json.child(o, "metadata", "annotations");
                ann.addProperty(ReverseMapping.REASON, "InSync");
                if (random.nextBoolean()) {
                    ann.addProperty(ReverseMapping.SOURCE_HASH, "abc");
                }
            }
            assertEquals(FirstImplementation.sourceHash(o), Canonical.sourceHash(o), () -> o.toString());
        }
    }

    @Test
    void surrogatePairsAndUnpairedSurrogatesAreEncodedAsTheFirstImplementationEncodedThem() {
        for (String s : List.of("\ud83d\ude00", "x\ud83d", "\ude00x", "\ud83d\ud83d\ude00", "\ude00\ud83d", "\ud800")) {
            JsonObject o = new JsonObject();
            o.addProperty(s, s);
            assertArrayEquals(FirstImplementation.json(o).getBytes(StandardCharsets.UTF_8), Canonical.utf8(o), s);
        }
    }

    @Test
    void everyCharacterIsWrittenAsGsonWritesIt() {
        for (int c = 0; c <= Character.MAX_VALUE; c++) {
            String s = "a" + (char) c + "b";
            JsonObject o = new JsonObject();
            o.addProperty(s, s);
            assertArrayEquals(FirstImplementation.json(o).getBytes(StandardCharsets.UTF_8), Canonical.utf8(o),
                    "character " + Integer.toHexString(c));
        }
    }

    private static JsonObject randomObject(Random r, int depth) {
        JsonObject o = new JsonObject();
        int n = r.nextInt(depth == 0 ? 8 : 5);
        for (int i = 0; i < n; i++) {
            o.add(randomString(r), randomElement(r, depth + 1));
        }
        if (depth == 0 && r.nextInt(3) == 0) {
            o.add("metadata", randomObject(r, depth + 1));
        }
        return o;
    }

    private static JsonElement randomElement(Random r, int depth) {
        int pick = r.nextInt(depth > 3 ? 4 : 6);
        return switch (pick) {
            case 0 -> new JsonPrimitive(randomString(r));
            case 1 -> randomNumber(r);
            case 2 -> r.nextInt(4) == 0 ? JsonNull.INSTANCE : new JsonPrimitive(r.nextBoolean());
            case 3 -> new JsonPrimitive(randomString(r));
            case 4 -> randomObject(r, depth);
            default -> {
                JsonArray a = new JsonArray();
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(randomElement(r, depth + 1));
                }
                yield a;
            }
        };
    }

    private static JsonElement randomNumber(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> new JsonPrimitive(r.nextInt());
            case 1 -> new JsonPrimitive(r.nextLong());
            case 2 -> new JsonPrimitive(r.nextInt(1000) / 10.0);
            case 3 -> new JsonPrimitive(r.nextDouble() * Math.pow(10, r.nextInt(40) - 20));
            case 4 -> new JsonPrimitive(new BigDecimal(BigInteger.valueOf(r.nextLong()), r.nextInt(10) - 5));
            case 5 -> new JsonPrimitive(new BigInteger(100, r).negate());
            case 6 -> new JsonPrimitive((float) r.nextGaussian());
            case 7 -> Json.gson().fromJson(String.valueOf(r.nextInt(2000) - 1000), JsonElement.class);
            case 8 -> Json.gson().fromJson(r.nextInt(100) + "." + r.nextInt(100) + "e" + (r.nextInt(10) - 5), JsonElement.class);
            default -> Json.gson().fromJson((r.nextBoolean() ? "-" : "") + Math.abs(r.nextLong()) + "" + r.nextInt(1000), JsonElement.class);
        };
    }

    private static String randomString(Random r) {
        String alphabet = "abcxyzABC019-._/:\"\\\n\t\r\b\f\u0000\u0001\u001f\u007f\u0080<>&='\u00e9\u2028\u2029\u4e2d\ud83d\ude00\ud800\udfff ";
        int n = r.nextInt(6);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        if (r.nextInt(8) == 0) {
            sb.append(r.nextBoolean() ? ReverseMapping.REASON : "annotations");
        }
        return sb.toString();
    }

    /** The first implementation of the source hash, kept verbatim as the reference. */
    private static final class FirstImplementation {

        static String sourceHash(JsonObject host) {
            JsonObject copy = host.deepCopy();
            JsonObject ann = Json.object(copy, "metadata", "annotations");
            if (ann != null) {
                ann.remove(ReverseMapping.REASON);
                ann.remove(ReverseMapping.SOURCE_HASH);
            }
            return HostNames.sha256Hex(json(copy)).substring(0, 16);
        }

        static String json(JsonElement e) {
            StringBuilder sb = new StringBuilder();
            write(e, sb);
            return sb.toString();
        }

        private static void write(JsonElement e, StringBuilder sb) {
            if (e == null || e.isJsonNull()) {
                sb.append("null");
            } else if (e.isJsonObject()) {
                List<String> keys = new ArrayList<>(e.getAsJsonObject().keySet());
                Collections.sort(keys);
                sb.append('{');
                for (int i = 0; i < keys.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append(Json.gson().toJson(keys.get(i))).append(':');
                    write(e.getAsJsonObject().get(keys.get(i)), sb);
                }
                sb.append('}');
            } else if (e.isJsonArray()) {
                sb.append('[');
                for (int i = 0; i < e.getAsJsonArray().size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(e.getAsJsonArray().get(i), sb);
                }
                sb.append(']');
            } else {
                JsonPrimitive p = e.getAsJsonPrimitive();
                if (p.isNumber()) {
                    sb.append(p.getAsBigDecimal().stripTrailingZeros().toPlainString());
                } else {
                    sb.append(Json.gson().toJson(p));
                }
            }
        }
    }
}
