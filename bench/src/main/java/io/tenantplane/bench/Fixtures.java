package io.tenantplane.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.model.ObjectMeta;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Deterministic tenant workloads for the benchmarks: objects shaped the way a tenant API server returns them
 * (uid, resourceVersion, managedFields, a Pod's status), in a fixed mix of kinds.
 *
 * <p>Every block of ten objects is one small application in one virtual namespace: a ConfigMap, a Secret, two
 * Services selecting the app's pods, and six Pods that mount the ConfigMap and the Secret, read both through
 * {@code envFrom} and {@code env[].valueFrom}, and carry a downward-API field. Virtual namespaces rotate over
 * {@link #NAMESPACES} so references stay within a namespace.
 */
public final class Fixtures {

    /** The tenant every fixture belongs to. */
    public static final String TENANT = "bench";
    /** The host namespace of {@link #TENANT}. */
    public static final String HOST_NAMESPACE = "tenant-bench";
    /** How many virtual namespaces the objects spread over. */
    public static final int NAMESPACES = 20;
    /** The kinds the fixtures hold, all synced by {@link #policy()}. */
    public static final List<String> KINDS = List.of("ConfigMap", "Secret", "Service", "Pod");

    private static final String TIMESTAMP = "2025-01-01T00:00:00Z";

    private Fixtures() {
    }

    /** A SyncPolicy syncing every kind in {@link #KINDS} from every virtual namespace. */
    public static SyncPolicy policy() {
        List<SyncPolicy.KindRule> rules = KINDS.stream()
                .map(k -> new SyncPolicy.KindRule(k, null, true, null, null, null))
                .toList();
        return new SyncPolicy("tenantplane.io/v1alpha1", SyncPolicy.KIND, ObjectMeta.of(HOST_NAMESPACE, "bench"),
                new SyncPolicy.Spec(rules));
    }

    /** {@code count} tenant objects of the mixed kinds, the same ones on every call. */
    public static List<JsonObject> tenantObjects(int count) {
        List<JsonObject> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(tenantObject(i));
        }
        return out;
    }

    /** The {@code i}-th tenant object. */
    public static JsonObject tenantObject(int i) {
        int app = i / 10;
        String ns = namespace(app);
        String appName = "app-" + app;
        return switch (i % 10) {
            case 0 -> configMap(ns, appName, i);
            case 1 -> secret(ns, appName, i);
            case 2 -> service(ns, appName, appName, i);
            case 3 -> service(ns, appName + "-headless", appName, i);
            default -> pod(ns, appName, i);
        };
    }

    /** The virtual namespace of an application block. */
    static String namespace(int app) {
        return "ns-" + (app % NAMESPACES);
    }

    /** An empty host snapshot: every object is a {@code Create}. */
    public static Snapshot emptyHost(List<JsonObject> tenantObjects) {
        return new Snapshot(TENANT, HOST_NAMESPACE, policy(), TransformOptions.defaults(), tenantObjects, List.of());
    }

    /**
     * A converged host snapshot: the host holds what the planner wanted, plus what an API server adds (uid,
     * resourceVersion, creationTimestamp, a Service's clusterIP, a Pod's nodeName and status), so planning it again
     * finds every object {@code Unchanged}.
     */
    public static Snapshot convergedHost(List<JsonObject> tenantObjects) {
        return new Snapshot(TENANT, HOST_NAMESPACE, policy(), TransformOptions.defaults(), tenantObjects,
                hostCopies(new Planner().plan(emptyHost(tenantObjects))));
    }

    /** The host objects a server would hold after executing every {@code Create} of {@code plan}. */
    public static List<JsonObject> hostCopies(Plan plan) {
        List<JsonObject> hosts = new ArrayList<>();
        int n = 0;
        for (Decision d : plan.decisions()) {
            if (d.action() != Action.CREATE) {
                throw new IllegalStateException("expected only creates on an empty host, got " + d);
            }
            JsonObject h = d.desired().deepCopy();
            JsonObject meta = h.getAsJsonObject("metadata");
            meta.addProperty("uid", uid("host", n));
            meta.addProperty("resourceVersion", Integer.toString(1000 + n));
            meta.addProperty("creationTimestamp", TIMESTAMP);
            switch (d.kind()) {
                case "Service" -> {
                    JsonObject spec = h.getAsJsonObject("spec");
                    if (!spec.has("clusterIP")) {
                        spec.addProperty("clusterIP", "10.96." + (n / 250) % 250 + "." + n % 250);
                    }
                }
                case "Pod" -> {
                    h.getAsJsonObject("spec").addProperty("nodeName", "node-" + n % 3);
                    h.add("status", podStatus());
                }
                default -> { }
            }
            hosts.add(h);
            n++;
        }
        return hosts;
    }

    /** The plain forms the naming benchmark names: mostly short, one in eight too long and hashed. */
    public static String[][] nameTriples(int count) {
        String[][] out = new String[count][];
        for (int i = 0; i < count; i++) {
            String name = i % 8 == 7
                    ? "a-rather-long-deployment-name-that-needs-hashing-" + i
                    : "web-" + i;
            out[i] = new String[] {name, namespace(i / 10), TENANT};
        }
        return out;
    }

    static String uid(String what, int i) {
        return UUID.nameUUIDFromBytes((what + "/" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
    }

    private static JsonObject meta(String kind, String ns, String name, String app, int i) {
        JsonObject m = new JsonObject();
        m.addProperty("name", name);
        m.addProperty("namespace", ns);
        m.addProperty("uid", uid(kind, i));
        m.addProperty("resourceVersion", Integer.toString(500 + i));
        m.addProperty("creationTimestamp", TIMESTAMP);
        JsonObject labels = new JsonObject();
        labels.addProperty("app", app);
        labels.addProperty("tier", i % 3 == 0 ? "frontend" : "backend");
        m.add("labels", labels);
        JsonObject ann = new JsonObject();
        ann.addProperty("team.example.com/owner", "team-" + (i % 7));
        m.add("annotations", ann);
        JsonArray mf = new JsonArray();
        JsonObject entry = new JsonObject();
        entry.addProperty("manager", "kubectl-client-side-apply");
        entry.addProperty("operation", "Update");
        entry.addProperty("apiVersion", "v1");
        entry.addProperty("time", TIMESTAMP);
        entry.addProperty("fieldsType", "FieldsV1");
        JsonObject fields = new JsonObject();
        JsonObject fmeta = new JsonObject();
        fmeta.add("f:labels", object("f:app", new JsonObject()));
        fields.add("f:metadata", fmeta);
        entry.add("fieldsV1", fields);
        mf.add(entry);
        m.add("managedFields", mf);
        return m;
    }

    private static JsonObject object(String key, JsonObject value) {
        JsonObject o = new JsonObject();
        o.add(key, value);
        return o;
    }

    private static JsonObject base(String kind, String ns, String name, String app, int i) {
        JsonObject o = new JsonObject();
        o.addProperty("apiVersion", "v1");
        o.addProperty("kind", kind);
        o.add("metadata", meta(kind, ns, name, app, i));
        return o;
    }

    private static JsonObject configMap(String ns, String app, int i) {
        JsonObject o = base("ConfigMap", ns, app + "-config", app, i);
        JsonObject data = new JsonObject();
        data.addProperty("LOG_LEVEL", "info");
        data.addProperty("FEATURE_FLAGS", "a,b,c");
        data.addProperty("app.properties", "server.port=8080\nserver.threads=16\ncache.size=" + (i % 100) + "\n");
        o.add("data", data);
        return o;
    }

    private static JsonObject secret(String ns, String app, int i) {
        JsonObject o = base("Secret", ns, app + "-secret", app, i);
        o.addProperty("type", "Opaque");
        JsonObject data = new JsonObject();
        data.addProperty("username", "YWRtaW4=");
        data.addProperty("password", java.util.Base64.getEncoder().encodeToString(
                ("secret-password-" + Integer.toHexString(i)).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        o.add("data", data);
        return o;
    }

    private static JsonObject service(String ns, String name, String app, int i) {
        JsonObject o = base("Service", ns, name, app, i);
        JsonObject spec = new JsonObject();
        spec.addProperty("type", "ClusterIP");
        boolean headless = name.endsWith("-headless");
        spec.addProperty("clusterIP", headless ? "None" : "10.43.0." + i % 250);
        JsonObject sel = new JsonObject();
        sel.addProperty("app", app);
        spec.add("selector", sel);
        JsonArray ports = new JsonArray();
        JsonObject p = new JsonObject();
        p.addProperty("name", "http");
        p.addProperty("port", 80);
        p.addProperty("targetPort", 8080);
        p.addProperty("protocol", "TCP");
        ports.add(p);
        spec.add("ports", ports);
        o.add("spec", spec);
        return o;
    }

    private static JsonObject pod(String ns, String app, int i) {
        JsonObject o = base("Pod", ns, app + "-" + Integer.toString(i, 36).toLowerCase(Locale.ROOT), app, i);
        JsonObject spec = new JsonObject();
        JsonArray volumes = new JsonArray();
        volumes.add(volume("config", "configMap", "name", app + "-config"));
        volumes.add(volume("creds", "secret", "secretName", app + "-secret"));
        spec.add("volumes", volumes);
        JsonArray containers = new JsonArray();
        JsonObject c = new JsonObject();
        c.addProperty("name", "main");
        c.addProperty("image", "registry.example.com/" + app + ":1." + i % 10);
        c.addProperty("imagePullPolicy", "IfNotPresent");
        JsonArray envFrom = new JsonArray();
        envFrom.add(object("configMapRef", named(app + "-config")));
        c.add("envFrom", envFrom);
        JsonArray env = new JsonArray();
        env.add(envVar("DB_PASSWORD", "secretKeyRef", app + "-secret", "password"));
        env.add(envVar("LOG_LEVEL", "configMapKeyRef", app + "-config", "LOG_LEVEL"));
        JsonObject podName = new JsonObject();
        podName.addProperty("name", "POD_NAME");
        JsonObject fieldRef = new JsonObject();
        fieldRef.addProperty("fieldPath", "metadata.name");
        podName.add("valueFrom", object("fieldRef", fieldRef));
        env.add(podName);
        c.add("env", env);
        JsonArray ports = new JsonArray();
        JsonObject port = new JsonObject();
        port.addProperty("containerPort", 8080);
        port.addProperty("protocol", "TCP");
        ports.add(port);
        c.add("ports", ports);
        JsonObject resources = new JsonObject();
        JsonObject requests = new JsonObject();
        requests.addProperty("cpu", "100m");
        requests.addProperty("memory", "128Mi");
        resources.add("requests", requests);
        c.add("resources", resources);
        JsonArray mounts = new JsonArray();
        mounts.add(mount("config", "/etc/app"));
        mounts.add(mount("creds", "/etc/creds"));
        c.add("volumeMounts", mounts);
        JsonObject security = new JsonObject();
        security.addProperty("runAsNonRoot", true);
        security.addProperty("allowPrivilegeEscalation", false);
        JsonObject caps = new JsonObject();
        JsonArray drop = new JsonArray();
        drop.add("ALL");
        caps.add("drop", drop);
        security.add("capabilities", caps);
        JsonObject seccomp = new JsonObject();
        seccomp.addProperty("type", "RuntimeDefault");
        security.add("seccompProfile", seccomp);
        c.add("securityContext", security);
        containers.add(c);
        spec.add("containers", containers);
        spec.addProperty("restartPolicy", "Always");
        spec.addProperty("terminationGracePeriodSeconds", 30);
        spec.addProperty("dnsPolicy", "ClusterFirst");
        // These workloads do not call their API: no token is mounted (by the tenant's admission) nor minted, so the
        // pass and the hand-written loop it is measured against write the same objects.
        spec.addProperty("automountServiceAccountToken", false);
        o.add("spec", spec);
        o.add("status", podStatus());
        return o;
    }

    private static JsonObject podStatus() {
        JsonObject status = new JsonObject();
        status.addProperty("phase", "Running");
        status.addProperty("podIP", "10.42.0.7");
        status.addProperty("startTime", TIMESTAMP);
        JsonArray conds = new JsonArray();
        for (String t : List.of("Initialized", "Ready", "ContainersReady", "PodScheduled")) {
            JsonObject cond = new JsonObject();
            cond.addProperty("type", t);
            cond.addProperty("status", "True");
            cond.addProperty("lastTransitionTime", TIMESTAMP);
            conds.add(cond);
        }
        status.add("conditions", conds);
        return status;
    }

    private static JsonObject named(String name) {
        JsonObject o = new JsonObject();
        o.addProperty("name", name);
        return o;
    }

    private static JsonObject volume(String name, String type, String refField, String ref) {
        JsonObject v = named(name);
        JsonObject src = new JsonObject();
        src.addProperty(refField, ref);
        v.add(type, src);
        return v;
    }

    private static JsonObject envVar(String name, String refType, String ref, String key) {
        JsonObject e = named(name);
        JsonObject r = named(ref);
        r.addProperty("key", key);
        e.add("valueFrom", object(refType, r));
        return e;
    }

    private static JsonObject mount(String name, String path) {
        JsonObject m = named(name);
        m.addProperty("mountPath", path);
        m.addProperty("readOnly", true);
        return m;
    }
}
