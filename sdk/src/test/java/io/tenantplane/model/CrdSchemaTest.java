package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CRDs in k8s/crds and the records say the same: every record field is in the schema and every schema field is
 * in the record, with the same type, the same enum values and the same required fields; the schemas are structural
 * and describe every field; and the defaults the API server applies are the ones {@code withDefaults()} applies.
 */
class CrdSchemaTest {

    /** String fields whose schema carries an enum that Java checks in validation instead of with a Java enum. */
    private static final Map<String, List<String>> STRING_ENUMS = Map.of(
            "spec.kinds[].selector.matchExpressions[].operator", List.of("In", "NotIn", "Exists", "DoesNotExist"),
            "spec.fromHost[].selector.matchExpressions[].operator", List.of("In", "NotIn", "Exists", "DoesNotExist"));

    static Stream<Arguments> crds() {
        return Stream.of(
                Arguments.of("tenantclusters.tenantplane.io.yaml", TenantCluster.class, "TenantCluster", "tc"),
                Arguments.of("isolationprofiles.tenantplane.io.yaml", IsolationProfile.class, "IsolationProfile", "ip"),
                Arguments.of("syncpolicies.tenantplane.io.yaml", SyncPolicy.class, "SyncPolicy", "sp"));
    }

    private static JsonObject crd(String file) {
        List<LoadedObject> docs = Manifests.read(Fixtures.CRDS.resolve(file));
        assertEquals(1, docs.size());
        return docs.get(0).object();
    }

    private static JsonObject version(JsonObject crd) {
        JsonArray versions = crd.getAsJsonObject("spec").getAsJsonArray("versions");
        assertEquals(1, versions.size());
        return versions.get(0).getAsJsonObject();
    }

