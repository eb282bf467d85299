package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PodSecurity admission plugin, as the API server runs it with its default configuration (no exemptions, every
 * mode {@code privileged:latest} unless the namespace's labels say otherwise).
 *
 * <p>Follows {@code staging/src/k8s.io/pod-security-admission}: the namespace's {@code pod-security.kubernetes.io/
 * <mode>} and {@code <mode>-version} labels give the policy ({@code api.PolicyToEvaluate}: an enforce level that does
 * not parse is {@code restricted}, an audit or warn level that does not parse is {@code privileged}, a version that
 * does not parse is {@code latest}); a Pod is refused with 403 "violates PodSecurity" when its namespace's enforce
 * level forbids it, on create and on an update that changes what the checks read
 * ({@code admission/admission.go}, {@code ValidatePod}, {@code isSignificantPodUpdate}: a container added or removed
 * or an image changed), never on a subresource; a workload's pod template ({@code ValidatePodController}) and an
 * allowed Pod get the warn level's verdict as a {@code Warning} header. The checks are those of {@code policy/},
 * each a function of its own below named after its file, run in upstream's order (the baseline checks that the
 * restricted level does not override, by file name, then for baseline the overridden ones, for restricted the
 * restricted ones) with upstream's reasons and details ({@code AggregateCheckResult.ForbiddenDetail}); a check
 * newer than the namespace's version label does not run.
 */
final class PodSecurityAdmission {

    static final String PREFIX = "pod-security.kubernetes.io/";
    private static final Pattern VERSION = Pattern.compile("^v1\\.(0|[1-9][0-9]*)$");
    private static final int LATEST = Integer.MAX_VALUE;

    /** The kinds whose pod template {@code ValidatePodController} checks, by plural (PodSpecExtractor). */
    static final Set<String> CONTROLLERS = Set.of("deployments", "replicasets", "statefulsets", "daemonsets", "jobs",
            "cronjobs", "replicationcontrollers", "podtemplates");

    enum Level { PRIVILEGED, BASELINE, RESTRICTED }

    /** A level at a version ({@code api.LevelVersion}); {@code minor} is {@link #LATEST} for "latest". */
    record LevelVersion(Level level, int minor) {
        @Override
        public String toString() {
            return level.name().toLowerCase() + ":" + (minor == LATEST ? "latest" : "v1." + minor);
        }
    }

    record Policy(LevelVersion enforce, LevelVersion audit, LevelVersion warn) {
    }

    private record Result(String reason, String detail) {
    }

    private PodSecurityAdmission() {
    }

    /** {@code api.PolicyToEvaluate} with the default policy ({@code privileged:latest} for every mode). */
    static Policy policy(JsonObject namespace) {
        JsonObject labels = namespace == null ? null : Json.obj(Json.meta(namespace), "labels");
        return new Policy(mode(labels, "enforce", Level.RESTRICTED), mode(labels, "audit", Level.PRIVILEGED),
                mode(labels, "warn", Level.PRIVILEGED));
    }

    private static LevelVersion mode(JsonObject labels, String mode, Level whenUnparsable) {
        Level level = Level.PRIVILEGED;
        int minor = LATEST;
        String l = Json.str(labels, PREFIX + mode);
        if (l != null) {
            level = switch (l) {
                case "privileged" -> Level.PRIVILEGED;
                case "baseline" -> Level.BASELINE;
                case "restricted" -> Level.RESTRICTED;
                default -> whenUnparsable;
            };
        }
        String v = Json.str(labels, PREFIX + mode + "-version");
        if (v != null && !v.equals("latest")) {
            Matcher m = VERSION.matcher(v);
            if (m.matches()) {
                try {
                    minor = Integer.parseInt(m.group(1));
                } catch (NumberFormatException e) {
                    minor = LATEST;
                }
            }
        }
        return new LevelVersion(level, minor);
    }

