package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A Pod spec checked as the API server checks it when a Pod, or a workload's pod template, is written: the parts of
 * {@code ValidatePodSpec} in {@code pkg/apis/core/validation/validation.go} that decide whether the objects a
 * controller writes run at all. Each check follows the upstream function named in its Javadoc, with its field paths
 * and messages; the values it checks are the defaulted ones ({@link #defaults}, after {@code pkg/apis/core/v1/
 * defaults.go}), as the server validates after defaulting.
 *
 * <p>Checked: volumes ({@code ValidateVolumes}, {@code validateVolumeSource}: a valid unique name and exactly one
 * source; secret, configMap, persistentVolumeClaim, hostPath, downwardAPI and projected sources with their items'
 * paths and modes, {@code validateProjectionSources} with the service-account-token bounds); containers and init
 * containers ({@code validateContainerCommon}: name, image, termination message policy, ports, env, envFrom, volume
 * mounts naming a volume of the pod at unique paths, pull policy, requests within limits; probes and lifecycle
 * handlers, {@code validateHandler}; unique names across both lists); {@code restartPolicy}, {@code dnsPolicy},
 * {@code dnsConfig} ({@code validatePodDNSConfig}), {@code hostAliases} ({@code ValidateHostAliases}) and tolerations
 * ({@code ValidateTolerations}). Not
 * checked: security contexts, affinity, topology spread, resource claims, ephemeral containers, and
 * volume sources of in-tree cloud drivers beyond their count.
 */
final class PodSpecs {

    private static final Pattern PORT_NAME_CHARS = Pattern.compile("[-a-z0-9]+");
    private static final Pattern ONE_LETTER = Pattern.compile(".*[a-z].*");
    private static final Pattern CONFIG_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private static final String IP_EXAMPLE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
    private static final String FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive";
    /** The volume sources {@code validateVolumeSource} counts, in its order. */
    private static final List<String> SOURCES = List.of("emptyDir", "hostPath", "gitRepo", "gcePersistentDisk",
            "awsElasticBlockStore", "secret", "nfs", "iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd",
            "cinder", "cephfs", "quobyte", "downwardAPI", "fc", "flexVolume", "configMap", "azureFile",
            "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk", "storageos", "projected",
            "scaleIO", "csi", "ephemeral", "image");
    private static final List<String> PROBES = List.of("livenessProbe", "readinessProbe", "startupProbe");
    private static final int MAX_NAMESERVERS = 3;
    private static final int MAX_SEARCH_PATHS = 32;
    private static final int MAX_SEARCH_CHARS = 2048;

    private PodSpecs() {
    }

    /**
     * The defaults {@code pkg/apis/core/v1/defaults.go} sets inside volumes, probes and downward-API references
     * ({@code SetDefaults_SecretVolumeSource} and its siblings: mode 0644; {@code SetDefaults_ServiceAccountTokenProjection}:
     * one hour; {@code SetDefaults_Probe}; {@code SetDefaults_HTTPGetAction}; {@code SetDefaults_ObjectFieldSelector}).
     */
    static void defaults(JsonObject spec) {
        JsonArray volumes = Json.arr(spec, "volumes");
        if (volumes != null) {
            for (JsonElement e : volumes) {
                if (!e.isJsonObject()) {
                    continue;
                }
                JsonObject v = e.getAsJsonObject();
                for (String source : List.of("secret", "configMap", "downwardAPI", "projected")) {
                    JsonObject s = Json.obj(v, source);
                    if (s != null && !s.has("defaultMode")) {
                        s.addProperty("defaultMode", 420);
                    }
                }
                JsonArray projections = Json.arr(Json.obj(v, "projected"), "sources");
                if (projections != null) {
                    for (JsonElement p : projections) {
                        JsonObject token = p.isJsonObject() ? Json.obj(p.getAsJsonObject(), "serviceAccountToken")
                                : null;
                        if (token != null && !token.has("expirationSeconds")) {
                            token.addProperty("expirationSeconds", 3600);
                        }
                    }
                }
                fieldRefDefaults(Json.arr(Json.obj(v, "downwardAPI"), "items"));
            }
        }
        for (JsonObject c : containers(spec)) {
            for (String probe : PROBES) {
                JsonObject p = Json.obj(c, probe);
                if (p == null) {
                    continue;
                }
                putIfAbsent(p, "timeoutSeconds", 1);
                putIfAbsent(p, "periodSeconds", 10);
                putIfAbsent(p, "successThreshold", 1);
                putIfAbsent(p, "failureThreshold", 3);
                httpGetDefaults(Json.obj(p, "httpGet"));
            }
            JsonObject lifecycle = Json.obj(c, "lifecycle");
            for (String hook : List.of("postStart", "preStop")) {
                httpGetDefaults(Json.obj(Json.obj(lifecycle, hook), "httpGet"));
            }
            JsonArray env = Json.arr(c, "env");
            if (env != null) {
                for (JsonElement e : env) {
                    JsonObject from = e.isJsonObject() ? Json.obj(e.getAsJsonObject(), "valueFrom") : null;
                    JsonObject fieldRef = Json.obj(from, "fieldRef");
                    if (fieldRef != null) {
                        putIfAbsent(fieldRef, "apiVersion", "v1");
                    }
                }
            }
        }
    }

    private static void fieldRefDefaults(JsonArray items) {
        if (items == null) {
            return;
        }
        for (JsonElement i : items) {
            JsonObject fieldRef = i.isJsonObject() ? Json.obj(i.getAsJsonObject(), "fieldRef") : null;
            if (fieldRef != null) {
                putIfAbsent(fieldRef, "apiVersion", "v1");
            }
        }
    }

    private static void httpGetDefaults(JsonObject httpGet) {
        if (httpGet == null) {
            return;
        }
        if (Json.str(httpGet, "path") == null || Json.str(httpGet, "path").isEmpty()) {
            httpGet.addProperty("path", "/");
        }
        putIfAbsent(httpGet, "scheme", "HTTP");
    }

