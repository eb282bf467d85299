package io.tenantplane.migration;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.controlplane.internal.Agents;
import io.tenantplane.isolation.IsolationRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.plan.internal.NodeMirror;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Response;

/**
 * A host and a tenant API server (both in-process testkit servers) holding tenant {@code dev} of namespace
 * {@code team-dev} as it runs in a given mode: TenantCluster, profile and policy, control plane objects, boundary,
 * synced copies or agents, and the tenant's workloads (a ReplicaSet of two Pods, a ConfigMap, a Service, optionally a
 * bare Pod).
 *
 * <p>No kubelet, scheduler or controller runs in the testkit. {@link #actAsCluster()} plays them between migration
 * passes, as a real cluster would on its own: it marks host Pods Running and Ready (writing Pod status, as a kubelet
 * does), reports the agents' StatefulSet ready and registers the agents as tenant Nodes, recreates Pods a tenant
 * ReplicaSet is missing (as the ReplicaSet controller does), and, when the tenant control plane runs its scheduler
 * (private mode), binds unscheduled tenant Pods to agent Nodes and marks them Ready (as the scheduler and the agents'
 * kubelets do).
 */
public final class LiveMigration implements AutoCloseable {

    public static final String NS = "team-dev";
    public static final String TENANT = "dev";
    public static final String OWN = "team-dev-x-dev";
    public static final String RS = "web-6b7f9";
    public static final Path CRDS = Path.of("..", "k8s", "crds");

    public final KubeApiServer hostServer;
    public final KubeApiServer tenantServer;
    public final ApiClient host;
    public final ApiClient tenant;
    private int replacements;

    private LiveMigration(KubeApiServer hostServer, KubeApiServer tenantServer) {
        this.hostServer = hostServer;
        this.tenantServer = tenantServer;
        this.host = client(hostServer);
        this.tenant = client(tenantServer);
    }

    /** A tenant running in {@code mode}, with a bare Pod {@code debug} when {@code barePod}. */
    public static LiveMigration start(Mode mode, boolean barePod) {
        KubeApiServer h = KubeApiServer.builder()
                .namespaces("default", "kube-system", "kube-public", "kube-node-lease", NS).build().start();
        KubeApiServer t = KubeApiServer.builder().build().start();
        LiveMigration m = new LiveMigration(h, t);
        m.installCrds();
        m.provision(mode, barePod);
        h.requests().reset();
        t.requests().reset();
        return m;
    }

    public TenantKey key() {
        return new TenantKey(NS, TENANT);
    }

    // ---- set-up ----------------------------------------------------------------------------------------------------

