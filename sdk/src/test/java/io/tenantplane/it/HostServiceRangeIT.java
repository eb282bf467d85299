package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tenant whose TenantCluster names no Service range runs with one that holds the host's: the /12 block around the
 * host's {@code kubernetes} Service, where the default does not hold it.
 */
class HostServiceRangeIT {

    private static List<String> controlPlaneArgs(Live live, String tenant) {
        JsonObject sts = live.hostKube.require("StatefulSet", live.namespace, tenant + "-control-plane");
        JsonArray args = Json.array(sts.getAsJsonObject("spec").getAsJsonObject("template").getAsJsonObject("spec")
                .getAsJsonArray("containers").get(0).getAsJsonObject(), "args");
        List<String> out = new ArrayList<>();
        args.forEach(a -> out.add(a.getAsString()));
        return out;
    }

    private static String serviceCidr(List<String> args) {
        return args.stream().filter(a -> a.startsWith("--service-cidr=")).findFirst().orElseThrow()
                .substring("--service-cidr=".length());
    }

    @Test
    void onAHostWithK3ssRangeTheTenantApiAcceptsTheHostsServiceIps() {
        try (Live live = Live.inProcess(KubeApiServer.builder().serviceCidr("10.43.0.0/16"))) {
            assertEquals("10.43.0.1", Json.string(live.hostKube.require("Service", "default", "kubernetes"), "spec",
                    "clusterIP"), "the host's kubernetes Service is at its range's first address");
            TenantPlane plane = live.plane();
            live.createTenant("dev");
            plane.ensure(live.key("dev"));
            assertEquals("10.32.0.0/12", serviceCidr(controlPlaneArgs(live, "dev")),
                    "the block around 10.43.0.1, which holds 10.43.0.0/16; the default 10.96.0.0/12 does not");

            // A tenant that names its range keeps it.
            live.createTenant("ops", o -> {
                if ("TenantCluster".equals(Json.string(o, "kind"))) {
                    Json.child(o, "spec", "controlPlane").addProperty("serviceCIDR", "10.43.0.0/16");
                }
            });
            plane.ensure(live.key("ops"));
            assertEquals("10.43.0.0/16", serviceCidr(controlPlaneArgs(live, "ops")));

            // Reading the range stored nothing on the host beyond what provisioning writes.
            assertEquals(List.of("kubernetes"), live.hostKube.list("Service", "default", null).stream()
                    .map(s -> Json.string(s, "metadata", "name")).toList());
            // What render predicts is what provisioning wrote.
            JsonObject tcJson = live.hostKube.require("TenantCluster", live.namespace, "dev");
            JsonObject profileJson = live.hostKube.require("IsolationProfile", live.namespace, "restricted");
            assertTrue(plane.render(TenantCluster.fromJson(tcJson).orElseThrow(),
                    IsolationProfile.fromJson(profileJson).orElseThrow()).stream()
                    .filter(o -> "StatefulSet".equals(Json.string(o, "kind"))).findFirst().orElseThrow()
                    .toString().contains("--service-cidr=10.32.0.0/12"));
        }
    }

    @Test
    void theHostIsReadOncePerPlaneAndAFailedReadIsMadeAgainOnTheNextProvisioning() {
        try (Live live = Live.inProcess(KubeApiServer.builder().serviceCidr("10.43.0.0/16"))) {
            KubeApiServer host = live.requireHostServer();
            host.faults().add(FaultRule.on("get", "services").inNamespace("default").times(1).respond(403));
            TenantPlane plane = live.plane();
            live.createTenant("dev");
            plane.ensure(live.key("dev"));
            assertEquals("10.96.0.0/12", serviceCidr(controlPlaneArgs(live, "dev")),
                    "the read was refused: the default until a read succeeds");
            assertEquals(1, host.faults().fired());

            plane.ensure(live.key("dev"));
            assertEquals("10.32.0.0/12", serviceCidr(controlPlaneArgs(live, "dev")),
                    "the next provisioning read again, and the control plane follows");
            long reads = kubernetesServiceReads(host);
            plane.ensure(live.key("dev"));
            plane.ensure(live.key("dev"));
            assertEquals(reads, kubernetesServiceReads(host), "once known, the range is not read again");
            assertEquals(2, reads, "one refused read, one that answered");
        }
    }

    private static long kubernetesServiceReads(KubeApiServer host) {
        return host.requests().entries().stream().filter(e -> e.verb().equals("get")
                && e.resource().equals("services") && "default".equals(e.namespace())
                && "kubernetes".equals(e.name())).count();
    }

    @Test
    void onAHostWhoseRangeTheDefaultHoldsNothingChanges() {
        try (Live live = Live.inProcess(KubeApiServer.builder())) {
            live.createTenant("dev");
            live.plane().ensure(live.key("dev"));
            assertEquals("10.96.0.0/12", serviceCidr(controlPlaneArgs(live, "dev")),
                    "kind's 10.96.0.0/16 lies in the default: the control plane renders as it always did");
        }
    }
}
