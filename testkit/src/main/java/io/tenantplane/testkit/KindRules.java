package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The per-kind behaviour of built-in kinds that a controller notices: API defaults (the ones that make a naive
 * "desired equals actual" check fail), allocated fields (Service cluster IPs and node ports), the initial status, and
 * the update rules that reject a write (immutable Pod spec, StatefulSet spec, selectors, immutable ConfigMaps).
 * Admission plugins are not emulated.
 */
final class KindRules {
    private static final Pattern CONFIG_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
    private final ServiceIps serviceIps;
    private final NodePorts nodePorts;

    KindRules(ServiceIps serviceIps, NodePorts nodePorts) {
        this.serviceIps = serviceIps;
        this.nodePorts = nodePorts;
    }

    /** Sets what the server owns on create: the initial status and defaults; adds causes for invalid objects. */
    void onCreate(ResourceType t, JsonObject o, List<ApiError.Cause> causes) {
        if (t.statusSubresource() && !t.custom()) {
            o.remove("status");
        }
        if (t.group().equals("discovery.k8s.io") && t.plural().equals("endpointslices")) {
            endpointSliceIps(o, causes);
            return;
        }
        if (otherGroups(t, o, null, causes)) {
            return;
        }
        if (!t.group().isEmpty() && !t.group().equals("apps")) {
            return;
        }
        switch (t.plural()) {
            case "endpoints" -> endpointsIps(o, causes);
            case "namespaces" -> {
                JsonObject spec = Json.child(o, "spec");
                if (!spec.has("finalizers")) {
                    spec.add("finalizers", Json.array("kubernetes"));
                }
                o.add("status", Json.object("phase", "Active"));
            }
            case "pods" -> {
                // Defaults and admission (ServiceAccount, Priority) ran before, in Store.create.
                PodSpecs.validate(Json.obj(o, "spec"), "spec", causes);
                // podStrategy.PrepareForCreate: Pending, with the QoS class computed from the containers.
                o.add("status", Json.object("phase", "Pending", "qosClass", qosClass(Json.obj(o, "spec"))));
            }
            case "services" -> {
                serviceDefaults(o, null, causes);
                o.add("status", Json.object("loadBalancer", new JsonObject()));
            }
            case "secrets" -> secret(o, causes);
            case "configmaps" -> configMap(o, causes);
            case "limitranges" -> {
                // SetDefaults_LimitRangeItem runs as the body is decoded; validation sees the defaulted items.
                ResourceAdmission.limitRangeDefaults(Json.child(o, "spec"));
                LimitRanges.validate(Json.child(o, "spec"), causes);
            }
            case "resourcequotas" -> ResourceQuotas.validate(Json.child(o, "spec"), causes);
            case "persistentvolumeclaims" -> {
                JsonObject spec = Json.child(o, "spec");
                if (!spec.has("volumeMode")) {
                    spec.addProperty("volumeMode", "Filesystem");
                }
                ClaimSpecs.normalizeDataSources(spec);
                ClaimSpecs.validate(spec, "spec", causes);
                o.add("status", Json.object("phase", "Pending"));
            }
            case "deployments", "statefulsets", "replicasets", "daemonsets" -> {
                WorkloadSpecs.dropDisabledFields(t.plural(), Json.child(o, "spec"), null);
                workloadDefaults(t.plural(), Json.child(o, "spec"));
                WorkloadSpecs.validate(t.plural(), Json.obj(o, "spec"), causes);
            }
            default -> {
            }
        }
    }

    /** Applies update rules; {@code o} is the candidate whose status and system metadata are already settled. */
    void onUpdate(ResourceType t, JsonObject old, JsonObject o, List<ApiError.Cause> causes) {
        if (t.group().equals("discovery.k8s.io") && t.plural().equals("endpointslices")) {
            endpointSliceIps(o, causes);
            return;
        }
        if (otherGroups(t, o, old, causes)) {
            return;
        }
        if (!t.group().isEmpty() && !t.group().equals("apps")) {
            return;
        }
        switch (t.plural()) {
            case "endpoints" -> endpointsIps(o, causes);
            case "namespaces" -> {
                JsonObject oldSpec = Json.obj(old, "spec");
                if (oldSpec != null && oldSpec.has("finalizers")) {
                    Json.child(o, "spec").add("finalizers", oldSpec.get("finalizers").deepCopy());
                }
            }
            case "pods" -> {
                JsonObject spec = Json.child(o, "spec");
                podSpecDefaults(spec);
                podUpdate(Json.obj(old, "spec"), spec, causes);
            }
            case "services" -> serviceDefaults(o, old, causes);
            case "secrets" -> {
                secret(o, causes);
                immutableData(old, o, List.of("data", "stringData"), causes);
                if (!Json.same(old.get("type"), o.get("type"))) {
                    causes.add(ApiError.Cause.invalid("type", Json.render(o.get("type")), "field is immutable"));
                }
            }
            case "configmaps" -> {
                configMap(o, causes);
                immutableData(old, o, List.of("data", "binaryData"), causes);
            }
            case "limitranges" -> {
                // SetDefaults_LimitRangeItem runs as the body is decoded; validation sees the defaulted items.
                ResourceAdmission.limitRangeDefaults(Json.child(o, "spec"));
                LimitRanges.validate(Json.child(o, "spec"), causes);
            }
            case "resourcequotas" -> ResourceQuotas.validate(Json.child(o, "spec"), causes);
            case "persistentvolumeclaims" -> {
                JsonObject spec = Json.child(o, "spec");
                if (!spec.has("volumeMode")) {
                    spec.addProperty("volumeMode", "Filesystem");
                }
                ClaimSpecs.normalizeDataSources(spec);
                ClaimSpecs.validate(spec, "spec", causes);
                JsonObject a = Json.obj(old, "spec").deepCopy();
                JsonObject b = spec.deepCopy();
                for (JsonObject s : List.of(a, b)) {
                    s.remove("resources");
                    s.remove("volumeAttributesClassName");
                    s.remove("volumeName");
                }
                if (!Json.same(a, b)) {
                    causes.add(ApiError.Cause.forbidden("spec", "spec is immutable after creation except "
                            + "resources.requests and volumeAttributesClassName for bound claims"));
                }
            }
            case "deployments", "statefulsets", "replicasets", "daemonsets" -> {
                JsonObject spec = Json.child(o, "spec");
                WorkloadSpecs.dropDisabledFields(t.plural(), spec, Json.obj(old, "spec"));
                workloadDefaults(t.plural(), spec);
                WorkloadSpecs.validate(t.plural(), spec, causes);
                JsonObject oldSpec = Json.obj(old, "spec");
                if (!Json.same(Json.obj(oldSpec, "selector"), Json.obj(spec, "selector"))) {
                    causes.add(ApiError.Cause.invalid("spec.selector", Json.render(spec.get("selector")),
                            "field is immutable"));
                }
                if (t.plural().equals("statefulsets")) {
                    statefulSetUpdate(oldSpec, spec, causes);
                }
            }
            default -> {
            }
        }
    }

