package io.tenantplane.transform;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.json.Json;
import io.tenantplane.model.FieldPath;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns one tenant object into the host object that represents it. Pure and thread-safe; the input is never
 * modified, and every field the transform does not know survives unchanged.
 *
 * <p>For every kind: labels and annotation keys the host would refuse are an {@code InvalidSource} rejection naming
 * the key; a deep copy; host name and namespace; tenant-supplied {@code tenantplane.io/*} labels and
 * annotations stripped, then the full reverse-mapping metadata added (see {@link ReverseMapping}); host-owned fields
 * stripped ({@code uid}, {@code resourceVersion}, {@code generation}, {@code creationTimestamp},
 * {@code deletionTimestamp}, {@code deletionGracePeriodSeconds}, {@code managedFields}, {@code selfLink},
 * {@code ownerReferences}, {@code finalizers}, {@code generateName}, {@code status}). Per kind:
 * <ul>
 *   <li>Pod: the Pod Security level is checked; references to ConfigMaps, Secrets, PVCs and ServiceAccounts are
 *       rewritten to host names (volumes, projected sources, {@code envFrom}, {@code env[].valueFrom},
 *       {@code imagePullSecrets}); a reference to a kind the SyncPolicy does not sync makes the pod a skip. Without
 *       synced ServiceAccounts the pod runs as the host ServiceAccount of the options with no token: the tenant
 *       API's {@code kube-api-access-*} volume and any {@code serviceAccountToken} projection are removed, so a tenant
 *       pod never holds a host credential. Downward-API fields {@code metadata.name/namespace/uid} read the source
 *       annotations, so the pod still sees its tenant identity. {@code enableServiceLinks} is turned off (the host
 *       namespace's Service variables would leak other tenants' Services); {@code nodeName} is dropped (the host
 *       scheduler places the copy, within the options' placement); {@code priority}, {@code preemptionPolicy} and {@code overhead} are left to host admission;
 *       the options' node selector and tolerations are added. With a known tenant API
 *       ({@link TransformOptions.TenantApi}) the pod gets a tenant token, the {@code KUBERNETES_*} variables and
 *       host aliases for {@code kubernetes.default}; with a known tenant DNS, a pod that would use cluster DNS gets
 *       {@code dnsPolicy: None} and a {@code dnsConfig} naming the tenant's DNS and search path.</li>
 *   <li>Service: type checked against the allowed types; {@code externalIPs} refused; the tenant's ClusterIP and,
 *       for a NodePort or LoadBalancer Service, its {@code ports[].nodePort} requested on the host (so that both
 *       sides share them; an unset ClusterIP is left to the host), {@code healthCheckNodePort} dropped; a non-empty
 *       selector gets the tenant and virtual-namespace labels.</li>
 *   <li>Ingress: backend Service names and TLS Secret names rewritten.</li>
 *   <li>Endpoints / EndpointSlice: {@code targetRef}s and the {@code kubernetes.io/service-name} label rewritten; a
 *       {@code targetRef} to another namespace refused; every IP address must be one of the tenant's own host pods'
 *       or inside a CIDR the options allow ({@link TransformOptions.EndpointAddresses}), otherwise the object is an
 *       {@code EndpointAddressNotAllowed} rejection naming the address.</li>
 *   <li>NetworkPolicy / PodDisruptionBudget: selectors scoped to the tenant and virtual namespace.</li>
 *   <li>ServiceAccount: token {@code secrets} dropped, {@code imagePullSecrets} rewritten.</li>
 *   <li>PersistentVolumeClaim: {@code volumeName} dropped unless PersistentVolumes are synced, data sources rewritten,
 *       binder annotations dropped.</li>
 *   <li>Secret: {@code stringData} is folded into {@code data} as the API server does;
 *       {@code kubernetes.io/service-account-token} Secrets stay in the tenant.</li>
 * </ul>
 */
public final class Transformer {

    private static final Set<String> NAMESPACED = Set.of("Pod", "Service", "ConfigMap", "Secret",
            "PersistentVolumeClaim", "ServiceAccount", "Ingress", "Endpoints", "EndpointSlice", "NetworkPolicy",
            "PodDisruptionBudget", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "Role",
            "RoleBinding", "Lease", "Event", "LimitRange", "ResourceQuota", "HorizontalPodAutoscaler");
    private static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "Node", "PersistentVolume", "StorageClass",
            "IngressClass", "PriorityClass", "RuntimeClass", "ClusterRole", "ClusterRoleBinding",
            "CustomResourceDefinition", "CSIDriver", "CSINode", "VolumeAttachment", "APIService");
    private static final Set<String> HOST_OWNED_METADATA = Set.of("uid", "resourceVersion", "generation",
            "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink",
            "ownerReferences", "finalizers", "generateName");
    private static final List<String> CONTAINER_LISTS = List.of("containers", "initContainers", "ephemeralContainers");
    private static final List<String> PVC_BINDER_ANNOTATION_PREFIXES = List.of("pv.kubernetes.io/",
            "volume.kubernetes.io/", "volume.beta.kubernetes.io/");
    private static final Set<String> TENANT_CONTROLLER_SLICE_MANAGERS = Set.of("endpointslice-controller.k8s.io",
            "endpointslicemirroring-controller.k8s.io");
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    /** The tenant's cluster domain (k3s's default {@code --cluster-domain}). */
    public static final String CLUSTER_DOMAIN = "cluster.local";
    static final String SLICE_MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";

    private final String tenant;
    private final String hostNamespace;
    private final SyncRules rules;
    private final TransformOptions options;
    /** The SyncPolicy's field paths, parsed once per transformer rather than once per object. */
    private final java.util.Map<String, FieldPath> paths = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param tenant        the tenant's name (a DNS-1123 label)
     * @param hostNamespace the host namespace namespaced objects land in
     * @param policy        what is synced; references to kinds it does not sync are skips
     * @param options       what the isolation profile asks of pods and Services
     * @throws IllegalArgumentException naming the argument when the tenant or host namespace is not a DNS-1123 label
     */
    public Transformer(String tenant, String hostNamespace, SyncPolicy policy, TransformOptions options) {
        if (!HostNames.isDns1123Label(tenant)) {
            throw new IllegalArgumentException("tenant '" + tenant + "' is not a DNS-1123 label");
        }
        if (!HostNames.isDns1123Label(hostNamespace)) {
            throw new IllegalArgumentException("hostNamespace '" + hostNamespace + "' is not a DNS-1123 label");
        }
        this.tenant = tenant;
        this.hostNamespace = hostNamespace;
        this.rules = SyncRules.of(policy);
        this.options = Objects.requireNonNull(options, "options");
    }

    /** The sync rules this transformer checks references against. */
    public SyncRules rules() {
        return rules;
    }

    /**
     * The identity of a tenant object, or null when it is too malformed to have one ({@link #transform} then says why).
     * Known cluster-scoped kinds (and unknown kinds without {@code metadata.namespace}) get a null virtual namespace.
     */
    public TenantObjectRef identify(JsonObject tenantObject) {
        Identity id = identity(tenantObject);
        return id.rejected() == null ? id.source() : null;
    }

    /** True when objects of {@code kind} live in a namespace (known kinds by table, others by the object itself). */
    static boolean namespaced(String kind, boolean hasNamespace) {
        if (NAMESPACED.contains(kind)) {
            return true;
        }
        if (CLUSTER_SCOPED.contains(kind)) {
            return false;
        }
        return hasNamespace;
    }

    /**
     * The host object for {@code tenantObject}, or why there is none.
     *
     * @param tenantObject a Kubernetes object as read from the tenant API (any kind); not modified
     */
    public TransformResult transform(JsonObject tenantObject) {
        Identity id = identity(tenantObject);
        if (id.rejected() != null) {
            return id.rejected();
        }
        return transform(tenantObject, id.source(), id.hostName());
    }

    /**
     * {@link #transform(JsonObject)} for an object the caller has identified already, which saves identifying and
     * naming it again (a planner does both for every object before it transforms any).
     *
     * @param tenantObject a Kubernetes object as read from the tenant API (any kind); not modified
     * @param source       {@code identify(tenantObject)}, not null
     * @param hostName     {@code source.hostName()}
     */
    public TransformResult transform(JsonObject tenantObject, TenantObjectRef source, String hostName) {
        TenantObjectRef src = Objects.requireNonNull(source, "source");
        Work w = new Work(src, copyWithoutHostOwnedFields(tenantObject), Objects.requireNonNull(hostName, "hostName"));
        TransformResult early = tenantOnly(w);
        if (early != null) {
            return early;
        }
        TransformResult refused = metadataTheHostRefuses(w);
        if (refused != null) {
            return refused;
        }
        JsonObject meta = Json.child(w.host, "metadata");
        meta.addProperty("name", w.hostName);
        if (src.virtualNamespace() != null) {
            meta.addProperty("namespace", hostNamespace);
        } else {
            meta.remove("namespace");
        }
        TransformResult problem = switch (src.kind()) {
            case "Pod" -> pod(w);
            case "Service" -> service(w);
            case "Ingress" -> ingress(w);
            case "Endpoints" -> endpoints(w);
            case "EndpointSlice" -> endpointSlice(w);
            case "NetworkPolicy" -> networkPolicy(w);
            case "PodDisruptionBudget" -> podDisruptionBudget(w);
            case "ServiceAccount" -> serviceAccount(w);
            case "PersistentVolumeClaim" -> persistentVolumeClaim(w);
            case "Secret" -> secret(w);
            default -> custom(w);
        };
        if (problem != null) {
            return problem;
        }
        if (!w.invalid.isEmpty()) {
            Ref first = w.invalid.get(0);
            return new TransformResult.Rejected(src, TransformResult.INVALID_SOURCE, first.path(),
                    first.path() + ": '" + first.name() + "' is not a valid " + first.kind() + " name");
        }
        if (!w.unsynced.isEmpty()) {
            return unsyncedSkip(w);
        }
        if (w.waiting != null) {
            return w.waiting;
        }
        TransformResult patched = patch(w);
        if (patched != null) {
            return patched;
        }
        addReverseMapping(w);
        Json.child(w.host, "metadata", "annotations").addProperty(ReverseMapping.SOURCE_HASH, Canonical.sourceHash(w.host));
        return new TransformResult.Transformed(src, w.host, w.notes);
    }

    /**
     * A deep copy of a tenant object without the fields the host owns ({@code status} and
     * {@link #HOST_OWNED_METADATA}): the same as copying everything and removing them, in the same key order, without
     * copying what is dropped anyway (managedFields and a pod's status are often most of an object).
     */
    private static JsonObject copyWithoutHostOwnedFields(JsonObject tenantObject) {
        JsonObject copy = new JsonObject();
        for (var e : tenantObject.entrySet()) {
            String key = e.getKey();
            JsonElement value = e.getValue();
            if (key.equals("status")) {
                continue;
            }
            if (key.equals("metadata") && value instanceof JsonObject meta) {
                JsonObject metaCopy = new JsonObject();
                for (var m : meta.entrySet()) {
                    if (!HOST_OWNED_METADATA.contains(m.getKey())) {
                        metaCopy.add(m.getKey(), Json.copy(m.getValue()));
                    }
                }
                copy.add(key, metaCopy);
            } else {
                copy.add(key, Json.copy(value));
            }
        }
        return copy;
    }

    private TransformResult unsyncedSkip(Work w) {
        Ref first = w.unsynced.get(0);
        String kinds = w.unsynced.stream().map(Ref::kind).distinct().sorted().collect(Collectors.joining(", "));
        String more = w.unsynced.size() == 1 ? "" : " (and " + (w.unsynced.size() - 1) + " more reference"
                + (w.unsynced.size() == 2 ? "" : "s") + ")";
        return new TransformResult.Skipped(w.src, TransformResult.REFERENCES_UNSYNCED_KIND, first.path(),
                first.path() + " refers to " + first.kind() + " '" + first.name() + "', but the SyncPolicy does not sync "
                        + kinds + " from namespace " + w.src.virtualNamespace() + " to the host" + more
                        + "; the " + w.src.kind() + " would not work there, so it stays in the tenant");
    }

    /** Either a valid identity (source and host name) or why there is none. */
    private record Identity(TenantObjectRef source, String hostName, TransformResult.Rejected rejected) {
        static Identity rejected(TransformResult.Rejected r) {
            return new Identity(null, null, r);
        }
    }

    private Identity identity(JsonObject o) {
        String kind = o == null ? null : Json.string(o, "kind");
        if (kind == null || kind.isEmpty()) {
            return Identity.rejected(new TransformResult.Rejected(null, TransformResult.INVALID_SOURCE, "kind", "the object has no kind"));
        }
        String name = Json.string(o, "metadata", "name");
        if (name == null || name.isEmpty()) {
            return Identity.rejected(new TransformResult.Rejected(null, TransformResult.INVALID_SOURCE, "metadata.name",
                    "the " + kind + " has no metadata.name"));
        }
        String ns = Json.string(o, "metadata", "namespace");
        boolean namespaced = namespaced(kind, ns != null && !ns.isEmpty());
        if (namespaced && (ns == null || ns.isEmpty())) {
            return Identity.rejected(new TransformResult.Rejected(null, TransformResult.INVALID_SOURCE, "metadata.namespace",
                    kind + " " + name + " has no metadata.namespace"));
        }
        String vns = namespaced ? ns : null;
        TenantObjectRef src = new TenantObjectRef(tenant, kind, vns, name, Json.string(o, "metadata", "uid"));
        try {
            return new Identity(src, src.hostName(), null);
        } catch (IllegalArgumentException e) {
            String field = e.getMessage().startsWith("virtualNamespace") ? "metadata.namespace" : "metadata.name";
            return Identity.rejected(new TransformResult.Rejected(null, TransformResult.INVALID_SOURCE, field,
                    field + ": " + e.getMessage().substring(e.getMessage().indexOf(' ') + 1)));
        }
    }

    /**
     * True for the tenant API server's own {@code kubernetes} Service (and its Endpoints) in {@code default}: they
     * belong to the tenant's API server and stay in the tenant ({@code TenantOnly}).
     */
    public static boolean isTenantApiService(String virtualNamespace, String name) {
        return "default".equals(virtualNamespace) && "kubernetes".equals(name);
    }

    private TransformResult tenantOnly(Work w) {
        String kind = w.src.kind();
        boolean apiService = isTenantApiService(w.src.virtualNamespace(), w.src.name())
                && (kind.equals("Service") || kind.equals("Endpoints"));
        boolean apiSlice = kind.equals("EndpointSlice") && "default".equals(w.src.virtualNamespace())
                && "kubernetes".equals(Json.labels(w.host).get(SERVICE_NAME_LABEL));
        if (apiService || apiSlice) {
            return new TransformResult.Skipped(w.src, TransformResult.TENANT_ONLY, "metadata.name",
                    kind + " default/" + w.src.name() + " belongs to the tenant's own API server and stays in the tenant");
        }
        if (kind.equals("Secret") && "kubernetes.io/service-account-token".equals(Json.string(w.host, "type"))) {
            return new TransformResult.Skipped(w.src, TransformResult.TENANT_ONLY, "type",
                    "Secrets of type kubernetes.io/service-account-token stay in the tenant: on the host they would be "
                            + "filled with a host credential");
        }
        return null;
    }

    /**
     * A label or annotation key, or a label value, that the host API server would refuse (the tenant API refuses them
     * too, but objects also come from files): the plan names it instead of a write that fails. Reserved
     * {@code tenantplane.io/*} keys are left out; they are stripped anyway.
     */
    private static TransformResult metadataTheHostRefuses(Work w) {
        for (String field : List.of("labels", "annotations")) {
            JsonObject m = Json.object(w.host, "metadata", field);
            if (m == null) {
                continue;
            }
            String what = field.equals("labels") ? "label" : "annotation";
            for (var e : m.entrySet()) {
                String key = e.getKey();
                if (ReverseMapping.isReserved(key)) {
                    continue;
                }
                if (!isQualifiedName(key)) {
                    String path = "metadata." + field + "[" + printable(key) + "]";
                    return new TransformResult.Rejected(w.src, TransformResult.INVALID_SOURCE, path, path + ": '"
                            + printable(key) + "' is not a valid " + what + " key: use an optional DNS subdomain "
                            + "prefix and '/', then at most 63 ASCII letters, digits, '-', '_' and '.', starting and "
                            + "ending with a letter or digit");
                }
                JsonElement v = e.getValue();
                boolean text = v.isJsonPrimitive() && v.getAsJsonPrimitive().isString();
                if (field.equals("labels") && !(text && isLabelValue(v.getAsString()))) {
                    String path = "metadata." + field + "[" + printable(key) + "]";
                    String shown = text ? v.getAsString() : v.toString();
                    return new TransformResult.Rejected(w.src, TransformResult.INVALID_SOURCE, path, path + ": '"
                            + printable(shown) + "' is not a valid label value: use at most 63 ASCII letters, "
                            + "digits, '-', '_' and '.', starting and ending with a letter or digit");
                }
            }
        }
        return null;
    }

    static boolean isQualifiedName(String key) {
        int slash = key.indexOf('/');
        String name = slash < 0 ? key : key.substring(slash + 1);
        if (slash >= 0 && !HostNames.isDns1123Subdomain(key.substring(0, slash))) {
            return false;
        }
        return name.length() <= 63 && isQualifiedNamePart(name);
    }

    /** {@code [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?}, as a char loop (it runs for every label and annotation). */
    private static boolean isQualifiedNamePart(String s) {
        int n = s.length();
        if (n == 0 || !isAsciiAlnum(s.charAt(0)) || !isAsciiAlnum(s.charAt(n - 1))) {
            return false;
        }
        for (int i = 1; i < n - 1; i++) {
            char c = s.charAt(i);
            if (!(isAsciiAlnum(c) || c == '-' || c == '_' || c == '.')) {
                return false;
            }
        }
        return true;
    }

    /** A label value: empty, or at most 63 characters of the qualified name part's alphabet and shape. */
    static boolean isLabelValue(String s) {
        return s.isEmpty() || (s.length() <= 63 && isQualifiedNamePart(s));
    }

    private static boolean isAsciiAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** {@code s} with control and other invisible characters written as Java escapes, so messages stay readable. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            int type = Character.getType(cp);
            if (type == Character.CONTROL || type == Character.FORMAT || type == Character.UNASSIGNED) {
                b.append(String.format("\\u%04X", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.toString();
    }

    private void addReverseMapping(Work w) {
        JsonObject meta = Json.child(w.host, "metadata");
        for (String key : List.of("labels", "annotations")) {
            JsonObject m = Json.child(meta, key);
            m.keySet().removeIf(ReverseMapping::isReserved);
        }
        JsonObject labels = Json.child(meta, "labels");
        ReverseMapping.labels(w.src).forEach(labels::addProperty);
        JsonObject ann = Json.child(meta, "annotations");
        ReverseMapping.annotations(w.src, null).forEach(ann::addProperty);
    }

    // ---------------------------------------------------------------- Pod

    private TransformResult pod(Work w) {
        List<PodSecurity.Violation> violations = PodSecurity.check(w.host, options.podSecurity());
        if (!violations.isEmpty()) {
            PodSecurity.Violation v = violations.get(0);
            String more = violations.size() == 1 ? "" : " (and " + (violations.size() - 1) + " more: "
                    + violations.stream().skip(1).map(PodSecurity.Violation::fieldPath).collect(Collectors.joining(", ")) + ")";
            return new TransformResult.Rejected(w.src, TransformResult.POD_SECURITY_VIOLATION, v.fieldPath(),
                    v.fieldPath() + ": " + v.message() + more);
        }
        List<PodSecurity.Violation> over = ContainerLimitCheck.check(w.host, options.containerLimits());
        if (!over.isEmpty()) {
            PodSecurity.Violation v = over.get(0);
            return new TransformResult.Rejected(w.src, TransformResult.CONTAINER_LIMITS_EXCEEDED, v.fieldPath(),
                    v.fieldPath() + ": " + v.message());
        }
        List<PodSecurity.Violation> lacking = ContainerLimitCheck.required(w.host, options.containerLimits());
        if (!lacking.isEmpty()) {
            PodSecurity.Violation v = lacking.get(0);
            return new TransformResult.Rejected(w.src, TransformResult.RESOURCES_REQUIRED, v.fieldPath(),
                    v.fieldPath() + ": " + v.message());
        }
        JsonObject spec = Json.child(w.host, "spec");
        TransformResult classes = podClasses(w, spec);
        if (classes != null) {
            return classes;
        }
        boolean syncSa = rules.syncsToHost("ServiceAccount", w.src.virtualNamespace());
        if (!syncSa && options.tenantApi() != null && options.tenantApi().addressPending()) {
            w.waiting = new TransformResult.Skipped(w.src, TransformResult.TENANT_API_PENDING,
                    "spec.serviceAccountName", "it runs as tenant ServiceAccount " + w.src.virtualNamespace() + "/"
                            + tenantServiceAccount(spec) + ", and tenant " + tenant + "'s API Service "
                            + options.tenantApi().host() + " has no IP on the host yet; a Pod's API address, token "
                            + "and host aliases cannot change once it runs, so it waits rather than start with the "
                            + "host API's address");
        } else if (options.tenantApi() != null && options.tenantApi().dnsPending() && usesClusterDns(spec)) {
            w.waiting = new TransformResult.Skipped(w.src, TransformResult.TENANT_DNS_PENDING, "spec.dnsPolicy",
                    "it resolves names through the cluster DNS, and tenant " + tenant + "'s DNS Service has no IP on "
                            + "the host yet; a Pod's DNS settings cannot change once it runs, so it waits rather "
                            + "than start with the host's DNS");
        }
        Set<String> removedVolumes = new HashSet<>();
        JsonArray volumes = Json.array(spec, "volumes");
        if (volumes != null) {
            JsonArray kept = new JsonArray();
            for (int i = 0; i < volumes.size(); i++) {
                JsonElement ve = volumes.get(i);
                if (!ve.isJsonObject()) {
                    kept.add(ve);
                    continue;
                }
                JsonObject v = ve.getAsJsonObject();
                String vname = Json.string(v, "name");
                if (!syncSa && isTenantTokenVolume(v) && options.tenantApi() == null) {
                    removedVolumes.add(vname);
                    w.notes.add("removed volume " + vname + " (the tenant API's service account token): tenant pods get "
                            + "no token on the host");
                    continue;
                }
                if (!syncSa && options.tenantApi() != null && tenantTokenVolume(w, v, spec, "spec.volumes[" + i + "]")) {
                    kept.add(v);
                    continue;
                }
                podVolume(w, v, "spec.volumes[" + i + "]", syncSa);
                kept.add(v);
            }
            spec.add("volumes", kept);
        }
        for (String list : CONTAINER_LISTS) {
            JsonArray cs = Json.array(spec, list);
            for (int i = 0; cs != null && i < cs.size(); i++) {
                if (cs.get(i).isJsonObject()) {
                    container(w, cs.get(i).getAsJsonObject(), "spec." + list + "[" + i + "]", removedVolumes);
                }
            }
        }
        JsonArray pulls = Json.array(spec, "imagePullSecrets");
        for (int i = 0; pulls != null && i < pulls.size(); i++) {
            if (pulls.get(i).isJsonObject()) {
                rewrite(w, pulls.get(i).getAsJsonObject(), "name", "Secret", "spec.imagePullSecrets[" + i + "].name");
            }
        }
        serviceAccount(w, spec, syncSa);
        if (!syncSa && options.tenantApi() != null) {
            tenantApiAddress(w, spec);
        }
        if (options.tenantApi() != null && options.tenantApi().dns() != null) {
            tenantDns(w, spec, options.tenantApi().dns());
        }
        if (!spec.has("hostname") && HostNames.isDns1123Label(w.src.name())) {
            spec.addProperty("hostname", w.src.name());
        }
        String subdomain = Json.string(spec, "subdomain");
        if (subdomain != null && rules.syncsToHost("Service", w.src.virtualNamespace())) {
            spec.addProperty("subdomain", host(w, "Service", subdomain, "spec.subdomain"));
        }
        // The host scheduler places the copy: a node name from the tenant (a node mirror's) would bypass it, and with
        // it a dedicated tenant's node selector and tolerations.
        spec.remove("nodeName");
        spec.remove("priority");
        spec.remove("preemptionPolicy");
        spec.remove("overhead");
        podSelectors(w, spec);
        spec.addProperty("enableServiceLinks", false);
        reservedPlacement(w, spec);
        if (!options.nodeSelector().isEmpty()) {
            JsonObject sel = Json.child(spec, "nodeSelector");
            options.nodeSelector().forEach(sel::addProperty);
        }
        if (!options.tolerations().isEmpty()) {
            JsonArray tol = Json.array(spec, "tolerations");
            if (tol == null) {
                tol = new JsonArray();
                spec.add("tolerations", tol);
            }
            for (JsonObject t : options.tolerations()) {
                if (!tol.contains(t)) {
                    tol.add(t);
                }
            }
        }
        return null;
    }

    /**
     * The taints of the host's control-plane nodes: kubeadm's and Kubernetes' {@code node-role.kubernetes.io/*}, and the
     * {@code CriticalAddonsOnly} that k3s documents for its servers. A tenant's pod never tolerates them on the host.
     */
    static final Set<String> CONTROL_PLANE_TAINTS = Set.of("node-role.kubernetes.io/control-plane",
            "node-role.kubernetes.io/master", "CriticalAddonsOnly");

    /**
     * Drops what a tenant Pod could use to reach nodes the platform keeps from it: a toleration of every taint (an
     * empty key with {@code Exists}, which would let it onto the host's control-plane nodes and every tenant's
     * dedicated nodes), tolerations of the host's {@linkplain #CONTROL_PLANE_TAINTS control-plane taints}, and
     * tolerations and {@code nodeSelector} keys under {@code tenantplane.io/}, the prefix tenantplane reserves for the
     * taints and labels of dedicated nodes. Only the IsolationProfile's {@code spec.nodePlacement}, added after this,
     * may tolerate or select those. Other tolerations and selectors are the tenant's own, as on any cluster.
     */
    private static void reservedPlacement(Work w, JsonObject spec) {
        JsonArray tolerations = Json.array(spec, "tolerations");
        List<String> dropped = new ArrayList<>();
        JsonArray kept = new JsonArray();
        for (int i = 0; tolerations != null && i < tolerations.size(); i++) {
            JsonObject t = tolerations.get(i).isJsonObject() ? tolerations.get(i).getAsJsonObject() : null;
            String key = t == null ? null : Json.string(t, "key");
            if (t != null && (key == null || key.isEmpty()) && "Exists".equals(Json.string(t, "operator"))) {
                dropped.add("spec.tolerations[" + i + "] (every taint)");
            } else if (key != null && (ReverseMapping.isReserved(key) || CONTROL_PLANE_TAINTS.contains(key))) {
                dropped.add("spec.tolerations[" + i + "] (" + key + ")");
            } else {
                kept.add(tolerations.get(i));
            }
        }
        if (tolerations != null && kept.isEmpty()) {
            spec.remove("tolerations");
        } else if (tolerations != null) {
            spec.add("tolerations", kept);
        }
        JsonObject selector = Json.object(spec, "nodeSelector");
        if (selector != null) {
            for (String key : List.copyOf(selector.keySet())) {
                if (ReverseMapping.isReserved(key)) {
                    dropped.add("spec.nodeSelector." + key);
                    selector.remove(key);
                }
            }
            if (selector.isEmpty()) {
                spec.remove("nodeSelector");
            }
        }
        if (!dropped.isEmpty()) {
            w.notes.add("dropped " + String.join(", ", dropped) + ": a tenant pod tolerates neither every taint nor the "
                    + "host's control-plane taints, and only the IsolationProfile's spec.nodePlacement tolerates and "
                    + "selects the tenantplane.io/ taints and labels that keep dedicated nodes to their tenant");
        }
    }

    /**
     * The pod selectors the host's scheduler evaluates: inter-pod (anti-)affinity terms and topology spread
     * constraints. Written for the tenant, they select pods of the tenant's namespaces; on the host, unchanged, they
     * would select every pod of the host namespace (other tenants' and the platform's) or name host namespaces
     * ({@code namespaces: [kube-system]}). Each is restricted to this tenant's pods, in the virtual namespaces the term
     * means: its {@code namespaces}, else this pod's own, and all the tenant's for an empty {@code namespaceSelector};
     * the host term then names no namespace, since every virtual namespace is the one host namespace (as vcluster's
     * {@code translatePodAffinityTerm} and {@code translateTopologySpreadConstraints} do).
     */
    private void podSelectors(Work w, JsonObject spec) {
        int terms = 0;
        int resolved = 0;
        Map<String, String> labels = Json.labels(w.host);
        JsonObject affinity = Json.object(spec, "affinity");
        for (String kind : List.of("podAffinity", "podAntiAffinity")) {
            JsonObject a = Json.object(affinity, kind);
            JsonArray required = Json.array(a, "requiredDuringSchedulingIgnoredDuringExecution");
            for (int i = 0; required != null && i < required.size(); i++) {
                if (required.get(i).isJsonObject()) {
                    resolved += resolveLabelKeys(required.get(i).getAsJsonObject(), labels);
                    terms += affinityTerm(w, required.get(i).getAsJsonObject(), "spec.affinity." + kind
                            + ".requiredDuringSchedulingIgnoredDuringExecution[" + i + "]") ? 1 : 0;
                }
            }
            JsonArray preferred = Json.array(a, "preferredDuringSchedulingIgnoredDuringExecution");
            for (int i = 0; preferred != null && i < preferred.size(); i++) {
                JsonObject term = preferred.get(i).isJsonObject()
                        ? Json.object(preferred.get(i).getAsJsonObject(), "podAffinityTerm") : null;
                if (term != null) {
                    resolved += resolveLabelKeys(term, labels);
                    terms += affinityTerm(w, term, "spec.affinity." + kind
                            + ".preferredDuringSchedulingIgnoredDuringExecution[" + i + "].podAffinityTerm") ? 1 : 0;
                }
            }
        }
        JsonArray spread = Json.array(spec, "topologySpreadConstraints");
        for (int i = 0; spread != null && i < spread.size(); i++) {
            if (spread.get(i).isJsonObject()) {
                resolved += resolveLabelKeys(spread.get(i).getAsJsonObject(), labels);
            }
            JsonObject selector = spread.get(i).isJsonObject()
                    ? Json.object(spread.get(i).getAsJsonObject(), "labelSelector") : null;
            if (selector != null) {
                scopeSelector(w, selector);
                terms++;
            }
        }
        if (resolved > 0) {
            w.notes.add("the matchLabelKeys and mismatchLabelKeys of " + resolved + " pod affinity or topology spread "
                    + "term" + (resolved == 1 ? "" : "s") + " are resolved into their selectors with this pod's labels, "
                    + "as the tenant API server and scheduler resolve them (a host API server would merge them a second "
                    + "time and refuse the pod)");
        }
        if (terms > 0) {
            w.notes.add("its " + terms + " pod affinity and topology spread selector" + (terms == 1 ? "" : "s")
                    + " select only tenant " + tenant + "'s pods (labels " + ReverseMapping.TENANT + " and "
                    + ReverseMapping.VIRTUAL_NAMESPACE + "), not every pod of host namespace " + hostNamespace);
        }
    }

    /**
     * Resolves a pod affinity term's or spread constraint's {@code matchLabelKeys} ({@code key In (value)}) and
     * {@code mismatchLabelKeys} ({@code key NotIn (value)}) into its label selector with the values of the pod's own
     * {@code labels}, skipping a requirement the selector already has, and removes the keys: the tenant API server has
     * merged them into the selector when it stored the pod (pod affinity, {@code mutatePodAffinity}, from 1.31), and a
     * host API server would merge them a second time and refuse the pod ("exists in both matchLabelKeys and
     * labelSelector"); for spread constraints the scheduler resolves them the same way. A key the pod has no label
     * for adds nothing, as upstream. Returns 1 when the term had such keys.
     */
    private static int resolveLabelKeys(JsonObject term, Map<String, String> labels) {
        JsonObject selector = Json.object(term, "labelSelector");
        boolean had = false;
        for (String field : List.of("matchLabelKeys", "mismatchLabelKeys")) {
            JsonArray keys = Json.array(term, field);
            if (!term.has(field)) {
                continue;
            }
            term.remove(field);
            had |= keys != null && !keys.isEmpty();
            for (int i = 0; selector != null && keys != null && i < keys.size(); i++) {
                String key = keys.get(i).isJsonPrimitive() ? keys.get(i).getAsString() : null;
                String value = key == null ? null : labels.get(key);
                if (value == null) {
                    continue;
                }
                JsonObject requirement = new JsonObject();
                requirement.addProperty("key", key);
                requirement.addProperty("operator", field.equals("matchLabelKeys") ? "In" : "NotIn");
                JsonArray values = new JsonArray();
                values.add(value);
                requirement.add("values", values);
                JsonArray exprs = Json.array(selector, "matchExpressions");
                if (exprs == null) {
                    exprs = new JsonArray();
                    selector.add("matchExpressions", exprs);
                }
                if (!exprs.contains(requirement)) {
                    exprs.add(requirement);
                }
            }
        }
        return had ? 1 : 0;
    }

    /** Restricts one pod affinity term; false when it selects no pod (no label selector) and is left as it is. */
    private boolean affinityTerm(Work w, JsonObject term, String path) {
        JsonObject selector = Json.object(term, "labelSelector");
        JsonArray namespaces = Json.array(term, "namespaces");
        JsonObject namespaceSelector = Json.object(term, "namespaceSelector");
        term.remove("namespaces");
        term.remove("namespaceSelector");
        if (selector == null) {
            return false;
        }
        dropReservedRequirements(selector);
        JsonObject matchLabels = Json.child(selector, "matchLabels");
        scopeToTenant(matchLabels);
        boolean everyNamespace = namespaceSelector != null && namespaceSelector.entrySet().stream()
                .allMatch(e -> e.getValue().isJsonNull() || e.getValue().isJsonObject()
                        && e.getValue().getAsJsonObject().isEmpty() || e.getValue().isJsonArray()
                        && e.getValue().getAsJsonArray().isEmpty());
        if (namespaceSelector != null && !everyNamespace) {
            // The tenant's namespaces and their labels are not known here: the term selects in all of them, a superset.
            w.notes.add(path + ".namespaceSelector selects tenant namespaces by their labels, which the host does not "
                    + "have: the term selects pods in all of tenant " + tenant + "'s namespaces");
        } else if (!everyNamespace && namespaces != null && !namespaces.isEmpty()) {
            JsonArray values = new JsonArray();
            namespaces.forEach(values::add);
            JsonArray all = Json.array(selector, "matchExpressions");
            if (all == null) {
                all = new JsonArray();
                selector.add("matchExpressions", all);
            }
            JsonObject in = new JsonObject();
            in.addProperty("key", ReverseMapping.VIRTUAL_NAMESPACE);
            in.addProperty("operator", "In");
            in.add("values", values);
            all.add(in);
        } else if (!everyNamespace) {
            matchLabels.addProperty(ReverseMapping.VIRTUAL_NAMESPACE, w.src.virtualNamespace());
        }
        return true;
    }

    /** The host Secret that holds the tenant token, CA and namespace of a tenant Pod's host copy. */
    public static String tokenSecretName(String hostPodName) {
        return hostPodName + TOKEN_SECRET_SUFFIX;
    }

    /** Suffix of {@link #tokenSecretName}. */
    public static final String TOKEN_SECRET_SUFFIX = "-token";
    /** The key of a token for the tenant API's own audience in a token Secret. */
    public static final String TOKEN_KEY = "token";

    /** The key of a token for {@code audience} ({@code token} for the API's own, null audience). */
    public static String tokenKey(String audience) {
        return audience == null || audience.isEmpty() ? TOKEN_KEY
                : TOKEN_KEY + "-" + HostNames.sha256Hex(audience).substring(0, 10);
    }

    /**
     * A projected volume that carries tenant service-account tokens (the {@code kube-api-access-*} volume the tenant's
     * admission added, or the pod's own projection with other audiences) is served from the pod's token Secret on
     * the host: each {@code serviceAccountToken} source reads the token for its audience, {@code kube-root-ca.crt}
     * reads the tenant API's CA; the downward API's namespace reads the virtual namespace. Returns false when the
     * volume has no token source (it is handled as any other volume then).
     */
    private boolean tenantTokenVolume(Work w, JsonObject v, JsonObject spec, String volumePath) {
        JsonArray sources = Json.array(Json.object(v, "projected"), "sources");
        if (sources == null) {
            return false;
        }
        boolean token = false;
        for (JsonElement s : sources) {
            token |= s.isJsonObject() && s.getAsJsonObject().has("serviceAccountToken");
        }
        if (!token) {
            return false;
        }
        String secret = tokenSecretName(w.hostName);
        String sa = tenantServiceAccount(spec);
        JsonArray kept = new JsonArray();
        List<String> audiences = new ArrayList<>();
        for (int j = 0; j < sources.size(); j++) {
            JsonElement se = sources.get(j);
            if (!se.isJsonObject()) {
                kept.add(se);
                continue;
            }
            JsonObject s = se.getAsJsonObject();
            JsonObject sat = Json.object(s, "serviceAccountToken");
            JsonObject cm = Json.object(s, "configMap");
            if (sat != null) {
                String audience = Json.string(sat, "audience");
                String path = Json.string(sat, "path") == null ? TOKEN_KEY : Json.string(sat, "path");
                audiences.add(audience == null ? "the tenant API" : audience);
                kept.add(secretSource(secret, tokenKey(audience), path));
            } else if (cm != null && "kube-root-ca.crt".equals(Json.string(cm, "name"))) {
                JsonArray items = Json.array(cm, "items");
                String path = "ca.crt";
                if (items != null && !items.isEmpty() && items.get(0).isJsonObject()
                        && Json.string(items.get(0).getAsJsonObject(), "path") != null) {
                    path = Json.string(items.get(0).getAsJsonObject(), "path");
                }
                kept.add(secretSource(secret, "ca.crt", path));
            } else {
                projectedSource(w, s, volumePath + ".projected.sources[" + j + "]");
                kept.add(s);
            }
        }
        Json.child(v, "projected").add("sources", kept);
        TransformOptions.TenantApi api = options.tenantApi();
        w.notes.add("volume " + Json.string(v, "name") + " mounts a tenant token for ServiceAccount "
                + w.src.virtualNamespace() + "/" + sa + " (audience " + String.join(", ", audiences)
                + ") from host Secret " + secret + ", refreshed before 80% of its life; API at " + api.host() + ":"
                + api.port());
        return true;
    }

    private static JsonObject secretSource(String secret, String key, String path) {
        JsonObject item = new JsonObject();
        item.addProperty("key", key);
        item.addProperty("path", path);
        JsonArray items = new JsonArray();
        items.add(item);
        JsonObject ref = new JsonObject();
        ref.addProperty("name", secret);
        ref.add("items", items);
        JsonObject source = new JsonObject();
        source.add("secret", ref);
        return source;
    }

    /** The tenant ServiceAccount a pod runs as ({@code default} when it names none). */
    public static String tenantServiceAccount(JsonObject podSpec) {
        String sa = podSpec == null ? null : Json.string(podSpec, "serviceAccountName");
        if (sa == null || sa.isEmpty()) {
            sa = podSpec == null ? null : Json.string(podSpec, "serviceAccount");
        }
        return sa == null || sa.isEmpty() ? "default" : sa;
    }

    /**
     * The tenant API as a real cluster's kubelet presents the API to a pod: the {@code KUBERNETES_SERVICE_*} and
     * {@code KUBERNETES_PORT*} variables of every container (set explicitly, so they win over the host kubelet's,
     * which name the host API; a container's own value is kept), and {@code hostAliases} that make
     * {@code kubernetes}, {@code kubernetes.default}, {@code kubernetes.default.svc} and
     * {@code kubernetes.default.svc.cluster.local} the tenant API's address.
     */
    private void tenantApiAddress(Work w, JsonObject spec) {
        TransformOptions.TenantApi api = options.tenantApi();
        String port = Integer.toString(api.port());
        String url = "tcp://" + (api.host().contains(":") ? "[" + api.host() + "]" : api.host()) + ":" + port;
        List<String[]> vars = List.of(new String[] {"KUBERNETES_SERVICE_HOST", api.host()},
                new String[] {"KUBERNETES_SERVICE_PORT", port}, new String[] {"KUBERNETES_SERVICE_PORT_HTTPS", port},
                new String[] {"KUBERNETES_PORT", url}, new String[] {"KUBERNETES_PORT_" + port + "_TCP", url},
                new String[] {"KUBERNETES_PORT_" + port + "_TCP_PROTO", "tcp"},
                new String[] {"KUBERNETES_PORT_" + port + "_TCP_PORT", port},
                new String[] {"KUBERNETES_PORT_" + port + "_TCP_ADDR", api.host()});
        for (String list : List.of("initContainers", "containers")) {
            JsonArray cs = Json.array(spec, list);
            for (int i = 0; cs != null && i < cs.size(); i++) {
                if (!cs.get(i).isJsonObject()) {
                    continue;
                }
                JsonObject c = cs.get(i).getAsJsonObject();
                JsonArray env = Json.array(c, "env");
                if (env == null) {
                    env = new JsonArray();
                    c.add("env", env);
                }
                Set<String> named = new HashSet<>();
                env.forEach(e -> {
                    if (e.isJsonObject() && Json.string(e.getAsJsonObject(), "name") != null) {
                        named.add(Json.string(e.getAsJsonObject(), "name"));
                    }
                });
                for (String[] v : vars) {
                    if (!named.contains(v[0])) {
                        JsonObject e = new JsonObject();
                        e.addProperty("name", v[0]);
                        e.addProperty("value", v[1]);
                        env.add(e);
                    }
                }
            }
        }
        String aliases = "";
        if (api.isAddress()) {
            JsonArray hostAliases = Json.array(spec, "hostAliases");
            if (hostAliases == null) {
                hostAliases = new JsonArray();
                spec.add("hostAliases", hostAliases);
            }
            JsonArray names = new JsonArray();
            for (String n : List.of("kubernetes", "kubernetes.default", "kubernetes.default.svc",
                    "kubernetes.default.svc.cluster.local")) {
                names.add(n);
            }
            JsonObject alias = new JsonObject();
            alias.addProperty("ip", api.host());
            alias.add("hostnames", names);
            hostAliases.add(alias);
            aliases = "; kubernetes.default(.svc(.cluster.local)) resolve to it (hostAliases)";
        }
        if (!api.isAddress()) {
            aliases = "; shown by its Service's DNS name: that Service is not on the host yet, and the pass that "
                    + "creates it syncs this Pod with its ClusterIP (also for host aliases) and the tenant DNS";
        }
        w.notes.add("containers reach the tenant API at " + api.host() + ":" + port
                + " (KUBERNETES_SERVICE_HOST/PORT and KUBERNETES_PORT*)" + aliases);
    }

    /** At most this many nameservers in a pod's resolv.conf ({@code MaxDNSNameservers}, kubelet and validation). */
    private static final int MAX_NAMESERVERS = 3;
    /** At most this many search domains ({@code MaxDNSSearchPaths}). */
    private static final int MAX_SEARCHES = 32;

    /**
     * Points a pod that would use cluster DNS at the tenant's DNS, as the kubelet builds a ClusterFirst resolv.conf
     * (kubernetes pkg/kubelet/network/dns/dns.go): {@code ClusterFirst} (the default) on the pod network and
     * {@code ClusterFirstWithHostNet} get {@code dnsPolicy: None} with the tenant DNS first among the nameservers,
     * the search path {@code <vns>.svc.cluster.local svc.cluster.local cluster.local} and {@code ndots:5}, the pod's
     * own {@code dnsConfig} appended (its options win); {@code ClusterFirst} with {@code hostNetwork} falls back to
     * the node's resolver as the kubelet does; {@code Default} and {@code None} are kept.
     */
    /**
     * True when the Pod resolves through the cluster DNS: {@code ClusterFirst} (the default) without host network,
     * or {@code ClusterFirstWithHostNet}.
     */
    private static boolean usesClusterDns(JsonObject spec) {
        String policy = Objects.requireNonNullElse(Json.string(spec, "dnsPolicy"), "ClusterFirst");
        boolean hostNetwork = spec.get("hostNetwork") instanceof JsonPrimitive p && p.isBoolean() && p.getAsBoolean();
        return policy.equals("ClusterFirstWithHostNet") || policy.equals("ClusterFirst") && !hostNetwork;
    }

    private void tenantDns(Work w, JsonObject spec, String dns) {
        String policy = Objects.requireNonNullElse(Json.string(spec, "dnsPolicy"), "ClusterFirst");
        if (!usesClusterDns(spec)) {
            return;
        }
        JsonObject own = Json.object(spec, "dnsConfig");
        List<String> nameservers = new ArrayList<>(List.of(dns));
        String domain = CLUSTER_DOMAIN;
        List<String> searches = new ArrayList<>(List.of(w.src.virtualNamespace() + ".svc." + domain, "svc." + domain,
                domain));
        java.util.LinkedHashMap<String, JsonObject> opts = new java.util.LinkedHashMap<>();
        JsonObject ndots = new JsonObject();
        ndots.addProperty("name", "ndots");
        ndots.addProperty("value", "5");
        opts.put("ndots", ndots);
        if (own != null) {
            appendStrings(Json.array(own, "nameservers"), nameservers);
            appendStrings(Json.array(own, "searches"), searches);
            JsonArray o = Json.array(own, "options");
            for (int i = 0; o != null && i < o.size(); i++) {
                if (o.get(i).isJsonObject() && Json.string(o.get(i).getAsJsonObject(), "name") != null) {
                    opts.put(Json.string(o.get(i).getAsJsonObject(), "name"), o.get(i).getAsJsonObject().deepCopy());
                }
            }
        }
        String omitted = "";
        if (nameservers.size() > MAX_NAMESERVERS) {
            omitted = "; nameservers beyond " + MAX_NAMESERVERS + " omitted as the kubelet omits them: "
                    + String.join(", ", nameservers.subList(MAX_NAMESERVERS, nameservers.size()));
            nameservers = new ArrayList<>(nameservers.subList(0, MAX_NAMESERVERS));
        }
        if (searches.size() > MAX_SEARCHES) {
            omitted += "; search domains beyond " + MAX_SEARCHES + " omitted";
            searches = new ArrayList<>(searches.subList(0, MAX_SEARCHES));
        }
        JsonObject config = new JsonObject();
        config.add("nameservers", Json.gson().toJsonTree(nameservers));
        config.add("searches", Json.gson().toJsonTree(searches));
        JsonArray optArray = new JsonArray();
        opts.values().forEach(optArray::add);
        config.add("options", optArray);
        spec.addProperty("dnsPolicy", "None");
        spec.add("dnsConfig", config);
        w.notes.add("resolves names with tenant " + tenant + "'s DNS at " + dns + " (dnsPolicy " + policy
                + " becomes None with nameserver " + dns + ", search " + String.join(" ", searches.subList(0,
                Math.min(3, searches.size()))) + ", ndots:" + Json.string(opts.get("ndots"), "value") + ")" + omitted);
    }

    private static void appendStrings(JsonArray from, List<String> to) {
        for (int i = 0; from != null && i < from.size(); i++) {
            if (from.get(i).isJsonPrimitive() && !to.contains(from.get(i).getAsString())) {
                to.add(from.get(i).getAsString());
            }
        }
    }

    private static boolean isTenantTokenVolume(JsonObject v) {
        String name = Json.string(v, "name");
        JsonArray sources = Json.array(Json.object(v, "projected"), "sources");
        if (name == null || !name.startsWith("kube-api-access-") || sources == null) {
            return false;
        }
        for (JsonElement s : sources) {
            if (s.isJsonObject() && s.getAsJsonObject().has("serviceAccountToken")) {
                return true;
            }
        }
        return false;
    }

    private void podVolume(Work w, JsonObject v, String path, boolean syncSa) {
        rewrite(w, Json.object(v, "configMap"), "name", "ConfigMap", path, ".configMap.name");
        rewrite(w, Json.object(v, "secret"), "secretName", "Secret", path, ".secret.secretName");
        rewrite(w, Json.object(v, "persistentVolumeClaim"), "claimName", "PersistentVolumeClaim", path,
                ".persistentVolumeClaim.claimName");
        rewrite(w, Json.object(v, "csi", "nodePublishSecretRef"), "name", "Secret", path, ".csi.nodePublishSecretRef.name");
        rewrite(w, Json.object(v, "azureFile"), "secretName", "Secret", path, ".azureFile.secretName");
        for (String src : List.of("cephfs", "rbd", "flexVolume", "iscsi", "scaleIO", "storageos", "cinder")) {
            JsonObject secretRef = Json.object(v, src, "secretRef");
            if (secretRef != null) {
                rewrite(w, secretRef, "name", "Secret", path + "." + src + ".secretRef.name");
            }
        }
        downwardItems(w, Json.array(Json.object(v, "downwardAPI"), "items"));
        JsonObject projected = Json.object(v, "projected");
        JsonArray sources = Json.array(projected, "sources");
        if (sources != null) {
            JsonArray kept = new JsonArray();
            for (int j = 0; j < sources.size(); j++) {
                JsonElement se = sources.get(j);
                if (se.isJsonObject()) {
                    JsonObject s = se.getAsJsonObject();
                    String sp = path + ".projected.sources[" + j + "]";
                    if (!syncSa && s.has("serviceAccountToken")) {
                        w.notes.add("removed " + sp + ".serviceAccountToken: tenant pods get no token on the host");
                        continue;
                    }
                    projectedSource(w, s, sp);
                }
                kept.add(se);
            }
            projected.add("sources", kept);
        }
    }

    /** A projected volume's ConfigMap, Secret and downward-API source, rewritten as the volumes of those kinds are. */
    private void projectedSource(Work w, JsonObject s, String path) {
        rewrite(w, Json.object(s, "configMap"), "name", "ConfigMap", path, ".configMap.name");
        rewrite(w, Json.object(s, "secret"), "name", "Secret", path, ".secret.name");
        downwardItems(w, Json.array(Json.object(s, "downwardAPI"), "items"));
    }

    private void downwardItems(Work w, JsonArray items) {
        for (int k = 0; items != null && k < items.size(); k++) {
            if (items.get(k).isJsonObject()) {
                fieldRef(w, Json.object(items.get(k).getAsJsonObject(), "fieldRef"));
            }
        }
    }

    /** The downward API would show the host name and namespace; point it at the source annotations instead. */
    private void fieldRef(Work w, JsonObject ref) {
        String fp = ref == null ? null : Json.string(ref, "fieldPath");
        String annotation = fp == null ? null : switch (fp) {
            case "metadata.name" -> ReverseMapping.SOURCE_NAME;
            case "metadata.namespace" -> ReverseMapping.SOURCE_NAMESPACE;
            case "metadata.uid" -> ReverseMapping.SOURCE_UID;
            default -> null;
        };
        if (annotation != null) {
            ref.addProperty("fieldPath", "metadata.annotations['" + annotation + "']");
        }
    }

    private void container(Work w, JsonObject c, String path, Set<String> removedVolumes) {
        JsonArray envFrom = Json.array(c, "envFrom");
        for (int k = 0; envFrom != null && k < envFrom.size(); k++) {
            if (envFrom.get(k).isJsonObject()) {
                JsonObject e = envFrom.get(k).getAsJsonObject();
                JsonObject configMapRef = Json.object(e, "configMapRef");
                if (configMapRef != null) {
                    rewrite(w, configMapRef, "name", "ConfigMap", path + ".envFrom[" + k + "].configMapRef.name");
                }
                JsonObject secretRef = Json.object(e, "secretRef");
                if (secretRef != null) {
                    rewrite(w, secretRef, "name", "Secret", path + ".envFrom[" + k + "].secretRef.name");
                }
            }
        }
        JsonArray env = Json.array(c, "env");
        for (int k = 0; env != null && k < env.size(); k++) {
            JsonObject vf = env.get(k).isJsonObject() ? Json.object(env.get(k).getAsJsonObject(), "valueFrom") : null;
            if (vf != null) {
                String p = path + ".env[" + k + "].valueFrom";
                rewrite(w, Json.object(vf, "configMapKeyRef"), "name", "ConfigMap", p, ".configMapKeyRef.name");
                rewrite(w, Json.object(vf, "secretKeyRef"), "name", "Secret", p, ".secretKeyRef.name");
                fieldRef(w, Json.object(vf, "fieldRef"));
            }
        }
        JsonArray mounts = Json.array(c, "volumeMounts");
        if (mounts != null && !removedVolumes.isEmpty()) {
            JsonArray kept = new JsonArray();
            mounts.forEach(m -> {
                if (!(m.isJsonObject() && removedVolumes.contains(Json.string(m.getAsJsonObject(), "name")))) {
                    kept.add(m);
                }
            });
            c.add("volumeMounts", kept);
        }
    }

    private void serviceAccount(Work w, JsonObject spec, boolean syncSa) {
        String tenantSa = Json.string(spec, "serviceAccountName");
        if (tenantSa == null) {
            tenantSa = Json.string(spec, "serviceAccount");
        }
        String hostSa;
        if (syncSa) {
            hostSa = host(w, "ServiceAccount", tenantSa == null ? "default" : tenantSa, "spec.serviceAccountName");
        } else {
            hostSa = options.hostServiceAccount();
            spec.addProperty("automountServiceAccountToken", false);
            if (tenantSa != null && !tenantSa.equals("default")) {
                w.notes.add("runs as host ServiceAccount " + hostSa + " instead of tenant ServiceAccount " + tenantSa
                        + " (the SyncPolicy does not sync ServiceAccounts)");
            }
        }
        spec.addProperty("serviceAccountName", hostSa);
        if (spec.has("serviceAccount")) {
            spec.addProperty("serviceAccount", hostSa);
        }
    }

    // ---------------------------------------------------------------- Service

    private TransformResult service(Work w) {
        JsonObject spec = Json.child(w.host, "spec");
        String type = Json.string(spec, "type");
        String effectiveType = type == null ? "ClusterIP" : type;
        if (!options.allowedServiceTypes().contains(effectiveType)) {
            return new TransformResult.Rejected(w.src, TransformResult.SERVICE_TYPE_NOT_ALLOWED, "spec.type",
                    "spec.type: " + effectiveType + " is not allowed by the isolation profile; allowed: "
                            + String.join(", ", options.allowedServiceTypes()));
        }
        JsonArray externalIps = Json.array(spec, "externalIPs");
        if (externalIps != null && !externalIps.isEmpty()) {
            return new TransformResult.Rejected(w.src, TransformResult.FIELD_NOT_ALLOWED, "spec.externalIPs",
                    "spec.externalIPs: tenant Services may not claim external IPs on the host (they could intercept "
                            + "other tenants' traffic); remove the field");
        }
        String clusterIp = Json.string(spec, "clusterIP");
        if (clusterIp != null && !clusterIp.isEmpty() && !clusterIp.equals("None")) {
            // One IP on both sides, so that what the tenant's DNS answers is routable on the host: the host copy asks
            // for the tenant's IP (the tenant API allocates from the host's range, k3s --service-cidr).
            w.notes.add("requests the tenant Service's ClusterIP " + clusterIp + " on the host, so both sides "
                    + "share it");
        } else if (!"None".equals(clusterIp)) {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
        spec.remove("healthCheckNodePort");
        JsonArray ports = Json.array(spec, "ports");
        List<String> nodePorts = new ArrayList<>();
        boolean keepsNodePorts = effectiveType.equals("NodePort") || effectiveType.equals("LoadBalancer");
        for (int i = 0; ports != null && i < ports.size(); i++) {
            if (!ports.get(i).isJsonObject()) {
                continue;
            }
            JsonObject port = ports.get(i).getAsJsonObject();
            JsonElement nodePort = port.get("nodePort");
            if (keepsNodePorts && nodePort != null && nodePort.isJsonPrimitive() && nodePort.getAsInt() != 0) {
                nodePorts.add(nodePort.getAsString());
            } else {
                port.remove("nodePort");
            }
        }
        if (!nodePorts.isEmpty()) {
            // As for the ClusterIP: the port a tenant user reads on the Service is the one the host's nodes listen
            // on; where the host has one taken, it allocates another and the tenant Service takes it.
            w.notes.add("requests the tenant Service's node " + (nodePorts.size() == 1 ? "port " : "ports ")
                    + String.join(", ", nodePorts) + " on the host, so both sides share "
                    + (nodePorts.size() == 1 ? "it" : "them"));
        }
        JsonObject selector = Json.object(spec, "selector");
        if (selector != null && !selector.isEmpty()) {
            scope(w, selector);
        }
        return null;
    }

    /** Restricts a host-evaluated pod selector to this tenant's pods in this virtual namespace. */
    private void scope(Work w, JsonObject matchLabels) {
        scopeToTenant(matchLabels);
        matchLabels.addProperty(ReverseMapping.VIRTUAL_NAMESPACE, w.src.virtualNamespace());
    }

    /** Restricts a host-evaluated pod selector's labels to this tenant's pods, of any of its namespaces. */
    private void scopeToTenant(JsonObject matchLabels) {
        matchLabels.keySet().removeIf(ReverseMapping::isReserved);
        matchLabels.addProperty(ReverseMapping.TENANT, tenant);
    }

    private void scopeSelector(Work w, JsonObject labelSelector) {
        if (labelSelector == null) {
            return;
        }
        dropReservedRequirements(labelSelector);
        scope(w, Json.child(labelSelector, "matchLabels"));
    }

    /** Removes a label selector's expressions on {@code tenantplane.io/} labels: no tenant selects by them. */
    private static void dropReservedRequirements(JsonObject labelSelector) {
        JsonArray exprs = Json.array(labelSelector, "matchExpressions");
        if (exprs != null) {
            JsonArray kept = new JsonArray();
            exprs.forEach(e -> {
                if (!(e.isJsonObject() && ReverseMapping.isReserved(String.valueOf(Json.string(e.getAsJsonObject(),
                        "key"))))) {
                    kept.add(e);
                }
            });
            labelSelector.add("matchExpressions", kept);
        }
    }

    // ---------------------------------------------------------------- Ingress

    private TransformResult ingress(Work w) {
        JsonObject spec = Json.object(w.host, "spec");
        if (spec == null) {
            return null;
        }
        backend(w, Json.object(spec, "defaultBackend"), "spec.defaultBackend");
        JsonArray rules = Json.array(spec, "rules");
        for (int i = 0; rules != null && i < rules.size(); i++) {
            JsonArray paths = rules.get(i).isJsonObject() ? Json.array(Json.object(rules.get(i).getAsJsonObject(), "http"), "paths") : null;
            for (int j = 0; paths != null && j < paths.size(); j++) {
                if (paths.get(j).isJsonObject()) {
                    backend(w, Json.object(paths.get(j).getAsJsonObject(), "backend"),
                            "spec.rules[" + i + "].http.paths[" + j + "].backend");
                }
            }
        }
        JsonArray tls = Json.array(spec, "tls");
        for (int i = 0; tls != null && i < tls.size(); i++) {
            if (tls.get(i).isJsonObject()) {
                rewrite(w, tls.get(i).getAsJsonObject(), "secretName", "Secret", "spec.tls[" + i + "].secretName");
            }
        }
        return null;
    }

    private void backend(Work w, JsonObject backend, String path) {
        if (backend == null) {
            return;
        }
        rewrite(w, Json.object(backend, "service"), "name", "Service", path, ".service.name");
        JsonObject resource = Json.object(backend, "resource");
        String kind = resource == null ? null : Json.string(resource, "kind");
        if (kind != null) {
            rewrite(w, resource, "name", kind, path + ".resource.name");
        }
    }

    // ---------------------------------------------------------------- Endpoints, EndpointSlice

    private TransformResult endpoints(Work w) {
        JsonArray subsets = Json.array(w.host, "subsets");
        for (int i = 0; subsets != null && i < subsets.size(); i++) {
            if (subsets.get(i).isJsonObject()) {
                for (String list : List.of("addresses", "notReadyAddresses")) {
                    JsonArray addrs = Json.array(subsets.get(i).getAsJsonObject(), list);
                    String path = "subsets[" + i + "]." + list;
                    for (int k = 0; addrs != null && k < addrs.size(); k++) {
                        String ip = addrs.get(k).isJsonObject() ? Json.string(addrs.get(k).getAsJsonObject(), "ip")
                                : null;
                        TransformResult refused = address(w, ip, path + "[" + k + "].ip");
                        if (refused != null) {
                            return refused;
                        }
                    }
                    TransformResult refused = targetRefs(w, addrs, path);
                    if (refused != null) {
                        return refused;
                    }
                }
            }
        }
        return null;
    }

    private TransformResult endpointSlice(Work w) {
        JsonObject labels = Json.object(w.host, "metadata", "labels");
        String svc = labels == null ? null : Json.string(labels, SERVICE_NAME_LABEL);
        if (svc != null) {
            labels.addProperty(SERVICE_NAME_LABEL, host(w, "Service", svc, "metadata.labels[" + SERVICE_NAME_LABEL + "]"));
        }
        String manager = labels == null ? null : Json.string(labels, SLICE_MANAGED_BY_LABEL);
        if (manager != null && TENANT_CONTROLLER_SLICE_MANAGERS.contains(manager)) {
            return new TransformResult.Skipped(w.src, TransformResult.MANAGED_BY_HOST, "metadata.labels[" + SLICE_MANAGED_BY_LABEL + "]",
                    "EndpointSlice " + w.src.virtualNamespace() + "/" + w.src.name() + " was made by the tenant's "
                            + manager + "; on the host the host's own controller makes the slices of synced Services");
        }
        JsonArray endpoints = Json.array(w.host, "endpoints");
        String type = Json.string(w.host, "addressType");
        for (int i = 0; endpoints != null && ("IPv4".equals(type) || "IPv6".equals(type)) && i < endpoints.size(); i++) {
            JsonArray addrs = endpoints.get(i).isJsonObject() ? Json.array(endpoints.get(i).getAsJsonObject(),
                    "addresses") : null;
            for (int k = 0; addrs != null && k < addrs.size(); k++) {
                String ip = addrs.get(k).isJsonPrimitive() ? addrs.get(k).getAsString() : null;
                TransformResult refused = address(w, ip, "endpoints[" + i + "].addresses[" + k + "]");
                if (refused != null) {
                    return refused;
                }
            }
        }
        return targetRefs(w, endpoints, "endpoints");
    }

    /**
     * Admits an endpoint address only when it is the IP of one of this tenant's host pods or inside a CIDR the
     * isolation profile lets the tenant reach; anything else (another tenant's pod, a node, the host API, a Service
     * IP, a metadata service) is refused, naming the address.
     */
    private TransformResult address(Work w, String value, String field) {
        java.net.InetAddress ip = Addresses.parse(value);
        if (ip == null) {
            return new TransformResult.Rejected(w.src, TransformResult.ENDPOINT_ADDRESS_NOT_ALLOWED, field,
                    field + ": '" + value + "' is not an IP address; the host accepts only IPs here");
        }
        String special = Addresses.special(ip);
        if (special != null) {
            return new TransformResult.Rejected(w.src, TransformResult.ENDPOINT_ADDRESS_NOT_ALLOWED, field,
                    field + ": " + value + " " + special + "; the host refuses it in an endpoint: remove it");
        }
        TransformOptions.EndpointAddresses allowed = options.endpointAddresses();
        for (String pod : allowed.podIps()) {
            if (ip.equals(Addresses.parse(pod))) {
                return null;
            }
        }
        for (String cidr : allowed.allowedCidrs()) {
            if (Addresses.contains(cidr, ip)) {
                return null;
            }
        }
        return new TransformResult.Rejected(w.src, TransformResult.ENDPOINT_ADDRESS_NOT_ALLOWED, field,
                field + ": " + value + " is neither the IP of one of tenant " + tenant + "'s pods on the host nor "
                        + "inside a CIDR its isolation profile allows (spec.network.egressToCIDRs"
                        + (allowed.allowedCidrs().isEmpty() ? ", empty" : ": " + String.join(", ",
                                allowed.allowedCidrs())) + "); on the host it could reach another tenant, a node "
                        + "or the host's own services: point the endpoint at your own pods, or ask the platform "
                        + "team to allow the external CIDR");
    }

    /**
     * Rewrites the {@code targetRef}s of endpoint addresses to host names. A reference to another namespace is refused:
     * on the host it could name another tenant's pod (or any host object) as the endpoint's target.
     */
    private TransformResult targetRefs(Work w, JsonArray addresses, String path) {
        for (int k = 0; addresses != null && k < addresses.size(); k++) {
            JsonObject ref = addresses.get(k).isJsonObject() ? Json.object(addresses.get(k).getAsJsonObject(), "targetRef") : null;
            String kind = ref == null ? null : Json.string(ref, "kind");
            String ns = ref == null ? null : Json.string(ref, "namespace");
            String name = ref == null ? null : Json.string(ref, "name");
            if (ns != null && !ns.equals(w.src.virtualNamespace())) {
                String field = path + "[" + k + "].targetRef.namespace";
                return new TransformResult.Rejected(w.src, TransformResult.FIELD_NOT_ALLOWED, field, field + ": '"
                        + ns + "' is not the endpoints' own namespace " + w.src.virtualNamespace() + "; on the host a "
                        + "reference to another namespace could name another tenant's pod: remove it or point it at "
                        + "an object of namespace " + w.src.virtualNamespace());
            }
            if (kind != null && name != null && rules.syncsToHost(kind, w.src.virtualNamespace())) {
                ref.addProperty("name", host(w, kind, name, "targetRef.name"));
                ref.addProperty("namespace", hostNamespace);
                ref.remove("uid");
                ref.remove("resourceVersion");
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- NetworkPolicy, PDB, ServiceAccount, PVC

    private TransformResult networkPolicy(Work w) {
        JsonObject spec = Json.child(w.host, "spec");
        scopeSelector(w, Json.child(spec, "podSelector"));
        for (String[] dir : new String[][] {{"ingress", "from"}, {"egress", "to"}}) {
            JsonArray rulesArr = Json.array(spec, dir[0]);
            for (int i = 0; rulesArr != null && i < rulesArr.size(); i++) {
                JsonArray peers = rulesArr.get(i).isJsonObject() ? Json.array(rulesArr.get(i).getAsJsonObject(), dir[1]) : null;
                for (int j = 0; peers != null && j < peers.size(); j++) {
                    if (!peers.get(j).isJsonObject()) {
                        continue;
                    }
                    JsonObject peer = peers.get(j).getAsJsonObject();
                    String path = "spec." + dir[0] + "[" + i + "]." + dir[1] + "[" + j + "]";
                    if (peer.has("namespaceSelector")) {
                        return new TransformResult.Rejected(w.src, TransformResult.FIELD_NOT_ALLOWED,
                                path + ".namespaceSelector", path + ".namespaceSelector: namespace selectors refer to "
                                + "tenant namespaces, which do not exist on the host; use podSelector or ipBlock");
                    }
                    if (peer.has("podSelector")) {
                        scopeSelector(w, Json.child(peer, "podSelector"));
                    }
                }
            }
        }
        return null;
    }

    private TransformResult podDisruptionBudget(Work w) {
        JsonObject selector = Json.object(w.host, "spec", "selector");
        if (selector != null) {
            scopeSelector(w, selector);
        }
        return null;
    }

    private TransformResult serviceAccount(Work w) {
        if (w.host.has("secrets")) {
            w.host.remove("secrets");
            w.notes.add("dropped secrets: token Secrets stay in the tenant");
        }
        JsonArray pulls = Json.array(w.host, "imagePullSecrets");
        for (int i = 0; pulls != null && i < pulls.size(); i++) {
            if (pulls.get(i).isJsonObject()) {
                rewrite(w, pulls.get(i).getAsJsonObject(), "name", "Secret", "imagePullSecrets[" + i + "].name");
            }
        }
        return null;
    }

    private TransformResult persistentVolumeClaim(Work w) {
        JsonObject spec = Json.child(w.host, "spec");
        String volumeName = Json.string(spec, "volumeName");
        if (volumeName != null) {
            if (rules.syncsToHost("PersistentVolume")) {
                spec.addProperty("volumeName", HostNames.clusterScopedHostName(volumeName, tenant));
            } else {
                spec.remove("volumeName");
                w.notes.add("dropped spec.volumeName " + volumeName + ": tenant volume names mean nothing on the host, "
                        + "where the claim binds on its own");
            }
        }
        for (String f : List.of("dataSource", "dataSourceRef")) {
            JsonObject ds = Json.object(spec, f);
            if (ds == null) {
                continue;
            }
            if (ds.has("namespace")) {
                return new TransformResult.Rejected(w.src, TransformResult.FIELD_NOT_ALLOWED, "spec." + f + ".namespace",
                        "spec." + f + ".namespace: cross-namespace data sources cannot be synced; remove the field");
            }
            String kind = Json.string(ds, "kind");
            if (kind != null) {
                rewrite(w, ds, "name", kind, "spec." + f + ".name");
            }
        }
        JsonObject ann = Json.object(w.host, "metadata", "annotations");
        if (ann != null) {
            ann.keySet().removeIf(k -> PVC_BINDER_ANNOTATION_PREFIXES.stream().anyMatch(k::startsWith));
        }
        return null;
    }

    /** The API server folds {@code stringData} into {@code data}; doing the same keeps the host copy comparable. */
    private TransformResult secret(Work w) {
        JsonObject stringData = Json.object(w.host, "stringData");
        if (stringData != null) {
            JsonObject data = Json.child(w.host, "data");
            for (var e : stringData.entrySet()) {
                if (e.getValue().isJsonPrimitive()) {
                    data.addProperty(e.getKey(), Base64.getEncoder().encodeToString(
                            e.getValue().getAsString().getBytes(StandardCharsets.UTF_8)));
                }
            }
            w.host.remove("stringData");
        }
        return null;
    }

    // ---------------------------------------------------------------- custom kinds and patches

    /**
     * A kind tenantplane has no transform of its own for: the references and label selectors the SyncPolicy
     * declares are rewritten as a built-in kind's are; every other field is copied unchanged, and the notes say so.
     */
    private TransformResult custom(Work w) {
        SyncPolicy.KindRule rule = rules.rule(w.src.kind()).orElse(null);
        if (rule == null || !rule.custom()) {
            return null;
        }
        List<String> declared = new ArrayList<>();
        for (SyncPolicy.Reference ref : rule.references()) {
            FieldPath path = path(ref.path());
            declared.add(ref.path());
            path.forEach(w.host, found -> {
                if (found.value().isJsonPrimitive() && found.value().getAsJsonPrimitive().isString()
                        && !found.value().getAsString().isEmpty()) {
                    String name = found.value().getAsString();
                    if (!rules.syncsToHost(ref.kind(), w.src.virtualNamespace())) {
                        w.unsynced.add(new Ref(found.path(), ref.kind(), name));
                    } else {
                        String hostName = host(w, ref.kind(), name, found.path());
                        found.replace(v -> new JsonPrimitive(hostName));
                    }
                }
            });
        }
        for (SyncPolicy.SelectorField sel : rule.labelSelectors()) {
            FieldPath path = path(sel.path());
            declared.add(sel.path());
            path.forEach(w.host, found -> {
                if (found.value() instanceof JsonObject o) {
                    if (sel.effectiveForm() == SyncPolicy.SelectorForm.MATCH_LABELS) {
                        scope(w, o);
                    } else {
                        scopeSelector(w, o);
                    }
                }
            });
        }
        w.notes.add(declared.isEmpty()
                ? "every field is copied unchanged: the SyncPolicy declares no references or selectors for "
                        + w.src.kind()
                : "rewrites the declared " + String.join(", ", declared) + "; every other field is copied unchanged");
        return null;
    }

    private FieldPath path(String text) {
        return paths.computeIfAbsent(text, FieldPath::parse);
    }

    /** The SyncPolicy's patches for the kind, applied to the host copy; a patched Pod is checked again. */
    private TransformResult patch(Work w) {
        SyncPolicy.KindRule rule = rules.rule(w.src.kind()).orElse(null);
        if (rule == null || rule.patches().isEmpty()) {
            return null;
        }
        List<String> done = new ArrayList<>();
        for (SyncPolicy.Patch p : rule.patches()) {
            FieldPath path = path(p.path());
            if (p.op() == SyncPolicy.PatchOp.REMOVE) {
                if (path.remove(w.host) > 0) {
                    done.add("removed " + p.path());
                }
                continue;
            }
            JsonElement value = p.valueFrom() == null ? p.value() : new JsonPrimitive(switch (p.valueFrom()) {
                case TENANT -> tenant;
                case VIRTUAL_NAMESPACE -> w.src.virtualNamespace() == null ? "" : w.src.virtualNamespace();
                case HOST_NAMESPACE -> hostNamespace;
            });
            if (path.set(w.host, value) > 0) {
                done.add("set " + p.path());
            }
        }
        if (!done.isEmpty()) {
            w.notes.add("patched by the SyncPolicy: " + String.join(", ", done));
        }
        if (w.src.kind().equals("Pod")) {
            List<PodSecurity.Violation> violations = PodSecurity.check(w.host, options.podSecurity());
            if (!violations.isEmpty()) {
                PodSecurity.Violation v = violations.get(0);
                return new TransformResult.Rejected(w.src, TransformResult.POD_SECURITY_VIOLATION, v.fieldPath(),
                        v.fieldPath() + ": " + v.message() + " (after the SyncPolicy's patches)");
            }
            List<PodSecurity.Violation> over = ContainerLimitCheck.check(w.host, options.containerLimits());
            if (!over.isEmpty()) {
                PodSecurity.Violation v = over.get(0);
                return new TransformResult.Rejected(w.src, TransformResult.CONTAINER_LIMITS_EXCEEDED, v.fieldPath(),
                        v.fieldPath() + ": " + v.message() + " (after the SyncPolicy's patches)");
            }
            List<PodSecurity.Violation> lacking = ContainerLimitCheck.required(w.host, options.containerLimits());
            if (!lacking.isEmpty()) {
                PodSecurity.Violation v = lacking.get(0);
                return new TransformResult.Rejected(w.src, TransformResult.RESOURCES_REQUIRED, v.fieldPath(),
                        v.fieldPath() + ": " + v.message() + " (after the SyncPolicy's patches)");
            }
        }
        return null;
    }

    /**
     * A Pod's PriorityClass and RuntimeClass must exist on the host, or the host refuses the Pod: only classes
     * mirrored from the host (the SyncPolicy's {@code fromHost}) are accepted.
     */
    private TransformResult podClasses(Work w, JsonObject spec) {
        for (String[] c : new String[][] {{"priorityClassName", "PriorityClass"}, {"runtimeClassName", "RuntimeClass"}}) {
            String name = Json.string(spec, c[0]);
            if (name == null || name.isEmpty()) {
                continue;
            }
            String kind = c[1];
            Set<String> mirrored = options.hostFacts().mirrored().getOrDefault(kind, Set.of());
            if (mirrored.contains(name)) {
                continue;
            }
            String why = rules.mirror(kind).isEmpty()
                    ? "the SyncPolicy mirrors no " + kind + " from the host (spec.fromHost has no " + kind + " rule)"
                    : "it is not among the host " + kind + "es the SyncPolicy mirrors"
                            + (mirrored.isEmpty() ? " (none now)" : " (" + String.join(", ", mirrored) + ")");
            return new TransformResult.Skipped(w.src, TransformResult.CLASS_NOT_MIRRORED, "spec." + c[0],
                    "spec." + c[0] + " names " + kind + " '" + name + "', but " + why + "; the host would refuse the "
                            + "Pod, so it stays in the tenant: mirror the host's " + kind + " with spec.fromHost, or "
                            + "use one that is mirrored");
        }
        return null;
    }

    // ---------------------------------------------------------------- references

    /** Rewrites {@code holder[field]} (a reference to an object of {@code kind}) to its host name. */
    private void rewrite(Work w, JsonObject holder, String field, String kind, String path) {
        rewrite(w, holder, field, kind, path, "");
    }

    /**
     * {@link #rewrite(Work, JsonObject, String, String, String)} with the field's path as {@code path + suffix}, joined
     * only when a reference is recorded: most references are absent or fine, and a pod has dozens of places to look.
     */
    private void rewrite(Work w, JsonObject holder, String field, String kind, String path, String suffix) {
        if (holder == null) {
            return;
        }
        JsonElement e = holder.get(field);
        if (e == null || !e.isJsonPrimitive() || !(e.getAsJsonPrimitive().isString())) {
            return;
        }
        String name = e.getAsString();
        if (name.isEmpty()) {
            return;
        }
        if (!rules.syncsToHost(kind, w.src.virtualNamespace())) {
            w.unsynced.add(new Ref(path + suffix, kind, name));
            return;
        }
        holder.add(field, new JsonPrimitive(host(w, kind, name, path, suffix)));
    }

    private String host(Work w, String kind, String name, String path) {
        return host(w, kind, name, path, "");
    }

    private String host(Work w, String kind, String name, String path, String suffix) {
        try {
            return HostNames.hostName(name, w.src.virtualNamespace(), tenant);
        } catch (IllegalArgumentException invalid) {
            w.invalid.add(new Ref(path + suffix, kind, name));
            return name;
        }
    }


    private record Ref(String path, String kind, String name) {
    }

    /** The state of one transform; confined to one call. */
    private static final class Work {
        final TenantObjectRef src;
        final JsonObject host;
        final String hostName;
        final List<String> notes = new ArrayList<>();
        final List<Ref> unsynced = new ArrayList<>();
        final List<Ref> invalid = new ArrayList<>();
        /** Why the object waits for the host (a Skip), decided only once nothing in it is refused. */
        TransformResult.Skipped waiting;

        Work(TenantObjectRef src, JsonObject host, String hostName) {
            this.src = src;
            this.host = host;
            this.hostName = hostName;
        }
    }

    @Override
    public String toString() {
        return "Transformer[tenant=" + tenant + ", hostNamespace=" + hostNamespace + ", options=" + options + "]";
    }
}