    /** {@code ValidatePodSpec}'s checks listed in the class comment, with {@code path} the spec's field path. */
    static void validate(JsonObject spec, String path, List<ApiError.Cause> causes) {
        if (spec == null) {
            causes.add(ApiError.Cause.required(path));
            return;
        }
        Map<String, JsonObject> volumes = volumes(Json.arr(spec, "volumes"), path + ".volumes", causes);
        Set<String> names = new HashSet<>();
        JsonArray regular = Json.arr(spec, "containers");
        if (regular == null || regular.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".containers"));
        } else {
            for (int i = 0; i < regular.size(); i++) {
                JsonObject c = Json.asObject(regular.get(i));
                String at = path + ".containers[" + i + "]";
                container(c, at, volumes, causes);
                String name = Json.str(c, "name");
                if (name != null && !name.isEmpty() && !names.add(name)) {
                    causes.add(ApiError.Cause.duplicate(at + ".name", Validation.quote(name)));
                }
                handlers(c, at, causes);
            }
        }
        JsonArray init = Json.arr(spec, "initContainers");
        if (init != null) {
            for (int i = 0; i < init.size(); i++) {
                JsonObject c = Json.asObject(init.get(i));
                String at = path + ".initContainers[" + i + "]";
                container(c, at, volumes, causes);
                String name = Json.str(c, "name");
                if (name != null && !name.isEmpty() && !names.add(name)) {
                    causes.add(ApiError.Cause.duplicate(at + ".name", Validation.quote(name)));
                }
                if ("Always".equals(Json.str(c, "restartPolicy"))) {
                    handlers(c, at, causes);
                } else {
                    for (String f : List.of("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")) {
                        if (c.has(f)) {
                            causes.add(ApiError.Cause.forbidden(at + "." + f,
                                    "may not be set for init containers without restartPolicy=Always"));
                        }
                    }
                }
            }
        }
        oneOf(spec, "restartPolicy", path, List.of("Always", "OnFailure", "Never"), causes);
        oneOf(spec, "dnsPolicy", path, List.of("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"), causes);
        dnsConfig(spec, path, causes);
        hostAliases(Json.arr(spec, "hostAliases"), path + ".hostAliases", causes);
        tolerations(Json.arr(spec, "tolerations"), path + ".tolerations", causes);
        JsonElement hostUsers = spec.get("hostUsers");
        boolean ownUserNamespace = hostUsers != null && hostUsers.isJsonPrimitive() && !hostUsers.getAsBoolean();
        for (String list : List.of("containers", "initContainers")) {
            JsonArray cs = Json.arr(spec, list);
            for (int i = 0; cs != null && i < cs.size(); i++) {
                containerSecurityContext(Json.obj(Json.asObject(cs.get(i)), "securityContext"),
                        path + "." + list + "[" + i + "].securityContext", ownUserNamespace, causes);
            }
        }
        podSecurityContext(Json.obj(spec, "securityContext"), spec, path + ".securityContext", causes);
        affinity(Json.obj(spec, "affinity"), path + ".affinity", causes);
        schedulingGates(Json.arr(spec, "schedulingGates"), path + ".schedulingGates", causes);
        topologySpread(Json.arr(spec, "topologySpreadConstraints"), path + ".topologySpreadConstraints", causes);
        windowsHostProcess(spec, path, causes);
        os(spec, path, causes);
    }

    private static final List<String> VALID_OS = List.of("linux", "windows");

    /**
     * {@code ValidatePodSpec}'s last step: {@code validateOS} ({@code os.name} required and {@code linux} or
     * {@code windows}), then for a valid name {@code validateLinux} (no Windows options anywhere) or
     * {@code validateWindows} (none of the Linux-only fields of the pod and its containers).
     */
    private static void os(JsonObject spec, String path, List<ApiError.Cause> causes) {
        JsonObject os = Json.obj(spec, "os");
        if (os == null) {
            return;
        }
        String name = Json.str(os, "name");
        if (name == null || name.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".os.name", "cannot be empty"));
        } else if (!VALID_OS.contains(name)) {
            causes.add(ApiError.Cause.notSupported(path + ".os", Validation.quote(name), VALID_OS));
        } else if (name.equals("linux")) {
            if (Json.obj(Json.obj(spec, "securityContext"), "windowsOptions") != null) {
                causes.add(ApiError.Cause.forbidden(path + ".securityContext.windowsOptions",
                        "windows options cannot be set for a linux pod"));
            }
            visitContainers(spec, path, (c, at) -> {
                if (Json.obj(Json.obj(c, "securityContext"), "windowsOptions") != null) {
                    causes.add(ApiError.Cause.forbidden(at + ".securityContext.windowsOptions",
                            "windows options cannot be set for a linux pod"));
                }
            });
        } else {
            windowsOnly(spec, path, causes);
        }
    }

    /** The pod-level fields {@code validateWindows} forbids, in its order, with the path each is reported at. */
    private static final List<String> WINDOWS_FORBIDDEN_POD = List.of("securityContext.appArmorProfile",
            "securityContext.seLinuxOptions", "hostUsers", "hostPID", "hostIPC", "securityContext.seccompProfile",
            "securityContext.fsGroup", "securityContext.fsGroupChangePolicy", "securityContext.sysctls",
            "shareProcessNamespace", "securityContext.runAsUser", "securityContext.runAsGroup",
            "securityContext.supplementalGroups", "securityContext.supplementalGroupsPolicy",
            "securityContext.seLinuxChangePolicy");
    private static final List<String> WINDOWS_FORBIDDEN_CONTAINER = List.of("appArmorProfile", "seLinuxOptions",
            "seccompProfile", "capabilities", "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation",
            "procMount", "runAsUser", "runAsGroup");

    /**
     * {@code validateWindows}. The internal pod keeps {@code hostPID}, {@code hostIPC}, {@code hostUsers} and
     * {@code shareProcessNamespace} in its security context, which conversion always creates: they are checked
     * whether the pod has a {@code securityContext} or not (the two booleans when true, the others when set; an
     * empty {@code sysctls} list is not set).
     */
    private static void windowsOnly(JsonObject spec, String path, List<ApiError.Cause> causes) {
        JsonObject sc = Json.obj(spec, "securityContext");
        for (String f : WINDOWS_FORBIDDEN_POD) {
            boolean set = switch (f) {
                case "hostPID", "hostIPC" -> Json.bool(spec, f);
                case "hostUsers", "shareProcessNamespace" -> present(spec.get(f));
                case "securityContext.sysctls" -> Json.arr(sc, "sysctls") != null && !Json.arr(sc, "sysctls").isEmpty();
                default -> sc != null && present(sc.get(f.substring("securityContext.".length())));
            };
            if (set) {
                causes.add(ApiError.Cause.forbidden(path + "." + f, "cannot be set for a windows pod"));
            }
        }
        visitContainers(spec, path, (c, at) -> {
            JsonObject csc = Json.obj(c, "securityContext");
            for (String f : WINDOWS_FORBIDDEN_CONTAINER) {
                if (csc != null && present(csc.get(f))) {
                    causes.add(ApiError.Cause.forbidden(at + ".securityContext." + f,
                            "cannot be set for a windows pod"));
                }
            }
        });
    }

    /**
     * {@code validateWindowsHostProcessPod}, whatever the pod's OS: a container's {@code hostProcess} agrees with
     * the pod's where both say; when any container is a host process (its own or the pod's setting), all are, and the
     * pod uses the host network. The server this models runs with privileged containers allowed (as k3s and kubeadm
     * configure kube-apiserver), so "disallowed by cluster policy" is never said.
     */
    private static void windowsHostProcess(JsonObject spec, String path, List<ApiError.Cause> causes) {
        JsonElement pod = hostProcessOf(Json.obj(spec, "securityContext"));
        int[] counts = new int[2];
        visitContainers(spec, path, (c, at) -> {
            counts[0]++;
            JsonElement own = hostProcessOf(Json.obj(c, "securityContext"));
            if (pod != null && own != null && pod.getAsBoolean() != own.getAsBoolean()) {
                causes.add(ApiError.Cause.invalid(at + ".securityContext.windowsOptions.hostProcess",
                        String.valueOf(own.getAsBoolean()), "pod hostProcess value must be identical if both are "
                                + "specified, was " + pod.getAsBoolean()));
            }
            if (own != null ? own.getAsBoolean() : pod != null && pod.getAsBoolean()) {
                counts[1]++;
            }
        });
        if (counts[1] > 0) {
            if (counts[1] != counts[0]) {
                causes.add(ApiError.Cause.invalid(path, "\"\"", "If pod contains any hostProcess containers then all "
                        + "containers must be HostProcess containers"));
            }
            if (!Json.bool(spec, "hostNetwork")) {
                causes.add(ApiError.Cause.invalid(path + ".hostNetwork", "false", "hostNetwork must be true if pod "
                        + "contains any hostProcess containers"));
            }
        }
    }

    /** A security context's {@code windowsOptions.hostProcess} when it is a boolean, else null. */
    private static JsonElement hostProcessOf(JsonObject sc) {
        JsonObject w = Json.obj(sc, "windowsOptions");
        JsonElement e = w == null ? null : w.get("hostProcess");
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() ? e : null;
    }

    private static final int MAX_GMSA_SPEC_BYTES = 64 * 1024;
    private static final int MAX_RUN_AS_DOMAIN = 256;
    private static final int MAX_RUN_AS_USER = 104;
    private static final Pattern CONTROL = Pattern.compile("[\\x00-\\x1F\\x7F]+");
    private static final Pattern NETBIOS = Pattern.compile("[^\\\\/:*?\"<>|.][^\\\\/:*?\"<>|]{0,14}");
    private static final String DNS_LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
    private static final Pattern DOMAIN_DNS = Pattern.compile(DNS_LABEL + "(?:\\." + DNS_LABEL + ")*");
    private static final Pattern USER_BAD_CHARS = Pattern.compile("[\"/\\\\:;|=,+*?<>@\\[\\]]");
    private static final Pattern DOTS_SPACES = Pattern.compile("[. ]+");

    /**
     * {@code validateWindowsSecurityContextOptions}: {@code gmsaCredentialSpecName} a DNS subdomain,
     * {@code gmsaCredentialSpec} non-empty and under 64 KiB, {@code runAsUserName} a {@code [DOMAIN\]USER} whose
     * domain is a NetBIOS or DNS name under 256 and whose user is 1..104 bytes, not only dots and spaces, without
     * {@code "/\\:;|=,+*?<>@[]} or control characters. Lengths are Go's, in UTF-8 bytes.
     */
    private static void windowsOptions(JsonObject w, String path, List<ApiError.Cause> causes) {
        if (w == null) {
            return;
        }
        String specName = Json.str(w, "gmsaCredentialSpecName");
        if (specName != null) {
            String problem = Validation.nameProblem(specName, Validation.NameRule.DNS1123_SUBDOMAIN);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid(path + ".gmsaCredentialSpecName", Validation.quote(specName),
                        problem));
            }
        }
        String credSpec = Json.str(w, "gmsaCredentialSpec");
        if (credSpec != null) {
            int bytes = credSpec.getBytes(StandardCharsets.UTF_8).length;
            if (bytes == 0) {
                causes.add(ApiError.Cause.invalid(path + ".gmsaCredentialSpec", "\"\"",
                        "gmsaCredentialSpec cannot be an empty string"));
            } else if (bytes > MAX_GMSA_SPEC_BYTES) {
                causes.add(ApiError.Cause.invalid(path + ".gmsaCredentialSpec", Validation.quote(credSpec),
                        "gmsaCredentialSpec size must be under 64 KiB"));
            }
        }
        String user = Json.str(w, "runAsUserName");
        if (user != null) {
            runAsUserName(user, path + ".runAsUserName", causes);
        }
    }

    private static void runAsUserName(String value, String at, List<ApiError.Cause> causes) {
        String shown = Validation.quote(value);
        String[] parts = value.split("\\\\", -1);
        if (value.isEmpty()) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName cannot be an empty string"));
            return;
        }
        if (CONTROL.matcher(value).find()) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName cannot contain control characters"));
            return;
        }
        if (parts.length > 2) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName cannot contain more than one backslash"));
            return;
        }
        String domain = parts.length == 2 ? parts[0] : "";
        String user = parts.length == 2 ? parts[1] : parts[0];
        if (domain.getBytes(StandardCharsets.UTF_8).length >= MAX_RUN_AS_DOMAIN) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName's Domain length must be under "
                    + MAX_RUN_AS_DOMAIN + " characters"));
        }
        if (parts.length == 2 && !NETBIOS.matcher(domain).matches() && !DOMAIN_DNS.matcher(domain).matches()) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName's Domain doesn't match the NetBios nor the DNS "
                    + "format"));
        }
        int userBytes = user.getBytes(StandardCharsets.UTF_8).length;
        if (userBytes == 0) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName's User cannot be empty"));
        } else if (userBytes > MAX_RUN_AS_USER) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName's User length must not be longer than "
                    + MAX_RUN_AS_USER + " characters"));
        }
        if (DOTS_SPACES.matcher(user).matches()) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName's User cannot contain only periods or spaces"));
        }
        if (USER_BAD_CHARS.matcher(user).find()) {
            causes.add(ApiError.Cause.invalid(at, shown, "runAsUserName's User cannot contain the following "
                    + "characters: \"/\\:;|=,+*?<>@[]"));
        }
    }

    /** A field that is there and not JSON null (a Go pointer or slice that is not nil). */
    private static boolean present(JsonElement e) {
        return e != null && !e.isJsonNull();
    }

    /**
     * {@code podshelper.VisitContainersWithPath}: init containers, then containers, then ephemeral containers, each
     * with its field path.
     */
    private static void visitContainers(JsonObject spec, String path,
                                        java.util.function.BiConsumer<JsonObject, String> visitor) {
        for (String list : List.of("initContainers", "containers", "ephemeralContainers")) {
            JsonArray cs = Json.arr(spec, list);
            for (int i = 0; cs != null && i < cs.size(); i++) {
                if (cs.get(i).isJsonObject()) {
                    visitor.accept(cs.get(i).getAsJsonObject(), path + "." + list + "[" + i + "]");
                }
            }
        }
    }

    private static final long MAX_ID = 2147483647L;

    /**
     * {@code validatePodSpecSecurityContext}: user and group ids within 0..2147483647 ({@code IsValidUserID},
     * {@code IsValidGroupID}), {@code shareProcessNamespace} not with {@code hostPID}, {@code fsGroupChangePolicy}
     * {@code OnRootMismatch} or {@code Always}, the sysctls ({@code validateSysctls}), the seccomp profile field, the
     * Windows options ({@code validateWindowsSecurityContextOptions}) and the AppArmor profile field.
     */
    static void podSecurityContext(JsonObject sc, JsonObject spec, String path, List<ApiError.Cause> causes) {
        // The internal pod's security context always exists (conversion creates it to hold hostPID, hostIPC,
        // hostNetwork, hostUsers and shareProcessNamespace, which v1 keeps on the spec), so the check of those two
        // runs whether the v1 pod has a securityContext or not.
        JsonObject fields = sc == null ? new JsonObject() : sc;
        for (String f : List.of("fsGroup", "runAsUser", "runAsGroup")) {
            id(fields.get(f), path + "." + f, f.equals("runAsUser"), causes);
        }
        JsonArray groups = Json.arr(fields, "supplementalGroups");
        for (int i = 0; groups != null && i < groups.size(); i++) {
            id(groups.get(i), path + ".supplementalGroups[" + i + "]", false, causes);
        }
        if (Json.bool(spec, "shareProcessNamespace") && Json.bool(spec, "hostPID")) {
            causes.add(ApiError.Cause.invalid(path + ".shareProcessNamespace", "true",
                    "ShareProcessNamespace and HostPID cannot both be enabled"));
        }
        String policy = Json.str(fields, "fsGroupChangePolicy");
        if (policy != null && !policy.equals("OnRootMismatch") && !policy.equals("Always")) {
            causes.add(ApiError.Cause.notSupported(path + ".fsGroupChangePolicy", Validation.quote(policy),
                    List.of("OnRootMismatch", "Always")));
        }
        sysctls(Json.arr(fields, "sysctls"), spec, path + ".sysctls", causes);
        seccompProfile(Json.obj(fields, "seccompProfile"), path + ".seccompProfile", causes);
        windowsOptions(Json.obj(fields, "windowsOptions"), path + ".windowsOptions", causes);
        appArmorProfile(Json.obj(fields, "appArmorProfile"), path + ".appArmorProfile", causes);
    }

    /** A sysctl name: dot- (or slash-) separated segments, at most 253 characters ({@code IsValidSysctlName}). */
    private static final Pattern SYSCTL = Pattern.compile(
            "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$");

    /**
     * {@code validateSysctls}: each name present, valid and not repeated; and, as on create
     * ({@code ValidateHostSysctl}), none of the network namespace with {@code hostNetwork} nor of the IPC namespace
     * with {@code hostIPC} ({@code component-helpers/node/util/sysctl}: {@code net.*}; {@code kernel.sem},
     * {@code kernel.shm*}, {@code kernel.msg*}, {@code fs.mqueue.*}, slash-separated names normalized first).
     */
    private static void sysctls(JsonArray sysctls, JsonObject spec, String path, List<ApiError.Cause> causes) {
        Set<String> names = new HashSet<>();
        for (int i = 0; sysctls != null && i < sysctls.size(); i++) {
            String name = sysctls.get(i).isJsonObject() ? Json.str(sysctls.get(i).getAsJsonObject(), "name") : null;
            String at = path + "[" + i + "].name";
            if (name == null || name.isEmpty()) {
                causes.add(ApiError.Cause.required(at));
                continue;
            }
            if (name.length() > 253 || !SYSCTL.matcher(name).matches()) {
                causes.add(ApiError.Cause.invalid(at, Validation.quote(name), "must have at most 253 characters and "
                        + "match regex " + SYSCTL.pattern()));
            } else if (names.contains(name)) {
                causes.add(ApiError.Cause.duplicate(at, Validation.quote(name)));
            }
            String normalized = normalizeSysctl(name);
            boolean net = normalized.startsWith("net.");
            boolean ipc = normalized.equals("kernel.sem") || normalized.startsWith("kernel.shm")
                    || normalized.startsWith("kernel.msg") || normalized.startsWith("fs.mqueue.");
            if (net && Json.bool(spec, "hostNetwork")) {
                causes.add(ApiError.Cause.invalid(at, Validation.quote(name),
                        "may not be specified when 'hostNetwork' is true"));
            } else if (ipc && Json.bool(spec, "hostIPC")) {
                causes.add(ApiError.Cause.invalid(at, Validation.quote(name),
                        "may not be specified when 'hostIPC' is true"));
            }
            names.add(name);
        }
    }

    /** {@code NormalizeName}: a name whose first separator is a slash has its slashes and dots swapped. */
    private static String normalizeSysctl(String name) {
        int dot = name.indexOf('.');
        int slash = name.indexOf('/');
        if (slash < 0 || dot >= 0 && dot < slash) {
            return name;
        }
        StringBuilder b = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            b.append(c == '.' ? '/' : c == '/' ? '.' : c);
        }
        return b.toString();
    }

    /**
     * {@code ValidateAppArmorProfileField}: a type; {@code localhostProfile} set, unpadded and at most 4095 bytes for
     * {@code Localhost}, and only for it.
     */
    private static void appArmorProfile(JsonObject profile, String path, List<ApiError.Cause> causes) {
        if (profile == null) {
            return;
        }
        String type = Json.str(profile, "type");
        String local = Json.str(profile, "localhostProfile");
        if (type == null || type.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".type", "type is required when appArmorProfile is set"));
        } else if (type.equals("Localhost")) {
            if (local == null) {
                causes.add(ApiError.Cause.required(path + ".localhostProfile",
                        "must be set when AppArmor type is Localhost"));
            } else {
                if (!local.strip().equals(local)) {
                    causes.add(ApiError.Cause.invalid(path + ".localhostProfile", Validation.quote(local),
                            "must not be padded with whitespace"));
                } else if (local.isEmpty()) {
                    causes.add(ApiError.Cause.required(path + ".localhostProfile",
                            "must be set when AppArmor type is Localhost"));
                }
                if (local.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 4095) {
                    causes.add(new ApiError.Cause("FieldValueTooLong", path + ".localhostProfile",
                            "Too long: may not be more than 4095 bytes"));
                }
            }
        } else if (type.equals("RuntimeDefault") || type.equals("Unconfined")) {
            if (profile.has("localhostProfile") && !profile.get("localhostProfile").isJsonNull()) {
                causes.add(ApiError.Cause.invalid(path + ".localhostProfile", Validation.quote(local),
                        "can only be set when AppArmor type is Localhost"));
            }
        } else {
            causes.add(ApiError.Cause.notSupported(path + ".type", Validation.quote(type),
                    List.of("Localhost", "RuntimeDefault", "Unconfined")));
        }
    }

    /**
     * {@code ValidateSecurityContext} of a container: user and group ids, {@code procMount} {@code Default} or
     * {@code Unmasked} (and {@code Unmasked} only without host users), the seccomp profile field, and no
     * {@code allowPrivilegeEscalation: false} with {@code privileged: true} or an added {@code CAP_SYS_ADMIN}, the
     * Windows options and the AppArmor profile field, in upstream's order.
     */
    static void containerSecurityContext(JsonObject sc, String path, boolean ownUserNamespace,
                                         List<ApiError.Cause> causes) {
        if (sc == null) {
            return;
        }
        id(sc.get("runAsUser"), path + ".runAsUser", true, causes);
        id(sc.get("runAsGroup"), path + ".runAsGroup", false, causes);
        String procMount = Json.str(sc, "procMount");
        if (procMount != null) {
            if (!procMount.equals("Default") && !procMount.equals("Unmasked")) {
                causes.add(ApiError.Cause.notSupported(path + ".procMount", Validation.quote(procMount),
                        List.of("Default", "Unmasked")));
            } else if (procMount.equals("Unmasked") && !ownUserNamespace) {
                causes.add(ApiError.Cause.invalid(path + ".procMount", Validation.quote(procMount),
                        "`hostUsers` must be false to use `Unmasked`"));
            }
        }
        seccompProfile(Json.obj(sc, "seccompProfile"), path + ".seccompProfile", causes);
        JsonElement escalation = sc.get("allowPrivilegeEscalation");
        if (escalation != null && escalation.isJsonPrimitive() && !escalation.getAsBoolean()) {
            if (Json.bool(sc, "privileged")) {
                causes.add(ApiError.Cause.invalid(path, "core.SecurityContext{...}",
                        "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
            }
            JsonArray add = Json.arr(Json.obj(sc, "capabilities"), "add");
            for (JsonElement cap : add == null ? new JsonArray() : add) {
                if (cap.isJsonPrimitive() && cap.getAsString().equals("CAP_SYS_ADMIN")) {
                    causes.add(ApiError.Cause.invalid(path, "core.SecurityContext{...}",
                            "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"));
                }
            }
        }
        windowsOptions(Json.obj(sc, "windowsOptions"), path + ".windowsOptions", causes);
        appArmorProfile(Json.obj(sc, "appArmorProfile"), path + ".appArmorProfile", causes);
    }

    private static void id(JsonElement value, String path, boolean user, List<ApiError.Cause> causes) {
        if (value == null || value.isJsonNull() || !value.isJsonPrimitive() || !value.getAsJsonPrimitive().isNumber()) {
            return;
        }
        long id = value.getAsLong();
        if (id < 0 || id > MAX_ID) {
            causes.add(ApiError.Cause.invalid(path, Long.toString(id), "must be between 0 and 2147483647, inclusive"));
        }
    }

    /**
     * {@code validateSeccompProfileField}: a type ({@code validateSeccompProfileType}), {@code localhostProfile} set
     * for {@code Localhost} (a relative path without {@code ..}: {@code validateLocalDescendingPath}) and only for it.
     */
    private static void seccompProfile(JsonObject profile, String path, List<ApiError.Cause> causes) {
        if (profile == null) {
            return;
        }
        String type = Json.str(profile, "type");
        if (type == null || type.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".type", "type is required when seccompProfile is set"));
        } else if (!List.of("Localhost", "RuntimeDefault", "Unconfined").contains(type)) {
            causes.add(ApiError.Cause.notSupported(path + ".type", Validation.quote(type),
                    List.of("Localhost", "RuntimeDefault", "Unconfined")));
        }
        boolean local = profile.has("localhostProfile") && !profile.get("localhostProfile").isJsonNull();
        if ("Localhost".equals(type)) {
            if (!local) {
                causes.add(ApiError.Cause.required(path + ".localhostProfile",
                        "must be set when seccomp type is Localhost"));
            } else if (profile.get("localhostProfile").isJsonPrimitive()) {
                // validateLocalDescendingPath: relative, no '..' element.
                String p = profile.get("localhostProfile").getAsString();
                if (p.startsWith("/")) {
                    causes.add(ApiError.Cause.invalid(path + ".localhostProfile", Validation.quote(p),
                            "must be a relative path"));
                }
                noBacksteps(p, path + ".localhostProfile", causes);
            }
        } else if (local) {
            causes.add(ApiError.Cause.invalid(path + ".localhostProfile", "core.SeccompProfile{...}",
                    "can only be set when seccomp type is Localhost"));
        }
    }

    /**
     * {@code validateAffinity}: node affinity ({@code validateNodeAffinity}: at least one required node selector term,
     * each requirement as {@code ValidateNodeSelectorRequirement}, preferred weights 1-100) and pod (anti-)affinity
     * ({@code validatePodAffinityTerm}: label and namespace selectors, namespace names, a topology key that is a label
     * name; weights 1-100).
     */
    static void affinity(JsonObject affinity, String path, List<ApiError.Cause> causes) {
        if (affinity == null) {
            return;
        }
        JsonObject node = Json.obj(affinity, "nodeAffinity");
        if (node != null) {
            String at = path + ".nodeAffinity";
            JsonObject required = Json.obj(node, "requiredDuringSchedulingIgnoredDuringExecution");
            if (required != null) {
                JsonArray terms = Json.arr(required, "nodeSelectorTerms");
                String termsAt = at + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
                if (terms == null || terms.isEmpty()) {
                    causes.add(ApiError.Cause.required(termsAt, "must have at least one node selector term"));
                }
                for (int i = 0; terms != null && i < terms.size(); i++) {
                    nodeSelectorTerm(Json.asObject(terms.get(i)), termsAt + "[" + i + "]", causes);
                }
            }
            JsonArray preferred = Json.arr(node, "preferredDuringSchedulingIgnoredDuringExecution");
            for (int i = 0; preferred != null && i < preferred.size(); i++) {
                JsonObject term = Json.asObject(preferred.get(i));
                String termAt = at + ".preferredDuringSchedulingIgnoredDuringExecution[" + i + "]";
                weight(term, termAt, causes);
                nodeSelectorTerm(Json.obj(term, "preference"), termAt + ".preference", causes);
            }
        }
        for (String kind : List.of("podAffinity", "podAntiAffinity")) {
            JsonObject a = Json.obj(affinity, kind);
            JsonArray required = Json.arr(a, "requiredDuringSchedulingIgnoredDuringExecution");
            for (int i = 0; required != null && i < required.size(); i++) {
                podAffinityTerm(Json.asObject(required.get(i)), path + "." + kind
                        + ".requiredDuringSchedulingIgnoredDuringExecution[" + i + "]", causes);
            }
            JsonArray preferred = Json.arr(a, "preferredDuringSchedulingIgnoredDuringExecution");
            for (int i = 0; preferred != null && i < preferred.size(); i++) {
                JsonObject term = Json.asObject(preferred.get(i));
                String at = path + "." + kind + ".preferredDuringSchedulingIgnoredDuringExecution[" + i + "]";
                weight(term, at, causes);
                podAffinityTerm(Json.obj(term, "podAffinityTerm"), at + ".podAffinityTerm", causes);
            }
        }
    }

    private static void weight(JsonObject term, String path, List<ApiError.Cause> causes) {
        JsonElement w = term.get("weight");
        long weight = w != null && w.isJsonPrimitive() && w.getAsJsonPrimitive().isNumber() ? w.getAsLong() : 0;
        if (weight <= 0 || weight > 100) {
            causes.add(ApiError.Cause.invalid(path + ".weight", Long.toString(weight), "must be in the range 1-100"));
        }
    }

    /** {@code validatePodAffinityTerm}. */
    private static void podAffinityTerm(JsonObject term, String path, List<ApiError.Cause> causes) {
        if (term == null) {
            return;
        }
        NetworkPolicySpecs.labelSelector(Json.obj(term, "labelSelector"), path + ".labelSelector", causes);
        NetworkPolicySpecs.labelSelector(Json.obj(term, "namespaceSelector"), path + ".namespaceSelector", causes);
        JsonArray namespaces = Json.arr(term, "namespaces");
        for (JsonElement n : namespaces == null ? new JsonArray() : namespaces) {
            String name = n.isJsonPrimitive() ? n.getAsString() : "";
            String problem = Validation.nameProblem(name, Validation.NameRule.DNS1123_LABEL);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid(path + ".namespace", Validation.quote(name), problem));
            }
        }
        labelKeys(term, path, causes);
        String key = Json.str(term, "topologyKey");
        if (key == null || key.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".topologyKey", "can not be empty"));
        }
        Validation.qualifiedName(key == null ? "" : key, path + ".topologyKey", causes);
    }

    /** {@code validateSchedulingGates}: each name a qualified name, none twice. */
    private static void schedulingGates(JsonArray gates, String path, List<ApiError.Cause> causes) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; gates != null && i < gates.size(); i++) {
            String name = Json.str(Json.asObject(gates.get(i)), "name");
            Validation.qualifiedName(name == null ? "" : name, path + "[" + i + "]", causes);
            if (!seen.add(name)) {
                causes.add(ApiError.Cause.duplicate(path + "[" + i + "]", Validation.quote(name)));
            }
        }
    }

    /**
     * {@code validateMatchLabelKeysAndMismatchLabelKeys}: the keys are label names, given only with a label selector;
     * a {@code matchLabelKeys} key is not also a key of the selector (checked after the keys were merged into it on
     * create, so a key the selector already had is there twice); no key in both lists.
     */
    private static void labelKeys(JsonObject term, String path, List<ApiError.Cause> causes) {
        JsonObject selector = Json.obj(term, "labelSelector");
        List<String> match = strings(Json.arr(term, "matchLabelKeys"));
        List<String> mismatch = strings(Json.arr(term, "mismatchLabelKeys"));
        for (String field : List.of("matchLabelKeys", "mismatchLabelKeys")) {
            List<String> keys = field.equals("matchLabelKeys") ? match : mismatch;
            if (keys.isEmpty()) {
                continue;
            }
            if (selector == null) {
                causes.add(ApiError.Cause.forbidden(path + "." + field,
                        "must not be specified when labelSelector is not set"));
                continue;
            }
            for (int i = 0; i < keys.size(); i++) {
                Validation.qualifiedName(keys.get(i), path + "." + field + "[" + i + "]", causes);
            }
        }
        if (selector != null && !match.isEmpty()) {
            Set<String> seen = new HashSet<>();
            JsonObject labels = Json.obj(selector, "matchLabels");
            if (labels != null) {
                seen.addAll(labels.keySet());
            }
            JsonArray exprs = Json.arr(selector, "matchExpressions");
            for (int j = 0; exprs != null && j < exprs.size(); j++) {
                String key = Json.str(Json.asObject(exprs.get(j)), "key");
                int i = match.lastIndexOf(key);
                if (i >= 0 && seen.contains(key)) {
                    causes.add(ApiError.Cause.invalid(path + "[" + i + "]", Validation.quote(key),
                            "exists in both matchLabelKeys and labelSelector"));
                }
                seen.add(key);
            }
        }
        for (int i = 0; i < match.size(); i++) {
            if (mismatch.contains(match.get(i))) {
                causes.add(ApiError.Cause.invalid(path + ".matchLabelKeys[" + i + "]", Validation.quote(match.get(i)),
                        "exists in both matchLabelKeys and mismatchLabelKeys"));
            }
        }
    }

    private static List<String> strings(JsonArray array) {
        List<String> out = new ArrayList<>();
        for (JsonElement e : array == null ? new JsonArray() : array) {
            out.add(e.isJsonPrimitive() ? e.getAsString() : "");
        }
        return out;
    }

    /**
     * {@code mutatePodAffinity} (pod strategy, on create; {@code MatchLabelKeysInPodAffinity}, on by default from
     * 1.31): each pod (anti-)affinity term's {@code matchLabelKeys} and {@code mismatchLabelKeys} merged into its label
     * selector as {@code key In (value)} and {@code key NotIn (value)}, with the values of the pod's own labels; a key
     * the pod has no label for, or a term without a selector, adds nothing.
     */
    static void mergeAffinityLabelKeys(JsonObject pod) {
        JsonObject labels = Json.obj(Json.obj(pod, "metadata"), "labels");
        JsonObject affinity = Json.obj(Json.obj(pod, "spec"), "affinity");
        for (String kind : List.of("podAffinity", "podAntiAffinity")) {
            JsonObject a = Json.obj(affinity, kind);
            List<JsonObject> terms = new ArrayList<>();
            JsonArray required = Json.arr(a, "requiredDuringSchedulingIgnoredDuringExecution");
            for (JsonElement t : required == null ? new JsonArray() : required) {
                terms.add(Json.asObject(t));
            }
            JsonArray preferred = Json.arr(a, "preferredDuringSchedulingIgnoredDuringExecution");
            for (JsonElement t : preferred == null ? new JsonArray() : preferred) {
                terms.add(Json.obj(Json.asObject(t), "podAffinityTerm"));
            }
            for (JsonObject term : terms) {
                JsonObject selector = Json.obj(term, "labelSelector");
                if (term == null || selector == null) {
                    continue;
                }
                for (String field : List.of("matchLabelKeys", "mismatchLabelKeys")) {
                    for (String key : strings(Json.arr(term, field))) {
                        String value = labels == null ? null : Json.str(labels, key);
                        if (value == null) {
                            continue;
                        }
                        JsonArray exprs = Json.arr(selector, "matchExpressions");
                        if (exprs == null) {
                            exprs = new JsonArray();
                            selector.add("matchExpressions", exprs);
                        }
                        JsonArray values = new JsonArray();
                        values.add(value);
                        exprs.add(Json.object("key", key, "operator",
                                field.equals("matchLabelKeys") ? "In" : "NotIn", "values", values));
                    }
                }
            }
        }
    }

    /** {@code ValidateNodeSelectorTerm}: each expression as {@code ValidateNodeSelectorRequirement}, fields by name. */
    private static void nodeSelectorTerm(JsonObject term, String path, List<ApiError.Cause> causes) {
        if (term == null) {
            return;
        }
        JsonArray expressions = Json.arr(term, "matchExpressions");
        for (int i = 0; expressions != null && i < expressions.size(); i++) {
            JsonObject r = Json.asObject(expressions.get(i));
            String at = path + ".matchExpressions[" + i + "]";
            String operator = String.valueOf(Json.str(r, "operator"));
            JsonArray values = Json.arr(r, "values");
            int count = values == null ? 0 : values.size();
            switch (operator) {
                case "In", "NotIn" -> {
                    if (count == 0) {
                        causes.add(ApiError.Cause.required(at + ".values",
                                "must be specified when `operator` is 'In' or 'NotIn'"));
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (count > 0) {
                        causes.add(ApiError.Cause.forbidden(at + ".values",
                                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                    }
                }
                case "Gt", "Lt" -> {
                    if (count != 1) {
                        causes.add(ApiError.Cause.required(at + ".values",
                                "must be specified single value when `operator` is 'Lt' or 'Gt'"));
                    }
                }
                default -> causes.add(ApiError.Cause.invalid(at + ".operator", Validation.quote(operator),
                        "not a valid selector operator"));
            }
            Validation.qualifiedName(Json.str(r, "key") == null ? "" : Json.str(r, "key"), at + ".key", causes);
        }
        JsonArray fields = Json.arr(term, "matchFields");
        for (int i = 0; fields != null && i < fields.size(); i++) {
            JsonObject r = Json.asObject(fields.get(i));
            String at = path + ".matchFields[" + i + "]";
            if (!"metadata.name".equals(Json.str(r, "key"))) {
                causes.add(ApiError.Cause.invalid(at + ".key", Validation.quote(String.valueOf(Json.str(r, "key"))),
                        "not a valid field selector key"));
            }
            String operator = String.valueOf(Json.str(r, "operator"));
            JsonArray values = Json.arr(r, "values");
            if (!operator.equals("In") && !operator.equals("NotIn")) {
                causes.add(ApiError.Cause.invalid(at + ".operator", Validation.quote(operator),
                        "not a valid selector operator"));
            } else if (values == null || values.size() != 1) {
                causes.add(ApiError.Cause.required(at + ".values",
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
            }
        }
    }

    /**
     * {@code validateTopologySpreadConstraints}: {@code maxSkew} positive, a topology key, {@code whenUnsatisfiable}
     * {@code DoNotSchedule} or {@code ScheduleAnyway}, no two constraints with one key and action, {@code minDomains}
     * positive and only with {@code DoNotSchedule}, {@code nodeAffinityPolicy} and {@code nodeTaintsPolicy}
     * {@code Honor} or {@code Ignore} ({@code validateNodeInclusionPolicy}), the {@code matchLabelKeys}, the label
     * selector valid.
     */
    static void topologySpread(JsonArray constraints, String path, List<ApiError.Cause> causes) {
        for (int i = 0; constraints != null && i < constraints.size(); i++) {
            JsonObject c = Json.asObject(constraints.get(i));
            String at = path + "[" + i + "]";
            JsonElement skew = c.get("maxSkew");
            long maxSkew = skew != null && skew.isJsonPrimitive() && skew.getAsJsonPrimitive().isNumber()
                    ? skew.getAsLong() : 0;
            if (maxSkew <= 0) {
                causes.add(ApiError.Cause.invalid(at + ".maxSkew", Long.toString(maxSkew), "must be greater than zero"));
            }
            String key = Json.str(c, "topologyKey");
            if (key == null || key.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".topologyKey", "can not be empty"));
            }
            String action = Json.str(c, "whenUnsatisfiable");
            if (!"DoNotSchedule".equals(action) && !"ScheduleAnyway".equals(action)) {
                causes.add(ApiError.Cause.notSupported(at + ".whenUnsatisfiable", Validation.quote(String.valueOf(
                        action == null ? "" : action)), List.of("DoNotSchedule", "ScheduleAnyway")));
            }
            for (int j = i + 1; j < constraints.size(); j++) {
                JsonObject other = Json.asObject(constraints.get(j));
                if (java.util.Objects.equals(key, Json.str(other, "topologyKey"))
                        && java.util.Objects.equals(action, Json.str(other, "whenUnsatisfiable"))) {
                    causes.add(ApiError.Cause.duplicate(at + ".{topologyKey, whenUnsatisfiable}",
                            Validation.quote("{" + key + ", " + action + "}")));
                    break;
                }
            }
            JsonElement min = c.get("minDomains");
            if (min != null && !min.isJsonNull()) {
                long minDomains = min.getAsLong();
                if (minDomains <= 0) {
                    causes.add(ApiError.Cause.invalid(at + ".minDomains", Long.toString(minDomains),
                            "must be greater than zero"));
                }
                if (!"DoNotSchedule".equals(action)) {
                    causes.add(ApiError.Cause.invalid(at + ".minDomains", Long.toString(minDomains),
                            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + action));
                }
            }
            for (String policy : List.of("nodeAffinityPolicy", "nodeTaintsPolicy")) {
                // validateNodeInclusionPolicy
                String value = Json.str(c, policy);
                if (value != null && !value.equals("Honor") && !value.equals("Ignore")) {
                    causes.add(ApiError.Cause.notSupported(at + "." + policy, Validation.quote(value),
                            List.of("Honor", "Ignore")));
                }
            }
            spreadLabelKeys(c, at + ".matchLabelKeys", causes);
            NetworkPolicySpecs.labelSelector(Json.obj(c, "labelSelector"), at + ".labelSelector", causes);
        }
    }

    /**
     * {@code validateMatchLabelKeysInTopologySpread}: label names, only with a label selector, none of the selector's
     * keys (a 1.32 server does not merge them into the selector; the scheduler reads them).
     */
    private static void spreadLabelKeys(JsonObject c, String path, List<ApiError.Cause> causes) {
        List<String> keys = strings(Json.arr(c, "matchLabelKeys"));
        if (keys.isEmpty()) {
            return;
        }
        JsonObject selector = Json.obj(c, "labelSelector");
        Set<String> selected = new HashSet<>();
        if (selector != null) {
            JsonObject labels = Json.obj(selector, "matchLabels");
            if (labels != null) {
                selected.addAll(labels.keySet());
            }
            JsonArray exprs = Json.arr(selector, "matchExpressions");
            for (int j = 0; exprs != null && j < exprs.size(); j++) {
                selected.add(Json.str(Json.asObject(exprs.get(j)), "key"));
            }
        } else {
            causes.add(ApiError.Cause.forbidden(path, "must not be specified when labelSelector is not set"));
        }
        for (int i = 0; i < keys.size(); i++) {
            Validation.qualifiedName(keys.get(i), path + "[" + i + "]", causes);
            if (selected.contains(keys.get(i))) {
                causes.add(ApiError.Cause.invalid(path + "[" + i + "]", Validation.quote(keys.get(i)),
                        "exists in both matchLabelKeys and labelSelector"));
            }
        }
    }

    /**
     * {@code ValidateTolerations}: a key is a qualified name; an empty key needs operator {@code Exists};
     * {@code tolerationSeconds} only with effect {@code NoExecute}; operator {@code Equal} (or none) with a label value
     * (reported at {@code operator}, as upstream does, its messages joined by ";"), {@code Exists} without a value,
     * nothing else; an effect, when set, one of the three taint effects ({@code validateTaintEffect}).
     */
    static void tolerations(JsonArray tolerations, String path, List<ApiError.Cause> causes) {
        if (tolerations == null) {
            return;
        }
        for (int i = 0; i < tolerations.size(); i++) {
            JsonObject t = Json.asObject(tolerations.get(i));
            String at = path + "[" + i + "]";
            String key = Json.str(t, "key") == null ? "" : Json.str(t, "key");
            String operator = Json.str(t, "operator") == null ? "" : Json.str(t, "operator");
            String value = Json.str(t, "value") == null ? "" : Json.str(t, "value");
            String effect = Json.str(t, "effect") == null ? "" : Json.str(t, "effect");
            if (!key.isEmpty()) {
                Validation.qualifiedName(key, at + ".key", causes);
            }
            if (key.isEmpty() && !operator.equals("Exists")) {
                causes.add(ApiError.Cause.invalid(at + ".operator", Validation.quote(operator), "operator must be "
                        + "Exists when `key` is empty, which means \"match all values and all keys\""));
            }
            JsonElement seconds = t.get("tolerationSeconds");
            if (seconds != null && !seconds.isJsonNull() && !effect.equals("NoExecute")) {
                causes.add(ApiError.Cause.invalid(at + ".effect", Validation.quote(effect),
                        "effect must be 'NoExecute' when `tolerationSeconds` is set"));
            }
            switch (operator) {
                case "Equal", "" -> {
                    List<String> problems = NamedFormat.labelValue(value);
                    if (!problems.isEmpty()) {
                        causes.add(ApiError.Cause.invalid(at + ".operator", Validation.quote(value),
                                String.join(";", problems)));
                    }
                }
                case "Exists" -> {
                    if (!value.isEmpty()) {
                        causes.add(ApiError.Cause.invalid(at + ".operator", Json.text(t),
                                "value must be empty when `operator` is 'Exists'"));
                    }
                }
                default -> causes.add(ApiError.Cause.notSupported(at + ".operator", Validation.quote(operator),
                        List.of("Equal", "Exists")));
            }
            if (!effect.isEmpty() && !List.of("NoSchedule", "PreferNoSchedule", "NoExecute").contains(effect)) {
                causes.add(ApiError.Cause.notSupported(at + ".effect", Validation.quote(effect),
                        List.of("NoSchedule", "PreferNoSchedule", "NoExecute")));
            }
        }
    }

    // ---- volumes ----

    /** {@code ValidateVolumes}: the volumes that passed, by name, for the mounts to name. */
    private static Map<String, JsonObject> volumes(JsonArray volumes, String path, List<ApiError.Cause> causes) {
        Map<String, JsonObject> ok = new HashMap<>();
        if (volumes == null) {
            return ok;
        }
        for (int i = 0; i < volumes.size(); i++) {
            JsonObject v = Json.asObject(volumes.get(i));
            String at = path + "[" + i + "]";
            List<ApiError.Cause> el = new ArrayList<>();
            volumeSource(v, at, el);
            String name = Json.str(v, "name");
            if (name == null || name.isEmpty()) {
                el.add(ApiError.Cause.required(at + ".name"));
            } else if (!Validation.isDns1123Label(name)) {
                el.add(ApiError.Cause.invalid(at + ".name", Validation.quote(name),
                        Validation.nameProblem(name, Validation.NameRule.DNS1123_LABEL)));
            }
            if (name != null && ok.containsKey(name)) {
                el.add(ApiError.Cause.duplicate(at + ".name", Validation.quote(name)));
            }
            if (el.isEmpty()) {
                ok.put(name, v);
            } else {
                causes.addAll(el);
            }
        }
        return ok;
    }

    /** {@code validateVolumeSource}: exactly one source, and the sources a controller writes checked in depth. */
    private static void volumeSource(JsonObject v, String path, List<ApiError.Cause> causes) {
        int count = 0;
        for (String source : SOURCES) {
            JsonElement s = v.get(source);
            if (s == null || s.isJsonNull()) {
                continue;
            }
            if (count > 0) {
                causes.add(ApiError.Cause.forbidden(path + "." + source, "may not specify more than 1 volume type"));
                continue;
            }
            count++;
            JsonObject o = Json.asObject(s);
            String at = path + "." + source;
            switch (source) {
                case "secret" -> {
                    requiredString(o, "secretName", at, causes);
                    mode(o, "defaultMode", at, causes);
                    items(Json.arr(o, "items"), at + ".items", null, causes);
                }
                case "configMap" -> {
                    requiredString(o, "name", at, causes);
                    mode(o, "defaultMode", at, causes);
                    items(Json.arr(o, "items"), at + ".items", null, causes);
                }
                case "persistentVolumeClaim" -> requiredString(o, "claimName", at, causes);
                case "hostPath" -> {
                    String p = Json.str(o, "path");
                    if (p == null || p.isEmpty()) {
                        causes.add(ApiError.Cause.required(at + ".path"));
                    } else {
                        noBacksteps(p, at + ".path", causes);
                    }
                }
                case "downwardAPI" -> {
                    mode(o, "defaultMode", at, causes);
                    JsonArray files = Json.arr(o, "items");
                    if (files != null) {
                        for (JsonElement f : files) {
                            downwardApiFile(Json.asObject(f), at, causes);
                        }
                    }
                }
                case "projected" -> {
                    mode(o, "defaultMode", at, causes);
                    projections(o, at, causes);
                }
                default -> {
                }
            }
        }
        if (count == 0) {
            causes.add(ApiError.Cause.required(path, "must specify a volume type"));
        }
    }

    /** {@code validateProjectionSources}. */
    private static void projections(JsonObject projected, String path, List<ApiError.Cause> causes) {
        JsonArray sources = Json.arr(projected, "sources");
        if (sources == null) {
            return;
        }
        Set<String> paths = new HashSet<>();
        for (int i = 0; i < sources.size(); i++) {
            JsonObject source = Json.asObject(sources.get(i));
            String at = path + ".sources[" + i + "]";
            int count = 0;
            for (String kind : List.of("secret", "configMap")) {
                JsonObject s = Json.obj(source, kind);
                if (s == null) {
                    continue;
                }
                count++;
                requiredString(s, "name", at + "." + kind, causes);
                items(Json.arr(s, "items"), at + "." + kind + ".items", new Conflicts(paths, path,
                        Validation.quote(Json.str(s, "name") == null ? "" : Json.str(s, "name"))), causes);
            }
            JsonObject downward = Json.obj(source, "downwardAPI");
            if (downward != null) {
                count++;
                JsonArray files = Json.arr(downward, "items");
                if (files != null) {
                    for (JsonElement f : files) {
                        JsonObject file = Json.asObject(f);
                        downwardApiFile(file, at + ".downwardAPI", causes);
                        String p = Json.str(file, "path");
                        if (p != null && !p.isEmpty() && !paths.add(p)) {
                            causes.add(ApiError.Cause.invalid(path, Validation.quote(p),
                                    "conflicting duplicate paths"));
                        }
                    }
                }
            }
            JsonObject token = Json.obj(source, "serviceAccountToken");
            if (token != null) {
                count++;
                long seconds = token.has("expirationSeconds") ? token.get("expirationSeconds").getAsLong() : 0;
                if (seconds < 600) {
                    causes.add(ApiError.Cause.invalid(at + ".serviceAccountToken.expirationSeconds",
                            Long.toString(seconds), "may not specify a duration less than 10 minutes"));
                }
                if (seconds > (1L << 32)) {
                    causes.add(ApiError.Cause.invalid(at + ".serviceAccountToken.expirationSeconds",
                            Long.toString(seconds), "may not specify a duration larger than 2^32 seconds"));
                }
                String p = Json.str(token, "path");
                if (p == null || p.isEmpty()) {
                    causes.add(ApiError.Cause.required(path + ".path"));
                } else {
                    localNonReservedPath(p, path + ".path", causes);
                }
            }
            if (Json.obj(source, "clusterTrustBundle") != null) {
                count++;
            }
            if (count > 1) {
                causes.add(ApiError.Cause.forbidden(at, "may not specify more than 1 volume type"));
            }
        }
    }

    /** Where {@code validateProjectionSources} reports a path two projections write. */
    private record Conflicts(Set<String> seen, String field, String renderedSource) {
    }

    /** {@code validateKeyToPath} for each item; with {@code conflicts}, paths must not repeat across projections. */
    private static void items(JsonArray items, String path, Conflicts conflicts, List<ApiError.Cause> causes) {
        if (items == null) {
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            JsonObject kp = Json.asObject(items.get(i));
            String at = path + "[" + i + "]";
            String key = Json.str(kp, "key");
            String p = Json.str(kp, "path");
            if (key == null || key.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".key"));
            }
            if (p == null || p.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".path"));
            }
            localNonReservedPath(p == null ? "" : p, at + ".path", causes);
            mode(kp, "mode", at, causes);
            if (conflicts != null && p != null && !p.isEmpty() && !conflicts.seen().add(p)) {
                causes.add(ApiError.Cause.invalid(conflicts.field(), conflicts.renderedSource(),
                        "conflicting duplicate paths"));
            }
        }
    }

    /** {@code validateDownwardAPIVolumeFile}. */
    private static void downwardApiFile(JsonObject file, String path, List<ApiError.Cause> causes) {
        String p = Json.str(file, "path");
        if (p == null || p.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".path"));
        }
        localNonReservedPath(p == null ? "" : p, path + ".path", causes);
        boolean fieldRef = file.has("fieldRef");
        boolean resourceFieldRef = file.has("resourceFieldRef");
        if (fieldRef && resourceFieldRef) {
            causes.add(ApiError.Cause.invalid(path, "\"resource\"",
                    "fieldRef and resourceFieldRef can not be specified simultaneously"));
        } else if (!fieldRef && !resourceFieldRef) {
            causes.add(ApiError.Cause.required(path, "one of fieldRef and resourceFieldRef is required"));
        }
        mode(file, "mode", path, causes);
    }

    /** {@code ValidateLocalNonReservedPath}: relative, no {@code ..} element, not starting with {@code ..}. */
    private static void localNonReservedPath(String p, String path, List<ApiError.Cause> causes) {
        if (p.startsWith("/")) {
            causes.add(ApiError.Cause.invalid(path, Validation.quote(p), "must be a relative path"));
        }
        boolean backstep = noBacksteps(p, path, causes);
        if (!backstep && p.startsWith("..") && !p.startsWith("../")) {
            causes.add(ApiError.Cause.invalid(path, Validation.quote(p), "must not start with '..'"));
        }
    }

    /** {@code validatePathNoBacksteps}; true when it found one. */
    private static boolean noBacksteps(String p, String path, List<ApiError.Cause> causes) {
        for (String part : p.split("/", -1)) {
            if (part.equals("..")) {
                causes.add(ApiError.Cause.invalid(path, Validation.quote(p), "must not contain '..'"));
                return true;
            }
        }
        return false;
    }

    private static void mode(JsonObject o, String field, String path, List<ApiError.Cause> causes) {
        JsonElement m = o.get(field);
        if (m != null && m.isJsonPrimitive() && m.getAsJsonPrimitive().isNumber()) {
            long mode = m.getAsLong();
            if (mode < 0 || mode > 0777) {
                causes.add(ApiError.Cause.invalid(path + "." + field, Long.toString(mode), FILE_MODE));
            }
        }
    }

    // ---- containers ----

    /** {@code validateContainerCommon}. */
    private static void container(JsonObject c, String path, Map<String, JsonObject> volumes,
                                  List<ApiError.Cause> causes) {
        String name = Json.str(c, "name");
        if (name == null || name.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".name"));
        } else if (!Validation.isDns1123Label(name)) {
            causes.add(ApiError.Cause.invalid(path + ".name", Validation.quote(name),
                    Validation.nameProblem(name, Validation.NameRule.DNS1123_LABEL)));
        }
        String image = Json.str(c, "image");
        if (image == null || image.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".image"));
        }
        oneOf(c, "terminationMessagePolicy", path, List.of("File", "FallbackToLogsOnError"), causes);
        ports(Json.arr(c, "ports"), path + ".ports", causes);
        env(Json.arr(c, "env"), path + ".env", causes);
        envFrom(Json.arr(c, "envFrom"), path + ".envFrom", causes);
        mounts(Json.arr(c, "volumeMounts"), path + ".volumeMounts", volumes, causes);
        if (image != null && !image.isEmpty()) {
            oneOf(c, "imagePullPolicy", path, List.of("Always", "IfNotPresent", "Never"), causes);
        }
        resources(Json.obj(c, "resources"), path + ".resources", causes);
    }

    /** {@code validateContainerPorts}. */
    private static void ports(JsonArray ports, String path, List<ApiError.Cause> causes) {
        if (ports == null) {
            return;
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            JsonObject p = Json.asObject(ports.get(i));
            String at = path + "[" + i + "]";
            String name = Json.str(p, "name");
            if (name != null && !name.isEmpty()) {
                List<String> problems = portNameProblems(name);
                if (!problems.isEmpty()) {
                    problems.forEach(m -> causes.add(ApiError.Cause.invalid(at + ".name", Validation.quote(name), m)));
                } else if (!names.add(name)) {
                    causes.add(ApiError.Cause.duplicate(at + ".name", Validation.quote(name)));
                }
            }
            long port = number(p, "containerPort");
            if (port == 0) {
                causes.add(ApiError.Cause.required(at + ".containerPort"));
            } else if (port < 1 || port > 65535) {
                causes.add(ApiError.Cause.invalid(at + ".containerPort", Long.toString(port),
                        "must be between 1 and 65535, inclusive"));
            }
            long hostPort = number(p, "hostPort");
            if (hostPort != 0 && (hostPort < 1 || hostPort > 65535)) {
                causes.add(ApiError.Cause.invalid(at + ".hostPort", Long.toString(hostPort),
                        "must be between 1 and 65535, inclusive"));
            }
            oneOf(p, "protocol", at, List.of("SCTP", "TCP", "UDP"), causes);
        }
    }

    /** {@code IsValidPortName} ({@code apimachinery/pkg/util/validation/validation.go}). */
    static List<String> portNameProblems(String name) {
        List<String> problems = new ArrayList<>();
        if (name.length() > 15) {
            problems.add("must be no more than 15 characters");
        }
        if (!PORT_NAME_CHARS.matcher(name).matches()) {
            problems.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        }
        if (!ONE_LETTER.matcher(name).matches()) {
            problems.add("must contain at least one letter (a-z)");
        }
        if (name.contains("--")) {
            problems.add("must not contain consecutive hyphens");
        }
        if (!name.isEmpty() && (name.charAt(0) == '-' || name.charAt(name.length() - 1) == '-')) {
            problems.add("must not begin or end with a hyphen");
        }
        return problems;
    }

    /**
     * {@code ValidateEnv} with {@code IsRelaxedEnvVarName} (the {@code RelaxedEnvironmentVariableValidation} gate,
     * on by default since 1.32) and {@code validateEnvVarValueFrom}'s one-source rule.
     */
    private static void env(JsonArray env, String path, List<ApiError.Cause> causes) {
        if (env == null) {
            return;
        }
        for (int i = 0; i < env.size(); i++) {
            JsonObject ev = Json.asObject(env.get(i));
            String at = path + "[" + i + "]";
            String name = Json.str(ev, "name");
            if (name == null || name.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".name"));
            } else if (!relaxedEnvName(name)) {
                causes.add(ApiError.Cause.invalid(at + ".name", Validation.quote(name),
                        "a valid environment variable name must consist only of printable ASCII characters other "
                                + "than '='"));
            }
            JsonObject from = Json.obj(ev, "valueFrom");
            if (from == null) {
                continue;
            }
            int sources = 0;
            for (String s : List.of("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")) {
                if (from.has(s)) {
                    sources++;
                }
            }
            for (String s : List.of("configMapKeyRef", "secretKeyRef")) {
                JsonObject ref = Json.obj(from, s);
                if (ref == null) {
                    continue;
                }
                String key = Json.str(ref, "key");
                if (key == null || key.isEmpty()) {
                    causes.add(ApiError.Cause.required(at + ".valueFrom." + s + ".key"));
                } else if (key.length() > 253 || !CONFIG_KEY.matcher(key).matches()) {
                    causes.add(ApiError.Cause.invalid(at + ".valueFrom." + s + ".key", Validation.quote(key),
                            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"));
                }
            }
            String value = Json.str(ev, "value");
            if (sources == 0) {
                causes.add(ApiError.Cause.invalid(at + ".valueFrom", "\"\"",
                        "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
            } else if (value != null && !value.isEmpty()) {
                causes.add(ApiError.Cause.invalid(at + ".valueFrom", "\"\"",
                        "may not be specified when `value` is not empty"));
            } else if (sources > 1) {
                causes.add(ApiError.Cause.invalid(at + ".valueFrom", "\"\"",
                        "may not have more than one field specified at a time"));
            }
        }
    }

    private static boolean relaxedEnvName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < 0x20 || ch > 0x7e || ch == '=') {
                return false;
            }
        }
        return true;
    }

    /** {@code ValidateEnvFrom}: one of configMapRef and secretRef. */
    private static void envFrom(JsonArray envFrom, String path, List<ApiError.Cause> causes) {
        if (envFrom == null) {
            return;
        }
        for (JsonElement e : envFrom) {
            JsonObject ev = Json.asObject(e);
            int sources = (ev.has("configMapRef") ? 1 : 0) + (ev.has("secretRef") ? 1 : 0);
            if (sources == 0) {
                causes.add(ApiError.Cause.invalid(path, "\"\"", "must specify one of: `configMapRef` or `secretRef`"));
            } else if (sources > 1) {
                causes.add(ApiError.Cause.invalid(path, "\"\"",
                        "may not have more than one field specified at a time"));
            }
        }
    }

    /** {@code ValidateVolumeMounts}: a volume of the pod, at a path no other mount of the container uses. */
    private static void mounts(JsonArray mounts, String path, Map<String, JsonObject> volumes,
                               List<ApiError.Cause> causes) {
        if (mounts == null) {
            return;
        }
        Set<String> mountPoints = new HashSet<>();
        for (int i = 0; i < mounts.size(); i++) {
            JsonObject m = Json.asObject(mounts.get(i));
            String at = path + "[" + i + "]";
            String name = Json.str(m, "name");
            if (name == null || name.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".name"));
            }
            if (name == null || !volumes.containsKey(name)) {
                causes.add(ApiError.Cause.notFound(at + ".name", Validation.quote(name == null ? "" : name)));
            }
            String mountPath = Json.str(m, "mountPath");
            if (mountPath == null || mountPath.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".mountPath"));
            }
            String p = mountPath == null ? "" : mountPath;
            if (!mountPoints.add(p)) {
                causes.add(ApiError.Cause.invalid(at + ".mountPath", Validation.quote(p), "must be unique"));
            }
            String subPath = Json.str(m, "subPath");
            if (subPath != null && !subPath.isEmpty()) {
                if (subPath.startsWith("/")) {
                    causes.add(ApiError.Cause.invalid(path + ".subPath", Validation.quote(subPath),
                            "must be a relative path"));
                }
                noBacksteps(subPath, path + ".subPath", causes);
            }
        }
    }

    /** {@code ValidateResourceRequirements}: quantities, and each request at most its limit. */
    private static void resources(JsonObject resources, String path, List<ApiError.Cause> causes) {
        JsonObject limits = Json.obj(resources, "limits");
        JsonObject requests = Json.obj(resources, "requests");
        Map<String, Quantity> limit = Quantity.parseEach(limits, path + ".limits", true, causes);
        Map<String, Quantity> request = Quantity.parseEach(requests, path + ".requests", true, causes);
        request.forEach((name, q) -> {
            Quantity l = limit.get(name);
            if (l != null && q.compareTo(l) > 0) {
                causes.add(ApiError.Cause.invalid(path + ".requests", Validation.quote(q.toString()),
                        "must be less than or equal to " + name + " limit of " + l));
            }
        });
    }

    /** Lifecycle hooks, then probes: {@code validateLifecycle}, {@code validateProbe}, the liveness/startup threshold. */
    private static void handlers(JsonObject c, String path, List<ApiError.Cause> causes) {
        JsonObject lifecycle = Json.obj(c, "lifecycle");
        for (String hook : List.of("postStart", "preStop")) {
            JsonObject h = Json.obj(lifecycle, hook);
            if (h != null) {
                handler(h, path + ".lifecycle." + hook, List.of("exec", "httpGet", "tcpSocket", "sleep"), causes);
            }
        }
        for (String probe : PROBES) {
            JsonObject p = Json.obj(c, probe);
            if (p == null) {
                continue;
            }
            String at = path + "." + probe;
            handler(p, at, List.of("exec", "httpGet", "tcpSocket", "grpc"), causes);
            for (String f : List.of("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold",
                    "failureThreshold")) {
                long v = number(p, f);
                if (v < 0) {
                    causes.add(ApiError.Cause.invalid(at + "." + f, Long.toString(v),
                            "must be greater than or equal to 0"));
                }
            }
            if (!probe.equals("readinessProbe") && number(p, "successThreshold") != 1) {
                causes.add(ApiError.Cause.invalid(at + ".successThreshold", Long.toString(number(p,
                        "successThreshold")), "must be 1"));
            }
        }
    }

    /** {@code validateHandler}: exactly one handler type, each with what it needs. */
    private static void handler(JsonObject h, String path, List<String> types, List<ApiError.Cause> causes) {
        int count = 0;
        for (String type : types) {
            JsonObject t = Json.obj(h, type);
            if (t == null) {
                continue;
            }
            if (count > 0) {
                causes.add(ApiError.Cause.forbidden(path + "." + type, "may not specify more than 1 handler type"));
                continue;
            }
            count++;
            switch (type) {
                case "exec" -> {
                    JsonArray command = Json.arr(t, "command");
                    if (command == null || command.isEmpty()) {
                        causes.add(ApiError.Cause.required(path + ".exec.command"));
                    }
                }
                case "httpGet" -> {
                    String p = Json.str(t, "path");
                    if (p == null || p.isEmpty()) {
                        causes.add(ApiError.Cause.required(path + ".httpGet.path"));
                    }
                    portNumOrName(t.get("port"), path + ".httpGet.port", causes);
                    oneOf(t, "scheme", path + ".httpGet", List.of("HTTP", "HTTPS"), causes);
                }
                case "tcpSocket" -> portNumOrName(t.get("port"), path + ".tcpSocket.port", causes);
                case "grpc" -> portNumOrName(t.get("port"), path + ".grpc.port", causes);
                default -> {
                }
            }
        }
        if (count == 0) {
            causes.add(ApiError.Cause.required(path, "must specify a handler type"));
        }
    }

    /** {@code ValidatePortNumOrName}. */
    static void portNumOrName(JsonElement port, String path, List<ApiError.Cause> causes) {
        if (port != null && port.isJsonPrimitive() && port.getAsJsonPrimitive().isNumber()) {
            long n = port.getAsLong();
            if (n < 1 || n > 65535) {
                causes.add(ApiError.Cause.invalid(path, Long.toString(n), "must be between 1 and 65535, inclusive"));
            }
        } else if (port != null && port.isJsonPrimitive()) {
            String name = port.getAsString();
            portNameProblems(name).forEach(m -> causes.add(ApiError.Cause.invalid(path, Validation.quote(name), m)));
        } else {
            causes.add(ApiError.Cause.invalid(path, "0", "must be between 1 and 65535, inclusive"));
        }
    }

    // ---- DNS and host aliases ----

    /** {@code validatePodDNSConfig}. */
    private static void dnsConfig(JsonObject spec, String path, List<ApiError.Cause> causes) {
        JsonObject config = Json.obj(spec, "dnsConfig");
        String at = path + ".dnsConfig";
        JsonArray nameservers = Json.arr(config, "nameservers");
        if ("None".equals(Json.str(spec, "dnsPolicy"))) {
            if (config == null) {
                causes.add(ApiError.Cause.required(at, "must provide `dnsConfig` when `dnsPolicy` is None"));
                return;
            }
            if (nameservers == null || nameservers.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".nameservers",
                        "must provide at least one DNS nameserver when `dnsPolicy` is None"));
                return;
            }
        }
        if (config == null) {
            return;
        }
        if (nameservers != null) {
            if (nameservers.size() > MAX_NAMESERVERS) {
                causes.add(ApiError.Cause.invalid(at + ".nameservers", goStrings(nameservers),
                        "must not have more than " + MAX_NAMESERVERS + " nameservers"));
            }
            for (int i = 0; i < nameservers.size(); i++) {
                String ns = nameservers.get(i).getAsString();
                if (!NetAddresses.isIp(ns)) {
                    causes.add(ApiError.Cause.invalid(at + ".nameservers[" + i + "]", Validation.quote(ns),
                            IP_EXAMPLE));
                }
            }
        }
        JsonArray searches = Json.arr(config, "searches");
        if (searches != null) {
            if (searches.size() > MAX_SEARCH_PATHS) {
                causes.add(ApiError.Cause.invalid(at + ".searches", goStrings(searches),
                        "must not have more than " + MAX_SEARCH_PATHS + " search paths"));
            }
            List<String> all = new ArrayList<>();
            searches.forEach(s -> all.add(s.getAsString()));
            if (String.join(" ", all).length() > MAX_SEARCH_CHARS) {
                causes.add(ApiError.Cause.invalid(at + ".searches", goStrings(searches),
                        "must not have more than " + MAX_SEARCH_CHARS
                                + " characters (including spaces) in the search list"));
            }
            for (int i = 0; i < all.size(); i++) {
                String search = all.get(i).endsWith(".") ? all.get(i).substring(0, all.get(i).length() - 1)
                        : all.get(i);
                if (!Validation.isDns1123Subdomain(search)) {
                    causes.add(ApiError.Cause.invalid(at + ".searches[" + i + "]", Validation.quote(search),
                            Validation.nameProblem(search, Validation.NameRule.DNS1123_SUBDOMAIN)));
                }
            }
        }
        JsonArray options = Json.arr(config, "options");
        if (options != null) {
            for (int i = 0; i < options.size(); i++) {
                String name = Json.str(Json.asObject(options.get(i)), "name");
                if (name == null || name.isEmpty()) {
                    causes.add(ApiError.Cause.required(at + ".options[" + i + "]", "must not be empty"));
                }
            }
        }
    }

    /** {@code ValidateHostAliases}. */
    private static void hostAliases(JsonArray aliases, String path, List<ApiError.Cause> causes) {
        if (aliases == null) {
            return;
        }
        for (int i = 0; i < aliases.size(); i++) {
            JsonObject a = Json.asObject(aliases.get(i));
            String ip = Json.str(a, "ip");
            if (ip == null || !NetAddresses.isIp(ip)) {
                causes.add(ApiError.Cause.invalid(path + "[" + i + "].ip", Validation.quote(ip == null ? "" : ip),
                        IP_EXAMPLE));
            }
            JsonArray hostnames = Json.arr(a, "hostnames");
            if (hostnames == null) {
                continue;
            }
            for (int j = 0; j < hostnames.size(); j++) {
                String h = hostnames.get(j).getAsString();
                if (!Validation.isDns1123Subdomain(h)) {
                    causes.add(ApiError.Cause.invalid(path + "[" + i + "].hostnames[" + j + "]", Validation.quote(h),
                            Validation.nameProblem(h, Validation.NameRule.DNS1123_SUBDOMAIN)));
                }
            }
        }
    }

    // ---- helpers ----

    /** A field with one of {@code supported} values; absent or empty is Required (the defaults fill the usual ones). */
    private static void oneOf(JsonObject o, String field, String path, List<String> supported,
                              List<ApiError.Cause> causes) {
        String v = Json.str(o, field);
        if (v == null || v.isEmpty()) {
            causes.add(ApiError.Cause.required(path + "." + field));
        } else if (!supported.contains(v)) {
            causes.add(ApiError.Cause.notSupported(path + "." + field, Validation.quote(v), supported));
        }
    }

    private static void requiredString(JsonObject o, String field, String path, List<ApiError.Cause> causes) {
        String v = Json.str(o, field);
        if (v == null || v.isEmpty()) {
            causes.add(ApiError.Cause.required(path + "." + field));
        }
    }

    private static long number(JsonObject o, String field) {
        JsonElement e = o.get(field);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? e.getAsLong() : 0;
    }

    /** Go's {@code %v} of a string slice, as field.Invalid renders one: {@code []string{"a", "b"}}. */
    private static String goStrings(JsonArray values) {
        List<String> quoted = new ArrayList<>();
        values.forEach(v -> quoted.add(Validation.quote(v.getAsString())));
        return "[]string{" + String.join(", ", quoted) + "}";
    }


    private static List<JsonObject> containers(JsonObject spec) {
        List<JsonObject> out = new ArrayList<>();
        for (String list : List.of("containers", "initContainers")) {
            JsonArray a = Json.arr(spec, list);
            if (a != null) {
                a.forEach(e -> out.add(Json.asObject(e)));
            }
        }
        return out;
    }

    private static void putIfAbsent(JsonObject o, String key, Object value) {
        if (!o.has(key)) {
            if (value instanceof Number n) {
                o.addProperty(key, n);
            } else {
                o.addProperty(key, String.valueOf(value));
            }
        }
    }
}
