package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The examples and fixtures survive YAML -> record -> JSON -> record, and say in JSON exactly what they said in YAML. */
class RoundTripTest {

    static Stream<LoadedObject> examples() {
        return Manifests.read(Fixtures.EXAMPLES).stream().filter(o -> CustomResources.isCustomResource(o.object()));
    }

    static Stream<LoadedObject> validFixtures() {
        return Fixtures.documents("/model/valid-objects.yaml").stream()
                .flatMap(d -> d.getAsJsonArray("objects").asList().stream())
                .map(e -> new LoadedObject(Path.of("valid-objects.yaml"), 0, e.getAsJsonObject()));
    }

    @Test
    void theExamplesHoldOneOfEachCustomResourceAndAllAreValid() {
        List<LoadedObject> objects = examples().toList();
        assertEquals(List.of("IsolationProfile", "SyncPolicy", "TenantCluster"),
                objects.stream().map(LoadedObject::kind).sorted().toList());
        Parsed<CustomResources> parsed = CustomResources.from(objects);
        assertEquals(List.of(), parsed.problems());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource({"examples", "validFixtures"})
    void recordsRoundTripThroughJsonAndYaml(LoadedObject loaded) {
        Function<JsonObject, Parsed<? extends Record>> from = switch (loaded.kind()) {
            case TenantCluster.KIND -> TenantCluster::fromJson;
            case IsolationProfile.KIND -> IsolationProfile::fromJson;
            default -> SyncPolicy::fromJson;
        };
        Record first = from.apply(loaded.object()).orElseThrow();
        JsonObject json = toJson(first);
        Record second = from.apply(json).orElseThrow();
        assertEquals(first, second);
        Record third = from.apply(Manifests.parse(Manifests.toYaml(json), Path.of("x.yaml")).get(0).object())
                .orElseThrow();
        assertEquals(first, third);
        // What the user wrote comes back unchanged, but for quantities written as numbers, which come back as strings.
        assertEquals(normalized(loaded.object()), normalized(json));
    }

    private static JsonObject toJson(Record r) {
        return switch (r) {
            case TenantCluster tc -> tc.toJson();
            case IsolationProfile ip -> ip.toJson();
            case SyncPolicy sp -> sp.toJson();
            default -> throw new IllegalArgumentException();
        };
    }

    /** Scalars as strings, and metadata fields the records do not carry removed. */
    private static JsonObject normalized(JsonObject o) {
        JsonObject copy = o.deepCopy();
        JsonObject meta = copy.getAsJsonObject("metadata");
        if (meta != null) {
            meta.remove("managedFields");
        }
        return scalarsAsStrings(copy).getAsJsonObject();
    }

    private static com.google.gson.JsonElement scalarsAsStrings(com.google.gson.JsonElement e) {
        if (e.isJsonObject()) {
            JsonObject out = new JsonObject();
            e.getAsJsonObject().entrySet().forEach(en -> out.add(en.getKey(), scalarsAsStrings(en.getValue())));
            return out;
        }
        if (e.isJsonArray()) {
            com.google.gson.JsonArray out = new com.google.gson.JsonArray();
            e.getAsJsonArray().forEach(x -> out.add(scalarsAsStrings(x)));
            return out;
        }
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            return new com.google.gson.JsonPrimitive(e.getAsBigDecimal().stripTrailingZeros().toPlainString());
        }
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() && e.getAsString().matches("-?[0-9.]+")) {
            return new com.google.gson.JsonPrimitive(new java.math.BigDecimal(e.getAsString()).stripTrailingZeros()
                    .toPlainString());
        }
        return e;
    }

    @Test
    void theExampleTenantClusterReadsAsDocumented() {
        TenantCluster tc = TenantCluster.fromJson(Manifests.read(Fixtures.EXAMPLES.resolve("tenantcluster.yaml"))
                .get(0).object()).orElseThrow();
        assertEquals("dev", tc.tenant());
        assertEquals("team-dev", tc.namespace());
        assertEquals(TenantCluster.Mode.SHARED, tc.mode());
        assertEquals("team-dev", tc.hostNamespace());
        assertEquals("restricted", tc.spec().isolationProfileRef().name());
        assertEquals("default", tc.spec().syncPolicyRef().name());
        assertEquals(TenantCluster.DatastoreType.SQLITE, tc.spec().controlPlane().datastore().type());
        assertTrue(tc.validate().isEmpty());
    }
}
