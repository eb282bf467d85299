package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A StatefulSet inside a tenant rolls out as in a real cluster, through tenantplane: the tenant's StatefulSet
 * controller (the simulated one, as k3s runs its own) makes {@code db-0} and its claim; a pass syncs both to the host,
 * where the host's kubelet runs the pod; the next pass flows its status back, the tenant pod becomes Running and Ready,
 * and only then does the tenant's controller make {@code db-1} (OrderedReady). Scaling down deletes {@code db-1} in the
 * tenant; tenantplane deletes its host copy and finalizes the tenant pod, so the tenant's controller sees it gone.
 */
class TenantStatefulSetIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private Live live;
    private TenantPlane plane;

    @BeforeEach
    void start() {
        live = Live.simulated(Simulation.builder().nodes(1).build());
        plane = live.plane();
    }

    @AfterEach
    void stop() {
        live.close();
    }

    @Test
    void aTenantStatefulSetRollsOutOrderedThroughTheHostAndScalesDown() {
        live.createTenant("dev");
        assertTrue(plane.ensure(live.key("dev")).succeeded());
        // The tenant's own API with its controllers; its pods are run by the host's kubelets, not by nodes of its own.
        Kube dev = live.tenant("dev", KubeApiServer.builder().simulate(Simulation.builder().nodes(0).build()));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"db","namespace":"default"},
                 "spec":{"clusterIP":"None","selector":{"app":"db"},"ports":[{"port":5432}]}}"""));
        dev.create(Kube.json("""
                {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"default"},
                 "spec":{"serviceName":"db","replicas":2,"selector":{"matchLabels":{"app":"db"}},
                  "template":{"metadata":{"labels":{"app":"db"}},
                   "spec":{"securityContext":{"runAsNonRoot":true,"runAsUser":999,
                     "seccompProfile":{"type":"RuntimeDefault"}},
                    "affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
                     {"weight":100,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"db"}},
                      "topologyKey":"kubernetes.io/hostname"}}]}},
                    "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"kubernetes.io/hostname",
                     "whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"db"}}}],
                    "containers":[{"name":"db","image":"postgres:16",
                     "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}},
                     "volumeMounts":[{"name":"data","mountPath":"/var/lib/postgresql/data"}]}]}},
                  "volumeClaimTemplates":[{"metadata":{"name":"data"},
                   "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}"""));

        AtomicReference<ConvergenceReport> last = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean early = new java.util.concurrent.atomic.AtomicBoolean();
        converge("the tenant's StatefulSet has both replicas ready", last, () -> {
            boolean firstReady = dev.get("Pod", "default", "db-0").map(p -> "Running".equals(Json.string(p, "status",
                    "phase"))).orElse(false);
            if (dev.get("Pod", "default", "db-1").isPresent() && !firstReady) {
                early.set(true);
            }
            return Json.number(dev.require("StatefulSet", "default", "db"), 0, "status", "readyReplicas") == 2;
        });
        assertTrue(!early.get(), "db-1 was made only once db-0 ran (OrderedReady, from the status tenantplane flows "
                + "back)");
        for (int i = 0; i < 2; i++) {
            JsonObject host = live.hostKube.require("Pod", live.namespace, "db-" + i + "-x-default-x-dev");
            assertEquals("Running", Json.string(host, "status", "phase"));
            assertEquals("db-" + i, Json.string(host, "spec", "hostname"), "the pod keeps the name it has inside");
            // The host (which validates affinity and spread as a real API server does) took the scoped selectors.
            JsonObject term = host.getAsJsonObject("spec").getAsJsonObject("affinity").getAsJsonObject(
                    "podAntiAffinity").getAsJsonArray("preferredDuringSchedulingIgnoredDuringExecution").get(0)
                    .getAsJsonObject().getAsJsonObject("podAffinityTerm");
            assertEquals(java.util.Map.of("app", "db", "tenantplane.io/tenant", "dev",
                    "tenantplane.io/virtual-namespace", "default"), Json.gson().fromJson(Json.object(term,
                    "labelSelector", "matchLabels"), java.util.Map.class), "anti-affinity only against dev's own db");
            String claim = host.getAsJsonObject("spec").getAsJsonArray("volumes").asList().stream()
                    .map(v -> Json.string(v.getAsJsonObject(), "persistentVolumeClaim", "claimName"))
                    .filter(java.util.Objects::nonNull).findFirst().orElseThrow();
            assertEquals("data-db-" + i + "-x-default-x-dev", claim, "the host pod mounts the host copy of its claim");
            assertTrue(live.hostKube.get("PersistentVolumeClaim", live.namespace, claim).isPresent(), claim);
            JsonObject tenantPod = dev.require("Pod", "default", "db-" + i);
            assertEquals("Running", Json.string(tenantPod, "status", "phase"));
        }

        JsonObject sts = dev.require("StatefulSet", "default", "db");
        sts.getAsJsonObject("spec").addProperty("replicas", 1);
        dev.update(sts);
        converge("db-1 is gone from the tenant and the host", last, () -> dev.get("Pod", "default", "db-1").isEmpty()
                && live.hostKube.get("Pod", live.namespace, "db-1-x-default-x-dev").isEmpty()
                && Json.number(dev.require("StatefulSet", "default", "db"), 0, "status", "replicas") == 1);
        assertTrue(dev.get("PersistentVolumeClaim", "default", "data-db-1").isPresent(),
                "the tenant keeps db-1's claim (whenScaled: Retain), as a cluster does");
    }

    private void converge(String what, AtomicReference<ConvergenceReport> last, BooleanSupplier done) {
        assertTrue(Live.eventually(WAIT, () -> {
            last.set(plane.converge(live.key("dev")));
            return done.getAsBoolean();
        }), () -> what + "; the last pass: " + (last.get() == null ? null : last.get().outcomes()));
    }
}
