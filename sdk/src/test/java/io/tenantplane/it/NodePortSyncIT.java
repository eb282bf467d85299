package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.RequestLog;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A tenant NodePort Service's node ports are its host copy's, so that the port a tenant user reads on the Service is
 * the one the host's nodes listen on: the host copy asks for the ports the tenant API allocated; when the host has one
 * taken, it allocates another and the tenant Service takes it, in place. Both API servers allocate node ports as
 * kube-apiserver does (at random above the static band, a requested port in range and free).
 */
@Tag(Live.HOOKS)
class NodePortSyncIT {

    private Live live;

    @AfterEach
    void stop() {
        if (live != null) {
            live.close();
        }
    }

    /** The example tenant, with a profile that allows NodePort Services. */
    private void nodePortTenant() {
        live.createTenant("dev", o -> {
            if ("IsolationProfile".equals(Json.string(o, "kind"))) {
                Json.child(o, "spec", "services").add("allowedTypes", Kube.json("{\"t\":[\"ClusterIP\",\"NodePort\"]}")
                        .get("t"));
            }
        });
    }

    private static JsonObject service(String name, String nodePort) {
        return Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","namespace":"default"},
                 "spec":{"type":"NodePort","selector":{"app":"%s"},
                         "ports":[{"name":"http","port":80,"targetPort":8080%s}]}}"""
                .formatted(name, name, nodePort == null ? "" : ",\"nodePort\":" + nodePort));
    }

    private static int nodePort(JsonObject service) {
        return service.getAsJsonObject("spec").getAsJsonArray("ports").get(0).getAsJsonObject().get("nodePort")
                .getAsInt();
    }

    private static List<RequestLog.Entry> serviceWrites(KubeApiServer server) {
        return server.requests().entries().stream().filter(e -> e.isWrite() && e.resource().equals("services"))
                .toList();
    }

    @Test
    void theHostCopyTakesTheNodePortTheTenantApiAllocatedSoNothingChangesInTheTenant() {
        live = Live.start(true);
        nodePortTenant();
        Kube dev = live.tenant("dev");
        JsonObject created = dev.create(service("web", null));
        int port = nodePort(created);
        assertTrue(port >= 30000 && port <= 32767, "the tenant API allocated one: " + port);

        ConvergenceReport r = live.plane().converge(live.key("dev"));

        JsonObject host = live.hostKube.require("Service", live.namespace, "web-x-default-x-dev");
        assertEquals(port, nodePort(host), "one node port on both sides");
        JsonObject tenant = dev.require("Service", "default", "web");
        assertEquals(Json.string(created, "metadata", "resourceVersion"), Json.string(tenant, "metadata",
                "resourceVersion"), "the tenant Service is not written");
        assertTrue(r.decisions().stream().noneMatch(x -> Reasons.NODE_PORTS_FROM_HOST.equals(x.reason())));
        Decision create = r.decisions().stream().filter(x -> x.kind().equals("Service") && x.action() == Action.CREATE)
                .findFirst().orElseThrow();
        assertTrue(create.message().contains("requests the tenant Service's node port " + port + " on the host"),
                create.message());
    }

    @Test
    void whenTheTenantsNodePortIsTakenOnTheHostTheTenantServiceTakesTheOneTheHostAllocates() {
        live = Live.start(true);
        nodePortTenant();
        Kube dev = live.tenant("dev");
        TenantPlane plane = live.plane();
        TenantKey key = live.key("dev");
        assertEquals(30123, nodePort(dev.create(service("web", "30123"))));
        // A platform Service on the host already listens on that port (each tenant API allocates on its own).
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"platform-ingress","namespace":"%s"},
                 "spec":{"type":"NodePort","selector":{"app":"ingress"},"ports":[{"port":443,"nodePort":30123}]}}"""
                .formatted(live.namespace)));

        ConvergenceReport r = plane.converge(key);

        JsonObject host = live.hostKube.require("Service", live.namespace, "web-x-default-x-dev");
        int hostPort = nodePort(host);
        assertNotEquals(30123, hostPort);
        Decision create = r.decisions().stream().filter(x -> x.kind().equals("Service") && x.action() == Action.CREATE)
                .findFirst().orElseThrow();
        assertTrue(create.message().contains("the host refused the tenant's node port 30123 ("), create.message());
        assertTrue(create.message().contains("provided port is already allocated"), create.message());
        assertEquals(hostPort, nodePort(dev.require("Service", "default", "web")), () -> "one node port on both sides " + r.outcomes());
        Decision d = r.decisions().stream().filter(x -> Reasons.NODE_PORTS_FROM_HOST.equals(x.reason()))
                .findFirst().orElseThrow(() -> new AssertionError(r.decisions()));
        assertEquals(Action.UPDATE, d.action());
        assertTrue(d.message().contains("takes the node port http 30123 -> " + hostPort + " of its host copy"),
                d.message());
        assertEquals(30123, nodePort(live.hostKube.require("Service", live.namespace, "platform-ingress")),
                "the platform's Service is never touched");

        KubeApiServer tenantServer = live.tenantServer("dev");
        tenantServer.requests().reset();
        ConvergenceReport again = plane.converge(key);
        assertTrue(again.decisions().stream().noneMatch(x -> Reasons.NODE_PORTS_FROM_HOST.equals(x.reason())));
        assertEquals(List.of(), serviceWrites(tenantServer), "a second pass leaves the tenant Service alone");
        // The tenant Service changed (its node port), so its host copy's source hash is brought up to date once;
        // the node port stays the host's.
        assertEquals(List.of(Reasons.SOURCE_CHANGED), again.decisions().stream().filter(x -> x.kind().equals("Service")
                && x.action() == Action.UPDATE).map(Decision::reason).toList());
        assertEquals(hostPort, nodePort(live.hostKube.require("Service", live.namespace, "web-x-default-x-dev")));
        tenantServer.requests().reset();
        live.requireHostServer().requests().reset();
        plane.converge(key);
        assertEquals(List.of(), serviceWrites(tenantServer), "then the tenant Service is left alone");
        assertEquals(List.of(), serviceWrites(live.requireHostServer()), "and its host copy");
    }
}
