package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.testkit.RequestLog;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A tenant's hand-made Endpoints reach the host only with the IPs of its own host pods, as the host reports them: an
 * address that belongs to another tenant's pod is an explained Error and nothing is written, whether the pass is a
 * full one or one driven by a watch event on the Endpoints; a tenant that forges its own pod's status to carry the
 * other tenant's IP gains nothing.
 */
@Tag(Live.HOOKS)
class EndpointAddressesIT {

    private static final String OWN_IP = "10.244.1.7";
    private static final String ALICES_IP = "10.244.2.9";

    private Live live;
    private Kube dev;
    private TenantPlane plane;
    private TenantKey key;

    @BeforeEach
    void start() {
        live = Live.start(true);
        live.createTenant("dev");
        live.syncPrerequisites("dev");
        dev = live.tenant("dev");
        plane = live.plane();
        key = live.key("dev");
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"db-0","namespace":"default"},
                 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                   "containers":[{"name":"db","image":"postgres:17",
                     "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}"""));
        assertTrue(plane.converge(key).converged());
        // What the host's kubelet reports for the host copy: its IP.
        JsonObject hostPod = live.hostKube.require("Pod", live.namespace, "db-0-x-default-x-dev");
        hostPod.add("status", Kube.json("{\"phase\":\"Running\",\"podIP\":\"" + OWN_IP + "\",\"podIPs\":[{\"ip\":\""
                + OWN_IP + "\"}],\"qosClass\":\"BestEffort\"}"));
        live.hostKube.updateStatus(hostPod);
        // Another tenant's pod on the same host, at another IP.
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-x-default-x-alice","namespace":"%s",
                  "labels":{"tenantplane.io/tenant":"alice"}},
                 "spec":{"containers":[{"name":"web","image":"nginx"}]}}""".formatted(live.namespace)));
        JsonObject alices = live.hostKube.require("Pod", live.namespace, "web-x-default-x-alice");
        alices.add("status", Kube.json("{\"phase\":\"Running\",\"podIP\":\"" + ALICES_IP + "\",\"qosClass\":\"BestEffort\"}"));
        live.hostKube.updateStatus(alices);
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private void endpoints(String name, String ip) {
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","namespace":"default"},
                 "spec":{"ports":[{"port":5432}]}}""".formatted(name)));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"%s","namespace":"default"},
                 "subsets":[{"addresses":[{"ip":"%s"}],"ports":[{"port":5432}]}]}""".formatted(name, ip)));
    }

    private static Decision endpointsDecision(ConvergenceReport r, String name) {
        return r.decisions().stream().filter(d -> d.kind().equals("Endpoints") && d.source() != null
                && d.source().name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(r.decisions()));
    }

    private List<RequestLog.Entry> endpointWrites() {
        return live.requireHostServer().requests().entries().stream().filter(e -> e.isWrite() && e.resource().equals("endpoints"))
                .toList();
    }

    @Test
    void endpointsNamingTheTenantsOwnPodReachTheHost() {
        endpoints("db", OWN_IP);
        ConvergenceReport r = plane.converge(key);
        assertEquals(Action.CREATE, endpointsDecision(r, "db").action(), r.decisions()::toString);
        JsonObject host = live.hostKube.require("Endpoints", live.namespace, "db-x-default-x-dev");
        assertEquals(OWN_IP, Json.string(host.getAsJsonArray("subsets").get(0).getAsJsonObject()
                .getAsJsonArray("addresses").get(0).getAsJsonObject(), "ip"));
    }

    @Test
    void endpointsNamingAnotherTenantsPodAreAnErrorAndWriteNothing() {
        endpoints("steal", ALICES_IP);
        live.requireHostServer().requests().reset();
        ConvergenceReport full = plane.converge(key);
        Decision d = endpointsDecision(full, "steal");
        assertEquals(Action.ERROR, d.action());
        assertEquals("EndpointAddressNotAllowed", d.reason());
        assertTrue(d.message().contains(ALICES_IP + " is neither the IP of one of tenant dev's pods"), d.message());
        assertEquals(List.of(), endpointWrites());

        // A watch event on the Endpoints drives a pass over that one object: it reads the host pods too.
        ConvergenceReport one = plane.converge(plane.context(key).orElseThrow(), new TenantObjectRef("dev", "Endpoints", "default", "steal", null));
        assertEquals("EndpointAddressNotAllowed", endpointsDecision(one, "steal").reason());
        assertEquals(List.of(), endpointWrites());
        assertTrue(live.hostKube.get("Endpoints", live.namespace, "steal-x-default-x-dev").isEmpty());
    }

    @Test
    void aForgedPodStatusInTheTenantDoesNotMakeAnotherTenantsIpItsOwn() {
        JsonObject own = dev.require("Pod", "default", "db-0");
        own.add("status", Kube.json("{\"phase\":\"Running\",\"podIP\":\"" + ALICES_IP + "\",\"podIPs\":[{\"ip\":\""
                + ALICES_IP + "\"}],\"qosClass\":\"BestEffort\"}"));
        dev.updateStatus(own);
        endpoints("steal", ALICES_IP);
        ConvergenceReport r = plane.converge(key);
        assertEquals("EndpointAddressNotAllowed", endpointsDecision(r, "steal").reason());
        assertTrue(live.hostKube.get("Endpoints", live.namespace, "steal-x-default-x-dev").isEmpty());
    }
}