    private static JsonObject schema(String file) {
        return version(crd(file)).getAsJsonObject("schema").getAsJsonObject("openAPIV3Schema");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("crds")
    void schemaAndRecordHaveTheSameFieldsTypesEnumsAndRequiredFields(String file, Class<?> type) {
        List<String> mismatches = new ArrayList<>();
        compare(schema(file), type, null, "", mismatches);
        assertEquals(List.of(), mismatches);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("crds")
    void schemaIsStructuralAndDescribesEveryField(String file) {
        List<String> problems = new ArrayList<>();
        structural(schema(file), "", problems);
        assertEquals(List.of(), problems);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("crds")
    void crdIsNamespacedWithStatusShortNameAndCategory(String file, Class<?> type, String kind, String shortName) {
        JsonObject crd = crd(file);
        JsonObject spec = crd.getAsJsonObject("spec");
        assertEquals("apiextensions.k8s.io/v1", Json.string(crd, "apiVersion"));
        assertEquals(TenantCluster.GROUP, Json.string(spec, "group"));
        assertEquals("Namespaced", Json.string(spec, "scope"));
        assertEquals(kind, Json.string(spec, "names", "kind"));
        String plural = Json.string(spec, "names", "plural");
        assertEquals(plural + "." + TenantCluster.GROUP, Json.string(crd, "metadata", "name"));
        assertEquals(file, plural + "." + TenantCluster.GROUP + ".yaml");
        assertEquals(List.of(shortName), strings(spec.getAsJsonObject("names").getAsJsonArray("shortNames")));
        assertEquals(List.of("tenantplane"), strings(spec.getAsJsonObject("names").getAsJsonArray("categories")));
        JsonObject v = version(crd);
        assertEquals("v1alpha1", Json.string(v, "name"));
        assertTrue(v.getAsJsonObject("subresources").has("status"));
        List<String> columns = v.getAsJsonArray("additionalPrinterColumns").asList().stream()
                .map(c -> Json.string(c.getAsJsonObject(), "name")).toList();
        assertEquals("Age", columns.get(columns.size() - 1));
    }

    @Test
    void tenantClusterPrintsModePhaseReadyAndAge() {
        JsonArray columns = version(crd("tenantclusters.tenantplane.io.yaml")).getAsJsonArray("additionalPrinterColumns");
        Map<String, String> paths = columns.asList().stream().map(JsonElement::getAsJsonObject)
                .collect(Collectors.toMap(c -> Json.string(c, "name"), c -> Json.string(c, "jsonPath")));
        assertEquals(".spec.mode", paths.get("Mode"));
        assertEquals(".status.phase", paths.get("Phase"));
        assertEquals(".status.conditions[?(@.type==\"Ready\")].status", paths.get("Ready"));
        assertEquals(".metadata.creationTimestamp", paths.get("Age"));
    }

    static Stream<Arguments> minimalObjects() {
        return Stream.of(
                Arguments.of("tenantclusters.tenantplane.io.yaml", """
                        {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                         "metadata":{"name":"dev","namespace":"team-dev"},
                         "spec":{"isolationProfileRef":{"name":"p"},"syncPolicyRef":{"name":"s"}}}""",
                        (Function<JsonObject, JsonObject>) j -> TenantCluster.fromJson(j).orElseThrow().toJson(),
                        (Function<JsonObject, JsonObject>) j -> TenantCluster.fromJson(j).orElseThrow().withDefaults()
                                .toJson()),
                Arguments.of("isolationprofiles.tenantplane.io.yaml", """
                        {"apiVersion":"tenantplane.io/v1alpha1","kind":"IsolationProfile",
                         "metadata":{"name":"p","namespace":"team-dev"},"spec":{}}""",
                        (Function<JsonObject, JsonObject>) j -> IsolationProfile.fromJson(j).orElseThrow().toJson(),
                        (Function<JsonObject, JsonObject>) j -> IsolationProfile.fromJson(j).orElseThrow()
                                .withDefaults().toJson()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("minimalObjects")
    void theApiServersDefaultsAreTheRecordsDefaults(String file, String minimal,
                                                    Function<JsonObject, JsonObject> asRecord,
                                                    Function<JsonObject, JsonObject> withJavaDefaults) {
        JsonObject object = Json.gson().fromJson(minimal, JsonObject.class);
        JsonObject serverDefaulted = object.deepCopy();
        applyDefaults(serverDefaulted, schema(file));
        assertNotEquals(object, serverDefaulted, "the schema declares defaults");
        JsonObject server = asRecord.apply(serverDefaulted);
        JsonObject java = withJavaDefaults.apply(object);
        List<String> differences = new ArrayList<>();
        subset(server, java, "", differences);
        assertEquals(List.of(), differences, "server defaults " + server + " vs Java defaults " + java);
    }

    // --- the comparison -------------------------------------------------------------------------------------------

    private static void compare(JsonObject schema, Type type, RecordComponent component, String path,
                                List<String> out) {
        Class<?> raw = Structure.raw(type);
        String where = path.isEmpty() ? "<root>" : path;
        boolean intOrString = component != null && component.isAnnotationPresent(IntOrString.class);
        if (intOrString && raw == String.class) {
            if (!Boolean.TRUE.equals(bool(schema, "x-kubernetes-int-or-string"))) {
                out.add(where + ": a quantity in the record, but not x-kubernetes-int-or-string in the schema");
            }
            return;
        }
        String schemaType = Json.string(schema, "type");
        if (raw == String.class) {
            expectType(where, "string", schemaType, out);
            List<String> schemaEnum = schema.has("enum") ? strings(schema.getAsJsonArray("enum")) : null;
            List<String> expected = STRING_ENUMS.get(path.replaceAll("\\[\\d*]", "[]"));
            if (!java.util.Objects.equals(schemaEnum, expected)) {
                out.add(where + ": schema enum " + schemaEnum + ", Java validation allows " + expected);
            }
        } else if (raw == Integer.class || raw == int.class || raw == Long.class || raw == long.class) {
            expectType(where, "integer", schemaType, out);
            String format = Json.string(schema, "format");
            String javaFormat = raw == Integer.class || raw == int.class ? "int32" : "int64";
            if (!javaFormat.equals(format)) {
                out.add(where + ": schema format " + format + ", record " + javaFormat);
            }
        } else if (raw == Boolean.class || raw == boolean.class) {
            expectType(where, "boolean", schemaType, out);
        } else if (raw.isEnum()) {
            expectType(where, "string", schemaType, out);
            List<String> schemaEnum = schema.has("enum") ? strings(schema.getAsJsonArray("enum")) : List.of();
            if (!schemaEnum.equals(Enums.jsonValues(raw))) {
                out.add(where + ": schema enum " + schemaEnum + ", record enum " + Enums.jsonValues(raw));
            }
        } else if (List.class.isAssignableFrom(raw)) {
            expectType(where, "array", schemaType, out);
            if (schema.has("items")) {
                compare(schema.getAsJsonObject("items"), Structure.typeArgument(type, 0), component, path + "[]", out);
            } else {
                out.add(where + ": array without items");
            }
        } else if (Map.class.isAssignableFrom(raw)) {
            expectType(where, "object", schemaType, out);
            if (schema.has("properties") || !schema.has("additionalProperties")) {
                out.add(where + ": a map in the record, but not an object with additionalProperties in the schema");
            } else {
                compare(schema.getAsJsonObject("additionalProperties"), Structure.typeArgument(type, 1), component,
                        path + "[]", out);
            }
        } else if (raw == com.google.gson.JsonElement.class) {
            // Any JSON: the schema keeps whatever is there.
            if (!Boolean.TRUE.equals(bool(schema, "x-kubernetes-preserve-unknown-fields"))) {
                out.add(where + ": any JSON in the record, but the schema does not preserve unknown fields");
            }
        } else if (raw == ObjectMeta.class) {
            expectType(where, "object", schemaType, out);
        } else if (raw.isRecord()) {
            expectType(where, "object", schemaType, out);
            JsonObject props = schema.has("properties") ? schema.getAsJsonObject("properties") : new JsonObject();
            Map<String, RecordComponent> comps = Structure.components(raw);
            Set<String> onlyInRecord = new TreeSet<>(comps.keySet());
            onlyInRecord.removeAll(props.keySet());
            Set<String> onlyInSchema = new TreeSet<>(props.keySet());
            onlyInSchema.removeAll(comps.keySet());
            onlyInRecord.forEach(f -> out.add(Structure.join(path, f) + ": in " + raw.getSimpleName() + " but not in the "
                    + "schema"));
            onlyInSchema.forEach(f -> out.add(Structure.join(path, f) + ": in the schema but not in "
                    + raw.getSimpleName()));
            Set<String> schemaRequired = schema.has("required")
                    ? new TreeSet<>(strings(schema.getAsJsonArray("required"))) : Set.of();
            Set<String> recordRequired = comps.entrySet().stream()
                    .filter(e -> e.getValue().isAnnotationPresent(Required.class)).map(Map.Entry::getKey)
                    .collect(Collectors.toCollection(TreeSet::new));
            if (!schemaRequired.equals(recordRequired)) {
                out.add(where + ": schema requires " + schemaRequired + ", record requires " + recordRequired);
            }
            comps.forEach((name, rc) -> {
                if (props.has(name)) {
                    compare(props.getAsJsonObject(name), rc.getGenericType(), rc, Structure.join(path, name), out);
                }
            });
        } else {
            out.add(where + ": the test does not know type " + raw);
        }
    }

    private static void expectType(String where, String expected, String actual, List<String> out) {
        if (!expected.equals(actual)) {
            out.add(where + ": schema type " + actual + ", record needs " + expected);
        }
    }

    private static void structural(JsonObject schema, String path, List<String> out) {
        // validateStructuralInvariants: a type is required unless the node is int-or-string or preserves unknown
        // fields.
        if (!schema.has("type") && !Boolean.TRUE.equals(bool(schema, "x-kubernetes-int-or-string"))
                && !Boolean.TRUE.equals(bool(schema, "x-kubernetes-preserve-unknown-fields"))) {
            out.add(path + ": no type");
        }
        if (schema.has("anyOf")) {
            for (JsonElement alt : schema.getAsJsonArray("anyOf")) {
                Set<String> keys = new TreeSet<>(alt.getAsJsonObject().keySet());
                keys.removeAll(Set.of("type"));
                if (!keys.isEmpty()) {
                    out.add(path + ": anyOf may only narrow the type in a structural schema, found " + keys);
                }
            }
        }
        if (schema.has("properties")) {
            for (var en : schema.getAsJsonObject("properties").entrySet()) {
                String p = path.isEmpty() ? en.getKey() : path + "." + en.getKey();
                JsonObject child = en.getValue().getAsJsonObject();
                String d = Json.string(child, "description");
                if (p.equals("metadata")) {
                    // The root metadata schema may hold only type and name/generateName: a real API server
                    // refuses a CRD whose metadata schema carries a description (not structural).
                    if (d != null) {
                        out.add(p + ": a description on the root metadata makes the CRD non-structural");
                    }
                } else if (d == null || d.isBlank()) {
                    out.add(p + ": no description");
                }
                structural(child, p, out);
            }
        }
        if (schema.has("items")) {
            structural(schema.getAsJsonObject("items"), path + "[]", out);
        }
        if (schema.has("additionalProperties") && schema.get("additionalProperties").isJsonObject()) {
            structural(schema.getAsJsonObject("additionalProperties"), path + "[*]", out);
        }
        if ("array".equals(Json.string(schema, "type")) && "map".equals(Json.string(schema, "x-kubernetes-list-type"))) {
            JsonObject items = schema.getAsJsonObject("items");
            List<String> required = items.has("required") ? strings(items.getAsJsonArray("required")) : List.of();
            for (String key : strings(schema.getAsJsonArray("x-kubernetes-list-map-keys"))) {
                if (!required.contains(key)) {
                    out.add(path + ": list map key " + key + " must be required");
                }
            }
        }
    }

    /** Structural defaulting as the API server does it: absent fields with a default get it, recursively. */
    private static void applyDefaults(JsonElement value, JsonObject schema) {
        if (value.isJsonObject() && schema.has("properties")) {
            JsonObject o = value.getAsJsonObject();
            for (var en : schema.getAsJsonObject("properties").entrySet()) {
                JsonObject child = en.getValue().getAsJsonObject();
                if (!o.has(en.getKey()) && child.has("default")) {
                    o.add(en.getKey(), child.get("default").deepCopy());
                }
                if (o.has(en.getKey())) {
                    applyDefaults(o.get(en.getKey()), child);
                }
            }
        } else if (value.isJsonArray() && schema.has("items")) {
            value.getAsJsonArray().forEach(x -> applyDefaults(x, schema.getAsJsonObject("items")));
        }
    }

    /** Every leaf of {@code a} is in {@code b} with the same value. */
    private static void subset(JsonElement a, JsonElement b, String path, List<String> out) {
        if (a.isJsonObject()) {
            if (b == null || !b.isJsonObject()) {
                out.add(path + ": " + a + " vs " + b);
                return;
            }
            a.getAsJsonObject().entrySet().forEach(en -> subset(en.getValue(), b.getAsJsonObject().get(en.getKey()),
                    path + "." + en.getKey(), out));
        } else if (!a.equals(b)) {
            out.add(path + ": " + a + " vs " + b);
        }
    }

    private static Boolean bool(JsonObject o, String key) {
        return o.has(key) && o.get(key).isJsonPrimitive() ? o.get(key).getAsBoolean() : null;
    }

    private static List<String> strings(JsonArray a) {
        return a.asList().stream().map(JsonElement::getAsString).toList();
    }

    @Test
    void aMutatedSchemaIsCaught() {
        JsonObject s = schema("tenantclusters.tenantplane.io.yaml");
        JsonObject spec = s.getAsJsonObject("properties").getAsJsonObject("spec");
        spec.getAsJsonObject("properties").remove("hostNamespace");
        spec.getAsJsonObject("properties").getAsJsonObject("mode").getAsJsonArray("enum").remove(2);
        spec.getAsJsonArray("required").remove(1);
        List<String> mismatches = new ArrayList<>();
        compare(s, TenantCluster.class, null, "", mismatches);
        assertEquals(List.of(
                "spec.hostNamespace: in Spec but not in the schema",
                "spec.mode: schema enum [shared, dedicated], record enum [shared, dedicated, private]",
                "spec: schema requires [isolationProfileRef], record requires [isolationProfileRef, syncPolicyRef]"),
                mismatches.stream().sorted().toList());
    }
}