    /** Rules for a write to {@code /status}: the candidate is the stored object with the new status. */
    void onStatusUpdate(ResourceType t, JsonObject old, JsonObject o, List<ApiError.Cause> causes) {
        if (t.is("", "pods")) {
            // ValidatePodStatusUpdate: the QoS class the server computed may not change (refused since 1.32).
            String before = Json.str(Json.obj(old, "status"), "qosClass");
            String after = Json.str(Json.obj(o, "status"), "qosClass");
            if (before != null && !before.equals(after)) {
                causes.add(ApiError.Cause.invalid("status.qosClass", Validation.quote(after == null ? "" : after),
                        "field is immutable"));
            }
        }
    }

    /** The fields an ephemeral container may set ({@code allowedEphemeralContainerFields}); any other is forbidden. */
    private static final Set<String> EPHEMERAL_FIELDS = Set.of("name", "image", "command", "args", "workingDir", "env",
            "envFrom", "volumeMounts", "volumeDevices", "terminationMessagePath", "terminationMessagePolicy",
            "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty", "targetContainerName");

    /**
     * An update through {@code pods/ephemeralcontainers} ({@code ValidatePodEphemeralContainersUpdate} and
     * {@code validateEphemeralContainers} in {@code pkg/apis/core/validation/validation.go}): a static pod takes none;
     * existing ephemeral containers may be neither removed nor changed; a new one needs a name unique among all the
     * pod's containers and an image, may target only a container or init container, and may set only the allowed
     * fields (no ports, resources, probes, lifecycle) and no volume sub-paths.
     */
    void onEphemeralContainersUpdate(JsonObject old, JsonObject o, List<ApiError.Cause> causes) {
        if (Json.str(Json.obj(Json.meta(old), "annotations"), "kubernetes.io/config.mirror") != null) {
            causes.add(ApiError.Cause.forbidden("", "static pods do not support ephemeral containers"));
            return;
        }
        JsonObject spec = Json.obj(o, "spec");
        JsonArray before = Json.arr(Json.obj(old, "spec"), "ephemeralContainers");
        JsonArray after = Json.arr(spec, "ephemeralContainers");
        java.util.Map<String, JsonObject> byName = new java.util.HashMap<>();
        if (after != null) {
            after.forEach(e -> {
                if (e.isJsonObject() && Json.str(e.getAsJsonObject(), "name") != null) {
                    byName.put(Json.str(e.getAsJsonObject(), "name"), e.getAsJsonObject());
                }
            });
        }
        if (before != null) {
            for (JsonElement e : before) {
                String name = Json.str(e.getAsJsonObject(), "name");
                JsonObject now = byName.get(name);
                if (now == null) {
                    causes.add(ApiError.Cause.forbidden("spec.ephemeralContainers", "existing ephemeral containers "
                            + Validation.quote(name) + " may not be removed\n"));
                } else if (!Json.same(e, now)) {
                    causes.add(ApiError.Cause.forbidden("spec.ephemeralContainers", "existing ephemeral containers "
                            + Validation.quote(name) + " may not be changed\n"));
                }
            }
        }
        if (after == null) {
            return;
        }
        Set<String> others = new java.util.HashSet<>();
        for (String list : List.of("containers", "initContainers")) {
            JsonArray containers = Json.arr(spec, list);
            if (containers != null) {
                containers.forEach(c -> others.add(Json.str(c.getAsJsonObject(), "name")));
            }
        }
        Set<String> all = new java.util.HashSet<>(others);
        for (int i = 0; i < after.size(); i++) {
            String at = "spec.ephemeralContainers[" + i + "]";
            JsonObject ec = after.get(i).getAsJsonObject();
            String name = Json.str(ec, "name");
            if (name == null || name.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".name"));
            } else if (!all.add(name)) {
                causes.add(new ApiError.Cause("FieldValueDuplicate", at + ".name", "Duplicate value: "
                        + Validation.quote(name)));
            }
            if (Json.str(ec, "image") == null || Json.str(ec, "image").isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".image"));
            }
            String target = Json.str(ec, "targetContainerName");
            if (target != null && !target.isEmpty() && !others.contains(target)) {
                causes.add(new ApiError.Cause("FieldValueNotFound", at + ".targetContainerName", "Not found: "
                        + Validation.quote(target)));
            }
            for (String field : new java.util.TreeSet<>(ec.keySet())) {
                // validateFieldAllowList compares each field with its zero value: kubectl debug sends resources: {}.
                if (!EPHEMERAL_FIELDS.contains(field) && !zero(ec.get(field))) {
                    causes.add(ApiError.Cause.forbidden(at + "." + field, "cannot be set for an Ephemeral Container"));
                }
            }
            JsonArray mounts = Json.arr(ec, "volumeMounts");
            for (int m = 0; mounts != null && m < mounts.size(); m++) {
                for (String sub : List.of("subPath", "subPathExpr")) {
                    String v = Json.str(mounts.get(m).getAsJsonObject(), sub);
                    if (v != null && !v.isEmpty()) {
                        causes.add(ApiError.Cause.forbidden(at + ".volumeMounts[" + m + "]." + sub,
                                "cannot be set for an Ephemeral Container"));
                    }
                }
            }
        }
    }

    /** Whether a decoded field holds its Go zero value (absent, null, {}, [], false, 0 or ""). */
    private static boolean zero(JsonElement v) {
        if (v == null || v.isJsonNull()) {
            return true;
        }
        if (v.isJsonObject()) {
            return v.getAsJsonObject().entrySet().stream().allMatch(e -> zero(e.getValue()));
        }
        if (v.isJsonArray()) {
            return v.getAsJsonArray().isEmpty();
        }
        JsonPrimitive p = v.getAsJsonPrimitive();
        return p.isBoolean() ? !p.getAsBoolean() : p.isNumber() ? p.getAsDouble() == 0 : p.getAsString().isEmpty();
    }

    // ---- pods ----

    /**
     * {@code ComputePodQOS} ({@code pkg/apis/core/helper/qos/qos.go}): BestEffort without any cpu or memory request
     * or limit, Guaranteed when every container limits cpu and memory and requests equal limits (requests default
     * to limits), else Burstable.
     */
    /**
     * {@code ValidateEndpointIP} (pkg/apis/core/validation/validation.go), applied by {@code validateEndpointAddress}
     * to every {@code subsets[].addresses[].ip} and {@code notReadyAddresses[].ip}: no unspecified, loopback,
     * link-local or link-local multicast address.
     */
    private static void endpointsIps(JsonObject o, List<ApiError.Cause> causes) {
        JsonArray subsets = o.get("subsets") instanceof JsonArray a ? a : new JsonArray();
        for (int i = 0; i < subsets.size(); i++) {
            for (String list : List.of("addresses", "notReadyAddresses")) {
                JsonArray addrs = subsets.get(i) instanceof JsonObject s && s.get(list) instanceof JsonArray a
                        ? a : new JsonArray();
                for (int j = 0; j < addrs.size(); j++) {
                    if (addrs.get(j) instanceof JsonObject addr && addr.get("ip") instanceof JsonPrimitive ip) {
                        endpointIp("subsets[" + i + "]." + list + "[" + j + "].ip", ip.getAsString(), causes);
                    }
                }
            }
        }
    }

    /**
     * {@code validateEndpoints} (pkg/apis/discovery/validation/validation.go): for address types IPv4 and IPv6 each
     * {@code endpoints[].addresses[]} is checked by {@code ValidateEndpointIP}.
     */
    private static void endpointSliceIps(JsonObject o, List<ApiError.Cause> causes) {
        String type = o.get("addressType") instanceof JsonPrimitive p ? p.getAsString() : "";
        if (!type.equals("IPv4") && !type.equals("IPv6")) {
            return;
        }
        JsonArray eps = o.get("endpoints") instanceof JsonArray a ? a : new JsonArray();
        for (int i = 0; i < eps.size(); i++) {
            JsonArray addrs = eps.get(i) instanceof JsonObject e && e.get("addresses") instanceof JsonArray a
                    ? a : new JsonArray();
            for (int j = 0; j < addrs.size(); j++) {
                if (addrs.get(j) instanceof JsonPrimitive ip) {
                    endpointIp("endpoints[" + i + "].addresses[" + j + "]", ip.getAsString(), causes);
                }
            }
        }
    }

    private static void endpointIp(String field, String value, List<ApiError.Cause> causes) {
        java.net.InetAddress ip = ip(value);
        if (ip == null) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(value), "must be a valid IP address"));
            return;
        }
        if (ip.isAnyLocalAddress()) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(value), "may not be unspecified (" + value + ")"));
        }
        if (ip.isLoopbackAddress()) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(value), "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
        }
        if (ip.isLinkLocalAddress()) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(value),
                    "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
        }
        byte[] b = ip.getAddress();
        boolean llMulticast = b.length == 4 ? (b[0] & 0xff) == 224 && b[1] == 0 && b[2] == 0
                : (b[0] & 0xff) == 0xff && (b[1] & 0x0f) == 0x02;
        if (llMulticast) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(value),
                    "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
        }
    }

    /** An IP literal (never a DNS lookup), or null. */
    static java.net.InetAddress ip(String s) {
        if (s == null || s.isEmpty() || !(s.matches("[0-9.]+") || s.matches("[0-9a-fA-F:.]+") && s.contains(":"))) {
            return null;
        }
        try {
            return java.net.InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }

    static String qosClass(JsonObject spec) {
        boolean any = false;
        boolean guaranteed = true;
        for (String list : List.of("initContainers", "containers")) {
            JsonArray containers = Json.arr(spec, list);
            if (containers == null) {
                continue;
            }
            for (JsonElement c : containers) {
                JsonObject resources = c.isJsonObject() ? Json.obj(c.getAsJsonObject(), "resources") : null;
                JsonObject requests = Json.obj(resources, "requests");
                JsonObject limits = Json.obj(resources, "limits");
                for (String r : List.of("cpu", "memory")) {
                    String req = requests == null ? null : Json.str(requests, r);
                    String lim = limits == null ? null : Json.str(limits, r);
                    if (req != null || lim != null) {
                        any = true;
                    }
                    if (lim == null || (req != null && !quantityEquals(req, lim))) {
                        guaranteed = false;
                    }
                }
            }
        }
        return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
    }

    private static boolean quantityEquals(String a, String b) {
        java.math.BigDecimal x = quantity(a);
        java.math.BigDecimal y = quantity(b);
        return x != null && y != null ? x.compareTo(y) == 0 : a.equals(b);
    }

    /** A resource quantity ({@code 500m}, {@code 2}, {@code 4Gi}, {@code 1e3}) as a number, or null. */
    static java.math.BigDecimal quantity(String q) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?").matcher(q.trim());
        if (!m.matches()) {
            return null;
        }
        java.math.BigDecimal n;
        try {
            n = new java.math.BigDecimal(m.group(1));
        } catch (NumberFormatException e) {
            return null;
        }
        String suffix = m.group(2) == null ? "" : m.group(2);
        int binary = "KiMiGiTiPiEi".indexOf(suffix);
        int decimal = "kMGTPE".indexOf(suffix);
        if (suffix.equals("m")) {
            return n.movePointLeft(3);
        } else if (suffix.length() == 2 && binary >= 0) {
            return n.multiply(java.math.BigDecimal.valueOf(2).pow(10 * (binary / 2 + 1)));
        } else if (suffix.length() == 1 && decimal >= 0) {
            return n.movePointRight(3 * (decimal + 1));
        }
        return n;
    }

    static void podSpecDefaults(JsonObject spec) {
        putIfAbsent(spec, "restartPolicy", "Always");
        putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
        putIfAbsent(spec, "terminationGracePeriodSeconds", 30);
        putIfAbsent(spec, "schedulerName", "default-scheduler");
        putIfAbsent(spec, "enableServiceLinks", true);
        if (!spec.has("securityContext")) {
            spec.add("securityContext", new JsonObject());
        }
        String serviceAccount = Json.str(spec, "serviceAccount");
        if (serviceAccount != null && !spec.has("serviceAccountName")) {
            spec.addProperty("serviceAccountName", serviceAccount);
        }
        for (String list : List.of("containers", "initContainers")) {
            JsonArray containers = Json.arr(spec, list);
            if (containers == null) {
                continue;
            }
            for (JsonElement c : containers) {
                if (!c.isJsonObject()) {
                    continue;
                }
                JsonObject container = c.getAsJsonObject();
                putIfAbsent(container, "terminationMessagePath", "/dev/termination-log");
                putIfAbsent(container, "terminationMessagePolicy", "File");
                String image = Json.str(container, "image");
                if (!container.has("imagePullPolicy") && image != null) {
                    String afterSlash = image.substring(image.lastIndexOf('/') + 1);
                    boolean latest = !afterSlash.contains(":") && !image.contains("@") || image.endsWith(":latest");
                    container.addProperty("imagePullPolicy", latest ? "Always" : "IfNotPresent");
                }
                if (!container.has("resources")) {
                    container.add("resources", new JsonObject());
                }
                JsonArray ports = Json.arr(container, "ports");
                if (ports != null) {
                    for (JsonElement p : ports) {
                        if (p.isJsonObject()) {
                            putIfAbsent(p.getAsJsonObject(), "protocol", "TCP");
                        }
                    }
                }
            }
        }
        PodSpecs.defaults(spec);
    }

    /**
     * The kinds outside the core and {@code apps} groups that are validated, on create ({@code old} null) and update
     * alike; true when {@code t} is one of them.
     */
    private static boolean otherGroups(ResourceType t, JsonObject o, JsonObject old, List<ApiError.Cause> causes) {
        switch (t.group() + "/" + t.plural()) {
            case "networking.k8s.io/networkpolicies" -> NetworkPolicySpecs.validate(Json.child(o, "spec"), causes);
            case "networking.k8s.io/ingresses" -> IngressSpecs.validate(o, old, causes);
            case "policy/poddisruptionbudgets" -> WorkloadSpecs.disruptionBudget(Json.obj(o, "spec"), causes);
            case "events.k8s.io/events" -> EventSpecs.validate(o, old, causes);
            case "rbac.authorization.k8s.io/roles", "rbac.authorization.k8s.io/clusterroles",
                 "rbac.authorization.k8s.io/rolebindings", "rbac.authorization.k8s.io/clusterrolebindings" -> {
                RbacSpecs.defaults(t.plural(), o);
                RbacSpecs.validate(t.plural(), o, old, causes);
            }
            case "coordination.k8s.io/leases" -> leaseSpec(Json.obj(o, "spec"), causes);
            case "apiregistration.k8s.io/apiservices" -> {
                ApiServiceSpecs.defaults(o);
                ApiServiceSpecs.validate(o, causes);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * A Pod's spec is immutable except images, activeDeadlineSeconds, tolerations, scheduling gates and the grace
     * period ({@code ValidatePodUpdate}); of the tolerations, every one the Pod has must stay, but for its
     * {@code tolerationSeconds} ({@code validateOnlyAddedTolerations}); of the scheduling gates, none may be added
     * ({@code validateOnlyDeletedSchedulingGates}).
     */
    private static void podUpdate(JsonObject oldSpec, JsonObject spec, List<ApiError.Cause> causes) {
        if (!onlyAddedTolerations(Json.arr(spec, "tolerations"), Json.arr(oldSpec, "tolerations"))) {
            causes.add(ApiError.Cause.forbidden("spec.tolerations",
                    "existing toleration can not be modified except its tolerationSeconds"));
        }
        // validateOnlyDeletedSchedulingGates: a gate may be removed, never added.
        Set<String> oldGates = new HashSet<>();
        JsonArray before = Json.arr(oldSpec, "schedulingGates");
        for (int i = 0; before != null && i < before.size(); i++) {
            oldGates.add(Json.str(Json.asObject(before.get(i)), "name"));
        }
        JsonArray gates = Json.arr(spec, "schedulingGates");
        for (int i = 0; gates != null && i < gates.size(); i++) {
            String name = Json.str(Json.asObject(gates.get(i)), "name");
            if (!oldGates.contains(name)) {
                causes.add(ApiError.Cause.forbidden("spec.schedulingGates[" + i + "].name",
                        "only deletion is allowed, but found new scheduling gate '" + name + "'"));
            }
        }
        JsonObject a = mutablePodFieldsRemoved(oldSpec);
        JsonObject b = mutablePodFieldsRemoved(spec);
        if (!Json.same(a, b)) {
            causes.add(ApiError.Cause.forbidden("spec", "pod updates may not change fields other than "
                    + "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                    + "`spec.tolerations` (only additions to existing tolerations),"
                    + "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"));
        }
    }

    /** True when each of {@code old}, without its {@code tolerationSeconds}, is among {@code now} (so compared). */
    private static boolean onlyAddedTolerations(JsonArray now, JsonArray old) {
        List<JsonObject> kept = new ArrayList<>();
        for (int i = 0; now != null && i < now.size(); i++) {
            if (now.get(i).isJsonObject()) {
                JsonObject t = now.get(i).getAsJsonObject().deepCopy();
                t.remove("tolerationSeconds");
                kept.add(t);
            }
        }
        for (int i = 0; old != null && i < old.size(); i++) {
            if (old.get(i).isJsonObject()) {
                JsonObject t = old.get(i).getAsJsonObject().deepCopy();
                t.remove("tolerationSeconds");
                if (!kept.contains(t)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static JsonObject mutablePodFieldsRemoved(JsonObject spec) {
        JsonObject copy = spec == null ? new JsonObject() : spec.deepCopy();
        for (String field : List.of("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds",
                "schedulingGates")) {
            copy.remove(field);
        }
        for (String list : List.of("containers", "initContainers")) {
            JsonArray containers = Json.arr(copy, list);
            if (containers != null) {
                containers.forEach(c -> {
                    if (c.isJsonObject()) {
                        c.getAsJsonObject().remove("image");
                    }
                });
            }
        }
        return copy;
    }

    // ---- services ----

    /**
     * {@code ValidateService}'s port checks ({@code pkg/apis/core/validation/validation.go}): {@code validateServicePort}
     * (a name when there are several, a DNS label, unique; a protocol; a target port number or IANA name; an
     * {@code appProtocol} that is a qualified name); no two
     * ports with one protocol and port number. (That a Service has ports is checked with its cluster IP.)
     */
    private static void servicePorts(JsonObject spec, List<ApiError.Cause> causes) {
        JsonArray ports = Json.arr(spec, "ports");
        if (ports == null) {
            return;
        }
        Set<String> names = new HashSet<>();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            if (!ports.get(i).isJsonObject()) {
                continue;
            }
            JsonObject p = ports.get(i).getAsJsonObject();
            String at = "spec.ports[" + i + "]";
            String name = Json.str(p, "name");
            if (ports.size() > 1 && (name == null || name.isEmpty())) {
                causes.add(ApiError.Cause.required(at + ".name"));
            } else if (name != null && !name.isEmpty()) {
                if (!Validation.isDns1123Label(name)) {
                    causes.add(ApiError.Cause.invalid(at + ".name", Validation.quote(name),
                            Validation.nameProblem(name, Validation.NameRule.DNS1123_LABEL)));
                }
                if (!names.add(name)) {
                    causes.add(ApiError.Cause.duplicate(at + ".name", Validation.quote(name)));
                }
            }
            String protocol = Json.str(p, "protocol");
            if (!List.of("SCTP", "TCP", "UDP").contains(String.valueOf(protocol))) {
                causes.add(ApiError.Cause.notSupported(at + ".protocol", Validation.quote(String.valueOf(protocol)),
                        List.of("SCTP", "TCP", "UDP")));
            }
            if (p.has("targetPort")) {
                PodSpecs.portNumOrName(p.get("targetPort"), at + ".targetPort", causes);
            }
            String appProtocol = Json.str(p, "appProtocol");
            if (appProtocol != null) {
                Validation.qualifiedName(appProtocol, at + ".appProtocol", causes);
            }
        }
        // After every port's own checks, as ValidateService does: duplicate (protocol, port) pairs.
        for (int i = 0; i < ports.size(); i++) {
            JsonObject p = Json.asObject(ports.get(i));
            String protocol = Json.str(p, "protocol");
            JsonElement number = p.get("port");
            if (number != null && number.isJsonPrimitive() && !keys.add(protocol + "/" + number.getAsString())) {
                causes.add(ApiError.Cause.duplicate("spec.ports[" + i + "]", "core.ServicePort{Protocol:"
                        + Validation.quote(protocol) + ", Port:" + number.getAsString() + "}"));
            }
        }
    }

    private void serviceDefaults(JsonObject o, JsonObject old, List<ApiError.Cause> causes) {
        JsonObject spec = Json.child(o, "spec");
        JsonObject oldSpec = old == null ? null : Json.obj(old, "spec");
        putIfAbsent(spec, "type", "ClusterIP");
        String type = Json.str(spec, "type");
        if (!Set.of("ClusterIP", "NodePort", "LoadBalancer", "ExternalName").contains(type)) {
            causes.add(new ApiError.Cause("FieldValueNotSupported", "spec.type", "Unsupported value: "
                    + Json.render(spec.get("type")) + ": supported values: \"ClusterIP\", \"ExternalName\", "
                    + "\"LoadBalancer\", \"NodePort\""));
            return;
        }
        putIfAbsent(spec, "sessionAffinity", "None");
        ServiceSpecs.defaults(spec);
        ServiceSpecs.dropTypeDependentFields(spec, oldSpec);
        ServiceSpecs.typeFields(spec, causes);
        JsonArray ports = Json.arr(spec, "ports");
        if (ports != null) {
            for (int i = 0; i < ports.size(); i++) {
                if (!ports.get(i).isJsonObject()) {
                    continue;
                }
                JsonObject p = ports.get(i).getAsJsonObject();
                putIfAbsent(p, "protocol", "TCP");
                JsonElement port = p.get("port");
                if (port == null || !port.isJsonPrimitive() || !port.getAsJsonPrimitive().isNumber()) {
                    causes.add(ApiError.Cause.required("spec.ports[" + i + "].port"));
                    continue;
                }
                int number = port.getAsInt();
                if (number < 1 || number > 65535) {
                    causes.add(ApiError.Cause.invalid("spec.ports[" + i + "].port", String.valueOf(number),
                            "must be between 1 and 65535, inclusive"));
                }
                JsonElement target = p.get("targetPort");
                // SetDefaults_Service: an unset, 0 or "" target port is the port.
                if (target == null || target.isJsonNull() || target.isJsonPrimitive()
                        && (target.getAsJsonPrimitive().isNumber() ? target.getAsLong() == 0
                        : target.getAsString().isEmpty())) {
                    p.add("targetPort", new JsonPrimitive(number));
                }
            }
        }
        servicePorts(spec, causes);
        if (type.equals("ExternalName")) {
            ServiceSpecs.rest(spec, oldSpec, causes);
            return;
        }
        String oldIp = Json.str(oldSpec, "clusterIP");
        String ip = Json.str(spec, "clusterIP");
        if ((ip == null || ip.isEmpty()) && oldIp != null) {
            spec.addProperty("clusterIP", oldIp);
            spec.add("clusterIPs", oldSpec.has("clusterIPs") ? oldSpec.get("clusterIPs").deepCopy()
                    : Json.array(oldIp));
        } else if (ip != null && oldIp != null && !ip.equals(oldIp)) {
            causes.add(ApiError.Cause.invalid("spec.clusterIPs[0]", Validation.quote(ip), "may not change once set"));
        } else if (ip == null || ip.isEmpty()) {
            String allocated = serviceIps.next();
            spec.addProperty("clusterIP", allocated);
            spec.add("clusterIPs", Json.array(allocated));
        } else {
            if (!spec.has("clusterIPs")) {
                spec.add("clusterIPs", Json.array(ip));
            }
            if (oldIp == null && !"None".equals(ip)) {
                if (ServiceIps.parse(ip) < 0) {
                    causes.add(ApiError.Cause.invalid("spec.clusterIPs[0]", Validation.quote(ip),
                            "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
                } else {
                    String problem = serviceIps.problem(ip, ServiceIps.key(o));
                    if (problem != null) {
                        causes.add(ApiError.Cause.invalid("spec.clusterIPs", "[]string{" + Validation.quote(ip) + "}",
                                "failed to allocate IP " + ip + ": " + problem));
                    }
                }
            }
        }
        if ((ports == null || ports.isEmpty()) && !"None".equals(Json.str(spec, "clusterIP"))) {
            causes.add(ApiError.Cause.required("spec.ports"));
        }
        if (!spec.has("ipFamilies")) {
            spec.add("ipFamilies", Json.array("IPv4"));
        }
        putIfAbsent(spec, "ipFamilyPolicy", "SingleStack");
        putIfAbsent(spec, "internalTrafficPolicy", "Cluster");
        JsonArray externalIps = Json.arr(spec, "externalIPs");
        if (type.equals("NodePort") || type.equals("LoadBalancer")
                || type.equals("ClusterIP") && externalIps != null && !externalIps.isEmpty()) {
            // SetDefaults_Service: every externally reachable Service (ExternallyAccessible) gets Cluster.
            putIfAbsent(spec, "externalTrafficPolicy", "Cluster");
        }
        if (type.equals("NodePort") || type.equals("LoadBalancer")) {
            if (type.equals("LoadBalancer")) {
                putIfAbsent(spec, "allocateLoadBalancerNodePorts", true);
            }
        }
        nodePorts(o, oldSpec, causes);
        ServiceSpecs.rest(spec, oldSpec, causes);
    }

    /**
     * A Service's node ports ({@code pkg/registry/core/service/storage/storage.go} and {@code alloc.go}): on an
     * update, unset ones of a Service that keeps them are taken from the stored one ({@code patchAllocatedValues};
     * those of a type without node ports were cleared by {@link ServiceSpecs#dropTypeDependentFields}); then
     * {@code ValidateService}'s checks (none with {@code type: ClusterIP}, no two alike per protocol), and the
     * allocation: each requested port in range and free, the others drawn, one node
     * port per service port number ({@code initNodePorts}, {@code updateNodePorts}), none for a LoadBalancer with
     * {@code allocateLoadBalancerNodePorts: false} but those it asks for; a LoadBalancer with
     * {@code externalTrafficPolicy: Local} also gets a {@code healthCheckNodePort} ({@code allocHealthCheckNodePort}).
     */
    private void nodePorts(JsonObject o, JsonObject oldSpec, List<ApiError.Cause> causes) {
        JsonObject spec = Json.obj(o, "spec");
        JsonArray ports = Json.arr(spec, "ports");
        if (ports == null) {
            return;
        }
        List<JsonObject> list = new ArrayList<>();
        ports.forEach(p -> list.add(p.isJsonObject() ? p.getAsJsonObject() : new JsonObject()));
        if (oldSpec != null && ServiceSpecs.needsNodePorts(oldSpec) && ServiceSpecs.needsNodePorts(spec)) {
            for (JsonObject port : list) {
                if (NodePorts.of(port) == 0) {
                    Integer previous = previousNodePort(oldSpec, port);
                    if (previous != null) {
                        port.addProperty("nodePort", previous);
                    }
                }
            }
        }
        String type = Json.str(spec, "type");
        for (int i = 0; "ClusterIP".equals(type) && i < list.size(); i++) {
            if (NodePorts.of(list.get(i)) != 0) {
                causes.add(ApiError.Cause.forbidden("spec.ports[" + i + "].nodePort",
                        "may not be used when `type` is 'ClusterIP'"));
            }
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            int n = NodePorts.of(list.get(i));
            if (n != 0 && !seen.add(Json.str(list.get(i), "protocol") + "/" + n)) {
                causes.add(ApiError.Cause.duplicate("spec.ports[" + i + "].nodePort", String.valueOf(n)));
            }
        }
        if (!causes.isEmpty() || "ExternalName".equals(type)) {
            return;
        }
        boolean allocate = "NodePort".equals(type) || "LoadBalancer".equals(type)
                && (!spec.has("allocateLoadBalancerNodePorts") || Json.bool(spec, "allocateLoadBalancerNodePorts"));
        String owner = ServiceIps.key(o);
        List<Integer> before = oldSpec == null ? List.of() : NodePorts.ofPorts(oldSpec);
        List<Integer> taken = new ArrayList<>();
        Map<Integer, Integer> byPort = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            JsonObject port = list.get(i);
            int n = NodePorts.of(port);
            if (n == 0 && !allocate) {
                continue;
            }
            JsonElement number = port.get("port");
            int servicePort = number != null && number.isJsonPrimitive() ? number.getAsInt() : 0;
            Integer shared = oldSpec == null ? byPort.get(servicePort) : null;
            if (n == 0 && shared == null && oldSpec == null) {
                // initNodePorts: a port later in the list with the same number may ask for one.
                for (JsonObject other : list) {
                    JsonElement otherNumber = other.get("port");
                    if (otherNumber != null && otherNumber.isJsonPrimitive() && otherNumber.getAsInt() == servicePort
                            && NodePorts.of(other) != 0) {
                        n = NodePorts.of(other);
                        break;
                    }
                }
            }
            if (n == 0 && shared != null) {
                n = shared;
            } else if (n != 0 && !before.contains(n) && !taken.contains(n)) {
                String problem = nodePorts.problem(n, owner);
                if (problem != null) {
                    causes.add(ApiError.Cause.invalid("spec.ports[" + i + "].nodePort", String.valueOf(n), problem));
                    return;
                }
                taken.add(n);
            } else if (n == 0) {
                n = nodePorts.next(taken);
                taken.add(n);
            }
            port.addProperty("nodePort", n);
            byPort.putIfAbsent(servicePort, n);
        }
        boolean local = ServiceSpecs.needsHealthCheck(spec);
        JsonElement health = spec.get("healthCheckNodePort");
        int requested = health != null && health.isJsonPrimitive() ? health.getAsInt() : 0;
        if (local && requested == 0) {
            JsonElement previous = oldSpec == null ? null : oldSpec.get("healthCheckNodePort");
            spec.addProperty("healthCheckNodePort", previous != null && previous.isJsonPrimitive()
                    ? previous.getAsInt() : nodePorts.next(taken));
        } else if (local && (oldSpec == null || !Json.same(oldSpec.get("healthCheckNodePort"), health))) {
            String problem = taken.contains(requested) ? "provided port is already allocated"
                    : nodePorts.problem(requested, owner);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid("spec.healthCheckNodePort", String.valueOf(requested), problem));
            }
        }
    }

    private static Integer previousNodePort(JsonObject oldSpec, JsonObject port) {
        JsonArray oldPorts = Json.arr(oldSpec, "ports");
        if (oldPorts == null) {
            return null;
        }
        for (JsonElement p : oldPorts) {
            JsonObject o = p.getAsJsonObject();
            if (Json.same(o.get("port"), port.get("port")) && Json.same(o.get("protocol"), port.get("protocol"))
                    && NodePorts.of(o) != 0) {
                return NodePorts.of(o);
            }
        }
        return null;
    }

    // ---- secrets and config maps ----

    private static void secret(JsonObject o, List<ApiError.Cause> causes) {
        putIfAbsent(o, "type", "Opaque");
        JsonObject stringData = Json.obj(o, "stringData");
        if (stringData != null) {
            JsonObject data = Json.child(o, "data");
            for (Map.Entry<String, JsonElement> e : stringData.entrySet()) {
                data.addProperty(e.getKey(), Base64.getEncoder().encodeToString(
                        e.getValue().getAsString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            o.remove("stringData");
        }
        JsonObject data = Json.obj(o, "data");
        if (data != null) {
            for (Map.Entry<String, JsonElement> e : data.entrySet()) {
                try {
                    Base64.getDecoder().decode(e.getValue().getAsString());
                } catch (IllegalArgumentException | UnsupportedOperationException ex) {
                    throw ApiError.badRequest("Secret in version \"v1\" cannot be handled as a Secret: illegal base64 "
                            + "data in data." + e.getKey());
                }
                checkConfigKey("data", e.getKey(), causes);
            }
            long total = 0;
            for (Map.Entry<String, JsonElement> e : data.entrySet()) {
                total += e.getKey().length() + Base64.getDecoder().decode(e.getValue().getAsString()).length;
            }
            // ValidateSecret: the decoded data, reported on "data".
            if (total > MAX_DATA_SIZE) {
                causes.add(new ApiError.Cause("FieldValueTooLong", "data", "Too long: must have at most "
                        + MAX_DATA_SIZE + " bytes"));
            }
        }
    }

    /** {@code core.MaxSecretSize}: the data a ConfigMap or Secret may hold (1 MiB). */
    static final int MAX_DATA_SIZE = 1024 * 1024;

    private static void configMap(JsonObject o, List<ApiError.Cause> causes) {
        long total = 0;
        for (String field : List.of("data", "binaryData")) {
            JsonObject data = Json.obj(o, field);
            if (data != null) {
                data.keySet().forEach(k -> checkConfigKey(field, k, causes));
                for (Map.Entry<String, JsonElement> e : data.entrySet()) {
                    total += e.getKey().length() + (e.getValue().isJsonPrimitive()
                            ? e.getValue().getAsString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length : 0);
                }
            }
        }
        // ValidateConfigMap: keys and values together, reported on the whole object (field "").
        if (total > MAX_DATA_SIZE) {
            causes.add(new ApiError.Cause("FieldValueTooLong", "", "Too long: must have at most " + MAX_DATA_SIZE
                    + " bytes"));
        }
    }

    private static void checkConfigKey(String field, String key, List<ApiError.Cause> causes) {
        if (key.length() > 253 || !CONFIG_KEY.matcher(key).matches()) {
            causes.add(ApiError.Cause.invalid(field, Validation.quote(key), "a valid config key must consist of "
                    + "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
                    + "regex used for validation is '[-._a-zA-Z0-9]+')"));
        }
    }

    private static void immutableData(JsonObject old, JsonObject o, List<String> fields, List<ApiError.Cause> causes) {
        if (!Json.bool(old, "immutable")) {
            return;
        }
        for (String field : fields) {
            if (!Json.same(old.get(field), o.get(field))) {
                causes.add(ApiError.Cause.forbidden(field, "field is immutable when `immutable` is set"));
            }
        }
        if (!Json.bool(o, "immutable")) {
            causes.add(ApiError.Cause.forbidden("immutable", "field is immutable when `immutable` is set"));
        }
    }

    // ---- workloads ----

    private static void workloadDefaults(String plural, JsonObject spec) {
        if (!plural.equals("daemonsets")) {
            putIfAbsent(spec, "replicas", 1);
        }
        if (!plural.equals("replicasets")) {
            putIfAbsent(spec, "revisionHistoryLimit", 10);
        }
        // The template is a struct, not a pointer: a workload without one has an empty, defaulted pod template.
        podSpecDefaults(Json.child(Json.child(spec, "template"), "spec"));
        switch (plural) {
            case "deployments" -> {
                putIfAbsent(spec, "progressDeadlineSeconds", 600);
                JsonObject strategy = Json.child(spec, "strategy");
                putIfAbsent(strategy, "type", "RollingUpdate");
                if ("RollingUpdate".equals(Json.str(strategy, "type"))) {
                    JsonObject rolling = Json.child(strategy, "rollingUpdate");
                    putIfAbsent(rolling, "maxUnavailable", "25%");
                    putIfAbsent(rolling, "maxSurge", "25%");
                }
            }
            case "statefulsets" -> {
                putIfAbsent(spec, "podManagementPolicy", "OrderedReady");
                // SetDefaults_StatefulSet: rollingUpdate is made only with a defaulted type; an explicit
                // RollingUpdate without it keeps none, and its partition is defaulted only where it exists.
                JsonObject strategy = Json.child(spec, "updateStrategy");
                String type = Json.str(strategy, "type");
                if (type == null || type.isEmpty()) {
                    strategy.addProperty("type", "RollingUpdate");
                    Json.child(strategy, "rollingUpdate");
                }
                JsonObject rolling = Json.obj(strategy, "rollingUpdate");
                if ("RollingUpdate".equals(Json.str(strategy, "type")) && rolling != null) {
                    putIfAbsent(rolling, "partition", 0);
                }
                JsonObject retention = Json.child(spec, "persistentVolumeClaimRetentionPolicy");
                putIfAbsent(retention, "whenDeleted", "Retain");
                putIfAbsent(retention, "whenScaled", "Retain");
            }
            case "daemonsets" -> {
                JsonObject strategy = Json.child(spec, "updateStrategy");
                putIfAbsent(strategy, "type", "RollingUpdate");
                if ("RollingUpdate".equals(Json.str(strategy, "type"))) {
                    JsonObject rolling = Json.child(strategy, "rollingUpdate");
                    putIfAbsent(rolling, "maxUnavailable", 1);
                    putIfAbsent(rolling, "maxSurge", 0);
                }
            }
            default -> {
            }
        }
    }

    /**
     * {@code ValidateLeaseSpec} ({@code pkg/apis/coordination/validation/validation.go}): a positive duration,
     * transitions not negative, a strategy Kubernetes defines or a qualified one (reported at
     * {@code spec.strategy.strategy}, as upstream nests the path), a preferred holder only with a strategy.
     */
    private static void leaseSpec(JsonObject spec, List<ApiError.Cause> causes) {
        if (spec == null) {
            return;
        }
        JsonElement duration = spec.get("leaseDurationSeconds");
        if (duration != null && duration.isJsonPrimitive() && duration.getAsLong() <= 0) {
            causes.add(ApiError.Cause.invalid("spec.leaseDurationSeconds", duration.getAsString(),
                    "must be greater than 0"));
        }
        JsonElement transitions = spec.get("leaseTransitions");
        if (transitions != null && transitions.isJsonPrimitive() && transitions.getAsLong() < 0) {
            causes.add(ApiError.Cause.invalid("spec.leaseTransitions", transitions.getAsString(),
                    "must be greater than or equal to 0"));
        }
        String strategy = Json.str(spec, "strategy");
        if (strategy != null) {
            if (!strategy.contains("/")) {
                if (!strategy.equals("OldestEmulationVersion")) {
                    causes.add(ApiError.Cause.notSupported("spec.strategy.strategy", Validation.quote(strategy),
                            List.of("OldestEmulationVersion")));
                }
            } else {
                Validation.qualifiedName(strategy, "spec.strategy.strategy", causes);
            }
        }
        String preferred = Json.str(spec, "preferredHolder");
        if (preferred != null && !preferred.isEmpty() && (strategy == null || strategy.isEmpty())) {
            causes.add(ApiError.Cause.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
        }
    }

    /** Evaluates a {@code metav1.LabelSelector} against labels. */
    static boolean selects(JsonObject selector, JsonObject labels) {
        JsonObject matchLabels = Json.obj(selector, "matchLabels");
        if (matchLabels != null) {
            for (Map.Entry<String, JsonElement> e : matchLabels.entrySet()) {
                if (!e.getValue().getAsString().equals(Json.str(labels, e.getKey()))) {
                    return false;
                }
            }
        }
        JsonArray expressions = Json.arr(selector, "matchExpressions");
        if (expressions != null) {
            for (JsonElement x : expressions) {
                JsonObject expr = x.getAsJsonObject();
                String value = Json.str(labels, Json.str(expr, "key"));
                List<String> values = new ArrayList<>();
                JsonArray vs = Json.arr(expr, "values");
                if (vs != null) {
                    vs.forEach(v -> values.add(v.getAsString()));
                }
                boolean ok = switch (String.valueOf(Json.str(expr, "operator"))) {
                    case "In" -> value != null && values.contains(value);
                    case "NotIn" -> value == null || !values.contains(value);
                    case "Exists" -> value != null;
                    case "DoesNotExist" -> value == null;
                    default -> false;
                };
                if (!ok) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void statefulSetUpdate(JsonObject oldSpec, JsonObject spec, List<ApiError.Cause> causes) {
        JsonObject a = oldSpec.deepCopy();
        JsonObject b = spec.deepCopy();
        for (JsonObject s : List.of(a, b)) {
            for (String field : List.of("replicas", "ordinals", "template", "updateStrategy",
                    "persistentVolumeClaimRetentionPolicy", "minReadySeconds")) {
                s.remove(field);
            }
        }
        if (!Json.same(a, b)) {
            causes.add(ApiError.Cause.forbidden("spec", "updates to statefulset spec for fields other than "
                    + "'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' "
                    + "and 'minReadySeconds' are forbidden"));
        }
    }

    /** Sets a default where the field is unset; as in Go defaulting, an empty string counts as unset. */
    private static void putIfAbsent(JsonObject o, String key, Object value) {
        JsonElement current = o.get(key);
        if (current == null || current.isJsonNull()
                || current.isJsonPrimitive() && current.getAsJsonPrimitive().isString() && current.getAsString().isEmpty()) {
            o.add(key, Json.toElement(value));
        }
    }
}
