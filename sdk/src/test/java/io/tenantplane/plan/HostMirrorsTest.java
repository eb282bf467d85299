package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which host classes a tenant sees: one row per situation, with the decision it gets. */
class HostMirrorsTest {

    private static final SyncPolicy POLICY = SyncPolicy.fromJson(Json.gson().fromJson("""
            {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy","metadata":{"name":"p","namespace":"n"},
             "spec":{"fromHost":[{"kind":"StorageClass","names":["standard"],
                                  "selector":{"matchLabels":{"share":"yes"}}}]}}""", JsonObject.class))
            .orElseThrow();

    private static JsonObject sc(String name, String provisioner, String labels, String annotations) {
        return Json.gson().fromJson("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"%s","uid":"u-%s",
                  "resourceVersion":"7","labels":{%s},"annotations":{%s}},"provisioner":"%s"}"""
                .formatted(name, name, labels, annotations, provisioner), JsonObject.class);
    }

    private static JsonObject mirror(String name, String provisioner) {
        JsonObject m = HostMirrors.desired(sc(name, provisioner, "", ""));
        Json.child(m, "metadata").addProperty("uid", "t-" + name);
        Json.child(m, "metadata").addProperty("resourceVersion", "3");
        return m;
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("named on the host, absent in the tenant", List.of(sc("standard", "p", "", "")),
                        List.of(), "standard", Action.CREATE, "MirroredFromHost"),
                Arguments.of("selected by label", List.of(sc("fast", "p", "\"share\":\"yes\"", "")), List.of(),
                        "fast", Action.CREATE, "MirroredFromHost"),
                Arguments.of("mirrored as it is", List.of(sc("standard", "p", "", "")),
                        List.of(mirror("standard", "p")), "standard", Action.UNCHANGED, "InSync"),
                Arguments.of("the host's changed", List.of(sc("standard", "q", "", "")),
                        List.of(mirror("standard", "p")), "standard", Action.UPDATE, "MirroredFromHost"),
                Arguments.of("the tenant's own of that name", List.of(sc("standard", "p", "", "")),
                        List.of(sc("standard", "mine", "", "")), "standard", Action.CONFLICT, "ForeignObject"),
                Arguments.of("a forged mirror label alone is not a mirror", List.of(sc("standard", "p", "", "")),
                        List.of(sc("standard", "mine", "\"tenantplane.io/managed-by\":\"tenantplane\"", "")),
                        "standard", Action.CONFLICT, "ForeignObject"),
                Arguments.of("gone from the host", List.of(), List.of(mirror("standard", "p")), "standard",
                        Action.DELETE, "MirrorNotSelected"),
                Arguments.of("left the selection", List.of(sc("old", "p", "", "")), List.of(mirror("old", "p")),
                        "old", Action.DELETE, "MirrorNotSelected"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void decides(String name, List<JsonObject> host, List<JsonObject> tenant, String object, Action action,
                 String reason) {
        List<Decision> ds = HostMirrors.plan("dev", POLICY.mirrors(), host, tenant);
        Decision d = ds.stream().filter(x -> object.equals(x.host().name())).findFirst()
                .orElseThrow(() -> new AssertionError(ds));
        assertEquals(action, d.action(), d::toString);
        assertEquals(reason, d.reason(), d::toString);
        if (d.desired() != null) {
            assertTrue(HostMirrors.isMirror(d.desired()));
            assertFalse(Json.object(d.desired(), "metadata").has("uid"), "the tenant API gives the mirror its own uid");
        }
    }

    @org.junit.jupiter.api.Test
    void aTenantObjectNotSelectedAndNotAMirrorIsNeverTouched() {
        assertEquals(List.of(), HostMirrors.plan("dev", POLICY.mirrors(), List.of(sc("standard", "p", "", "")),
                List.of(sc("own", "x", "", ""))).stream().filter(d -> d.host().name().equals("own")).toList());
    }
}
