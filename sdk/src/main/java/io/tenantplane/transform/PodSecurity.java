package io.tenantplane.transform;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The checks of the Kubernetes Pod Security Standards that the host namespace would enforce, run before a pod is
 * written so that the plan shows the problem (with its field) instead of the host API rejecting the write. They
 * forbid a pod exactly when the host's PodSecurity admission ({@code pod-security-admission}, at the latest version)
 * would, which {@code PodSecurityAgreementTest} checks against the in-process API server.
 */
final class PodSecurity {

    record Violation(String fieldPath, String message) {
    }

    private static final Set<String> BASELINE_CAPABILITIES = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER",
            "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");
    private static final Set<String> RESTRICTED_VOLUME_TYPES = Set.of("configMap", "csi", "downwardAPI", "emptyDir",
            "ephemeral", "persistentVolumeClaim", "projected", "secret", "image");
    private static final Set<String> SAFE_SYSCTLS = Set.of("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
            "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start");
    private static final Set<String> SELINUX_TYPES = Set.of("", "container_t", "container_init_t", "container_kvm_t");
    private static final String APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/";
    private static final List<String> CONTAINER_LISTS = List.of("containers", "initContainers", "ephemeralContainers");

    private PodSecurity() {
    }

    static List<Violation> check(JsonObject pod, PodSecurityLevel level) {
        List<Violation> out = new ArrayList<>();
        if (level == PodSecurityLevel.PRIVILEGED) {
            return out;
        }
        String lv = level.display();
        JsonObject spec = Json.object(pod, "spec");
        if (spec == null) {
            return out;
        }
        for (String f : List.of("hostNetwork", "hostPID", "hostIPC")) {
            if (isTrue(spec.get(f))) {
                out.add(new Violation("spec." + f, "the " + lv + " Pod Security level forbids " + f + ": true"));
            }
        }
        JsonObject podSc = Json.object(spec, "securityContext");
        // A pod that says it runs on Windows is exempt at restricted from the checks of Linux-only fields (privilege
        // escalation, capabilities, seccomp; pod-security-admission's *V1Dot25 checks): API validation forbids it
        // those fields.
        boolean windows = level == PodSecurityLevel.RESTRICTED && "windows".equals(Json.string(spec, "os", "name"));
        JsonArray volumes = array(spec, "volumes");
        for (int i = 0; i < volumes.size(); i++) {
            if (!volumes.get(i).isJsonObject()) {
                continue;
            }
            JsonObject v = volumes.get(i).getAsJsonObject();
            if (v.has("hostPath")) {
                out.add(new Violation("spec.volumes[" + i + "].hostPath", "the " + lv + " Pod Security level forbids hostPath volumes"));
            } else if (level == PodSecurityLevel.RESTRICTED) {
                for (String key : v.keySet()) {
                    if (!key.equals("name") && !RESTRICTED_VOLUME_TYPES.contains(key)) {
                        out.add(new Violation("spec.volumes[" + i + "]." + key, "the restricted Pod Security level "
                                + "allows only configMap, csi, downwardAPI, emptyDir, ephemeral, image, "
                                + "persistentVolumeClaim, projected and secret volumes"));
                    }
                }
            }
        }
        if (podSc != null) {
            if (!windows) {
                seccompUnconfined(podSc, "spec.securityContext", lv, out);
            }
            baselineContext(podSc, "spec.securityContext", lv, out);
            JsonArray sysctls = array(podSc, "sysctls");
            for (int i = 0; i < sysctls.size(); i++) {
                String name = Json.string(sysctls.get(i).isJsonObject() ? sysctls.get(i).getAsJsonObject() : null, "name");
                if (!SAFE_SYSCTLS.contains(name)) {
                    out.add(new Violation("spec.securityContext.sysctls[" + i + "].name", "the " + lv + " Pod Security "
                            + "level allows only the sysctls " + String.join(", ", SAFE_SYSCTLS.stream().sorted().toList())
                            + ", not " + name));
                }
            }
        }
        JsonObject annotations = Json.object(pod, "metadata", "annotations");
        if (annotations != null) {
            for (String key : annotations.keySet()) {
                String value = Json.string(annotations, key);
                if (key.startsWith(APPARMOR_ANNOTATION) && value != null && !value.isEmpty()
                        && !value.equals("runtime/default") && !value.startsWith("localhost/")) {
                    out.add(new Violation("metadata.annotations[" + key + "]", "the " + lv + " Pod Security level "
                            + "allows only the AppArmor profiles runtime/default and localhost/*, not " + value));
                }
            }
        }
        if (level == PodSecurityLevel.RESTRICTED && podSc != null && isFalse(podSc.get("runAsNonRoot"))) {
            // The pod's false is refused even when every container says true (check_runAsNonRoot.go).
            out.add(new Violation("spec.securityContext.runAsNonRoot", "the restricted Pod Security level forbids "
                    + "runAsNonRoot: false on the pod, even where containers set it true"));
        }
        for (String list : CONTAINER_LISTS) {
            JsonArray cs = array(spec, list);
            for (int i = 0; i < cs.size(); i++) {
                if (cs.get(i).isJsonObject()) {
                    checkContainer(cs.get(i).getAsJsonObject(), "spec." + list + "[" + i + "]", podSc, level, windows,
                            out);
                }
            }
        }
        // An ephemeral container comes from kubectl debug, whose default profile sets no security context.
        out.replaceAll(v -> v.fieldPath().startsWith("spec.ephemeralContainers") ? new Violation(v.fieldPath(),
                v.message() + "; kubectl debug --profile=" + (level == PodSecurityLevel.RESTRICTED ? "restricted"
                        : "baseline") + " makes a debug container that meets it") : v);
        return out;
    }

    private static void checkContainer(JsonObject c, String path, JsonObject podSc, PodSecurityLevel level,
                                       boolean windows, List<Violation> out) {
        String lv = level.display();
        JsonObject sc = Json.object(c, "securityContext");
        String scPath = path + ".securityContext";
        if (sc != null && isTrue(sc.get("privileged"))) {
            out.add(new Violation(scPath + ".privileged", "the " + lv + " Pod Security level forbids privileged containers"));
        }
        JsonArray ports = array(c, "ports");
        for (int i = 0; i < ports.size(); i++) {
            JsonElement hp = ports.get(i).isJsonObject() ? ports.get(i).getAsJsonObject().get("hostPort") : null;
            if (hp != null && hp.isJsonPrimitive() && hp.getAsJsonPrimitive().isNumber() && hp.getAsInt() != 0) {
                out.add(new Violation(path + ".ports[" + i + "].hostPort", "the " + lv + " Pod Security level forbids host ports"));
            }
        }
        JsonArray add = windows ? new JsonArray() : array(Json.object(c, "securityContext", "capabilities"), "add");
        for (int i = 0; i < add.size(); i++) {
            String cap = add.get(i).isJsonPrimitive() ? add.get(i).getAsString() : String.valueOf(add.get(i));
            boolean ok = level == PodSecurityLevel.RESTRICTED ? cap.equals("NET_BIND_SERVICE") : BASELINE_CAPABILITIES.contains(cap);
            if (!ok) {
                out.add(new Violation(scPath + ".capabilities.add[" + i + "]", "the " + lv + " Pod Security level forbids "
                        + "adding capability " + cap));
            }
        }
        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            hostOf(Json.object(c, probe), path + "." + probe, lv, out);
        }
        for (String hook : List.of("postStart", "preStop")) {
            hostOf(Json.object(c, "lifecycle", hook), path + ".lifecycle." + hook, lv, out);
        }
        if (sc != null) {
            baselineContext(sc, scPath, lv, out);
            String procMount = Json.string(sc, "procMount");
            if (procMount != null && !procMount.equals("Default")) {
                out.add(new Violation(scPath + ".procMount", "the " + lv + " Pod Security level requires the Default procMount"));
            }
            if (!windows) {
                seccompUnconfined(sc, scPath, lv, out);
            }
        }
        if (level != PodSecurityLevel.RESTRICTED) {
            return;
        }
        if (!windows && (sc == null || !isFalse(sc.get("allowPrivilegeEscalation")))) {
            out.add(new Violation(scPath + ".allowPrivilegeEscalation", "the restricted Pod Security level requires "
                    + "allowPrivilegeEscalation: false"));
        }
        JsonElement cNonRoot = sc == null ? null : sc.get("runAsNonRoot");
        JsonElement pNonRoot = podSc == null ? null : podSc.get("runAsNonRoot");
        // A pod-level false is reported once, for the pod, by check.
        if (!isFalse(pNonRoot) && !(isTrue(cNonRoot) || (cNonRoot == null && isTrue(pNonRoot)))) {
            out.add(new Violation(scPath + ".runAsNonRoot", "the restricted Pod Security level requires runAsNonRoot: true "
                    + "(on the container or the pod)"));
        }
        if (isZero(sc == null ? null : sc.get("runAsUser")) || isZero(podSc == null ? null : podSc.get("runAsUser"))) {
            out.add(new Violation(scPath + ".runAsUser", "the restricted Pod Security level forbids runAsUser: 0"));
        }
        String cSeccomp = sc == null ? null : Json.string(sc, "seccompProfile", "type");
        String pSeccomp = podSc == null ? null : Json.string(podSc, "seccompProfile", "type");
        String effective = cSeccomp != null ? cSeccomp : pSeccomp;
        if (!windows && !"RuntimeDefault".equals(effective) && !"Localhost".equals(effective)) {
            out.add(new Violation(scPath + ".seccompProfile.type", "the restricted Pod Security level requires seccompProfile "
                    + "type RuntimeDefault or Localhost (on the container or the pod)"));
        }
        JsonArray drop = array(Json.object(c, "securityContext", "capabilities"), "drop");
        boolean dropsAll = false;
        for (JsonElement d : drop) {
            dropsAll |= d.isJsonPrimitive() && d.getAsString().equals("ALL");
        }
        if (!windows && !dropsAll) {
            out.add(new Violation(scPath + ".capabilities.drop", "the restricted Pod Security level requires dropping "
                    + "capability ALL"));
        }
    }

    /** The SELinux options and AppArmor profile a pod or container security context may set at baseline. */
    private static void baselineContext(JsonObject sc, String path, String lv, List<Violation> out) {
        JsonObject se = Json.object(sc, "seLinuxOptions");
        if (se != null) {
            String type = Json.string(se, "type");
            if (type != null && !SELINUX_TYPES.contains(type)) {
                out.add(new Violation(path + ".seLinuxOptions.type", "the " + lv + " Pod Security level allows only the "
                        + "SELinux types container_t, container_init_t and container_kvm_t, not " + type));
            }
            for (String f : List.of("user", "role")) {
                String v = Json.string(se, f);
                if (v != null && !v.isEmpty()) {
                    out.add(new Violation(path + ".seLinuxOptions." + f, "the " + lv + " Pod Security level forbids "
                            + "setting an SELinux " + f));
                }
            }
        }
        JsonObject appArmor = Json.object(sc, "appArmorProfile");
        if (appArmor != null) {
            String type = Json.string(appArmor, "type");
            if (!"RuntimeDefault".equals(type) && !"Localhost".equals(type)) {
                out.add(new Violation(path + ".appArmorProfile.type", "the " + lv + " Pod Security level allows only "
                        + "the AppArmor profile types RuntimeDefault and Localhost, not " + type));
            }
        }
    }

    /** A probe or lifecycle handler that names a host (forbidden at baseline from Kubernetes 1.34). */
    private static void hostOf(JsonObject handler, String path, String lv, List<Violation> out) {
        for (String action : List.of("httpGet", "tcpSocket")) {
            String host = Json.string(handler, action, "host");
            if (host != null && !host.isEmpty()) {
                out.add(new Violation(path + "." + action + ".host", "the " + lv + " Pod Security level forbids a "
                        + "probe or lifecycle handler that names a host (" + host + "); leave host unset to reach the "
                        + "pod's own IP"));
            }
        }
    }

    private static void seccompUnconfined(JsonObject sc, String path, String lv, List<Violation> out) {
        if ("Unconfined".equals(Json.string(sc, "seccompProfile", "type"))) {
            out.add(new Violation(path + ".seccompProfile.type", "the " + lv + " Pod Security level forbids the "
                    + "Unconfined seccomp profile"));
        }
    }

    private static JsonArray array(JsonObject o, String key) {
        JsonElement e = o == null ? null : o.get(key);
        return e != null && e.isJsonArray() ? e.getAsJsonArray() : new JsonArray();
    }

    private static boolean isTrue(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() && e.getAsBoolean();
    }

    private static boolean isFalse(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() && !e.getAsBoolean();
    }

    private static boolean isZero(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() && e.getAsLong() == 0;
    }
}
