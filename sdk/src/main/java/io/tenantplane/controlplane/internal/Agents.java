package io.tenantplane.controlplane.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A private-mode tenant's own k3s agents: a StatefulSet running {@code k3s agent} in the tenant's host namespace,
 * joining the tenant's API through its {@code <tenant>-api} Service, plus the ServiceAccount, Role and RoleBinding that
 * let the agents read the join token (the Secret lives beside the control plane, in the TenantCluster's namespace,
 * and a pod cannot mount a Secret of another namespace, so an init container fetches it).
 *
 * <p>Each agent keeps its data directory on a claim of its own ({@value #DATA_STORAGE}, the host's default
 * StorageClass): containerd's images, and the tenant's volumes, which k3s's local-path provisioner (left on by the
 * control plane in private mode) makes the tenant's default StorageClass {@code local-path}. A volume lives on the
 * agent whose claim holds it; the tenant's scheduler keeps its pods there (local-path volumes carry node affinity).
 *
 * <p>Agents register tenant Nodes labelled {@value #NODE_LABEL}={@code <tenant>}; that is how the planner tells
 * agents from the node mirrors of shared and dedicated mode. A k3s agent runs a kubelet and containerd, so its pod is
 * privileged: the tenant's host namespace must admit that in private mode.
 */
public final class Agents {

    /** Label on the tenant Nodes the agents register, value: the tenant's name. */
    public static final String NODE_LABEL = "tenantplane.io/agent";
    /** {@value ControlPlaneRenderer#COMPONENT_LABEL} of every agent object. */
    public static final String COMPONENT = ReverseMapping.AGENT_COMPONENT;
    /** Agents per tenant. */
    public static final int REPLICAS = 2;
    /**
     * Size of each agent's data claim (host default StorageClass): images, and the tenant's volumes through k3s's
     * local-path provisioner, the tenant's default StorageClass in private mode.
     */
    public static final String DATA_STORAGE = "20Gi";

    private final ControlPlaneRenderer controlPlane;

    /** @param controlPlane the renderer whose k3s image (and version pin) the agents share */
    public Agents(ControlPlaneRenderer controlPlane) {
        this.controlPlane = controlPlane;
    }

    /** The name of the agents' StatefulSet, ServiceAccount, Role and RoleBinding: {@code <tenant>-agent}. */
    public static String name(String tenant) {
        return tenant + "-agent";
    }

    /** The agent objects for {@code tc}, whose workloads run in {@code hostNamespace}. */
    public List<JsonObject> render(TenantCluster tc, String hostNamespace) {
        TenantCluster d = tc.withDefaults();
        ControlPlaneNames n = ControlPlaneNames.of(d);
        String t = d.tenant();
        String name = name(t);
        List<JsonObject> out = new ArrayList<>();
        out.add(obj("apiVersion", "v1", "kind", "ServiceAccount",
                "metadata", meta(t, name, hostNamespace, "identity of tenant " + t + "'s k3s agents; may read only "
                        + "the join token " + n.namespace() + "/" + n.tokenSecret())));
        out.add(obj("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "Role",
                "metadata", meta(t, name, n.namespace(), "lets tenant " + t + "'s agents read the join token and "
                        + "nothing else"),
                "rules", arr(obj("apiGroups", arr(""), "resources", arr("secrets"),
                        "resourceNames", arr(n.tokenSecret()), "verbs", arr("get")))));
        out.add(obj("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "RoleBinding",
                "metadata", meta(t, name, n.namespace(), "grants Role " + name + " to the agents' ServiceAccount in "
                        + hostNamespace),
                "roleRef", obj("apiGroup", "rbac.authorization.k8s.io", "kind", "Role", "name", name),
                "subjects", arr(obj("kind", "ServiceAccount", "name", name, "namespace", hostNamespace))));
        String image = controlPlane.image(d.spec().controlPlane().version());
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(ReverseMapping.TENANT, t);
        selector.put(ControlPlaneRenderer.COMPONENT_LABEL, COMPONENT);
        JsonObject fetch = obj("name", "join-token", "image", image,
                "command", arr("/bin/sh", "-c", "kubectl get secret " + n.tokenSecret() + " -n " + n.namespace()
                        + " -o jsonpath='{.data." + ControlPlaneNames.TOKEN_KEY + "}' | base64 -d > /run/join/token"),
                "volumeMounts", arr(obj("name", "join", "mountPath", "/run/join")));
        JsonObject agent = obj("name", "k3s-agent", "image", image,
                "command", arr("/bin/k3s", "agent"),
                "args", arr("--server=" + n.apiServerUrl(), "--token-file=/run/join/token",
                        "--node-label=" + NODE_LABEL + "=" + t),
                "securityContext", obj("privileged", true),
                "volumeMounts", arr(obj("name", "join", "mountPath", "/run/join", "readOnly", true),
                        obj("name", "data", "mountPath", "/var/lib/rancher/k3s")),
                "readinessProbe", obj("tcpSocket", obj("port", 10250), "periodSeconds", 10));
        JsonObject podSpec = obj("serviceAccountName", name, "enableServiceLinks", false,
                "initContainers", arr(fetch), "containers", arr(agent),
                "volumes", arr(obj("name", "join", "emptyDir", obj("medium", "Memory", "sizeLimit", "1Mi"))));
        Map<String, String> podLabels = new LinkedHashMap<>(labels(t));
        podLabels.putAll(selector);
        out.add(obj("apiVersion", "apps/v1", "kind", "StatefulSet",
                "metadata", meta(t, name, hostNamespace, "runs " + REPLICAS + " k3s agents for tenant " + t
                        + " (private mode): the tenant's workloads run on them, scheduled by the tenant's own scheduler"),
                "spec", obj("serviceName", name, "replicas", REPLICAS, "podManagementPolicy", "Parallel",
                        "selector", obj("matchLabels", selector),
                        "template", obj("metadata", obj("labels", podLabels), "spec", podSpec),
                        // The agent's data directory: containerd's images and the tenant's volumes, which k3s's
                        // local-path provisioner (the tenant's default StorageClass "local-path") keeps under
                        // storage/. A claim per agent, so both survive an agent pod's restart.
                        "volumeClaimTemplates", arr(obj("metadata", obj("name", "data"),
                                "spec", obj("accessModes", arr("ReadWriteOnce"),
                                        "resources", obj("requests", obj("storage", DATA_STORAGE))))))));
        return List.copyOf(out);
    }

    private static Map<String, String> labels(String tenant) {
        return ControlPlaneRenderer.renderedLabels(tenant, COMPONENT);
    }

    private static JsonObject meta(String tenant, String name, String namespace, String reason) {
        return obj("name", name, "namespace", namespace, "labels", labels(tenant),
                "annotations", Map.of(ReverseMapping.REASON, reason));
    }

    static JsonObject obj(Object... kv) {
        JsonObject o = new JsonObject();
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i + 1] != null) {
                o.add((String) kv[i], json(kv[i + 1]));
            }
        }
        return o;
    }

    static JsonArray arr(Object... items) {
        JsonArray a = new JsonArray();
        for (Object i : items) {
            a.add(json(i));
        }
        return a;
    }

    private static JsonElement json(Object v) {
        if (v instanceof JsonElement e) {
            return e;
        }
        if (v instanceof String s) {
            return new JsonPrimitive(s);
        }
        if (v instanceof Number num) {
            return new JsonPrimitive(num);
        }
        if (v instanceof Boolean b) {
            return new JsonPrimitive(b);
        }
        if (v instanceof Map<?, ?> m) {
            JsonObject o = new JsonObject();
            m.forEach((k, val) -> o.add(String.valueOf(k), json(val)));
            return o;
        }
        if (v instanceof List<?> l) {
            JsonArray a = new JsonArray();
            l.forEach(x -> a.add(json(x)));
            return a;
        }
        return Json.gson().toJsonTree(v);
    }
}
