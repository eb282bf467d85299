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
 * A tenant Service's ClusterIP is its host copy's, so that a name the tenant's DNS answers is routable on the host:
 * the host copy asks for the tenant's IP; when the host has it taken, the host allocates one and the tenant Service is
 * created again with it (a ClusterIP never changes in place); a headless Service keeps None; a tenant API whose Service
 * range does not hold the host's IPs refuses it, and the Service is created again as it was, never lost.
 */
@Tag(Live.HOOKS)
class SharedClusterIpIT {

    private Live live;

    @AfterEach
    void stop() {
        if (live != null) {
            live.close();
        }
    }

    private static JsonObject service(String name, boolean headless) {
        return Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s","namespace":"default"},
                 "spec":{%s"selector":{"app":"%s"},"ports":[{"port":80,"targetPort":8080}]}}"""
                .formatted(name, headless ? "\"clusterIP\":\"None\"," : "", name));
    }

    private List<RequestLog.Entry> tenantServiceWrites(KubeApiServer tenant) {
        return tenant.requests().entries().stream().filter(e -> e.isWrite() && e.resource().equals("services"))
                .toList();
    }

    @Test
    void theHostCopyTakesTheTenantServicesClusterIpSoNothingIsRecreated() {
        live = Live.start(true);
        live.createTenant("dev");
        Kube dev = live.tenant("dev");
        JsonObject created = dev.create(service("nginx", false));
        dev.create(service("db", true));

        ConvergenceReport r = live.plane().converge(live.key("dev"));

        String ip = Json.string(created, "spec", "clusterIP");
        assertEquals(ip, Json.string(live.hostKube.require("Service", live.namespace, "nginx-x-default-x-dev"),
                "spec", "clusterIP"), "one IP on both sides");
        JsonObject tenant = dev.require("Service", "default", "nginx");
        assertEquals(Json.string(created, "metadata", "uid"), Json.string(tenant, "metadata", "uid"),
                "the tenant Service is the one the user made");
        assertTrue(r.decisions().stream().noneMatch(x -> Reasons.CLUSTER_IP_FROM_HOST.equals(x.reason())));
        assertEquals("None", Json.string(live.hostKube.require("Service", live.namespace, "db-x-default-x-dev"),
                "spec", "clusterIP"), "a headless Service stays headless");
    }

    @Test
    void whenTheTenantsIpIsTakenOnTheHostTheTenantServiceTakesTheOneTheHostAllocates() {
        live = Live.start(true);
        live.createTenant("dev");
        Kube dev = live.tenant("dev");
        TenantPlane plane = live.plane();
        TenantKey key = live.key("dev");
        String before = Json.string(dev.create(service("nginx", false)), "spec", "clusterIP");
        // Another Service on the host already holds that IP (tenant APIs allocate from the host's range on their own).
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"platform-db","namespace":"%s"},
                 "spec":{"clusterIP":"%s","ports":[{"port":5432}]}}""".formatted(live.namespace, before)));

        ConvergenceReport r = plane.converge(key);

        JsonObject host = live.hostKube.require("Service", live.namespace, "nginx-x-default-x-dev");
        String hostIp = Json.string(host, "spec", "clusterIP");
        assertNotEquals(before, hostIp);
        Decision create = r.decisions().stream().filter(x -> x.kind().equals("Service") && x.action() == Action.CREATE)
                .findFirst().orElseThrow();
        assertTrue(create.message().contains("the host refused the tenant's ClusterIP " + before), create.message());
        JsonObject tenant = dev.require("Service", "default", "nginx");
        assertEquals(hostIp, Json.string(tenant, "spec", "clusterIP"), "one IP on both sides");
        assertEquals(List.of(hostIp), tenant.getAsJsonObject("spec").getAsJsonArray("clusterIPs").asList().stream()
                .map(e -> e.getAsString()).toList());
        Decision d = r.decisions().stream().filter(x -> Reasons.CLUSTER_IP_FROM_HOST.equals(x.reason()))
                .findFirst().orElseThrow(() -> new AssertionError(r.decisions()));
        assertEquals(Action.UPDATE, d.action());
        assertTrue(d.message().contains("takes the ClusterIP " + hostIp + " of its host copy"), d.message());

        KubeApiServer tenantServer = live.tenantServer("dev");
        tenantServer.requests().reset();
        ConvergenceReport again = plane.converge(key);
        assertTrue(again.decisions().stream().noneMatch(x -> Reasons.CLUSTER_IP_FROM_HOST.equals(x.reason())));
        assertEquals(List.of(), tenantServiceWrites(tenantServer), "a second pass leaves the Service alone");
        assertEquals(hostIp, Json.string(live.hostKube.require("Service", live.namespace, "nginx-x-default-x-dev"),
                "spec", "clusterIP"));
    }

    @Test
    void aTenantApiOutsideTheHostsRangeKeepsItsServiceAndTheDecisionSaysWhy() {
        live = Live.start(true);
        Kube dev = live.tenant("dev", KubeApiServer.builder().serviceCidr("10.43.0.0/16"));
        live.createTenant("dev");
        dev.create(service("nginx", false));
        ConvergenceReport r = live.plane().converge(live.key("dev"));
        JsonObject tenant = dev.require("Service", "default", "nginx");
        assertTrue(Json.string(tenant, "spec", "clusterIP").startsWith("10.43."), "restored with a tenant IP");
        assertTrue(r.outcomes().stream().anyMatch(o -> o instanceof io.tenantplane.observe.Outcome.Failed f
                && f.decision().reason().equals(Reasons.CLUSTER_IP_FROM_HOST) && f.code() == 422
                && f.message().contains("created again as it was")), r.outcomes()::toString);
    }
}