    /**
     * {@code ValidateNamespace}: a Namespace created with a Pod Security label that does not parse, or updated so that
     * its labels stop parsing, is Invalid ({@code PolicyToEvaluate}'s errors, each at its label); an update that
     * tightens the enforce level is allowed with a warning for each reason existing pods would now be refused
     * ({@code EvaluatePodsInNamespace}). {@code old} is null on create.
     */
    static void admitNamespace(ResourceType namespaces, String name, JsonObject namespace, JsonObject old,
                               List<JsonObject> pods, List<String> warnings) {
        JsonObject labels = Json.obj(Json.meta(namespace), "labels");
        List<ApiError.Cause> problems = labelProblems(labels);
        if (!problems.isEmpty()) {
            if (old == null || !problems.equals(labelProblems(Json.obj(Json.meta(old), "labels")))) {
                throw ApiError.invalid(namespaces, name, problems);
            }
        }
        if (old == null) {
            return;
        }
        LevelVersion now = policy(namespace).enforce();
        LevelVersion before = policy(old).enforce();
        if (now.equals(before) || now.level() == Level.PRIVILEGED
                || (now.minor() == before.minor() && now.level().compareTo(before.level()) <= 0)) {
            return;
        }
        java.util.TreeMap<String, List<String>> byReason = new java.util.TreeMap<>();
        for (JsonObject pod : pods) {
            List<Result> results = evaluate(now, Json.meta(pod), Json.obj(pod, "spec"));
            if (!results.isEmpty()) {
                String reason = String.join(", ", results.stream().map(Result::reason).toList());
                byReason.computeIfAbsent(reason, k -> new ArrayList<>()).add(Json.str(Json.meta(pod), "name"));
            }
        }
        if (byReason.isEmpty()) {
            return;
        }
        warnings.add("existing pods in namespace \"" + name + "\" violate the new PodSecurity enforce level \""
                + now + "\"");
        List<String> perReason = new ArrayList<>();
        byReason.forEach((reason, names) -> {
            String first = names.stream().sorted().findFirst().orElse("");
            int n = names.size();
            perReason.add(first + (n == 1 ? "" : n == 2 ? " (and 1 other pod)" : " (and " + (n - 1)
                    + " other pods)") + ": " + reason);
        });
        perReason.stream().sorted().forEach(warnings::add);
    }

    /** {@code PolicyToEvaluate}'s errors: each label whose level or version does not parse. */
    private static List<ApiError.Cause> labelProblems(JsonObject labels) {
        List<ApiError.Cause> out = new ArrayList<>();
        if (labels == null) {
            return out;
        }
        for (String mode : List.of("enforce", "audit", "warn")) {
            String level = Json.str(labels, PREFIX + mode);
            if (level != null && !Set.of("privileged", "baseline", "restricted").contains(level)) {
                out.add(ApiError.Cause.invalid("metadata.labels[" + PREFIX + mode + "]", goQuote(level),
                        "must be one of privileged, baseline, restricted"));
            }
            String version = Json.str(labels, PREFIX + mode + "-version");
            if (version != null && !version.equals("latest") && !VERSION.matcher(version).matches()) {
                out.add(ApiError.Cause.invalid("metadata.labels[" + PREFIX + mode + "-version]", goQuote(version),
                        "must be \"latest\" or \"v1.x\""));
            }
        }
        return out;
    }

    /**
     * Admits a Pod write: throws 403 when the enforce level forbids it; adds the warn level's verdict to
     * {@code warnings} when it is allowed. {@code old} is the stored pod on an update, {@code null} on create.
     */
    static void admitPod(ResourceType pods, String name, JsonObject namespace, JsonObject pod, JsonObject old,
                         List<String> warnings) {
        if (old != null && !significantUpdate(pod, old)) {
            return;
        }
        Policy p = policy(namespace);
        JsonObject meta = Json.meta(pod);
        JsonObject spec = Json.obj(pod, "spec");
        String enforced = detail(evaluate(p.enforce(), meta, spec));
        if (enforced != null) {
            throw ApiError.forbidden(pods, name, "violates PodSecurity \"" + p.enforce() + "\": " + enforced);
        }
        warn(p, meta, spec, warnings);
    }

