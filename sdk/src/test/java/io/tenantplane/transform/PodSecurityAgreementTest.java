package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.testkit.KubeApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * tenantplane's own Pod Security check (which refuses a tenant Pod in the plan, naming the field, before anything is
 * written) forbids a pod exactly when the host's PodSecurity admission would, at the baseline and the restricted
 * level. The host is the in-process API server, whose admission follows {@code pod-security-admission} check by
 * check. Each row changes one thing of a pod that meets the restricted level; a row whose pod the server refuses for
 * another reason than Pod Security fails the test, so every row is a real Pod Security case.
 */
class PodSecurityAgreementTest {

    private static final String BASE = """
            {"spec": {"securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
              "containers": [{"name": "c", "image": "nginx", "securityContext": {"allowPrivilegeEscalation": false,
                "capabilities": {"drop": ["ALL"]}}}]}}""";

    /** One change each to the base pod, as a JSON merge patch; {@code container} merges into the first container. */
    private static final Map<String, String> ROWS = new LinkedHashMap<>();

    static {
        ROWS.put("the base pod", "{}");
        ROWS.put("hostNetwork", "{\"spec\": {\"hostNetwork\": true}}");
        ROWS.put("hostPID", "{\"spec\": {\"hostPID\": true}}");
        ROWS.put("hostIPC", "{\"spec\": {\"hostIPC\": true}}");
        ROWS.put("an unsafe sysctl", "{\"spec\": {\"securityContext\": {\"sysctls\": [{\"name\": \"kernel.msgmax\", \"value\": \"1\"}]}}}");
        ROWS.put("a safe sysctl", "{\"spec\": {\"securityContext\": {\"sysctls\": [{\"name\": \"net.ipv4.ip_local_port_range\", \"value\": \"1024 65535\"}]}}}");
        ROWS.put("a hostPath volume", "{\"spec\": {\"volumes\": [{\"name\": \"h\", \"hostPath\": {\"path\": \"/x\"}}]}}");
        ROWS.put("an nfs volume", "{\"spec\": {\"volumes\": [{\"name\": \"n\", \"nfs\": {\"server\": \"s\", \"path\": \"/x\"}}]}}");
        ROWS.put("an image volume", "{\"spec\": {\"volumes\": [{\"name\": \"i\", \"image\": {\"reference\": \"busybox\"}}]}}");
        ROWS.put("an emptyDir and a configMap", "{\"spec\": {\"volumes\": [{\"name\": \"e\", \"emptyDir\": {}}, {\"name\": \"m\", \"configMap\": {\"name\": \"m\"}}]}}");
        // A privileged container escalates privileges too: a real server refuses privileged with
        // allowPrivilegeEscalation: false as invalid (ValidateSecurityContext), before Pod Security is asked.
        ROWS.put("a privileged container", "{\"container\": {\"securityContext\": {\"privileged\": true, "
                + "\"allowPrivilegeEscalation\": true}}}");
        ROWS.put("a host port", "{\"container\": {\"ports\": [{\"containerPort\": 80, \"hostPort\": 8080}]}}");
        ROWS.put("adds NET_RAW", "{\"container\": {\"securityContext\": {\"capabilities\": {\"add\": [\"NET_RAW\"]}}}}");
        ROWS.put("adds CHOWN", "{\"container\": {\"securityContext\": {\"capabilities\": {\"add\": [\"CHOWN\"]}}}}");
        ROWS.put("adds NET_BIND_SERVICE", "{\"container\": {\"securityContext\": {\"capabilities\": {\"add\": [\"NET_BIND_SERVICE\"]}}}}");
        ROWS.put("drops nothing", "{\"container\": {\"securityContext\": {\"capabilities\": {\"drop\": []}}}}");
        ROWS.put("a container without a security context", "{\"container\": {\"securityContext\": null}}");
        // Unmasked needs a user namespace of its own (ValidateSecurityContext), so the pod says hostUsers: false.
        ROWS.put("an unmasked proc mount", "{\"spec\": {\"hostUsers\": false}, \"container\": {\"securityContext\": "
                + "{\"procMount\": \"Unmasked\"}}}");
        ROWS.put("a Default proc mount", "{\"container\": {\"securityContext\": {\"procMount\": \"Default\"}}}");
        ROWS.put("an Unconfined container seccomp", "{\"container\": {\"securityContext\": {\"seccompProfile\": {\"type\": \"Unconfined\"}}}}");
        ROWS.put("an Unconfined pod seccomp, RuntimeDefault on the container", "{\"spec\": {\"securityContext\": {\"seccompProfile\": {\"type\": \"Unconfined\"}}}, \"container\": {\"securityContext\": {\"seccompProfile\": {\"type\": \"RuntimeDefault\"}}}}");
        ROWS.put("no pod seccomp, Localhost on the container", "{\"spec\": {\"securityContext\": {\"seccompProfile\": null}}, \"container\": {\"securityContext\": {\"seccompProfile\": {\"type\": \"Localhost\", \"localhostProfile\": \"p.json\"}}}}");
        ROWS.put("no seccomp anywhere", "{\"spec\": {\"securityContext\": {\"seccompProfile\": null}}}");
        ROWS.put("a container with runAsNonRoot false", "{\"container\": {\"securityContext\": {\"runAsNonRoot\": false}}}");
        ROWS.put("a pod with runAsNonRoot false, its container true", "{\"spec\": {\"securityContext\": {\"runAsNonRoot\": false}}, \"container\": {\"securityContext\": {\"runAsNonRoot\": true}}}");
        ROWS.put("runAsNonRoot on the container only", "{\"spec\": {\"securityContext\": {\"runAsNonRoot\": null}}, \"container\": {\"securityContext\": {\"runAsNonRoot\": true}}}");
        ROWS.put("runAsNonRoot nowhere", "{\"spec\": {\"securityContext\": {\"runAsNonRoot\": null}}}");
        ROWS.put("a pod runAsUser 0", "{\"spec\": {\"securityContext\": {\"runAsUser\": 0}}}");
        ROWS.put("a container runAsUser 0", "{\"container\": {\"securityContext\": {\"runAsUser\": 0}}}");
        ROWS.put("a container runAsUser 1000", "{\"container\": {\"securityContext\": {\"runAsUser\": 1000}}}");
        ROWS.put("privilege escalation allowed", "{\"container\": {\"securityContext\": {\"allowPrivilegeEscalation\": true}}}");
        ROWS.put("privilege escalation not said", "{\"container\": {\"securityContext\": {\"allowPrivilegeEscalation\": null}}}");
        ROWS.put("an SELinux type spc_t on the pod", "{\"spec\": {\"securityContext\": {\"seLinuxOptions\": {\"type\": \"spc_t\"}}}}");
        ROWS.put("an SELinux user on the container", "{\"container\": {\"securityContext\": {\"seLinuxOptions\": {\"user\": \"system_u\"}}}}");
        ROWS.put("an SELinux type container_t and a level", "{\"container\": {\"securityContext\": {\"seLinuxOptions\": {\"type\": \"container_t\", \"level\": \"s0:c1,c2\"}}}}");
        ROWS.put("an Unconfined AppArmor profile on the pod", "{\"spec\": {\"securityContext\": {\"appArmorProfile\": {\"type\": \"Unconfined\"}}}}");
        ROWS.put("a Localhost AppArmor profile on the container", "{\"container\": {\"securityContext\": {\"appArmorProfile\": {\"type\": \"Localhost\", \"localhostProfile\": \"p\"}}}}");
        ROWS.put("an unconfined AppArmor annotation", "{\"metadata\": {\"annotations\": {\"container.apparmor.security.beta.kubernetes.io/c\": \"unconfined\"}}}");
        ROWS.put("a probe with a host", "{\"container\": {\"livenessProbe\": {\"httpGet\": {\"host\": \"10.0.0.1\", \"port\": 80}}}}");
        ROWS.put("a preStop hook with a host", "{\"container\": {\"lifecycle\": {\"preStop\": {\"httpGet\": {\"host\": \"example.com\", \"port\": 80}}}}}");
        // A Windows pod: validation forbids it seccomp, capabilities and allowPrivilegeEscalation, and from 1.25 the
        // restricted level stops asking for them; only spec.os says so, not a Windows node selector.
        String linuxFieldsRemoved = "\"securityContext\": {\"seccompProfile\": null}}, \"container\": "
                + "{\"securityContext\": {\"allowPrivilegeEscalation\": null, \"capabilities\": null}}}";
        ROWS.put("a windows pod without the Linux-only fields", "{\"spec\": {\"os\": {\"name\": \"windows\"}, "
                + linuxFieldsRemoved);
        ROWS.put("a windows pod without runAsNonRoot", "{\"spec\": {\"os\": {\"name\": \"windows\"}, "
                + linuxFieldsRemoved.replace("\"seccompProfile\": null", "\"seccompProfile\": null, \"runAsNonRoot\": null"));
        ROWS.put("a linux pod without the Linux-only fields", "{\"spec\": {\"os\": {\"name\": \"linux\"}, "
                + linuxFieldsRemoved);
        ROWS.put("a pod on Windows nodes by selector only", "{\"spec\": {\"nodeSelector\": {\"kubernetes.io/os\": "
                + "\"windows\"}, " + linuxFieldsRemoved);
        ROWS.put("an init container without a security context", "{\"spec\": {\"initContainers\": [{\"name\": \"i\", \"image\": \"busybox\"}]}}");
    }

