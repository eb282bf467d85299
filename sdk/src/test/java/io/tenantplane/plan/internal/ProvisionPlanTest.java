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

    // ------------------------------------------------------------ one provisioning as a whole

    private static JsonObject object(String kind, String name, String component, String annotation) {
        JsonObject o = json("{\"apiVersion\":\"v1\",\"kind\":\"" + kind + "\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"team-dev\",\"labels\":{\"tenantplane.io/managed-by\":\"tenantplane\","
                + "\"tenantplane.io/tenant\":\"dev\"}},\"spec\":{\"ports\":[{\"port\":443}]}}");
        if (component != null) {
            Json.child(o, "metadata", "labels").addProperty("tenantplane.io/component", component);
        }
        if (annotation != null) {
            Json.child(o, "metadata", "annotations").addProperty(annotation, "x");
        }
        return o;
    }

    private static JsonObject pod(String apiHost) {
        return json("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                + "\"env\":[{\"name\":\"KUBERNETES_SERVICE_HOST\",\"value\":\"" + apiHost + "\"}]}]}}");
    }

    private static final ProvisionPlan.Retirable JOIN_TOKEN = new ProvisionPlan.Retirable("Secret", "team-dev",
            "dev-token", Reasons.JOIN_TOKEN_RETIRED, "holds the join token");

    /**
     * Rows: what is rendered, what the host holds, whether addresses are kept (not private mode), the host Pods,
     * what may be retired; then the decisions expected ({@code ACTION kind/name}, a ClusterIP asked for after
     * {@code @}), in order, and whether the plan needs the host Pods.
     */
    static Stream<Arguments> provisionings() {
        JsonObject api = object("Service", "dev-api", "control-plane", null);
        JsonObject cm = object("ConfigMap", "dev-config", "control-plane", null);
        JsonObject token = object("Secret", "dev-token", "control-plane", null);
        return Stream.of(
                Arguments.of("nothing on the host: each rendered object created, in the order rendered",
                        java.util.List.of(cm, api), java.util.List.of(), true, java.util.List.of(),
                        java.util.List.of(), java.util.List.of("Create ConfigMap/dev-config", "Create Service/dev-api"),
                        true),
                Arguments.of("a re-created API Service asks for the address its running Pods use",
                        java.util.List.of(api), java.util.List.of(), true,
                        java.util.List.of(pod("10.96.0.9"), pod("10.96.0.10"), pod("10.96.0.10")), java.util.List.of(),
                        java.util.List.of("Create Service/dev-api@10.96.0.10"), true),
                Arguments.of("private mode: its Pods run on its own agents, no address is kept",
                        java.util.List.of(api), java.util.List.of(), false, java.util.List.of(pod("10.96.0.10")),
                        java.util.List.of(), java.util.List.of("Create Service/dev-api"), false),
                Arguments.of("an existing API Service keeps its own address; the Pods are not needed",
                        java.util.List.of(api), java.util.List.of(api), true, java.util.List.of(), java.util.List.of(),
                        java.util.List.of("Unchanged Service/dev-api"), false),
                Arguments.of("a rendered object no longer rendered is retired",
                        java.util.List.of(cm), java.util.List.of(cm, token), true, java.util.List.of(),
                        java.util.List.of(JOIN_TOKEN),
                        java.util.List.of("Unchanged ConfigMap/dev-config", "Delete Secret/dev-token"), false),
                Arguments.of("still rendered: not retired",
                        java.util.List.of(token), java.util.List.of(token), true, java.util.List.of(),
                        java.util.List.of(JOIN_TOKEN), java.util.List.of("Unchanged Secret/dev-token"), false),
                Arguments.of("another tenant's object of that name: left",
                        java.util.List.of(), java.util.List.of(with(token.toString(), o -> Json.child(o, "metadata",
                                "labels").addProperty("tenantplane.io/tenant", "qa"))), true, java.util.List.of(),
                        java.util.List.of(JOIN_TOKEN), java.util.List.of(), false),
                Arguments.of("a synced copy of that name (a source annotation): left",
                        java.util.List.of(), java.util.List.of(object("Secret", "dev-token", "control-plane",
                                "tenantplane.io/source-kind")), true, java.util.List.of(), java.util.List.of(JOIN_TOKEN),
                        java.util.List.of(), false),
                Arguments.of("ours without a rendered component: left",
                        java.util.List.of(), java.util.List.of(object("Secret", "dev-token", null, null)), true,
                        java.util.List.of(), java.util.List.of(JOIN_TOKEN), java.util.List.of(), false),
                Arguments.of("nothing of that name on the host: nothing to retire",
                        java.util.List.of(), java.util.List.of(), true, java.util.List.of(),
                        java.util.List.of(JOIN_TOKEN), java.util.List.of(), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("provisionings")
    void oneProvisioningIsAFunctionOfWhatItRead(String name, java.util.List<JsonObject> rendered,
                                                java.util.List<JsonObject> onHost, boolean keepsAddresses,
                                                java.util.List<JsonObject> hostPods,
                                                java.util.List<ProvisionPlan.Retirable> retirable,
                                                java.util.List<String> expected, boolean needsPods) {
        java.util.Map<String, JsonObject> read = new java.util.HashMap<>();
        onHost.forEach(o -> read.put(ProvisionPlan.id(o), o));
        ProvisionPlan.Observed observed = new ProvisionPlan.Observed(read);

        assertEquals(needsPods, ProvisionPlan.needsHostPods(rendered, observed, "dev-api", "dev-dns", keepsAddresses));
        ProvisionPlan.Provisioning plan = ProvisionPlan.plan("dev", "team-dev/dev", rendered, observed,
                needsPods ? hostPods : null, "dev-api", "dev-dns", keepsAddresses, retirable);

        java.util.List<String> got = new java.util.ArrayList<>();
        for (ProvisionPlan.Rendered r : plan.rendered()) {
            Decision d = r.decision();
            String ip = d.desired() == null ? null : Json.string(d.desired(), "spec", "clusterIP");
            got.add(d.action().display() + " " + d.kind() + "/" + d.host().name()
                    + (d.action() == Action.CREATE && ip != null ? "@" + ip : ""));
            assertEquals(Json.string(r.rendering(), "metadata", "name"), d.host().name(), "paired with its rendering");
        }
        for (Decision d : plan.retirements()) {
            got.add(d.action().display() + " " + d.kind() + "/" + d.host().name());
            assertEquals(Reasons.JOIN_TOKEN_RETIRED, d.reason());
            assertEquals(onHost.get(onHost.size() - 1), d.observed(), "deleted as read (its uid guards the delete)");
        }
        assertEquals(expected, got);
    }
}
