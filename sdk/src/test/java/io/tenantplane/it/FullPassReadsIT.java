package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.ConvergenceReport;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import com.google.gson.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The requests of one full pass over a converged tenant, as the Syncer runs it ({@code ensure}, then {@code converge}
 * from the context ensure read): the TenantCluster, its SyncPolicy and its IsolationProfile are each read once, no
 * other object or list is read twice on either side (neither by the same request twice nor got by name and listed
 * with its collection), and nothing is written.
 */
@Tag(Live.HOOKS)
class FullPassReadsIT {

    /** The reads (gets and lists, by URL with its query) that the server answered more than once. */
    private static Map<String, Long> repeated(KubeApiServer server) {
        Map<String, Long> n = new TreeMap<>();
        for (RequestLog.Entry e : server.requests().entries()) {
            if (!e.isWrite() && !e.resource().isEmpty()) {
                n.merge(e.verb() + " " + e.path(), 1L, Long::sum);
            }
        }
        n.values().removeIf(c -> c < 2);
        return n;
    }

    /**
     * The objects read twice in one pass by different requests: got by name, and listed with their collection
     * (as {@code get <object path>}); empty when each object is read once.
     */
    private static java.util.List<String> gotAndListed(KubeApiServer server) {
        java.util.Set<String> lists = new java.util.HashSet<>();
        for (RequestLog.Entry e : server.requests().entries()) {
            if (e.verb().equals("list")) {
                lists.add(e.path());
            }
        }
        return server.requests().entries().stream().filter(e -> e.verb().equals("get")
                && lists.contains(e.path().substring(0, e.path().lastIndexOf('/'))))
                .map(e -> "get " + e.path()).toList();
    }

    /** The gets and lists the server answered, as docs/performance.md words them. */
    private static String reads(KubeApiServer server) {
        return server.requests().count("get", "*") + " gets and " + server.requests().count("list", "*") + " lists";
    }

    @Test
    void aConvergedTenantsFullPassReadsItsResourcesOnceAndWritesNothing() throws Exception {
        try (Live live = Live.start(true)) {
            live.createTenant("dev");
            Kube dev = live.tenant("dev");
            dev.create(SyncIT.pod("default", "web", Map.of("app", "web")));
            TenantPlane plane = live.plane();
            TenantKey key = live.key("dev");
            KubeApiServer host = live.requireHostServer();
            for (int i = 0; i < 3; i++) {
                ProvisionReport p = plane.ensure(key);
                plane.converge(p.context());
                if (i == 0) {
                    // A converged tenant's control plane and DNS run: the host's StatefulSet and Deployment
                    // controllers (which this host does not run) report their replicas created and ready.
                    live.hostKube.controlPlaneRuns(live.namespace, "dev");
                }
            }
            assertEquals("Ready", io.tenantplane.json.Json.string(live.hostKube.require("TenantCluster",
                    live.namespace, "dev"), "status", "phase"), "the tenant is Ready before the pass is counted");
            assertTrue(plane.observer().flush(Duration.ofSeconds(10)), "the Events of the passes before");
            host.requests().reset();
            live.tenantServer("dev").requests().reset();

            ProvisionReport p = plane.ensure(key);
            assertNotNull(p.context(), "ensure hands on what it read for the pass");
            ConvergenceReport r = plane.converge(p.context());
            assertTrue(plane.observer().flush(Duration.ofSeconds(10)));

            assertTrue(r.converged(), r::toString);
            Map<String, Long> reads = new TreeMap<>();
            for (String resource : new String[] {"tenantclusters.tenantplane.io", "syncpolicies.tenantplane.io",
                    "isolationprofiles.tenantplane.io"}) {
                reads.put(resource, host.requests().count("get", resource) + host.requests().count("list", resource));
            }
            assertEquals(Map.of("isolationprofiles.tenantplane.io", 1L, "syncpolicies.tenantplane.io", 1L,
                    "tenantclusters.tenantplane.io", 1L), reads, "each read once; all requests: "
                    + host.requests().entries());
            assertEquals(Map.of(), repeated(host), "no host object or list is read twice in one pass");
            assertEquals(Map.of(), repeated(live.tenantServer("dev")), "no tenant object or list is read twice");
            assertEquals(java.util.List.of(), gotAndListed(host), "no host object is both got and listed");
            assertEquals(java.util.List.of(), gotAndListed(live.tenantServer("dev")),
                    "no tenant object is both got and listed");
            assertEquals(0, host.requests().writes(), () -> "nothing written: " + host.requests().entries());
            String counted = reads(host) + " on the host, " + reads(live.tenantServer("dev")) + " in the tenant";
            String doc = Files.readString(Path.of("..", "docs", "performance.md")).replaceAll("\\s+", " ");
            assertTrue(doc.contains("(" + counted + ")"), "docs/performance.md gives the requests of a full pass as ("
                    + counted + ")");
            assertEquals(0, live.tenantServer("dev").requests().writes());
        }
    }

    @Test
    void aListWhoseWriteFailedIsNotHandedOnAndThePassListsItAgain() throws Exception {
        try (Live live = Live.start(true)) {
            live.createTenant("dev");
            live.tenant("dev");
            TenantPlane plane = live.plane();
            TenantKey key = live.key("dev");
            KubeApiServer host = live.requireHostServer();
            for (int i = 0; i < 3; i++) {
                plane.converge(plane.ensure(key).context());
            }
            // A rendered NetworkPolicy drifts, and every update of a NetworkPolicy fails: provisioning cannot know
            // what its list of NetworkPolicies holds now.
            Kube hostKube = live.hostKube;
            JsonObject dns = hostKube.require("NetworkPolicy", "team-dev", "dev-allow-dns");
            dns.getAsJsonObject("spec").add("egress", new com.google.gson.JsonArray());
            hostKube.update(dns);
            host.faults().add(io.tenantplane.testkit.FaultRule.on("update", "networkpolicies").respond(500));
            host.requests().reset();

            ProvisionReport p = plane.ensure(key);
            assertTrue(p.outcomes().stream().anyMatch(o -> o instanceof io.tenantplane.observe.Outcome.Failed),
                    p::toString);
            ConvergenceReport r = plane.converge(p.context());

            assertEquals(2, host.requests().count("list", "networkpolicies.networking.k8s.io"),
                    () -> "listed by provisioning, and again by the pass: " + r + " " + host.requests().entries());
            assertEquals(1, host.requests().count("list", "secrets"),
                    () -> "the Secrets list was handed on: " + host.requests().entries());
        }
    }
}
