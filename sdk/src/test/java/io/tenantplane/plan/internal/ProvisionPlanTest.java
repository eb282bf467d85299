package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProvisionPlanTest {

    private static final String OURS = """
            {"apiVersion":"v1","kind":"Service","metadata":{"name":"dev-api","namespace":"team-dev",
             "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"dev",
                       "tenantplane.io/component":"control-plane"}},
             "spec":{"ports":[{"port":443,"targetPort":6443}]}}""";

    private static JsonObject json(String s) {
        return JsonParser.parseString(s).getAsJsonObject();
    }

    private static JsonObject with(String base, java.util.function.Consumer<JsonObject> edit) {
        JsonObject o = json(base);
        edit.accept(o);
        return o;
    }

    static Stream<Arguments> cases() {
        JsonObject desired = json(OURS);
        return Stream.of(
                Arguments.of("absent: created", desired, null, Action.CREATE, "NotOnHost"),
                Arguments.of("ours and equal, with server defaults: unchanged", desired,
                        with(OURS, o -> o.getAsJsonObject("spec").addProperty("clusterIP", "10.0.0.7")),
                        Action.UNCHANGED, "InSync"),
                Arguments.of("ours and edited: updated, naming the field", desired,
                        with(OURS, o -> o.getAsJsonObject("spec").getAsJsonArray("ports").get(0).getAsJsonObject()
                                .addProperty("targetPort", 8080)), Action.UPDATE, "OutOfSync"),
                Arguments.of("held by an object without our labels: conflict", desired,
                        json("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"dev-api\","
                                + "\"namespace\":\"team-dev\"}}"), Action.CONFLICT, "ForeignObject"),
                Arguments.of("held by another tenant's object: conflict", desired,
                        with(OURS, o -> Json.child(o, "metadata", "labels").addProperty("tenantplane.io/tenant", "qa")),
                        Action.CONFLICT, "ForeignObject"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decidesEachRenderedObjectAgainstTheHostObjectOfItsName(String name, JsonObject desired, JsonObject observed,
                                                                Action action, String reason) {
        Decision d = ProvisionPlan.decide("dev", "team-dev/dev", desired, observed);
        assertEquals(action, d.action(), d::toString);
        assertEquals(reason, d.reason());
        if (action == Action.UPDATE) {
            assertTrue(d.message().contains("spec.ports[0].targetPort"), d.message());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("roles")
    void aRoleGrantsExactlyWhatIsRendered(String name, String observedNames, Action action) {
        String role = """
                {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"dev-control-plane",
                 "namespace":"team-dev","labels":{"tenantplane.io/managed-by":"tenantplane",
                 "tenantplane.io/tenant":"dev","tenantplane.io/component":"control-plane"}},
                 "rules":[{"apiGroups":[""],"resources":["secrets"],"resourceNames":%s,"verbs":["get","patch"]}]}""";
        JsonObject desired = json(role.formatted("[\"dev-kubeconfig\"]"));
        Decision d = ProvisionPlan.decide("dev", "team-dev/dev", desired, json(role.formatted(observedNames)));
        assertEquals(action, d.action(), d::toString);
        if (action == Action.UPDATE) {
            assertTrue(d.message().contains("rules"), d.message());
            assertEquals(desired.get("rules"), d.desired().get("rules"));
        }
    }

    static Stream<Arguments> roles() {
        return Stream.of(
                Arguments.of("as rendered: unchanged", "[\"dev-kubeconfig\"]", Action.UNCHANGED),
                Arguments.of("a Secret name left over from private mode: removed",
                        "[\"dev-kubeconfig\",\"dev-token\"]", Action.UPDATE));
    }

    @ParameterizedTest(name = "shared namespace with labels {0}: {1}")
    @MethodSource("namespaces")
    void setsOnlyLabelsOnANamespaceItDoesNotOwn(String labels, Action action) {
        JsonObject desired = json("""
                {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-dev",
                 "labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}""");
        JsonObject observed = json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-dev\","
                + "\"labels\":" + labels + "},\"spec\":{\"finalizers\":[\"kubernetes\"]}}");
        Decision d = ProvisionPlan.decide("dev", "team-dev/dev", desired, observed);
        assertEquals(action, d.action());
        if (action == Action.UPDATE) {
            assertEquals("platform", Json.labels(d.desired()).get("team"), "other labels are kept");
            assertEquals("restricted", Json.labels(d.desired()).get("pod-security.kubernetes.io/enforce"));
            assertEquals("kubernetes", d.desired().getAsJsonObject("spec").getAsJsonArray("finalizers").get(0)
                    .getAsString());
        }
    }

    static Stream<Arguments> namespaces() {
        return Stream.of(
                Arguments.of("{\"team\":\"platform\"}", Action.UPDATE),
                Arguments.of("{\"team\":\"platform\",\"pod-security.kubernetes.io/enforce\":\"baseline\"}",
                        Action.UPDATE),
                Arguments.of("{\"pod-security.kubernetes.io/enforce\":\"restricted\"}", Action.UNCHANGED));
    }

    @org.junit.jupiter.api.Test
    void keepsTheDataAnotherWriterPutIntoARenderedSecret() {
        JsonObject desired = json("""
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"dev-kubeconfig","namespace":"team-dev",
                 "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"dev","app":"x"}},
                 "type":"Opaque"}""");
        JsonObject observed = desired.deepCopy();
        Json.child(observed, "metadata", "labels").addProperty("app", "edited");
        observed.add("data", json("{\"config\":\"a3ViZWNvbmZpZw==\"}"));
        Decision d = ProvisionPlan.decide("dev", "team-dev/dev", desired, observed);
        assertEquals(Action.UPDATE, d.action());
        assertEquals("a3ViZWNvbmZpZw==", Json.string(d.desired(), "data", "config"));
    }

    static Stream<Arguments> finalizers() {
        return Stream.of(
                Arguments.of("added after the others", "[\"other.io/keep\"]", true,
                        "[\"other.io/keep\",\"tenantplane.io/cleanup\"]", Reasons.FINALIZER_ADDED),
                Arguments.of("added once, where it was already", "[\"tenantplane.io/cleanup\",\"other.io/keep\"]",
                        true, "[\"other.io/keep\",\"tenantplane.io/cleanup\"]", Reasons.FINALIZER_ADDED),
                Arguments.of("added to none", null, true, "[\"tenantplane.io/cleanup\"]", Reasons.FINALIZER_ADDED),
                Arguments.of("removed, the others kept in order",
                        "[\"a.io/x\",\"tenantplane.io/cleanup\",\"b.io/y\"]", false, "[\"a.io/x\",\"b.io/y\"]",
                        Reasons.FINALIZER_REMOVED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("finalizers")
    void theCleanupFinalizerIsAddedOrRemovedAndNoOtherTouched(String name, String before, boolean add, String after,
                                                              String reason) {
        JsonObject tc = json("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                 "metadata":{"name":"dev","namespace":"team-dev","resourceVersion":"4"}}""");
        if (before != null) {
            tc.getAsJsonObject("metadata").add("finalizers", JsonParser.parseString(before));
        }
        Decision d = ProvisionPlan.finalizer(tc, "tenantplane.io/cleanup", add);

        assertEquals(Action.UPDATE, d.action());
        assertEquals(reason, d.reason());
        assertEquals(JsonParser.parseString(after), d.desired().getAsJsonObject("metadata").get("finalizers"));
        assertEquals(tc, d.observed(), "an update of the TenantCluster as read");
        assertEquals(before == null ? null : JsonParser.parseString(before),
                tc.getAsJsonObject("metadata").get("finalizers"), "what was read is untouched");
    }

    @org.junit.jupiter.api.Test
    void retiringDeletingWithTheTenantAndReplacingAStatefulSetDeleteWhatWasRead() {
        JsonObject found = json(OURS);
        Decision retired = ProvisionPlan.retire(found, Reasons.JOIN_TOKEN_RETIRED, "is no longer published");
        assertEquals(Action.DELETE, retired.action());
        assertEquals(new Decision.HostRef("team-dev", "dev-api"), retired.host());
        assertEquals("Service team-dev/dev-api is no longer published, so it is deleted", retired.message());
        assertEquals(found, retired.observed());

        Decision gone = ProvisionPlan.deleteWithTenant(found, "control plane");
        assertEquals(Reasons.TENANT_DELETED, gone.reason());
        assertEquals("Service team-dev/dev-api (control plane) is deleted with tenant dev", gone.message());

        JsonObject sts = json("""
                {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"dev-control-plane",
                 "namespace":"team-dev","uid":"s1","resourceVersion":"9"}}""");
        Decision refused = Decision.update("StatefulSet", null, new Decision.HostRef("team-dev", "dev-control-plane"),
                Reasons.OUT_OF_SYNC, "m", sts, sts);
        Decision replace = ProvisionPlan.replaceStatefulSet(refused);
        assertEquals(Action.DELETE, replace.action());
        assertEquals(Reasons.STATEFULSET_REPLACED, replace.reason());
        assertEquals("Orphan", Json.string(replace.desired(), "propagationPolicy"), "its pods keep running");
        assertEquals(sts, replace.observed(), "uid and resourceVersion guard the delete");

        Decision create = ProvisionPlan.createTenantCluster("team-dev", "dev", json("{\"kind\":\"TenantCluster\"}"));
        assertEquals(Action.CREATE, create.action());
        assertEquals(Reasons.NOT_ON_HOST, create.reason());
    }
}