    /** Warns, never refuses, for a workload's pod template ({@code ValidatePodController}). */
    static void admitController(JsonObject namespace, JsonObject template, List<String> warnings) {
        if (template == null) {
            return;
        }
        Policy p = policy(namespace);
        JsonObject meta = Json.obj(template, "metadata");
        warn(p, meta == null ? new JsonObject() : meta, Json.obj(template, "spec"), warnings);
    }

    /** The pod template of a workload ({@code DefaultPodSpecExtractor}): CronJobs' is in their job template. */
    static JsonObject template(String plural, JsonObject o) {
        return switch (plural) {
            case "podtemplates" -> Json.obj(o, "template");
            case "cronjobs" -> Json.obj(Json.obj(Json.obj(Json.obj(o, "spec"), "jobTemplate"), "spec"), "template");
            default -> Json.obj(Json.obj(o, "spec"), "template");
        };
    }

    private static void warn(Policy p, JsonObject meta, JsonObject spec, List<String> warnings) {
        String warned = detail(evaluate(p.warn(), meta, spec));
        if (warned != null) {
            warnings.add("would violate PodSecurity \"" + p.warn() + "\": " + warned);
        }
    }

    /** {@code isSignificantPodUpdate}: container counts, images, or an ephemeral container added or changed. */
    private static boolean significantUpdate(JsonObject pod, JsonObject old) {
        JsonObject s = Json.obj(pod, "spec");
        JsonObject o = Json.obj(old, "spec");
        for (String list : List.of("containers", "initContainers")) {
            JsonArray a = array(s, list);
            JsonArray b = array(o, list);
            if (a.size() != b.size()) {
                return true;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!Objects.equals(Json.str(Json.asObject(a.get(i)), "image"),
                        Json.str(Json.asObject(b.get(i)), "image"))) {
                    return true;
                }
            }
        }
        JsonArray olds = array(o, "ephemeralContainers");
        for (JsonElement e : array(s, "ephemeralContainers")) {
            JsonObject c = Json.asObject(e);
            JsonObject before = null;
            for (JsonElement x : olds) {
                if (Objects.equals(Json.str(Json.asObject(x), "name"), Json.str(c, "name"))) {
                    before = Json.asObject(x);
                }
            }
            if (before == null || !Objects.equals(Json.str(before, "image"), Json.str(c, "image"))) {
                return true;
            }
        }
        return false;
    }

    /** The forbidden reasons with their details, {@code AggregateCheckResult.ForbiddenDetail}; null when allowed. */
    static String detail(List<Result> results) {
        if (results.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        for (Result r : results) {
            parts.add(r.detail().isEmpty() ? r.reason() : r.reason() + " (" + r.detail() + ")");
        }
        return String.join(", ", parts);
    }

    /** The verdict of one level at one version on a pod's metadata and spec: the checks that forbid it. */
    static List<Result> evaluate(LevelVersion lv, JsonObject meta, JsonObject spec) {
        List<Result> out = new ArrayList<>();
        if (lv.level() == Level.PRIVILEGED || spec == null) {
            return out;
        }
        int v = lv.minor();
        add(out, appArmorProfile(meta, spec));
        add(out, hostNamespaces(spec));
        add(out, hostPorts(spec));
        if (v >= 34) {
            add(out, hostProbesAndHostLifecycle(spec));
        }
        add(out, privileged(spec));
        add(out, procMount(spec));
        add(out, seLinuxOptions(spec));
        add(out, sysctls(spec));
        add(out, windowsHostProcess(spec));
        if (lv.level() == Level.BASELINE) {
            add(out, capabilitiesBaseline(spec));
            add(out, hostPathVolumes(spec));
            add(out, seccompProfileBaseline(spec));
            return out;
        }
        // From 1.25 a pod whose spec.os.name is windows is exempt from three restricted checks: validation forbids
        // it the Linux fields they ask for (allowPrivilegeEscalationV1Dot25, capabilitiesRestrictedV1Dot25,
        // seccompProfileRestrictedV1Dot25).
        boolean windowsExempt = v >= 25 && "windows".equals(Json.str(Json.obj(spec, "os"), "name"));
        if (v >= 8 && !windowsExempt) {
            add(out, allowPrivilegeEscalation(spec));
        }
        if (v >= 22 && !windowsExempt) {
            add(out, capabilitiesRestricted(spec));
        }
        add(out, restrictedVolumes(spec, v));
        add(out, runAsNonRoot(spec));
        if (v >= 23) {
            add(out, runAsUser(spec));
        }
        if (v >= 19 && !windowsExempt) {
            add(out, seccompProfileRestricted(spec));
        }
        return out;
    }

    private static void add(List<Result> out, Result r) {
        if (r != null) {
            out.add(r);
        }
    }

    // --- the checks, one per file of policy/ ---

    /**
     * {@code check_appArmorProfile.go}: types RuntimeDefault or Localhost; beta annotations runtime/default and
     * localhost/*.
     */
    private static Result appArmorProfile(JsonObject meta, JsonObject spec) {
        List<String> badSetters = new ArrayList<>();
        TreeSet<String> badValues = new TreeSet<>();
        String podType = Json.str(Json.obj(Json.obj(spec, "securityContext"), "appArmorProfile"), "type");
        if (Json.obj(Json.obj(spec, "securityContext"), "appArmorProfile") != null && !allowedAppArmor(podType)) {
            badSetters.add("pod");
            badValues.add(String.valueOf(podType == null ? "" : podType));
        }
        List<String> badContainers = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            JsonObject profile = Json.obj(sc, "appArmorProfile");
            if (profile != null && !allowedAppArmor(Json.str(profile, "type"))) {
                badContainers.add(name(c));
                badValues.add(Json.str(profile, "type") == null ? "" : Json.str(profile, "type"));
            }
        });
        if (!badContainers.isEmpty()) {
            badSetters.add(containers(badContainers));
        }
        List<String> values = new ArrayList<>(badValues);
        TreeSet<String> annotations = new TreeSet<>();
        JsonObject a = Json.obj(meta, "annotations");
        if (a != null) {
            for (Map.Entry<String, JsonElement> e : a.entrySet()) {
                String value = e.getValue().isJsonPrimitive() ? e.getValue().getAsString() : "";
                if (e.getKey().startsWith("container.apparmor.security.beta.kubernetes.io/")
                        && !(value.isEmpty() || value.equals("runtime/default") || value.startsWith("localhost/"))) {
                    annotations.add(e.getKey() + "=" + goQuote(value));
                }
            }
        }
        if (!annotations.isEmpty()) {
            values.addAll(annotations);
            badSetters.add(annotations.size() == 1 ? "annotation" : "annotations");
        }
        if (badSetters.isEmpty()) {
            return null;
        }
        return new Result(values.size() == 1 ? "forbidden AppArmor profile" : "forbidden AppArmor profiles",
                String.join(" and ", badSetters) + " must not set AppArmor profile type to " + joinQuote(values));
    }

    private static boolean allowedAppArmor(String type) {
        return "RuntimeDefault".equals(type) || "Localhost".equals(type);
    }

    /** {@code check_hostNamespaces.go}. */
    private static Result hostNamespaces(JsonObject spec) {
        TreeSet<String> set = new TreeSet<>();
        for (String f : List.of("hostNetwork", "hostPID", "hostIPC")) {
            if (isTrue(spec.get(f))) {
                set.add(f);
            }
        }
        return set.isEmpty() ? null : new Result("host namespaces", String.join(", ", set));
    }

    /** {@code check_hostPorts.go}. */
    private static Result hostPorts(JsonObject spec) {
        List<String> bad = new ArrayList<>();
        TreeSet<String> ports = new TreeSet<>();
        visitContainers(spec, (c, sc) -> {
            boolean valid = true;
            for (JsonElement p : array(c, "ports")) {
                JsonElement hp = Json.asObject(p).get("hostPort");
                if (hp != null && hp.isJsonPrimitive() && hp.getAsJsonPrimitive().isNumber() && hp.getAsLong() != 0) {
                    valid = false;
                    ports.add(Long.toString(hp.getAsLong()));
                }
            }
            if (!valid) {
                bad.add(name(c));
            }
        });
        if (bad.isEmpty()) {
            return null;
        }
        return new Result("hostPort", containers(bad) + " " + (bad.size() == 1 ? "uses" : "use") + " "
                + (ports.size() == 1 ? "hostPort" : "hostPorts") + " " + String.join(", ", ports));
    }

    /** {@code check_hostProbesAndhostLifecycle.go} (1.34+). */
    private static Result hostProbesAndHostLifecycle(JsonObject spec) {
        TreeSet<String> bad = new TreeSet<>();
        TreeSet<String> hosts = new TreeSet<>();
        visitContainers(spec, (c, sc) -> {
            List<JsonObject> handlers = new ArrayList<>();
            for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                handlers.add(Json.obj(c, probe));
            }
            JsonObject lifecycle = Json.obj(c, "lifecycle");
            handlers.add(Json.obj(lifecycle, "postStart"));
            handlers.add(Json.obj(lifecycle, "preStop"));
            for (JsonObject h : handlers) {
                for (String action : List.of("httpGet", "tcpSocket")) {
                    String host = Json.str(Json.obj(h, action), "host");
                    if (host != null && !host.isEmpty()) {
                        bad.add(name(c));
                        hosts.add(host);
                    }
                }
            }
        });
        if (bad.isEmpty()) {
            return null;
        }
        return new Result("probe or lifecycle host", containers(new ArrayList<>(bad)) + " "
                + (bad.size() == 1 ? "uses" : "use") + " "
                + (hosts.size() == 1 ? "probe or lifecycle host" : "probe or lifecycle hosts") + " "
                + joinQuote(new ArrayList<>(hosts)));
    }

    /** {@code check_privileged.go}. */
    private static Result privileged(JsonObject spec) {
        List<String> bad = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            if (sc != null && isTrue(sc.get("privileged"))) {
                bad.add(name(c));
            }
        });
        return bad.isEmpty() ? null
                : new Result("privileged", containers(bad) + " must not set securityContext.privileged=true");
    }

    /**
     * {@code check_procMount.go}: only {@code Default}. (Upstream relaxes this for user-namespace pods only when the
     * operator opts in, {@code RelaxPolicyForUserNamespacePods}, off by default.)
     */
    private static Result procMount(JsonObject spec) {
        List<String> bad = new ArrayList<>();
        TreeSet<String> types = new TreeSet<>();
        visitContainers(spec, (c, sc) -> {
            String pm = Json.str(sc, "procMount");
            if (pm != null && !pm.equals("Default")) {
                bad.add(name(c));
                types.add(pm);
            }
        });
        return bad.isEmpty() ? null : new Result("procMount", containers(bad)
                + " must not set securityContext.procMount to " + joinQuote(new ArrayList<>(types)));
    }

    /**
     * {@code check_seLinuxOptions.go}: type empty, container_t, container_init_t or container_kvm_t; no user, no
     * role.
     */
    private static Result seLinuxOptions(JsonObject spec) {
        Set<String> allowed = Set.of("", "container_t", "container_init_t", "container_kvm_t");
        List<String> badSetters = new ArrayList<>();
        TreeSet<String> badTypes = new TreeSet<>();
        boolean[] userRole = new boolean[2];
        java.util.function.Predicate<JsonObject> valid = opts -> {
            boolean ok = true;
            String type = Json.str(opts, "type") == null ? "" : Json.str(opts, "type");
            if (!allowed.contains(type)) {
                ok = false;
                badTypes.add(type);
            }
            if (Json.str(opts, "user") != null && !Json.str(opts, "user").isEmpty()) {
                ok = false;
                userRole[0] = true;
            }
            if (Json.str(opts, "role") != null && !Json.str(opts, "role").isEmpty()) {
                ok = false;
                userRole[1] = true;
            }
            return ok;
        };
        JsonObject podOpts = Json.obj(Json.obj(spec, "securityContext"), "seLinuxOptions");
        if (podOpts != null && !valid.test(podOpts)) {
            badSetters.add("pod");
        }
        List<String> bad = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            JsonObject o = Json.obj(sc, "seLinuxOptions");
            if (o != null && !valid.test(o)) {
                bad.add(name(c));
            }
        });
        if (!bad.isEmpty()) {
            badSetters.add(containers(bad));
        }
        if (badSetters.isEmpty()) {
            return null;
        }
        // As upstream: the user and role notes are only added when a bad type was found too.
        List<String> badData = new ArrayList<>();
        if (!badTypes.isEmpty()) {
            badData.add((badTypes.size() == 1 ? "type " : "types ") + joinQuote(new ArrayList<>(badTypes)));
            if (userRole[0]) {
                badData.add("user may not be set");
            }
            if (userRole[1]) {
                badData.add("role may not be set");
            }
        }
        return new Result("seLinuxOptions", String.join(" and ", badSetters)
                + " set forbidden securityContext.seLinuxOptions: " + String.join("; ", badData));
    }

    /** {@code check_sysctls.go}: the safe set of 1.0. */
    private static Result sysctls(JsonObject spec) {
        Set<String> allowed = Set.of("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start");
        List<String> bad = new ArrayList<>();
        for (JsonElement s : array(Json.obj(spec, "securityContext"), "sysctls")) {
            String n = Json.str(Json.asObject(s), "name");
            if (!allowed.contains(n)) {
                bad.add(n == null ? "" : n);
            }
        }
        return bad.isEmpty() ? null : new Result("forbidden sysctls", String.join(", ", bad));
    }

    /** {@code check_windowsHostProcess.go}. */
    private static Result windowsHostProcess(JsonObject spec) {
        List<String> setters = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            if (isTrue(Json.at(sc, "windowsOptions.hostProcess"))) {
                bad.add(name(c));
            }
        });
        JsonObject podWin = Json.obj(Json.obj(spec, "securityContext"), "windowsOptions");
        if (podWin != null && isTrue(podWin.get("hostProcess"))) {
            setters.add("pod");
        }
        if (!bad.isEmpty()) {
            setters.add(containers(bad));
        }
        return setters.isEmpty() ? null : new Result("hostProcess", String.join(" and ", setters)
                + " must not set securityContext.windowsOptions.hostProcess=true");
    }

    /** {@code check_capabilities_baseline.go}: adds only from the default set. */
    private static Result capabilitiesBaseline(JsonObject spec) {
        Set<String> allowed = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");
        List<String> bad = new ArrayList<>();
        TreeSet<String> caps = new TreeSet<>();
        visitContainers(spec, (c, sc) -> {
            boolean valid = true;
            for (JsonElement cap : array(Json.obj(sc, "capabilities"), "add")) {
                String s = cap.isJsonPrimitive() ? cap.getAsString() : String.valueOf(cap);
                if (!allowed.contains(s)) {
                    valid = false;
                    caps.add(s);
                }
            }
            if (!valid) {
                bad.add(name(c));
            }
        });
        return bad.isEmpty() ? null : new Result("non-default capabilities", containers(bad) + " must not include "
                + joinQuote(new ArrayList<>(caps)) + " in securityContext.capabilities.add");
    }

    /** {@code check_hostPathVolumes.go}. */
    private static Result hostPathVolumes(JsonObject spec) {
        List<String> bad = new ArrayList<>();
        for (JsonElement v : array(spec, "volumes")) {
            if (Json.asObject(v).has("hostPath")) {
                bad.add(Json.str(Json.asObject(v), "name"));
            }
        }
        return bad.isEmpty() ? null
                : new Result("hostPath volumes", (bad.size() == 1 ? "volume " : "volumes ") + joinQuote(bad));
    }

    /** {@code check_seccompProfile_baseline.go} (1.19+): no type other than RuntimeDefault or Localhost. */
    private static Result seccompProfileBaseline(JsonObject spec) {
        return seccomp(spec, false);
    }

    /** {@code check_seccompProfile_restricted.go}: RuntimeDefault or Localhost on the pod or every container. */
    private static Result seccompProfileRestricted(JsonObject spec) {
        return seccomp(spec, true);
    }

    private static Result seccomp(JsonObject spec, boolean required) {
        List<String> badSetters = new ArrayList<>();
        TreeSet<String> badValues = new TreeSet<>();
        boolean podSet = false;
        JsonObject podProfile = Json.obj(Json.obj(spec, "securityContext"), "seccompProfile");
        if (podProfile != null) {
            String type = Json.str(podProfile, "type");
            if (!validSeccomp(type)) {
                badSetters.add("pod");
                badValues.add(type == null ? "" : type);
            } else {
                podSet = true;
            }
        }
        boolean podValid = podSet;
        List<String> explicit = new ArrayList<>();
        List<String> implicit = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            JsonObject profile = Json.obj(sc, "seccompProfile");
            if (profile != null) {
                String type = Json.str(profile, "type");
                if (!validSeccomp(type)) {
                    explicit.add(name(c));
                    badValues.add(type == null ? "" : type);
                }
            } else if (!podValid) {
                implicit.add(name(c));
            }
        });
        if (!explicit.isEmpty()) {
            badSetters.add(containers(explicit));
        }
        if (!badSetters.isEmpty()) {
            return new Result("seccompProfile", String.join(" and ", badSetters)
                    + " must not set securityContext.seccompProfile.type to " + joinQuote(new ArrayList<>(badValues)));
        }
        if (required && !implicit.isEmpty()) {
            return new Result("seccompProfile", "pod or " + containers(implicit)
                    + " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"");
        }
        return null;
    }

    private static boolean validSeccomp(String type) {
        return "RuntimeDefault".equals(type) || "Localhost".equals(type);
    }

    /** {@code check_allowPrivilegeEscalation.go}. */
    private static Result allowPrivilegeEscalation(JsonObject spec) {
        List<String> bad = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            JsonElement ape = Json.at(sc, "allowPrivilegeEscalation");
            if (!isFalse(ape)) {
                bad.add(name(c));
            }
        });
        return bad.isEmpty() ? null : new Result("allowPrivilegeEscalation != false", containers(bad)
                + " must set securityContext.allowPrivilegeEscalation=false");
    }

    /** {@code check_capabilities_restricted.go}: drop ALL, add at most NET_BIND_SERVICE. */
    private static Result capabilitiesRestricted(JsonObject spec) {
        List<String> missingDrop = new ArrayList<>();
        List<String> adding = new ArrayList<>();
        TreeSet<String> forbidden = new TreeSet<>();
        visitContainers(spec, (c, sc) -> {
            JsonObject caps = Json.obj(sc, "capabilities");
            if (caps == null) {
                missingDrop.add(name(c));
                return;
            }
            boolean droppedAll = false;
            for (JsonElement d : array(caps, "drop")) {
                droppedAll |= d.isJsonPrimitive() && d.getAsString().equals("ALL");
            }
            if (!droppedAll) {
                missingDrop.add(name(c));
            }
            boolean added = false;
            for (JsonElement a : array(caps, "add")) {
                String s = a.isJsonPrimitive() ? a.getAsString() : String.valueOf(a);
                if (!s.equals("NET_BIND_SERVICE")) {
                    added = true;
                    forbidden.add(s);
                }
            }
            if (added) {
                adding.add(name(c));
            }
        });
        List<String> details = new ArrayList<>();
        if (!missingDrop.isEmpty()) {
            details.add(containers(missingDrop) + " must set securityContext.capabilities.drop=[\"ALL\"]");
        }
        if (!adding.isEmpty()) {
            details.add(containers(adding) + " must not include " + joinQuote(new ArrayList<>(forbidden))
                    + " in securityContext.capabilities.add");
        }
        return details.isEmpty() ? null : new Result("unrestricted capabilities", String.join("; ", details));
    }

    /** The volume sources of {@code check_restrictedVolumes.go}, in its order, with the names it reports. */
    private static final List<String> RESTRICTED_TYPES = List.of("hostPath", "gcePersistentDisk",
            "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs", "rbd", "flexVolume", "cinder", "cephfs",
            "flocker", "fc", "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk",
            "portworxVolume", "scaleIO", "storageos");

    /**
     * {@code check_restrictedVolumes.go}: configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim,
     * projected, secret, and from 1.33 image (kubernetes#130394).
     */
    private static Result restrictedVolumes(JsonObject spec, int version) {
        Set<String> allowed = new java.util.HashSet<>(Set.of("configMap", "csi", "downwardAPI", "emptyDir",
                "ephemeral", "persistentVolumeClaim", "projected", "secret"));
        if (version >= 33) {
            allowed.add("image");
        }
        List<String> bad = new ArrayList<>();
        TreeSet<String> types = new TreeSet<>();
        for (JsonElement e : array(spec, "volumes")) {
            JsonObject v = Json.asObject(e);
            if (v.keySet().stream().anyMatch(allowed::contains)) {
                continue;
            }
            bad.add(Json.str(v, "name"));
            types.add(RESTRICTED_TYPES.stream().filter(v::has).findFirst().orElse("unknown"));
        }
        if (bad.isEmpty()) {
            return null;
        }
        return new Result("restricted volume types", (bad.size() == 1 ? "volume " : "volumes ") + joinQuote(bad) + " "
                + (bad.size() == 1 ? "uses" : "use") + " "
                + (types.size() == 1 ? "restricted volume type " : "restricted volume types ")
                + joinQuote(new ArrayList<>(types)));
    }

    /** {@code check_runAsNonRoot.go}. */
    private static Result runAsNonRoot(JsonObject spec) {
        List<String> badSetters = new ArrayList<>();
        JsonElement podValue = Json.at(spec, "securityContext.runAsNonRoot");
        boolean podNonRoot = false;
        if (podValue != null && !podValue.isJsonNull()) {
            if (isFalse(podValue)) {
                badSetters.add("pod");
            } else {
                podNonRoot = isTrue(podValue);
            }
        }
        boolean pod = podNonRoot;
        List<String> explicit = new ArrayList<>();
        List<String> implicit = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            JsonElement v = Json.at(sc, "runAsNonRoot");
            if (v != null && !v.isJsonNull()) {
                if (isFalse(v)) {
                    explicit.add(name(c));
                }
            } else if (!pod) {
                implicit.add(name(c));
            }
        });
        if (!explicit.isEmpty()) {
            badSetters.add(containers(explicit));
        }
        if (!badSetters.isEmpty()) {
            return new Result("runAsNonRoot != true", String.join(" and ", badSetters)
                    + " must not set securityContext.runAsNonRoot=false");
        }
        if (!implicit.isEmpty()) {
            return new Result("runAsNonRoot != true", "pod or " + containers(implicit)
                    + " must set securityContext.runAsNonRoot=true");
        }
        return null;
    }

    /** {@code check_runAsUser.go} (1.23+). */
    private static Result runAsUser(JsonObject spec) {
        List<String> badSetters = new ArrayList<>();
        if (isZero(Json.at(spec, "securityContext.runAsUser"))) {
            badSetters.add("pod");
        }
        List<String> bad = new ArrayList<>();
        visitContainers(spec, (c, sc) -> {
            if (isZero(Json.at(sc, "runAsUser"))) {
                bad.add(name(c));
            }
        });
        if (!bad.isEmpty()) {
            badSetters.add(containers(bad));
        }
        return badSetters.isEmpty() ? null
                : new Result("runAsUser=0", String.join(" and ", badSetters) + " must not set runAsUser=0");
    }

    // --- helpers, as in helpers.go and visitor.go ---

    /** {@code visitContainers}: init containers, containers, ephemeral containers, in that order. */
    private static void visitContainers(JsonObject spec, BiConsumer<JsonObject, JsonObject> visitor) {
        for (String list : List.of("initContainers", "containers", "ephemeralContainers")) {
            for (JsonElement e : array(spec, list)) {
                JsonObject c = Json.asObject(e);
                visitor.accept(c, Json.obj(c, "securityContext"));
            }
        }
    }

    private static String containers(List<String> names) {
        return (names.size() == 1 ? "container " : "containers ") + joinQuote(names);
    }

    private static String name(JsonObject c) {
        String n = Json.str(c, "name");
        return n == null ? "" : n;
    }

    private static String joinQuote(List<String> items) {
        return items.isEmpty() ? "" : "\"" + String.join("\", \"", items) + "\"";
    }

    private static String goQuote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static JsonArray array(JsonObject o, String key) {
        JsonArray a = Json.arr(o, key);
        return a == null ? new JsonArray() : a;
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
