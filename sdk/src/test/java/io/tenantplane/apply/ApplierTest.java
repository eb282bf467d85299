package io.tenantplane.apply;

import io.tenantplane.observe.Outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The applier over HTTP, against the in-process API server. */
class ApplierTest {

    private KubeApiServer server;
    private ApiClient client;
    private Applier applier;

    @BeforeEach
    void start() {
        server = KubeApiServer.builder().build().start();
        client = new ClientBuilder().setBasePath(server.url()).build();
        applier = Applier.builder().client(client).backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static JsonObject configMap(String name, String value) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"default"},
                 "data":{"v":"%s"}}""".formatted(name, value)).getAsJsonObject();
    }

    private static Decision decision(Action action, String name, JsonObject desired, JsonObject observed) {
        String reason = switch (action) {
            case CREATE -> Reasons.NOT_ON_HOST;
            case UPDATE -> Reasons.SOURCE_CHANGED;
            case UNCHANGED -> Reasons.IN_SYNC;
            case DELETE -> Reasons.SOURCE_DELETED;
            case SKIP -> Reasons.KIND_NOT_SYNCED;
            case CONFLICT -> Reasons.FOREIGN_OBJECT;
            case ERROR -> Reasons.INVALID_SOURCE;
        };
        Decision.HostRef h = new Decision.HostRef("default", name);
        return switch (action) {
            case CREATE -> Decision.create("ConfigMap", null, h, reason, "test", desired);
            case UPDATE -> Decision.update("ConfigMap", null, h, reason, "test", desired, observed);
            case UNCHANGED -> Decision.unchanged("ConfigMap", null, h, reason, "test", desired, observed);
            case DELETE -> Decision.delete("ConfigMap", null, h, reason, "test", desired, observed);
            case SKIP -> Decision.skip("ConfigMap", null, h, reason, "test", observed);
            case CONFLICT -> Decision.conflict("ConfigMap", null, h, reason, "test", observed);
            case ERROR -> Decision.error("ConfigMap", null, h, reason, "test", observed);
        };
    }

    private JsonObject created(String name, String value) {
        Outcome o = applier.apply(decision(Action.CREATE, name, configMap(name, value), null), Applier.Replanner.NONE);
        return assertInstanceOf(Outcome.Applied.class, o, o::toString).result();
    }

    @Test
    void theObjectAWriteReturnsComesWithoutTheServersFieldBookkeeping() throws Exception {
        JsonObject first = created("a", "1");
        Outcome o = applier.apply(decision(Action.UPDATE, "a", configMap("a", "2"), first), Applier.Replanner.NONE);

        JsonObject updated = assertInstanceOf(Outcome.Applied.class, o, o::toString).result();
        assertFalse(first.getAsJsonObject("metadata").has("managedFields"), first.toString());
        assertFalse(updated.getAsJsonObject("metadata").has("managedFields"), updated.toString());
        assertEquals("2", Json.string(updated, "data", "v"));
        JsonObject stored = JsonParser.parseString(java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.url()
                        + "/api/v1/namespaces/default/configmaps/a")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body()).getAsJsonObject();
        assertTrue(stored.getAsJsonObject("metadata").has("managedFields"), "the server keeps its own: " + stored);
    }

    private static JsonObject pod(String ephemeral) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"v":"1"}},
                 "spec":{"containers":[{"name":"app","image":"nginx"}]%s}}""".formatted(ephemeral == null ? ""
                : ",\"ephemeralContainers\":[{\"name\":\"" + ephemeral + "\",\"image\":\"busybox\"}]"))
                .getAsJsonObject();
    }

    /**
     * A host namespace's LimitRange fills in the requests and limits of a Pod that names none (LimitRanger admission,
     * on create only). A later update of the Pod, built from the desired object that names none, must not drop them:
     * a Pod's spec is immutable and the API server refuses such an update (422). The update keeps the host's spec and
     * takes from the desired one only what an update may change (here the image and the labels).
     */
    @Test
    void anUpdateOfAPodKeepsWhatTheHostsAdmissionFilledIn() {
        Outcome limits = applier.apply(Decision.create("LimitRange", null, new Decision.HostRef("default", "limits"),
                Reasons.NOT_ON_HOST, "test", JsonParser.parseString("""
                        {"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"limits","namespace":"default"},
                         "spec":{"limits":[{"type":"Container","default":{"cpu":"500m","memory":"512Mi"},
                           "defaultRequest":{"cpu":"100m","memory":"128Mi"}}]}}""").getAsJsonObject()),
                Applier.Replanner.NONE);
        assertInstanceOf(Outcome.Applied.class, limits, limits::toString);
        Outcome made = applier.apply(Decision.create("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.NOT_ON_HOST, "test", pod(null)), Applier.Replanner.NONE);
        JsonObject first = assertInstanceOf(Outcome.Applied.class, made, made::toString).result();
        assertEquals("500m", Json.string(first.getAsJsonObject("spec").getAsJsonArray("containers").get(0)
                .getAsJsonObject(), "resources", "limits", "cpu"), "the host's LimitRanger set the limit");

        JsonObject desired = pod(null);
        Json.child(desired, "metadata", "labels").addProperty("v", "2");
        desired.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject()
                .addProperty("image", "nginx:1.27");
        Outcome updated = applier.apply(Decision.update("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.SOURCE_CHANGED, "test", desired, first), Applier.Replanner.NONE);

        JsonObject result = assertInstanceOf(Outcome.Applied.class, updated, updated::toString).result();
        JsonObject container = result.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject();
        assertEquals("nginx:1.27", Json.string(container, "image"));
        assertEquals("2", Json.string(result, "metadata", "labels", "v"));
        assertEquals("128Mi", Json.string(container, "resources", "requests", "memory"), "kept as the host set it");
    }

    /**
     * A Pod may gain tolerations but never lose one (a real API server refuses it, and so does this one): an update
     * whose desired object no longer has one the host Pod has (the host's admission added it, or an earlier transform
     * kept it) keeps it, and adds what the desired object adds.
     */
    @Test
    void anUpdateOfAPodKeepsEveryTolerationItHasAndAddsTheDesiredOnes() {
        JsonObject pod = pod(null);
        pod.getAsJsonObject("spec").add("tolerations", JsonParser.parseString("""
                [{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
                 {"operator":"Exists"}]""").getAsJsonArray());
        Outcome made = applier.apply(Decision.create("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.NOT_ON_HOST, "test", pod), Applier.Replanner.NONE);
        JsonObject first = assertInstanceOf(Outcome.Applied.class, made, made::toString).result();

        JsonObject desired = pod(null);
        desired.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject()
                .addProperty("image", "nginx:1.27");
        desired.getAsJsonObject("spec").add("tolerations", JsonParser.parseString("""
                [{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":60},
                 {"key":"gpu","operator":"Exists","effect":"NoSchedule"}]""").getAsJsonArray());
        Outcome updated = applier.apply(Decision.update("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.SOURCE_CHANGED, "test", desired, first), Applier.Replanner.NONE);

        JsonObject result = assertInstanceOf(Outcome.Applied.class, updated, updated::toString).result();
        assertEquals("nginx:1.27", Json.string(result.getAsJsonObject("spec").getAsJsonArray("containers").get(0)
                .getAsJsonObject(), "image"));
        assertEquals(JsonParser.parseString("""
                [{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":60},
                 {"operator":"Exists"},
                 {"key":"gpu","operator":"Exists","effect":"NoSchedule"}]"""),
                result.getAsJsonObject("spec").get("tolerations"),
                "kept, its seconds changed, and the new one added");

    }

    /**
     * kubectl debug reaching a host Pod: the ephemeral container goes through the Pod's subresource (an update of the
     * Pod is refused for it), a conflict is re-read, and a later update of the Pod carries what the Pod has.
     */
    @Test
    void ephemeralContainersAreAddedThroughTheSubresourceAndCarriedByLaterUpdates() {
        Outcome made = applier.apply(Decision.create("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.NOT_ON_HOST, "test", pod(null)), Applier.Replanner.NONE);
        JsonObject first = assertInstanceOf(Outcome.Applied.class, made, made::toString).result();
        JsonObject relabelled = first.deepCopy();
        Json.child(relabelled, "metadata", "labels").addProperty("v", "someone-else");
        Outcome concurrent = applier.apply(Decision.update("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.SOURCE_CHANGED, "test", relabelled, first), Applier.Replanner.NONE);
        assertInstanceOf(Outcome.Applied.class, concurrent, concurrent::toString);

        Outcome added = applier.apply(Decision.update("Pod", null,
                new Decision.HostRef("default", "web"), Reasons.EPHEMERAL_CONTAINERS_ADDED, "test", pod("dbg"),
                first), Applier.Replanner.NONE);

        Outcome.Applied applied = assertInstanceOf(Outcome.Applied.class, added, added::toString);
        assertEquals(2, applied.attempts(), "the stale read was a conflict, re-read and written again");
        assertEquals("dbg", Json.string(applied.result().getAsJsonObject("spec").getAsJsonArray("ephemeralContainers")
                .get(0).getAsJsonObject(), "name"));
        assertEquals("someone-else", Json.string(applied.result(), "metadata", "labels", "v"),
                "the subresource changes nothing else");
        Outcome again = applier.apply(Decision.update("Pod", null,
                new Decision.HostRef("default", "web"), Reasons.EPHEMERAL_CONTAINERS_ADDED, "test", pod("dbg"),
                first), Applier.Replanner.NONE);
        assertInstanceOf(Outcome.NotWritten.class, again, "a Pod that has them already is not written again");

        JsonObject withoutThem = applied.result().deepCopy();
        withoutThem.getAsJsonObject("spec").remove("ephemeralContainers");
        Json.child(withoutThem, "metadata", "labels").addProperty("v", "1");
        Outcome updated = applier.apply(Decision.update("Pod", null, new Decision.HostRef("default", "web"),
                Reasons.SOURCE_CHANGED, "test", withoutThem, applied.result()), Applier.Replanner.NONE);
        JsonObject after = assertInstanceOf(Outcome.Applied.class, updated, updated::toString).result();
        assertEquals("1", Json.string(after, "metadata", "labels", "v"));
        assertEquals(1, after.getAsJsonObject("spec").getAsJsonArray("ephemeralContainers").size(),
                "an update of the Pod carries its ephemeral containers, which no write may remove");
    }

    @Test
    void anUpdateWithAStaleResourceVersionIsReplannedAgainstTheObjectAsItIsNow() {
        JsonObject first = created("a", "1");
        JsonObject concurrent = first.deepCopy();
        concurrent.getAsJsonObject("data").addProperty("v", "someone else");
        applier.apply(decision(Action.UPDATE, "a", concurrent, first), Applier.Replanner.NONE);
        List<JsonObject> seen = new ArrayList<>();

        Outcome o = applier.apply(decision(Action.UPDATE, "a", configMap("a", "2"), first), (stale, current) -> {
            seen.add(current);
            return decision(Action.UPDATE, "a", configMap("a", "2"), current);
        });

        Outcome.Applied applied = assertInstanceOf(Outcome.Applied.class, o, o::toString);
        assertEquals(2, applied.attempts());
        assertEquals("someone else", Json.string(seen.get(0), "data", "v"), "re-planned against what is there now");
        assertEquals("2", Json.string(applied.result(), "data", "v"));
    }

    @Test
    void aDeleteNeverRemovesAnObjectThatWasReplacedSinceItWasRead() throws Exception {
        JsonObject old = created("a", "1");
        applier.apply(decision(Action.DELETE, "a", null, old), Applier.Replanner.NONE);
        JsonObject replacement = created("a", "new");

        Outcome o = applier.apply(decision(Action.DELETE, "a", null, old), Applier.Replanner.NONE);

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, o, o::toString);
        assertEquals(409, failed.code());
        assertEquals(1, failed.attempts(), "without a replanner there is nothing to retry");
        assertTrue(failed.message().contains("UID"), failed.message());
        assertEquals(Json.string(replacement, "metadata", "uid"), new CoreV1Api(client)
                .readNamespacedConfigMap("a", "default").execute().getMetadata().getUid(), "the replacement is there");
    }

    @Test
    void aCreateThatFindsTheNameTakenBecomesWhatTheReplannerDecides() {
        JsonObject foreign = created("a", "foreign");

        Outcome o = applier.apply(decision(Action.CREATE, "a", configMap("a", "mine"), null),
                (stale, current) -> decision(Action.CONFLICT, "a", null, current));

        assertInstanceOf(Outcome.NotWritten.class, o);
        assertEquals(Action.CONFLICT, o.decision().action());
        assertEquals(Json.string(foreign, "metadata", "uid"), Json.string(o.decision().observed(), "metadata", "uid"));
    }

    @Test
    void aNameAlreadyTakenIsReadAtOnceWithoutWaitingOutTheBackoffAndNothingIsOverwritten() throws Exception {
        JsonObject foreign = created("a", "foreign");
        Applier patient = Applier.builder().client(client).backoff(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .build();
        server.requests().reset();

        long t0 = System.nanoTime();
        Outcome o = patient.apply(decision(Action.CREATE, "a", configMap("a", "mine"), null),
                (stale, current) -> decision(Action.CONFLICT, "a", null, current));
        long took = System.nanoTime() - t0;

        assertInstanceOf(Outcome.NotWritten.class, o);
        assertTrue(took < Duration.ofSeconds(2).toNanos(), "no backoff before the read: " + took);
        assertEquals(List.of("create 409", "get 200"), server.requests().entries().stream()
                .map(e -> e.verb() + " " + e.code()).toList());
        assertEquals(Json.string(foreign, "metadata", "resourceVersion"), new CoreV1Api(client)
                .readNamespacedConfigMap("a", "default").execute().getMetadata().getResourceVersion());
    }

    @Test
    void serverErrorsAreRetriedWithinTheAttemptBudgetAndThenReportedAsData() {
        server.faults().add(FaultRule.on("create", "configmaps").times(2).respond(503));
        assertEquals(3, ((Outcome.Applied) applier.apply(decision(Action.CREATE, "a", configMap("a", "1"), null),
                Applier.Replanner.NONE)).attempts());

        server.faults().add(FaultRule.on("create", "configmaps").respond(500));
        Outcome o = applier.apply(decision(Action.CREATE, "b", configMap("b", "1"), null), Applier.Replanner.NONE);
        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, o);
        assertEquals(500, failed.code());
        assertEquals(5, failed.attempts());
    }

    @Test
    void anInvalidObjectIsAFailedOutcomeNotAnException() {
        JsonObject bad = configMap("Not_A_Name", "1");
        Outcome o = applier.apply(decision(Action.CREATE, "Not_A_Name", bad, null), Applier.Replanner.NONE);
        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, o, o::toString);
        assertEquals(422, failed.code());
        assertEquals("Invalid", failed.reason());
    }

    @Test
    void recreateReplacesTheObjectUnderItsNameAndWritesNothingWhenAnotherWriterGotThereFirst() throws Exception {
        CoreV1Api core = new CoreV1Api(client);
        JsonObject a = created("a", "1");
        Outcome replaced = applier.recreate(decision(Action.UPDATE, "a", configMap("a", "2"), a));
        JsonObject now = assertInstanceOf(Outcome.Applied.class, replaced, replaced::toString).result();
        assertEquals("2", Json.string(now, "data", "v"));
        assertFalse(Json.string(a, "metadata", "uid").equals(Json.string(now, "metadata", "uid")), "a new object");

        // Deleted meanwhile (by its owner, or by another pass that is replacing it): never created again from the
        // stale copy.
        JsonObject b = created("b", "1");
        core.deleteNamespacedConfigMap("b", "default").execute();
        Outcome gone = applier.recreate(decision(Action.UPDATE, "b", configMap("b", "2"), b));
        assertInstanceOf(Outcome.NotWritten.class, gone, gone::toString);
        assertTrue(gone.decision().message().contains("deleted meanwhile"), gone::toString);
        assertTrue(core.listNamespacedConfigMap("default").execute().getItems().stream()
                .noneMatch(cm -> cm.getMetadata().getName().equals("b")), "b stays deleted");

        // Changed meanwhile: the delete's preconditions fail; what the other writer wrote stays.
        JsonObject c = created("c", "1");
        Outcome changed = applier.apply(decision(Action.UPDATE, "c", configMap("c", "other"), c),
                Applier.Replanner.NONE);
        assertInstanceOf(Outcome.Applied.class, changed, changed::toString);
        Outcome stale = applier.recreate(decision(Action.UPDATE, "c", configMap("c", "2"), c));
        assertInstanceOf(Outcome.NotWritten.class, stale, stale::toString);
        assertTrue(stale.decision().message().contains("changed meanwhile"), stale::toString);
        assertEquals("other", core.readNamespacedConfigMap("c", "default").execute().getData().get("v"));
    }

    @Test
    void decisionsThatWriteNothingSendNothing() {
        server.requests().reset();
        Outcome o = applier.apply(decision(Action.UNCHANGED, "a", configMap("a", "1"), configMap("a", "1")),
                Applier.Replanner.NONE);
        assertInstanceOf(Outcome.NotWritten.class, o);
        assertEquals(0, server.requests().total());
    }

    @Test
    void theBuilderNamesWhatIsMissingOrWrong() {
        assertTrue(assertThrows(IllegalStateException.class, () -> Applier.builder().build()).getMessage()
                .contains("client"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Applier.builder().maxAttempts(0)).getMessage()
                .contains("maxAttempts"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Applier.builder()
                .backoff(Duration.ofSeconds(2), Duration.ofSeconds(1))).getMessage().contains("maxBackoff"));
    }
}
