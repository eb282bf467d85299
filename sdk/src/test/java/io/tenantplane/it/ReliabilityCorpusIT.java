package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.reliability.Corpus;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * Every file of the bad-input corpus, live: through the SDK front door against in-process API servers, counting the
 * writes the host server sees. Invalid custom resources make exactly one write (the TenantCluster's status, saying
 * which field breaks which rule) or none when the API server refuses them; hostile tenant objects make exactly the
 * host writes their decisions call for, and a second pass writes nothing.
 */
@Tag(Live.HOOKS)
class ReliabilityCorpusIT {

    @TestFactory
    Stream<DynamicTest> eachCorpusFileMakesOnlyTheHostWritesItShould() {
        return Corpus.cases().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            try (Live live = Live.start(true)) {
                switch (c.input()) {
                    case CUSTOM_RESOURCES -> customResources(live, c);
                    case TENANT_OBJECTS -> tenantObjects(live, c);
                }
            }
        }));
    }

    // ---------------------------------------------------------------- custom resources

    private static void customResources(Live live, Corpus.Case c) {
        KubeApiServer host = live.requireHostServer();
        Corpus.Live want = c.live();
        boolean tenantClusterStored = false;
        for (JsonObject o : c.customResources()) {
            String kind = Json.string(o, "kind");
            Kube.Reply r = live.hostKube.call("POST", Kube.kindOf(o).collectionPath(live.namespace), Map.of(), o);
            if (kind.equals(want.refusedKind())) {
                assertTrue(r.code() == 400 || r.code() == 422, () -> c.file() + ": the host API refuses the " + kind
                        + ", got " + r.code());
                String message = Json.string(r.body(), "message");
                assertTrue(message != null && message.contains(want.refusedField()), () -> c.file() + ": the refusal "
                        + "names " + want.refusedField() + ": " + message);
            } else {
                assertTrue(r.code() == 201, () -> c.file() + ": the host API stores the " + kind + ", got " + r.code()
                        + " " + r.body());
                tenantClusterStored |= kind.equals("TenantCluster");
            }
        }
        TenantPlane plane = live.plane();
        TenantKey key = live.key(Json.string(c.tenantCluster(), "metadata", "name"));
        host.requests().reset();

        ProvisionReport provisioned = plane.ensure(key);
        ConvergenceReport converged = plane.converge(key);

        List<RequestLog.Entry> writes = writes(host);
        if (!tenantClusterStored) {
            assertTrue(provisioned.gone(), c.file());
            assertEquals(List.of(), writes, c.file() + ": nothing is written for a TenantCluster that does not exist");
            return;
        }
        // The status is the one object written; the Event recording that write regards the TenantCluster.
        List<RequestLog.Entry> state = writes.stream().filter(e -> !e.resource().equals("events")).toList();
        assertEquals(1, state.size(), () -> c.file() + ": one write, the status: " + writes);
        assertEquals("update", state.get(0).verb());
        assertEquals("tenantclusters/status", state.get(0).resource());
        for (RequestLog.Entry e : writes) {
            assertTrue(e == state.get(0) || e.namespace().equals(key.namespace()), () -> c.file() + ": " + e);
        }
        assertNotNull(converged.failure(), c.file());
        assertEquals("InvalidSpec", converged.failure().reason(), c.file());
        JsonObject tc = live.hostKube.require("TenantCluster", live.namespace, key.name());
        JsonObject ready = condition(tc, "Ready");
        assertEquals("False", Json.string(ready, "status"), c.file());
        assertEquals("InvalidSpec", Json.string(ready, "reason"), c.file());
        assertTrue(Json.string(ready, "message").contains(want.condition()), () -> c.file() + ": Ready says '"
                + Json.string(ready, "message") + "', not '" + want.condition() + "'");
        JsonObject accepted = condition(tc, "Accepted");
        assertEquals("False", Json.string(accepted, "status"), c.file());
        assertEquals("Pending", Json.string(tc, "status", "phase"), c.file());

        assertTrue(plane.observer().flush(java.time.Duration.ofSeconds(10)), c.file() + ": the first pass's Events");
        host.requests().reset();
        plane.ensure(key);
        plane.converge(key);
        assertEquals(List.of(), writes(host), c.file() + ": a second pass over the same input writes nothing");
    }

    // ---------------------------------------------------------------- tenant objects

    private static void tenantObjects(Live live, Corpus.Case c) {
        KubeApiServer host = live.requireHostServer();
        for (JsonObject o : c.customResources()) {
            live.hostKube.create(o);
        }
        live.syncPrerequisites("dev");
        Kube dev = live.tenant("dev");
        TenantPlane plane = live.plane();
        TenantKey key = live.key("dev");
        ConvergenceReport empty = plane.converge(key);
        assertTrue(empty.converged(), () -> c.file() + ": an empty tenant converges: " + empty);

        List<JsonObject> admitted = new ArrayList<>();
        for (JsonObject o : c.tenantObjects()) {
            String ns = Json.string(o, "metadata", "namespace");
            if (ns != null && !ns.equals("default") && live.tenant("dev").get("Namespace", null, ns).isEmpty()) {
                dev.create(Kube.json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                        + ns + "\"}}"));
            }
            Kube.Reply r = dev.call("POST", Kube.kindOf(o).collectionPath(ns), Map.of(), o);
            if (c.tenantRefuses()) {
                assertTrue(r.code() >= 400 && r.code() < 500, () -> c.file() + ": the tenant API refuses it, got "
                        + r.code());
            } else {
                assertEquals(201, r.code(), () -> c.file() + ": the tenant API stores it: " + r.body());
                admitted.add(o);
            }
        }
        host.requests().reset();

        ConvergenceReport report = plane.converge(key);

        assertNotNull(report.outcomes(), c.file());
        assertEquals(null, report.failure(), c.file());
        List<RequestLog.Entry> workloadWrites = workloadWrites(host);
        // The pass also mints a tenant token into a host Secret for each Pod it creates that mounts one: a write the
        // offline plan (and so the corpus file) does not hold, made only for a Pod the pass creates.
        List<Decision> tokens = report.decisions().stream()
                .filter(d -> TenantTokens.ISSUED.equals(d.reason())).toList();
        for (Decision t : tokens) {
            assertTrue(report.decisions().stream().anyMatch(d -> d.kind().equals("Pod") && d.action() == Action.CREATE
                    && Objects.equals(d.source(), t.source())), () -> c.file() + ": a token for a Pod created: " + t);
        }
        long expected = c.tenantRefuses() ? 0 : c.expectedWrites() + tokens.size();
        assertEquals(expected, workloadWrites.size(), () -> c.file() + ": host writes " + workloadWrites);
        assertTrue(workloadWrites.stream().allMatch(e -> e.code() >= 200 && e.code() < 300),
                () -> c.file() + ": no write was refused by the host: " + workloadWrites);
        if (c.tenantRefuses()) {
            assertEquals(List.of(), admitted);
            return;
        }
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)), c.file() + ": the pass's Events are written");
        boolean troubled = false;
        for (Corpus.ExpectedDecision want : c.decisions()) {
            Decision d = report.decisions().stream().filter(want::isAbout).findFirst().orElseGet(() ->
                    fail(c.file() + ": no decision about " + want + " in " + report.decisions()));
            assertEquals(want.action(), d.action(), () -> c.file() + ": " + d);
            assertEquals(want.reason(), d.reason(), () -> c.file() + ": " + d);
            assertTrue(d.message().contains(want.message()), () -> c.file() + ": " + d.message());
            if (d.action() == Action.ERROR || d.action() == Action.CONFLICT) {
                troubled = true;
                assertTrue(warningEvents(live).stream().anyMatch(e -> want.reason().equals(Json.string(e, "reason"))
                                && Objects.requireNonNullElse(Json.string(e, "note"), "").contains(want.message())),
                        () -> c.file() + ": a Warning Event on the TenantCluster says " + want.reason() + ": "
                                + warningEvents(live));
            }
        }
        JsonObject synced = condition(live.hostKube.require("TenantCluster", live.namespace, "dev"), "Synced");
        assertEquals(troubled ? "False" : "True", Json.string(synced, "status"), () -> c.file() + ": " + synced
                + " after " + report.outcomes());
        for (Corpus.HostCheck h : c.hostChecks()) {
            Decision d = report.decisions().stream().filter(x -> x.kind().equals(h.kind()) && x.source() != null
                    && Objects.equals(h.name(), x.source().name())
                    && Objects.equals(h.namespace(), x.source().virtualNamespace())).findFirst().orElseThrow();
            Corpus.assertHost(c, h, live.hostKube.require(h.kind(), live.namespace, d.host().name()));
        }

        host.requests().reset();
        ConvergenceReport again = plane.converge(key);
        assertEquals(List.of(), workloadWrites(host), () -> c.file() + ": a second pass writes nothing: "
                + again.decisions());
    }

    // ---------------------------------------------------------------- helpers

    static List<RequestLog.Entry> writes(KubeApiServer server) {
        return server.requests().entries().stream().filter(RequestLog.Entry::isWrite).toList();
    }

    /** Writes of synced tenant copies (not the TenantCluster's status, not Events). */
    static List<RequestLog.Entry> workloadWrites(KubeApiServer server) {
        return writes(server).stream().filter(e -> Corpus.WORKLOAD_RESOURCES.contains(qualified(e))).toList();
    }

    static String qualified(RequestLog.Entry e) {
        String plural = e.resource().contains("/") ? e.resource().substring(0, e.resource().indexOf('/'))
                : e.resource();
        return e.group().isEmpty() ? plural : plural + "." + e.group();
    }

    static JsonObject condition(JsonObject object, String type) {
        JsonObject status = Json.object(object, "status");
        if (status != null && status.has("conditions")) {
            for (JsonElement c : status.getAsJsonArray("conditions")) {
                if (type.equals(Json.string(c.getAsJsonObject(), "type"))) {
                    return c.getAsJsonObject();
                }
            }
        }
        throw new AssertionError("no condition " + type + " in " + status);
    }

    private static List<JsonObject> warningEvents(Live live) {
        Kube.Reply r = live.hostKube.call("GET", "/apis/events.k8s.io/v1/namespaces/" + live.namespace + "/events",
                Map.of(), null);
        List<JsonObject> out = new ArrayList<>();
        r.body().getAsJsonArray("items").forEach(e -> {
            if ("Warning".equals(Json.string(e.getAsJsonObject(), "type"))) {
                out.add(e.getAsJsonObject());
            }
        });
        return out;
    }
}
