package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.PlannerPropertyTestAccess;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.TransformResult;
import io.tenantplane.transform.Transformer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tenant control-plane pods run non-root with every capability dropped, in every mode and datastore, and pass the
 * {@code restricted} Pod Security level by tenantplane's own checker. The one documented exception, private mode's
 * k3s agents (privileged: a kubelet and containerd need root), gets a host namespace of its own that admits it.
 */
class ControlPlaneHardeningTest {

    private static TenantCluster tenant(String mode, String datastore, int replicas) {
        JsonObject tc = Corpus.examples().stream().filter(o -> "TenantCluster".equals(Json.string(o, "kind")))
                .findFirst().orElseThrow();
        Json.child(tc, "spec").addProperty("mode", mode);
        JsonObject cp = Json.child(tc, "spec", "controlPlane");
        cp.addProperty("replicas", replicas);
        Json.child(cp, "datastore").addProperty("type", datastore);
        return TenantCluster.fromJson(tc).orElseThrow();
    }

    @Test
    void controlPlanePodsRunNonRootWithNoCapabilitiesInEveryModeAndDatastore() {
        int checked = 0;
        for (String mode : List.of("shared", "dedicated", "private")) {
            for (Object[] ds : new Object[][] {{"sqlite", 1}, {"etcd", 3}}) {
                TenantCluster tc = tenant(mode, (String) ds[0], (Integer) ds[1]);
                JsonObject sts = new ControlPlaneRenderer().render(tc).stream()
                        .filter(o -> "StatefulSet".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
                JsonObject pod = Json.object(sts, "spec", "template", "spec");
                JsonObject podSc = Json.object(pod, "securityContext");
                String where = mode + "/" + ds[0];
                assertEquals(Boolean.TRUE, podSc.get("runAsNonRoot").getAsBoolean(), where);
                assertNotEquals(0, podSc.get("runAsUser").getAsLong(), where);
                assertEquals("RuntimeDefault", Json.string(podSc, "seccompProfile", "type"), where);
                assertFalse(pod.has("hostNetwork") || pod.has("hostPID") || pod.has("hostIPC"), where);
                JsonArray volumes = pod.getAsJsonArray("volumes");
                for (int i = 0; volumes != null && i < volumes.size(); i++) {
                    assertFalse(volumes.get(i).getAsJsonObject().has("hostPath"), where);
                }
                for (String list : List.of("initContainers", "containers")) {
                    JsonArray cs = pod.getAsJsonArray(list);
                    for (int i = 0; cs != null && i < cs.size(); i++) {
                        JsonObject sc = Json.object(cs.get(i).getAsJsonObject(), "securityContext");
                        String c = where + " " + Json.string(cs.get(i).getAsJsonObject(), "name");
                        assertEquals(false, sc.get("allowPrivilegeEscalation").getAsBoolean(), c);
                        assertEquals(true, sc.get("readOnlyRootFilesystem").getAsBoolean(), c);
                        assertFalse(sc.has("privileged") && sc.get("privileged").getAsBoolean(), c);
                        JsonArray drop = Json.object(sc, "capabilities").getAsJsonArray("drop");
                        assertTrue(drop.contains(new com.google.gson.JsonPrimitive("ALL")), c);
                        JsonElement add = Json.object(sc, "capabilities").get("add");
                        assertTrue(add == null || add.getAsJsonArray().isEmpty(), c);
                        checked++;
                    }
                }
                assertRestricted(where, pod);
            }
        }
        assertTrue(checked >= 12, "containers checked: " + checked);
    }

    /** The pod template, as a Pod, through the transform's Pod Security check at the restricted level. */
    private static void assertRestricted(String where, JsonObject podSpec) {
        JsonObject pod = new JsonObject();
        pod.addProperty("apiVersion", "v1");
        pod.addProperty("kind", "Pod");
        JsonObject meta = Json.child(pod, "metadata");
        meta.addProperty("name", "control-plane-0");
        meta.addProperty("namespace", "default");
        pod.add("spec", podSpec.deepCopy());
        TransformResult r = new Transformer("probe", "team-dev", PlannerPropertyTestAccess.policy("Pod", "Secret",
                "ConfigMap", "PersistentVolumeClaim", "ServiceAccount"), TransformOptions.defaults()).transform(pod);
        assertFalse(r instanceof TransformResult.Rejected rej && rej.reason().equals("PodSecurityViolation"),
                () -> where + ": " + r);
    }

    @Test
    void onlyPrivateModeHostNamespacesAdmitPrivilegedPodsAndOnlyForTheTenantsOwnAgents() {
        IsolationProfile restricted = IsolationProfile.fromJson(Corpus.examples().stream()
                .filter(o -> "IsolationProfile".equals(Json.string(o, "kind"))).findFirst().orElseThrow())
                .orElseThrow();
        for (String mode : List.of("shared", "dedicated", "private")) {
            TenantCluster tc = tenant(mode, "sqlite", 1);
            JsonObject ns = new IsolationRenderer().render(tc, restricted).stream()
                    .filter(o -> "Namespace".equals(Json.string(o, "kind"))).findFirst().orElseThrow();
            String enforce = Json.labels(ns).get("pod-security.kubernetes.io/enforce");
            assertEquals(mode.equals("private") ? "privileged" : "restricted", enforce, mode);
            if (mode.equals("private")) {
                assertEquals(tc.tenant(), Json.labels(ns).get("tenantplane.io/tenant"),
                        "a privileged host namespace belongs to one tenant");
                assertNotEquals(tc.namespace(), tc.hostNamespace(), "and is not the shared namespace");
            }
        }
    }
}
