package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Validation as users meet it: every problem of a set of objects at once, each naming its field and the fix. */
class ValidationTest {

    record Expected(String field, String message) {
    }

    static Stream<Arguments> invalidCases() {
        return Fixtures.documents("/model/invalid-objects.yaml").stream().map(d -> Arguments.of(
                Json.string(d, "case"), objects(d), expectations(d)));
    }

    static Stream<Arguments> validCases() {
        return Fixtures.documents("/model/valid-objects.yaml").stream().map(d -> Arguments.of(
                Json.string(d, "case"), objects(d)));
    }

    private static List<LoadedObject> objects(JsonObject caseDoc) {
        List<LoadedObject> out = new ArrayList<>(Manifests.read(Fixtures.EXAMPLES.resolve("isolationprofile.yaml"),
                Fixtures.EXAMPLES.resolve("syncpolicy.yaml")));
        int i = 0;
        for (JsonElement e : caseDoc.getAsJsonArray("objects")) {
            out.add(new LoadedObject(Path.of("case.yaml"), i++, e.getAsJsonObject()));
        }
        return out;
    }

    private static List<Expected> expectations(JsonObject caseDoc) {
        List<Expected> out = new ArrayList<>();
        for (JsonElement e : caseDoc.getAsJsonArray("expect")) {
            out.add(new Expected(Json.string(e.getAsJsonObject(), "field"), Json.string(e.getAsJsonObject(), "message")));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidCases")
    void reportsEveryProblemWithItsFieldAndFix(String name, List<LoadedObject> objects, List<Expected> expected) {
        List<Problem> problems = CustomResources.from(objects).problems();
        String all = problems.stream().map(Problem::toString).collect(Collectors.joining("\n  ", "\n  ", ""));
        for (Expected e : expected) {
            boolean found = problems.stream().anyMatch(p -> e.field().equals(p.field()) && p.message().contains(e.message()));
            assertTrue(found, "expected a problem at " + e.field() + " containing \"" + e.message() + "\"; got:" + all);
        }
        for (Problem p : problems) {
            boolean wanted = expected.stream().anyMatch(e -> e.field().equals(p.field()) && p.message().contains(e.message()));
            assertTrue(wanted, "unexpected problem " + p + "; all problems:" + all);
            assertTrue(p.source() != null && p.source().startsWith("case.yaml"), "problem without its file: " + p);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void acceptsValidObjects(String name, List<LoadedObject> objects) {
        Parsed<CustomResources> parsed = CustomResources.from(objects);
        assertEquals(List.of(), parsed.problems());
        assertTrue(parsed.isOk());
    }

    @Test
    void theTableCoversAtLeastFifteenBadInputs() {
        assertTrue(invalidCases().count() >= 15);
    }

    @Test
    void problemsNameTheFileTheObjectAndTheDocument() {
        List<LoadedObject> objects = Manifests.parse("""
                apiVersion: tenantplane.io/v1alpha1
                kind: SyncPolicy
                metadata: {name: default, namespace: team-dev}
                spec: {kinds: [{kind: Pod, toHost: true}]}
                ---
                apiVersion: tenantplane.io/v1alpha1
                kind: TenantCluster
                metadata: {name: dev, namespace: team-dev}
                spec:
                  isolationProfileRef: {name: restricted}
                  syncPolicyRef: {name: default}
                  controlPlane: {replicas: 3}
                """, Path.of("tenants", "dev.yaml"));
        List<Problem> problems = CustomResources.from(objects).problems();
        assertEquals(2, problems.size(), problems.toString());
        assertEquals(Path.of("tenants", "dev.yaml") + " (document 2, TenantCluster team-dev/dev): "
                + "spec.controlPlane.datastore.type: sqlite requires replicas = 1, got 3; set spec.controlPlane.replicas: "
                + "1, or use datastore type etcd with 3, 5 or 7 replicas", problems.get(0).toString());
        assertTrue(problems.get(1).message().startsWith("IsolationProfile \"restricted\" not found"));
    }

    @Test
    void objectsOfOtherGroupsAreIgnored() {
        JsonObject pod = Json.gson().fromJson("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}",
                JsonObject.class);
        Parsed<CustomResources> parsed = CustomResources.from(List.of(new LoadedObject(Path.of("p.yaml"), 0, pod)));
        assertTrue(parsed.isOk());
        assertTrue(parsed.orElseThrow().tenantClusters().isEmpty());
    }

    @Test
    void recordsBuiltInJavaAreValidatedToo() {
        TenantCluster tc = TenantCluster.of(ObjectMeta.of("team-dev", "dev"), new TenantCluster.Spec(
                TenantCluster.Mode.DEDICATED, new TenantCluster.Ref("restricted"), null, "default",
                new TenantCluster.ControlPlane(2, null, new TenantCluster.Datastore(TenantCluster.DatastoreType.ETCD,
                        "0", null), null)));
        List<String> fields = tc.validate().stream().map(Problem::field).toList();
        assertEquals(List.of("spec.syncPolicyRef", "spec.hostNamespace", "spec.controlPlane.datastore.type",
                "spec.controlPlane.datastore.storage"), fields);
    }

    @Test
    void invalidInputNeverThrowsWhenParsedTyped() {
        JsonObject broken = Json.gson().fromJson("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster","metadata":[1,2],
                 "spec":{"mode":7,"controlPlane":{"replicas":1.5,"datastore":"sqlite"}}}""", JsonObject.class);
        Parsed<TenantCluster> parsed = TenantCluster.fromJson(broken);
        assertFalse(parsed.isOk());
        assertEquals(List.of("metadata", "spec.mode", "spec.controlPlane.replicas", "spec.controlPlane.datastore"),
                parsed.problems().stream().map(Problem::field).toList());
        try {
            parsed.orElseThrow();
            fail("expected an exception");
        } catch (InvalidResourceException e) {
            assertEquals(4, e.problems().size());
            assertTrue(e.getMessage().contains("spec.mode: expected one of the allowed values, got the number 7; "
                    + "allowed values: shared, dedicated, private"), e.getMessage());
        }
    }

    @Test
    void aWrongKindIsAProblemNotAnException() {
        JsonObject pod = Json.gson().fromJson("{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}", JsonObject.class);
        Parsed<IsolationProfile> parsed = IsolationProfile.fromJson(pod);
        assertEquals(List.of("apiVersion", "kind"), parsed.problems().stream().map(Problem::field).toList());
    }
}