    private void installCrds() {
        for (LoadedObject lo : Manifests.read(CRDS)) {
            ok(send(host, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", lo.object()),
                    "create CRD");
        }
    }

    public static JsonObject profileJson() {
        return json("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"IsolationProfile",
                 "metadata":{"name":"restricted","namespace":"team-dev"},
                 "spec":{"network":{"defaultDeny":{"ingress":true,"egress":true},
                                    "allow":["dns","tenant-api","same-tenant"]},
                         "podSecurity":{"level":"restricted","version":"latest"},
                         "nodePlacement":{"nodeSelector":{"pool":"dedicated"},
                                          "tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]},
                         "services":{"allowedTypes":["ClusterIP"]}}}""");
    }

    public static JsonObject policyJson() {
        return json("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy",
                 "metadata":{"name":"default","namespace":"team-dev"},
                 "spec":{"kinds":[{"kind":"Pod","toHost":true,"fromHost":"status"},
                                  {"kind":"Service","toHost":true,"fromHost":"status"},
                                  {"kind":"ConfigMap","toHost":true},{"kind":"Secret","toHost":true},
                                  {"kind":"PersistentVolumeClaim","toHost":true,"fromHost":"status"}]}}""");
    }

    public static JsonObject clusterJson(Mode mode) {
        return json("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster",
                 "metadata":{"name":"dev","namespace":"team-dev"},
                 "spec":{"mode":"%s","isolationProfileRef":{"name":"restricted"},"syncPolicyRef":{"name":"default"},
                         "controlPlane":{"replicas":1,"datastore":{"type":"sqlite","storage":"5Gi"}}}}"""
                .formatted(mode.value()));
    }

    /** The tenant's workloads, as a user (and the ReplicaSet controller) made them. */
    public static List<JsonObject> workloads() {
        List<JsonObject> out = new ArrayList<>();
        out.add(json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config","namespace":"default"},
                 "data":{"greeting":"hello"}}"""));
        out.add(json("""
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},
                 "spec":{"clusterIP":"10.96.0.80","selector":{"app":"web"},
                   "ports":[{"name":"http","port":80,"targetPort":8080}]}}"""));
        out.add(json("""
                {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"%s","namespace":"default"},
                 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
                         "template":{"metadata":{"labels":{"app":"web"}},"spec":%s}}}""".formatted(RS, podSpec())));
        return out;
    }

    static String podSpec() {
        return """
                {"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                 "containers":[{"name":"web","image":"nginxinc/nginx-unprivileged:1.27",
                   "ports":[{"containerPort":8080}],
                   "volumeMounts":[{"name":"config","mountPath":"/etc/web"}],
                   "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}],
                 "volumes":[{"name":"config","configMap":{"name":"web-config"}}]}""";
    }

    /**
     * A Pod of the tenant's web workload in {@code default}, owned by ReplicaSet {@code owner} unless null, with the
     * token volume the tenant API's ServiceAccount admission mounts (named here, so that plans print the same name on
     * every run; the admission keeps a {@code kube-api-access-*} volume a Pod already has).
     */
    public static JsonObject pod(String name, JsonObject owner) {
        JsonObject p = json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"default","labels":{"app":"web"}},
                 "spec":%s}""".formatted(name, podSpec()));
        JsonObject spec = Json.child(p, "spec");
        String volume = "kube-api-access-" + name.substring(name.length() - 1) + "x2kq";
        spec.getAsJsonArray("volumes").add(json("""
                {"name":"%s","projected":{"defaultMode":420,"sources":[
                  {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
                  {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
                  {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1",
                    "fieldPath":"metadata.namespace"}}]}}]}}""".formatted(volume)));
        spec.getAsJsonArray("containers").get(0).getAsJsonObject().getAsJsonArray("volumeMounts").add(json("""
                {"name":"%s","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}"""
                .formatted(volume)));
        if (owner != null) {
            JsonArray refs = new JsonArray();
            refs.add(json("""
                    {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"%s","uid":"%s","controller":true,
                     "blockOwnerDeletion":true}""".formatted(Json.string(owner, "metadata", "name"),
                    Json.string(owner, "metadata", "uid"))));
            Json.child(p, "metadata").add("ownerReferences", refs);
        }
        return p;
    }

    /**
     * The tenant API and DNS Services with ClusterIPs requested from the host's range (the host would allocate random
     * ones), so that plans, which name the addresses the copies use, print the same on every run.
     */
    private static JsonObject withFixedClusterIp(JsonObject o) {
        String name = Json.string(o, "metadata", "name");
        if ("Service".equals(Json.string(o, "kind")) && (TENANT + "-api").equals(name)) {
            Json.child(o, "spec").addProperty("clusterIP", "10.96.0.20");
        } else if ("Service".equals(Json.string(o, "kind")) && (TENANT + "-dns").equals(name)) {
            Json.child(o, "spec").addProperty("clusterIP", "10.96.0.53");
        }
        return o;
    }

    private void provision(Mode mode, boolean barePod) {
        create(host, profileJson());
        create(host, policyJson());
        JsonObject tcJson = create(host, clusterJson(mode));
        TenantCluster tc = cluster(tcJson);
        IsolationProfile profile = ((Parsed.Ok<IsolationProfile>) IsolationProfile.fromJson(profileJson())).value();
        SyncPolicy policy = ((Parsed.Ok<SyncPolicy>) SyncPolicy.fromJson(policyJson())).value();
        JsonObject status = json("""
                {"phase":"Ready","mode":"%s","hostNamespace":"%s",
                 "conditions":[{"type":"Ready","status":"True","reason":"Provisioned","message":"ready",
                                "lastTransitionTime":"2025-01-01T00:00:00Z"}]}""".formatted(mode.value(),
                tc.hostNamespace()));
        tcJson.add("status", status);
        ok(send(host, "PUT", kind("TenantCluster").objectPath(NS, TENANT) + "/status", tcJson), "status");

        for (JsonObject o : new IsolationRenderer().render(tc, profile)) {
            if ("Namespace".equals(Json.string(o, "kind")) && NS.equals(Json.string(o, "metadata", "name"))) {
                continue;
            }
            create(host, o);
        }
        for (JsonObject o : new ControlPlaneRenderer().render(tc)) {
            create(host, withFixedClusterIp(o));
        }
        if (mode != Mode.PRIVATE) {
            // The tenant DNS provisioning renders with the control plane in shared and dedicated mode.
            for (JsonObject o : io.tenantplane.controlplane.internal.TenantDns.render(tc)) {
                create(host, withFixedClusterIp(o));
            }
        }
        // tenant side: nodes and workloads
        List<String> nodes;
        if (mode == Mode.PRIVATE) {
            for (JsonObject o : new Agents(new ControlPlaneRenderer()).render(tc, tc.hostNamespace())) {
                create(host, o);
            }
            actAsCluster();
            nodes = List.of("dev-agent-0", "dev-agent-1");
        } else {
            nodes = List.of("node-a", "node-b");
            for (String n : nodes) {
                // Node mirrors as a pass makes them: both markers.
                createNode(n, Map.of(NodeMirror.MIRROR_LABEL, "true", ReverseMapping.MANAGED_BY,
                        ReverseMapping.MANAGED_BY_VALUE));
            }
        }
        JsonObject rs = null;
        for (JsonObject o : workloads()) {
            JsonObject made = create(tenant, o);
            if ("ReplicaSet".equals(Json.string(o, "kind"))) {
                rs = made;
            }
        }
        List<JsonObject> pods = new ArrayList<>();
        pods.add(pod(RS + "-a", rs));
        pods.add(pod(RS + "-b", rs));
        if (barePod) {
            pods.add(pod("debug", null));
        }
        int i = 0;
        for (JsonObject p : pods) {
            Json.child(p, "spec").addProperty("nodeName", nodes.get(i++ % nodes.size()));
            ready(tenant, create(tenant, p));
        }
        if (mode != Mode.PRIVATE) {
            TransformOptions options = TransformOptions.defaults().withPodSecurity(PodSecurityLevel.RESTRICTED)
                    .withHostServiceAccount(profile.workloadServiceAccountName(TENANT));
            if (mode == Mode.DEDICATED) {
                options = options.withPlacement(Map.of("pool", "dedicated"), List.of(json(
                        "{\"key\":\"dedicated\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}")));
            }
            List<JsonObject> tenantObjects = new ArrayList<>();
            for (String k : List.of("Pod", "Service", "ConfigMap", "Secret", "PersistentVolumeClaim")) {
                tenantObjects.addAll(list(tenant, k, null));
            }
            Snapshot snap = new Snapshot(TENANT, tc.hostNamespace(), policy, options, tenantObjects, List.of());
            for (Decision d : new Planner().plan(snap).writes()) {
                JsonObject desired = d.desired();
                if (!"Service".equals(d.kind()) || Json.string(desired, "spec", "clusterIP") == null) {
                    create(host, desired);
                    continue;
                }
                ResourceKind svc = ResourceKind.wellKnown("v1", "Service").orElseThrow();
                Reply r = send(host, "POST", svc.collectionPath(tc.hostNamespace()), desired);
                if (r.code() != 422) {
                    ok(r, "create Service");
                    continue;
                }
                // The tenant's IP is taken on the host: as a pass does, let the host allocate one and give the
                // tenant Service that IP, before the test looks at the tenant.
                Json.object(desired, "spec").remove("clusterIP");
                Json.object(desired, "spec").remove("clusterIPs");
                String ip = Json.string(create(host, desired), "spec", "clusterIP");
                JsonObject own = get(tenant, "Service", d.source().virtualNamespace(), d.source().name());
                send(tenant, "DELETE", svc.objectPath(d.source().virtualNamespace(), d.source().name()), null);
                for (String f : List.of("uid", "resourceVersion", "creationTimestamp")) {
                    Json.object(own, "metadata").remove(f);
                }
                own.remove("status");
                Json.object(own, "spec").addProperty("clusterIP", ip);
                Json.object(own, "spec").remove("clusterIPs");
                create(tenant, own);
            }
        }
        actAsCluster();
    }

    // ---- acting as the rest of the cluster ---------------------------------------------------------------------

    /**
     * Plays kubelets, the StatefulSet and ReplicaSet controllers, the host's Deployment controller for the tenant
     * DNS (every replica available) and (in private mode) the tenant scheduler.
     */
    public void actAsCluster() {
        hostPodsBecomeReady(host, NS, OWN);
        for (String ns : List.of(NS, OWN)) {
            for (JsonObject dns : list(host, "Deployment", ns)) {
                long want = dns.getAsJsonObject("spec").get("replicas").getAsLong();
                JsonObject st = new JsonObject();
                for (String field : List.of("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")) {
                    st.addProperty(field, want);
                }
                if (!st.equals(dns.get("status"))) {
                    dns.add("status", st);
                    ok(send(host, "PUT", kind("Deployment").objectPath(ns, Json.string(dns, "metadata", "name"))
                            + "/status", dns), "deployment status");
                }
            }
            for (JsonObject sts : list(host, "StatefulSet", ns)) {
                long want = sts.getAsJsonObject("spec").get("replicas").getAsLong();
                if (Json.string(sts, "metadata", "name").equals(Agents.name(TENANT))) {
                    JsonObject st = new JsonObject();
                    st.addProperty("replicas", want);
                    st.addProperty("readyReplicas", want);
                    if (!st.equals(sts.get("status"))) {
                        sts.add("status", st);
                        ok(send(host, "PUT", kind("StatefulSet").objectPath(ns, Json.string(sts, "metadata", "name"))
                                + "/status", sts), "sts status");
                    }
                    for (int i = 0; i < want; i++) {
                        String name = Agents.name(TENANT) + "-" + i;
                        JsonObject n = get(tenant, "Node", null, name);
                        if (n == null || !MigrationPlanner.condition(n, "Ready")) {
                            createNode(name, Map.of(Agents.NODE_LABEL, TENANT));
                        }
                    }
                }
            }
        }
        for (JsonObject rs : list(tenant, "ReplicaSet", null)) {
            long want = rs.getAsJsonObject("spec").get("replicas").getAsLong();
            String uid = Json.string(rs, "metadata", "uid");
            // As the ReplicaSet controller counts (FilterActivePods): Pods being deleted no longer count.
            long have = list(tenant, "Pod", null).stream().filter(p -> {
                Map<String, String> o = MigrationPlanner.owner(p);
                return o != null && uid.equals(o.get("uid")) && !MigrationPlanner.terminal(p)
                        && !p.getAsJsonObject("metadata").has("deletionTimestamp");
            }).count();
            for (long i = have; i < want; i++) {
                create(tenant, pod(RS + "-r" + (++replacements), rs));
            }
        }
        if (schedulerOn()) {
            List<String> agents = list(tenant, "Node", null).stream()
                    .filter(n -> TENANT.equals(Json.labels(n).get(Agents.NODE_LABEL)))
                    .map(n -> Json.string(n, "metadata", "name")).sorted().toList();
            int i = 0;
            for (JsonObject p : list(tenant, "Pod", null)) {
                if (Json.string(p, "spec", "nodeName") == null && !agents.isEmpty()) {
                    String node = agents.get(i++ % agents.size());
                    JsonObject binding = json("""
                            {"apiVersion":"v1","kind":"Binding","metadata":{"name":"%s","namespace":"%s"},
                             "target":{"apiVersion":"v1","kind":"Node","name":"%s"}}""".formatted(
                            Json.string(p, "metadata", "name"), Json.string(p, "metadata", "namespace"), node));
                    ok(send(tenant, "POST", kind("Pod").objectPath(Json.string(p, "metadata", "namespace"),
                            Json.string(p, "metadata", "name")) + "/binding", binding), "bind");
                    ready(tenant, get(tenant, "Pod", Json.string(p, "metadata", "namespace"),
                            Json.string(p, "metadata", "name")));
                }
            }
        }
    }

    /**
     * Plays the host's kubelets: every tenant Pod copy in {@code namespaces} that is not Running and Ready yet becomes
     * so (its status is written, as a kubelet does).
     *
     * @return how many Pods changed
     */
    public static int hostPodsBecomeReady(ApiClient host, String... namespaces) {
        int n = 0;
        for (String ns : namespaces) {
            for (JsonObject p : list(host, "Pod", ns)) {
                if (p.getAsJsonObject("metadata").has("deletionTimestamp")) {
                    // A kubelet confirms a deleted pod once its containers stopped: delete with grace 0.
                    JsonObject options = json("""
                            {"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,
                             "preconditions":{"uid":"%s"}}""".formatted(Json.string(p, "metadata", "uid")));
                    send(host, "DELETE", kind("Pod").objectPath(ns, Json.string(p, "metadata", "name")), options);
                    n++;
                    continue;
                }
                if (!MigrationPlanner.runningAndReady(p) && Json.labels(p).containsKey(ReverseMapping.TENANT)) {
                    ready(host, p);
                    n++;
                }
            }
        }
        return n;
    }

    private boolean schedulerOn() {
        JsonObject sts = get(host, "StatefulSet", NS, TENANT + "-control-plane");
        if (sts == null) {
            return false;
        }
        return !sts.toString().contains("--disable-scheduler");
    }

    /** Drives passes until the migration completes, acting as the cluster between them. */
    public Result migrate(MigrationRunner runner) {
        return migrate(runner, false);
    }

    /** As {@link #migrate(MigrationRunner)}; with {@code tolerateFaults}, the cluster's own acts may fail and are retried. */
    public Result migrate(MigrationRunner runner, boolean tolerateFaults) {
        Result r = new Result();
        for (int i = 0; i < 40; i++) {
            MigrationProgress p = runner.resume(key(), tenant);
            r.passes.add(p);
            r.outcomes.addAll(p.outcomes());
            if (p instanceof MigrationProgress.Completed || p instanceof MigrationProgress.NotNeeded
                    || p instanceof MigrationProgress.Rejected) {
                return r;
            }
            if (p instanceof MigrationProgress.Failed f && !"WriteFailed".equals(f.reason())
                    && !"ReadFailed".equals(f.reason())) {
                throw new AssertionError("migration failed: " + f);
            }
            try {
                actAsCluster();
            } catch (AssertionError e) {
                if (!tolerateFaults) {
                    throw e;
                }
            }
        }
        throw new AssertionError("migration did not complete in 40 passes: " + r.passes.get(r.passes.size() - 1));
    }

    /** What {@link #migrate} saw. */
    public static final class Result {
        public final List<MigrationProgress> passes = new ArrayList<>();
        public final List<Outcome> outcomes = new ArrayList<>();

        /** The executed writes (and reversal), as {@code Action api Kind ns/name Reason} lines, in order. */
        public List<String> executed(Set<String> knownUids) {
            List<String> out = new ArrayList<>();
            for (Outcome o : outcomes) {
                Decision d = o.decision();
                if (!(d.action().writes() || d.reason().startsWith("Migration"))) {
                    continue;
                }
                if (o instanceof Outcome.NotWritten && d.action().writes()) {
                    continue;
                }
                if (d.reason().equals("MigrationProgress") || d.reason().equals(Reasons.POD_FINALIZED)) {
                    continue; // PodFinalized: the kubelet's confirmation, whose moment the host's kubelets decide
                }
                if (knownUids != null && d.source() != null && d.source().uid() != null
                        && !knownUids.contains(d.source().uid())
                        && ("Pod".equals(d.kind()) || d.reason().equals(TenantTokens.ISSUED))) {
                    continue; // a Pod its controller made during the move, or its token: the offline plan cannot
                              // name them
                }
                out.add(line(o));
            }
            return out;
        }

        private static String line(Outcome o) {
            Decision d = o.decision();
            String api = d.kind().equals("TenantCluster") ? "status"
                    : d.host() != null && d.host().namespace() != null && d.host().namespace().equals("default")
                    || "Node".equals(d.kind()) ? "tenant" : "host";
            if (d.kind().equals("TenantCluster") && d.action() == io.tenantplane.plan.Action.SKIP) {
                api = "host";
            }
            return d.action().display() + " " + api + " " + d.kind() + " "
                    + (d.host() == null ? "-" : (d.host().namespace() == null ? "" : d.host().namespace() + "/")
                    + d.host().name()) + " " + d.reason();
        }
    }

    // ---- reading and writing -----------------------------------------------------------------------------------

    public static TenantCluster cluster(JsonObject json) {
        return ((Parsed.Ok<TenantCluster>) TenantCluster.fromJson(json)).value();
    }

    public JsonObject tenantCluster() {
        return get(host, "TenantCluster", NS, TENANT);
    }

    /** Changes spec.mode, as {@code kubectl edit} would. */
    public void setMode(Mode mode) {
        JsonObject tc = tenantCluster();
        Json.child(tc, "spec").addProperty("mode", mode.value());
        ok(send(host, "PUT", kind("TenantCluster").objectPath(NS, TENANT), tc), "set mode");
    }

    /** Edits the IsolationProfile. */
    public void editProfile(Consumer<JsonObject> edit) {
        JsonObject p = get(host, "IsolationProfile", NS, "restricted");
        edit.accept(p);
        ok(send(host, "PUT", kind("IsolationProfile").objectPath(NS, "restricted"), p), "edit profile");
    }

    /** kind/namespace/name -> uid and resourceVersion of every tenant object of the kinds users make. */
    public Map<String, String> tenantIdentities() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : List.of("ConfigMap", "Service", "ReplicaSet", "Pod", "Secret")) {
            for (JsonObject o : list(tenant, k, null)) {
                out.put(k + " " + Json.string(o, "metadata", "namespace") + "/" + Json.string(o, "metadata", "name"),
                        Json.string(o, "metadata", "uid") + "@" + Json.string(o, "metadata", "resourceVersion"));
            }
        }
        return out;
    }

    /** kind namespace/name of every object in the host namespaces of the tenant, sorted. */
    public List<String> hostInventory() {
        List<String> out = new ArrayList<>();
        for (String ns : List.of(NS, OWN)) {
            for (String k : List.of("Pod", "Service", "ConfigMap", "Secret", "ServiceAccount", "NetworkPolicy",
                    "ResourceQuota", "LimitRange", "StatefulSet", "Role", "RoleBinding")) {
                for (JsonObject o : list(host, k, ns)) {
                    out.add(k + " " + ns + "/" + Json.string(o, "metadata", "name"));
                }
            }
        }
        if (get(host, "Namespace", null, OWN) != null) {
            out.add("Namespace " + OWN);
        }
        return out.stream().sorted().toList();
    }

    public static ResourceKind kind(String kind) {
        return ResourceKind.wellKnown(null, kind).orElseThrow(() -> new IllegalArgumentException(kind));
    }

    public static List<JsonObject> list(ApiClient c, String kind, String ns) {
        Reply r = send(c, "GET", kind(kind).collectionPath(ns), null);
        if (r.code() == 404) {
            return List.of();
        }
        List<JsonObject> out = new ArrayList<>();
        for (JsonElement e : ok(r, "list " + kind).getAsJsonArray("items")) {
            JsonObject o = e.getAsJsonObject();
            o.addProperty("kind", kind);
            o.addProperty("apiVersion", kind(kind).apiVersion());
            out.add(o);
        }
        return out;
    }

    public static JsonObject get(ApiClient c, String kind, String ns, String name) {
        Reply r = send(c, "GET", kind(kind).objectPath(ns, name), null);
        return r.code() == 404 ? null : ok(r, "get " + kind);
    }

    static JsonObject create(ApiClient c, JsonObject o) {
        ResourceKind k = ResourceKind.wellKnown(Json.string(o, "apiVersion"), Json.string(o, "kind")).orElseThrow();
        return ok(send(c, "POST", k.collectionPath(Json.string(o, "metadata", "namespace")), o), "create "
                + k.kind() + " " + Json.string(o, "metadata", "name"));
    }

    private static void ready(ApiClient c, JsonObject pod) {
        JsonObject status = json("""
                {"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}""");
        // A kubelet keeps the QoS class the API server computed; a status write that changes it is refused.
        String qos = Json.string(pod, "status", "qosClass");
        if (qos != null) {
            status.addProperty("qosClass", qos);
        }
        pod.add("status", status);
        pod.addProperty("kind", "Pod");
        pod.addProperty("apiVersion", "v1");
        ok(send(c, "PUT", kind("Pod").objectPath(Json.string(pod, "metadata", "namespace"),
                Json.string(pod, "metadata", "name")) + "/status", pod), "pod status");
    }

    private void createNode(String name, Map<String, String> labels) {
        JsonObject made = get(tenant, "Node", null, name);
        if (made == null) {
            made = create(tenant, node(name, labels));
        }
        made.add("status", node(name, labels).get("status"));
        made.addProperty("kind", "Node");
        made.addProperty("apiVersion", "v1");
        ok(send(tenant, "PUT", kind("Node").objectPath(null, name) + "/status", made), "node status");
    }

    private static JsonObject node(String name, Map<String, String> labels) {
        JsonObject n = json("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s"},
                 "status":{"conditions":[{"type":"Ready","status":"True"}]}}""".formatted(name));
        JsonObject l = Json.child(n, "metadata", "labels");
        labels.forEach(l::addProperty);
        return n;
    }

    static JsonObject json(String text) {
        return JsonParser.parseString(text).getAsJsonObject();
    }

    record Reply(int code, JsonObject body) {
    }

    static JsonObject ok(Reply r, String what) {
        if (r.code() < 200 || r.code() >= 300) {
            throw new AssertionError(what + ": HTTP " + r.code() + " " + r.body());
        }
        return r.body();
    }

    static Reply send(ApiClient client, String method, String path, JsonElement body) {
        try {
            Map<String, String> headers = new HashMap<>();
            headers.put("Accept", "application/json");
            headers.put("Content-Type", "application/json");
            Call call = client.buildCall(null, path, method, new ArrayList<Pair>(), List.of(),
                    body, headers, new HashMap<>(), new HashMap<>(),
                    new String[0], null);
            try (Response r = call.execute()) {
                String text = r.body() == null ? "" : r.body().string();
                JsonObject o = text.isBlank() ? null : JsonParser.parseString(text).getAsJsonObject();
                return new Reply(r.code(), o);
            }
        } catch (ApiException | IOException e) {
            throw new IllegalStateException(method + " " + path, e);
        }
    }

    private static ApiClient client(KubeApiServer server) {
        ApiClient c = new ClientBuilder().setBasePath(server.url()).build();
        c.setReadTimeout(10_000);
        return c;
    }

    /** A runner for this world with quick retries. */
    public MigrationRunner runner() {
        return MigrationRunner.builder().hostClient(host)
                .retries(3, Duration.ofMillis(5), Duration.ofMillis(20)).build();
    }

    @Override
    public void close() {
        hostServer.close();
        tenantServer.close();
    }
}