    @Test
    void tenantplaneForbidsAPodExactlyWhenTheHostsPodSecurityAdmissionDoes() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        List<String> disagreements = new ArrayList<>();
        int refusedByServer = 0;
        int cases = 0;
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            for (PodSecurityLevel level : List.of(PodSecurityLevel.BASELINE, PodSecurityLevel.RESTRICTED)) {
                String ns = level.display();
                post(http, server.url() + "/api/v1/namespaces", JsonParser.parseString("{\"metadata\": {\"name\": \""
                        + ns + "\", \"labels\": {\"pod-security.kubernetes.io/enforce\": \"" + ns + "\"}}}")
                        .getAsJsonObject());
                int n = 0;
                for (Map.Entry<String, String> row : ROWS.entrySet()) {
                    JsonObject pod = pod(row.getValue());
                    List<PodSecurity.Violation> violations = PodSecurity.check(pod, level);
                    pod.getAsJsonObject("metadata").addProperty("name", "p" + n++);
                    HttpResponse<String> r = post(http, server.url() + "/api/v1/namespaces/" + ns + "/pods", pod);
                    boolean serverRefuses = r.statusCode() == 403 && r.body().contains("violates PodSecurity");
                    if (!serverRefuses && r.statusCode() != 201) {
                        fail(level.display() + " / " + row.getKey() + ": the server refused the pod for another "
                                + "reason (" + r.statusCode() + "): " + r.body());
                    }
                    refusedByServer += serverRefuses ? 1 : 0;
                    cases++;
                    if (serverRefuses == violations.isEmpty()) {
                        disagreements.add(level.display() + " / " + row.getKey() + ": server "
                                + (serverRefuses ? "refuses (" + r.body() + ")" : "admits") + ", tenantplane "
                                + (violations.isEmpty() ? "admits" : "refuses " + violations));
                    }
                }
            }
        }
        assertEquals(List.of(), disagreements, "tenantplane and the host disagree");
        assertEquals(2 * ROWS.size(), cases);
        assertTrue(refusedByServer > ROWS.size(), "the table should hold more forbidden pods than allowed ones: "
                + refusedByServer + " of " + cases);
    }

    private static JsonObject pod(String change) {
        JsonObject pod = JsonParser.parseString(BASE).getAsJsonObject();
        pod.addProperty("apiVersion", "v1");
        pod.addProperty("kind", "Pod");
        pod.add("metadata", new JsonObject());
        JsonObject patch = JsonParser.parseString(change).getAsJsonObject();
        JsonElement container = patch.remove("container");
        merge(pod, patch);
        if (container != null) {
            merge(pod.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject(),
                    container.getAsJsonObject());
        }
        return pod;
    }

    /** RFC 7386 merge: objects merge, null removes, anything else replaces. */
    private static void merge(JsonObject target, JsonObject patch) {
        for (Map.Entry<String, JsonElement> e : patch.entrySet()) {
            JsonElement v = e.getValue();
            if (v.isJsonNull()) {
                target.remove(e.getKey());
            } else if (v.isJsonObject() && target.get(e.getKey()) instanceof JsonObject t) {
                merge(t, v.getAsJsonObject());
            } else {
                target.add(e.getKey(), v.deepCopy());
            }
        }
    }

    private static HttpResponse<String> post(HttpClient http, String url, JsonObject body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
