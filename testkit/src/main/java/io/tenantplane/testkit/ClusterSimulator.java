package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The other components of a cluster, as {@link Simulation} configures them, acting on the store the way they act
 * on a real API server (every change is a write that watches see):
 * <ul>
 *   <li>nodes and their kubelets, after KWOK's node and pod stages ({@code kubernetes-sigs/kwok}
 *       {@code kustomize/stage/pod/fast}): a bound pod becomes Running and Ready, a deleted one is confirmed by a
 *       delete with grace 0 and a uid precondition, as {@code pkg/kubelet/status/status_manager.go} does;</li>
 *   <li>the scheduler: an unbound pod of {@code default-scheduler} is bound to a node whose labels match its
 *       {@code nodeSelector}, round robin;</li>
 *   <li>the StatefulSet controller ({@link StatefulSetController});</li>
 *   <li>the ResourceQuota controller: {@code status.hard} and {@code status.used} of each quota;</li>
 *   <li>the ReplicaSet and Deployment controllers ({@code pkg/controller/replicaset}, {@code pkg/controller/deployment}),
 *       simplified: a changed template gets a new ReplicaSet named by the pod-template hash, which is scaled up
 *       at once; the old ones go to zero when the new one is ready;</li>
 *   <li>the garbage collector ({@code pkg/controller/garbagecollector}): a dependent whose owners are all gone is
 *       deleted; an owner deleted with {@code Foreground} waits (finalizer {@code foregroundDeletion}) until its
 *       dependents are gone; with {@code Orphan} (finalizer {@code orphan}) its dependents lose the owner
 *       reference.</li>
 * </ul>
 */
final class ClusterSimulator implements AutoCloseable {
    private static final String HASH_LABEL = "pod-template-hash";

    private final Store store;
    private final Registry registry;
    private final Clock clock;
    private final Simulation config;
    private final BooleanSupplier paused;
    private final Map<String, Long> seen = new HashMap<>();
    private final Map<String, String> podIps = new HashMap<>();
    private int nextPodIp = 2;
    private int nextNode;
    private volatile boolean running;
    private Thread thread;
    private String lastVersion = "";
    private final Store.WriteOptions opts = Store.WriteOptions.defaults();

    private final ContainerLogs logs;
    private final StatefulSetController statefulSets;
    /**
     * The nodes this simulator registered. A node's simulation label is not proof: a tenant's node mirror copies its
     * host node's labels, and the tenant's own server must not take the mirror for a node it runs.
     */
    private final Set<String> own = java.util.concurrent.ConcurrentHashMap.newKeySet();

    ClusterSimulator(Store store, Registry registry, Clock clock, Simulation config, BooleanSupplier paused,
                     ContainerLogs logs) {
        this.logs = logs;
        this.store = store;
        this.registry = registry;
        this.clock = clock;
        this.config = config;
        this.paused = paused;
        this.statefulSets = new StatefulSetController(store, registry, clock);
    }

    void start() {
        registerNodes();
        running = true;
        thread = Thread.ofPlatform().daemon().name("testkit-simulator").start(this::loop);
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        while (running) {
            try {
                String version = store.resourceVersion();
                boolean timers = !seen.isEmpty();
                if (!paused.getAsBoolean() && (!version.equals(lastVersion) || timers)) {
                    lastVersion = version;
                    tick();
                }
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // A write lost a race with a client (409, 404): the next tick sees the new state.
                            }
        }
    }

    /** One pass of every component; package-private so tests can drive it without waiting. */
    synchronized void tick() {
        if (config.controllers()) {
            deployments();
            replicaSets();
            statefulSets.sync();
            resourceQuotas();
            garbageCollect();
        }
        pods();
    }

    // ---- nodes ----

    private void registerNodes() {
        ResourceType nodes = type("", "nodes");
        for (int i = 0; i < config.nodes(); i++) {
            String name = "sim-node-" + i;
            String ip = "172.18.0." + (10 + i);
            JsonObject node = Json.object("apiVersion", "v1", "kind", "Node", "metadata", Json.object("name", name,
                    "labels", Json.object("kubernetes.io/hostname", name, "kubernetes.io/os", "linux",
                            "kubernetes.io/arch", "amd64", Simulation.NODE_LABEL, "true"),
                    "annotations", Json.object("node.alpha.kubernetes.io/ttl", "0")));
            JsonObject created;
            try {
                created = store.create(nodes, null, node, opts);
            } catch (ApiError e) {
                continue;
            }
            own.add(name);
            String now = now();
            JsonObject status = Json.object(
                    "capacity", Json.object("cpu", "32", "memory", "256Gi", "pods", "110"),
                    "allocatable", Json.object("cpu", "32", "memory", "256Gi", "pods", "110"),
                    "conditions", Json.array(Json.object("type", "Ready", "status", "True", "reason",
                            "KubeletReady", "message", "kubelet is posting ready status", "lastHeartbeatTime", now,
                            "lastTransitionTime", now)),
                    "addresses", Json.array(Json.object("type", "InternalIP", "address", ip),
                            Json.object("type", "Hostname", "address", name)),
                    "daemonEndpoints", Json.object("kubeletEndpoint", Json.object("Port", 10250)),
                    "nodeInfo", Json.object("kubeletVersion", "v1.32.0", "kubeProxyVersion", "", "osImage",
                            "simulated", "containerRuntimeVersion", "containerd://1.7.0", "operatingSystem", "linux",
                            "architecture", "amd64", "kernelVersion", "", "machineID", "", "systemUUID", "",
                            "bootID", ""));
            created.add("status", status);
            store.update(nodes, null, name, created, true, opts);
        }
    }

    private List<JsonObject> simulatedNodes() {
        return list(type("", "nodes"), null, Simulation.NODE_LABEL + "=true", null).stream()
                .filter(n -> own.contains(Json.str(Json.meta(n), "name"))).toList();
    }

    /** Whether this simulator runs the kubelet of node {@code name}. */
    boolean runs(String name) {
        return own.contains(name);
    }

    // ---- scheduler and kubelets ----

    private void pods() {
        ResourceType pods = type("", "pods");
        List<JsonObject> nodes = simulatedNodes();
        Map<String, JsonObject> byName = new HashMap<>();
        nodes.forEach(n -> byName.put(Json.str(Json.meta(n), "name"), n));
        Set<String> live = new HashSet<>();
        long nowNanos = System.nanoTime();
        for (JsonObject pod : list(pods, null, null, null)) {
            JsonObject m = Json.meta(pod);
            String uid = Json.str(m, "uid");
            String ns = Json.str(m, "namespace");
            String name = Json.str(m, "name");
            JsonObject spec = Json.obj(pod, "spec");
            String node = Json.str(spec, "nodeName");
            String phase = Json.str(Json.obj(pod, "status"), "phase");
            if (node == null || node.isEmpty()) {
                if (m.has("deletionTimestamp") || nodes.isEmpty()
                        || !"default-scheduler".equals(Json.str(spec, "schedulerName"))) {
                    continue;
                }
                JsonObject target = pick(nodes, Json.obj(spec, "nodeSelector"));
                if (target != null) {
                    store.bind(pods, ns, name, Json.object("target", Json.object("kind", "Node", "name",
                            Json.str(Json.meta(target), "name"))));
                }
                continue;
            }
            JsonObject host = byName.get(node);
            if (host == null) {
                continue;  // bound to a node no simulated kubelet runs
            }
            if (m.has("deletionTimestamp")) {
                String key = "stop/" + uid;
                live.add(key);
                long since = seen.computeIfAbsent(key, k -> nowNanos);
                long grace = m.has("deletionGracePeriodSeconds") ? m.get("deletionGracePeriodSeconds").getAsLong() : 0;
                long wait = Math.min(config.stopDelay().toNanos(), Duration.ofSeconds(grace).toNanos());
                if (nowNanos - since >= wait) {
                    store.delete(pods, ns, name, Json.object("gracePeriodSeconds", 0, "preconditions",
                            Json.object("uid", uid)), opts);
                }
                continue;
            }
            if ("Running".equals(phase)) {
                startEphemeralContainers(pods, pod, ns, name, opts);
                continue;
            }
            if (!"Pending".equals(phase)) {
                continue;
            }
            String key = "start/" + uid;
            live.add(key);
            long since = seen.computeIfAbsent(key, k -> nowNanos);
            if (nowNanos - since < config.startDelay().toNanos()) {
                continue;
            }
            pod.add("status", runningStatus(pod, host));
            store.update(pods, ns, name, pod, true, opts);
            // A container's first log line, so that pods/log of a simulated pod shows it started.
            for (JsonElement c : Json.arr(spec, "containers")) {
                JsonObject container = c.getAsJsonObject();
                logs.append(uid, Json.str(container, "name"), clock.instant(), "simulated container "
                        + Json.str(container, "name") + " started (image " + Json.str(container, "image") + ")");
            }
        }
        seen.keySet().retainAll(live);
    }

    /**
     * Starts the ephemeral containers added to a running pod ({@code kubectl debug}), as a kubelet does: each gets a
     * running entry in {@code status.ephemeralContainerStatuses} and its first log line.
     */
    private void startEphemeralContainers(ResourceType pods, JsonObject pod, String ns, String name,
                                          Store.WriteOptions opts) {
        JsonArray wanted = Json.arr(Json.obj(pod, "spec"), "ephemeralContainers");
        if (wanted == null || wanted.isEmpty()) {
            return;
        }
        JsonObject status = Json.obj(pod, "status");
        JsonArray statuses = Json.arr(status, "ephemeralContainerStatuses");
        java.util.Set<String> started = new java.util.HashSet<>();
        if (statuses != null) {
            statuses.forEach(st -> started.add(Json.str(st.getAsJsonObject(), "name")));
        } else {
            statuses = new JsonArray();
        }
        JsonObject m = Json.meta(pod);
        boolean added = false;
        for (JsonElement c : wanted) {
            JsonObject container = c.getAsJsonObject();
            String cname = Json.str(container, "name");
            if (started.contains(cname)) {
                continue;
            }
            String image = Json.str(container, "image");
            statuses.add(Json.object("name", cname, "state", Json.object("running", Json.object("startedAt", now())),
                    "lastState", new JsonObject(), "ready", false, "restartCount", 0, "image", image, "imageID",
                    "docker.io/library/" + image + "@sha256:" + hex(image, 64), "containerID",
                    containerId(m, container)));
            logs.append(Json.str(m, "uid"), cname, clock.instant(), "simulated container " + cname
                    + " started (image " + image + ")");
            added = true;
        }
        if (added) {
            status.add("ephemeralContainerStatuses", statuses);
            store.update(pods, ns, name, pod, true, opts);
        }
    }

    private JsonObject pick(List<JsonObject> nodes, JsonObject selector) {
        List<JsonObject> fit = new ArrayList<>();
        for (JsonObject n : nodes) {
            JsonObject labels = Json.obj(Json.meta(n), "labels");
            boolean ok = true;
            if (selector != null) {
                for (Map.Entry<String, JsonElement> e : selector.entrySet()) {
                    ok &= labels != null && e.getValue().getAsString().equals(Json.str(labels, e.getKey()));
                }
            }
            if (ok && !Json.bool(Json.obj(n, "spec"), "unschedulable")) {
                fit.add(n);
            }
        }
        return fit.isEmpty() ? null : fit.get(nextNode++ % fit.size());
    }

    private JsonObject runningStatus(JsonObject pod, JsonObject node) {
        JsonObject old = Json.obj(pod, "status");
        JsonObject m = Json.meta(pod);
        JsonObject annotations = Json.obj(m, "annotations");
        String fail = annotations == null ? null : Json.str(annotations, Simulation.FAIL_ANNOTATION);
        boolean complete = annotations != null && "true".equals(Json.str(annotations, Simulation.COMPLETE_ANNOTATION));
        String now = now();
        String hostIp = null;
        for (JsonElement a : Json.arr(Json.obj(node, "status"), "addresses")) {
            if ("InternalIP".equals(Json.str(a.getAsJsonObject(), "type"))) {
                hostIp = Json.str(a.getAsJsonObject(), "address");
            }
        }
        String podIp = podIps.computeIfAbsent(Json.str(m, "uid"), u -> {
            int n = nextPodIp++;
            return "10.244." + (n / 250) % 250 + "." + (n % 250 + 2);
        });
        boolean ended = fail != null || complete;
        String phase = fail != null ? "Failed" : complete ? "Succeeded" : "Running";
        JsonArray containers = new JsonArray();
        for (JsonElement c : Json.arr(Json.obj(pod, "spec"), "containers")) {
            JsonObject container = c.getAsJsonObject();
            String image = Json.str(container, "image");
            JsonObject state = ended
                    ? Json.object("terminated", Json.object("exitCode", fail != null ? parseExit(fail) : 0,
                            "reason", fail != null ? "Error" : "Completed", "startedAt", now, "finishedAt", now,
                            "containerID", containerId(m, container)))
                    : Json.object("running", Json.object("startedAt", now));
            containers.add(Json.object("name", Json.str(container, "name"), "state", state, "lastState",
                    new JsonObject(), "ready", !ended, "restartCount", 0, "image", image, "imageID",
                    "docker.io/library/" + image + "@sha256:" + hex(image, 64), "containerID",
                    containerId(m, container), "started", !ended));
        }
        String ready = ended ? "False" : "True";
        JsonArray conditions = Json.array(
                Json.object("type", "PodReadyToStartContainers", "status", ready, "lastProbeTime", null,
                        "lastTransitionTime", now),
                Json.object("type", "Initialized", "status", "True", "lastProbeTime", null, "lastTransitionTime", now),
                Json.object("type", "Ready", "status", ready, "lastProbeTime", null, "lastTransitionTime", now),
                Json.object("type", "ContainersReady", "status", ready, "lastProbeTime", null,
                        "lastTransitionTime", now),
                Json.object("type", "PodScheduled", "status", "True", "lastProbeTime", null,
                        "lastTransitionTime", now));
        JsonObject status = Json.object("phase", phase, "conditions", conditions, "hostIP", hostIp, "hostIPs",
                Json.array(Json.object("ip", hostIp)), "podIP", podIp, "podIPs", Json.array(Json.object("ip", podIp)),
                "startTime", now, "containerStatuses", containers);
        if (old != null && old.has("qosClass")) {
            status.add("qosClass", old.get("qosClass").deepCopy());
        }
        return status;
    }

    private static int parseExit(String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    private static String containerId(JsonObject meta, JsonObject container) {
        return "containerd://" + hex(Json.str(meta, "uid") + "/" + Json.str(container, "name"), 64);
    }

    // ---- ReplicaSets and Deployments ----

    private void replicaSets() {
        ResourceType sets = type("apps", "replicasets");
        ResourceType pods = type("", "pods");
        for (JsonObject rs : list(sets, null, null, null)) {
            JsonObject m = Json.meta(rs);
            if (m.has("deletionTimestamp")) {
                continue;
            }
            String ns = Json.str(m, "namespace");
            String uid = Json.str(m, "uid");
            JsonObject spec = Json.obj(rs, "spec");
            int want = spec.has("replicas") ? spec.get("replicas").getAsInt() : 1;
            List<JsonObject> owned = new ArrayList<>();
            for (JsonObject pod : list(pods, ns, null, null)) {
                if (controlledBy(pod, uid) && !Json.meta(pod).has("deletionTimestamp")) {
                    String phase = Json.str(Json.obj(pod, "status"), "phase");
                    if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                        owned.add(pod);
                    }
                }
            }
            String failure = null;
            for (int i = owned.size(); i < want && failure == null; i++) {
                JsonObject template = Json.obj(spec, "template");
                JsonObject meta = Json.obj(template, "metadata") == null ? new JsonObject()
                        : Json.obj(template, "metadata").deepCopy();
                meta.addProperty("generateName", Json.str(m, "name") + "-");
                meta.add("ownerReferences", Json.array(Json.object("apiVersion", "apps/v1", "kind", "ReplicaSet",
                        "name", Json.str(m, "name"), "uid", uid, "controller", true, "blockOwnerDeletion", true)));
                JsonObject pod = Json.object("apiVersion", "v1", "kind", "Pod", "metadata", meta, "spec",
                        Json.obj(template, "spec").deepCopy());
                try {
                    store.create(pods, ns, pod, opts);
                } catch (ApiError e) {
                    // manageReplicas stops at the first failed create; calculateStatus reports it.
                    failure = e.getMessage();
                }
            }
            for (int i = want; i < owned.size(); i++) {
                JsonObject pod = owned.get(owned.size() - 1 - (i - want));
                store.delete(pods, ns, Json.str(Json.meta(pod), "name"), new JsonObject(), opts);
            }
            int ready = 0;
            for (JsonObject pod : owned) {
                ready += isReady(pod) ? 1 : 0;
            }
            int replicas = owned.size();
            JsonObject status = Json.object("replicas", replicas, "fullyLabeledReplicas", replicas, "readyReplicas",
                    ready, "availableReplicas", ready, "observedGeneration", m.get("generation").getAsLong());
            replicaFailure(Json.obj(rs, "status"), status, failure);
            if (!Json.same(status, Json.obj(rs, "status"))) {
                rs.add("status", status);
                store.update(sets, ns, Json.str(m, "name"), rs, true, opts);
            }
        }
    }

    /**
     * The {@code ReplicaFailure} condition of {@code calculateStatus} ({@code pkg/controller/replicaset/
     * replica_set_utils.go}): set with reason {@code FailedCreate} and the error while a pod cannot be created, kept
     * as it was while it still cannot, removed once creating works again.
     */
    private void replicaFailure(JsonObject before, JsonObject status, String failure) {
        JsonObject kept = null;
        JsonArray conditions = Json.arr(before, "conditions");
        if (conditions != null) {
            for (JsonElement c : conditions) {
                if ("ReplicaFailure".equals(Json.str(c.getAsJsonObject(), "type"))) {
                    kept = c.getAsJsonObject();
                }
            }
        }
        if (failure == null) {
            return;
        }
        JsonObject condition = kept != null ? kept.deepCopy() : Json.object("type", "ReplicaFailure", "status", "True",
                "lastTransitionTime", now(), "reason", "FailedCreate",
                "message", failure);
        status.add("conditions", Json.array(condition));
    }

    private void deployments() {
        ResourceType deployments = type("apps", "deployments");
        ResourceType sets = type("apps", "replicasets");
        for (JsonObject d : list(deployments, null, null, null)) {
            JsonObject m = Json.meta(d);
            if (m.has("deletionTimestamp")) {
                continue;
            }
            String ns = Json.str(m, "namespace");
            String uid = Json.str(m, "uid");
            JsonObject spec = Json.obj(d, "spec");
            int want = spec.has("replicas") ? spec.get("replicas").getAsInt() : 1;
            JsonObject template = Json.obj(spec, "template");
            String hash = templateHash(template);
            String newName = Json.str(m, "name") + "-" + hash;
            JsonObject newSet = null;
            List<JsonObject> old = new ArrayList<>();
            for (JsonObject rs : list(sets, ns, null, null)) {
                if (controlledBy(rs, uid)) {
                    if (Json.str(Json.meta(rs), "name").equals(newName)) {
                        newSet = rs;
                    } else {
                        old.add(rs);
                    }
                }
            }
            if (newSet == null) {
                JsonObject podMeta = Json.obj(template, "metadata") == null ? new JsonObject()
                        : Json.obj(template, "metadata").deepCopy();
                Json.child(podMeta, "labels").addProperty(HASH_LABEL, hash);
                JsonObject selector = Json.obj(spec, "selector").deepCopy();
                Json.child(selector, "matchLabels").addProperty(HASH_LABEL, hash);
                JsonObject rsTemplate = Json.object("metadata", podMeta, "spec", Json.obj(template, "spec").deepCopy());
                JsonObject rsLabels = Json.obj(podMeta, "labels").deepCopy();
                JsonObject rs = Json.object("apiVersion", "apps/v1", "kind", "ReplicaSet", "metadata",
                        Json.object("name", newName, "labels", rsLabels, "ownerReferences",
                                Json.array(Json.object("apiVersion", "apps/v1", "kind", "Deployment", "name",
                                        Json.str(m, "name"), "uid", uid, "controller", true,
                                        "blockOwnerDeletion", true))),
                        "spec", Json.object("replicas", want, "selector", selector, "template", rsTemplate));
                newSet = store.create(sets, ns, rs, opts);
            } else if (Json.obj(newSet, "spec").get("replicas").getAsInt() != want) {
                Json.obj(newSet, "spec").addProperty("replicas", want);
                newSet = store.update(sets, ns, newName, newSet, false, opts);
            }
            JsonObject newStatus = Json.obj(newSet, "status");
            int newReady = newStatus != null && newStatus.has("readyReplicas")
                    ? newStatus.get("readyReplicas").getAsInt() : 0;
            int replicas = intOf(newStatus, "replicas");
            int ready = newReady;
            for (JsonObject rs : old) {
                if (newReady >= want && Json.obj(rs, "spec").get("replicas").getAsInt() != 0) {
                    Json.obj(rs, "spec").addProperty("replicas", 0);
                    store.update(sets, ns, Json.str(Json.meta(rs), "name"), rs, false, opts);
                }
                replicas += intOf(Json.obj(rs, "status"), "replicas");
                ready += intOf(Json.obj(rs, "status"), "readyReplicas");
            }
            boolean complete = newReady >= want && replicas == want;
            JsonObject status = Json.object("observedGeneration", m.get("generation").getAsLong(), "replicas",
                    replicas, "updatedReplicas", intOf(newStatus, "replicas"), "readyReplicas", ready,
                    "availableReplicas", ready, "unavailableReplicas", Math.max(0, want - ready));
            JsonObject before = Json.obj(d, "status");
            JsonArray conditions = before == null ? null : Json.arr(before, "conditions");
            status.add("conditions", conditions(conditions, ready >= want, complete, newName));
            if (!Json.same(status, before)) {
                d.add("status", status);
                store.update(deployments, ns, Json.str(m, "name"), d, true, opts);
            }
        }
    }

    private JsonArray conditions(JsonArray before, boolean available, boolean complete, String newSet) {
        JsonArray out = new JsonArray();
        out.add(condition(before, "Available", available ? "True" : "False",
                available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                available ? "Deployment has minimum availability." : "Deployment does not have minimum availability."));
        out.add(condition(before, "Progressing", "True", complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
                complete ? "ReplicaSet \"" + newSet + "\" has successfully progressed."
                        : "ReplicaSet \"" + newSet + "\" is progressing."));
        return out;
    }

    private JsonObject condition(JsonArray before, String type, String status, String reason, String message) {
        String since = now();
        if (before != null) {
            for (JsonElement c : before) {
                JsonObject o = c.getAsJsonObject();
                if (type.equals(Json.str(o, "type")) && status.equals(Json.str(o, "status"))
                        && reason.equals(Json.str(o, "reason"))) {
                    return o.deepCopy();
                }
                if (type.equals(Json.str(o, "type")) && status.equals(Json.str(o, "status"))) {
                    since = Json.str(o, "lastTransitionTime");
                }
            }
        }
        return Json.object("type", type, "status", status, "lastUpdateTime", now(), "lastTransitionTime", since,
                "reason", reason, "message", message);
    }

    /** {@code controller.ComputeHash}: FNV-32a of the template, written with {@code rand.SafeEncodeString}. */
    static String templateHash(JsonObject template) {
        return StatefulSetController.hash(Json.text(template), 0);
    }

    // ---- resource quota controller ----

    /**
     * The ResourceQuota controller ({@code pkg/controller/resourcequota/resource_quota_controller.go},
     * {@code syncResourceQuota}): each quota's {@code status.hard} is its {@code spec.hard} and {@code status.used}
     * what the namespace's objects use of each hard resource, counted by the same evaluators as the admission
     * ({@link ResourceAdmission#usage}), of the pods its scopes select when it has scopes ({@link
     * ResourceAdmission#matchesScopes}); written only when it changes.
     */
    private void resourceQuotas() {
        ResourceType quotas = type("", "resourcequotas");
        Map<String, Map<String, BigDecimal>> usedByNamespace = new HashMap<>();
        for (JsonObject q : list(quotas, null, null, null)) {
            JsonObject m = Json.meta(q);
            JsonObject spec = Json.obj(q, "spec");
            JsonObject hard = spec == null ? null : Json.obj(spec, "hard");
            if (hard == null || m.has("deletionTimestamp")) {
                continue;
            }
            String ns = Json.str(m, "namespace");
            Map<String, BigDecimal> usage = new HashMap<>();
            boolean scoped = ResourceAdmission.scoped(spec);
            for (ResourceType t : countedBy(hard.keySet())) {
                // A scoped quota counts only the pods its scopes select; an unscoped one shares the namespace's sums.
                usage.putAll(scoped ? typeUsage(t, ns, o -> ResourceAdmission.matchesScopes(spec, t, o))
                        : usedByNamespace.computeIfAbsent(ns + "/" + t.group() + "/" + t.plural(),
                        k -> typeUsage(t, ns, o -> true)));
            }
            JsonObject used = new JsonObject();
            for (Map.Entry<String, JsonElement> h : hard.entrySet()) {
                String value = h.getValue().getAsString();
                boolean binary = Quantity.isQuantity(value) && Quantity.parse(value).binary();
                used.addProperty(h.getKey(), Quantity.canonical(usage.getOrDefault(h.getKey(), BigDecimal.ZERO),
                        binary));
            }
            JsonObject status = Json.object("hard", hard.deepCopy(), "used", used);
            if (!Json.same(status, Json.obj(q, "status"))) {
                q.add("status", status);
                store.update(quotas, ns, Json.str(m, "name"), q, true, opts);
            }
        }
    }

    /** What the objects of {@code t} in {@code ns} use, by quota resource name (read, never changed). */
    private Map<String, BigDecimal> typeUsage(ResourceType t, String ns,
                                              java.util.function.Predicate<JsonObject> counted) {
        Map<String, BigDecimal> out = new HashMap<>();
        for (JsonObject o : store.list(t, ns, null, null, 0, null).items()) {
            if (counted.test(o)) {
                ResourceAdmission.usage(t, o).forEach((k, v) -> out.merge(k, v, BigDecimal::add));
            }
        }
        return out;
    }

    /** The kinds whose objects the quota resources {@code names} count, one version of each. */
    private java.util.Collection<ResourceType> countedBy(Set<String> names) {
        Map<String, ResourceType> out = new HashMap<>();
        for (ResourceType t : registry.all()) {
            if (t.namespaced() && names.stream().anyMatch(r -> ResourceAdmission.tracks(t, r))) {
                out.putIfAbsent(t.group() + "/" + t.plural(), t);
            }
        }
        return out.values();
    }

    // ---- garbage collector ----

    private void garbageCollect() {
        List<Store.Stored> all = store.all();
        Set<String> uids = new HashSet<>();
        Map<String, List<Store.Stored>> dependents = new HashMap<>();
        for (Store.Stored s : all) {
            uids.add(Json.str(Json.meta(s.object()), "uid"));
            JsonArray refs = Json.arr(Json.meta(s.object()), "ownerReferences");
            if (refs != null) {
                for (JsonElement r : refs) {
                    dependents.computeIfAbsent(Json.str(r.getAsJsonObject(), "uid"), k -> new ArrayList<>()).add(s);
                }
            }
        }
        for (Store.Stored s : all) {
            JsonObject o = s.object().deepCopy();
            JsonObject m = Json.meta(o);
            List<Store.Stored> mine = dependents.getOrDefault(Json.str(m, "uid"), List.of());
            JsonArray finalizers = Json.arr(m, "finalizers");
            if (m.has("deletionTimestamp") && finalizers != null) {
                if (finalizers.contains(new com.google.gson.JsonPrimitive("foregroundDeletion"))) {
                    if (mine.isEmpty()) {
                        removeFinalizer(s, "foregroundDeletion");
                    } else {
                        for (Store.Stored d : mine) {
                            if (!Json.meta(d.object()).has("deletionTimestamp")) {
                                delete(d, "Foreground");
                            }
                        }
                    }
                    continue;
                }
                if (finalizers.contains(new com.google.gson.JsonPrimitive("orphan"))) {
                    String uid = Json.str(m, "uid");
                    for (Store.Stored d : mine) {
                        JsonObject copy = d.object().deepCopy();
                        Json.arr(Json.meta(copy), "ownerReferences").asList()
                                .removeIf(r -> uid.equals(Json.str(r.getAsJsonObject(), "uid")));
                        update(d, copy);
                    }
                    removeFinalizer(s, "orphan");
                    continue;
                }
            }
            JsonArray refs = Json.arr(m, "ownerReferences");
            if (refs == null || refs.isEmpty() || m.has("deletionTimestamp")) {
                continue;
            }
            boolean solid = false;
            for (JsonElement r : refs) {
                solid |= uids.contains(Json.str(r.getAsJsonObject(), "uid"));
            }
            if (!solid) {
                delete(s, "Background");
            }
        }
    }

    private void removeFinalizer(Store.Stored s, String finalizer) {
        JsonObject copy = s.object().deepCopy();
        Json.arr(Json.meta(copy), "finalizers").asList().removeIf(f -> finalizer.equals(f.getAsString()));
        update(s, copy);
    }

    private void update(Store.Stored s, JsonObject next) {
        JsonObject m = Json.meta(next);
        store.update(s.type(), Json.str(m, "namespace"), Json.str(m, "name"), next, false, opts);
    }

    private void delete(Store.Stored s, String policy) {
        JsonObject m = Json.meta(s.object());
        store.delete(s.type(), Json.str(m, "namespace"), Json.str(m, "name"), Json.object("propagationPolicy", policy,
                "preconditions", Json.object("uid", Json.str(m, "uid"))), opts);
    }

    // ---- helpers ----

    /** Stored objects are shared and never changed in place: the simulator works on copies. */
    private List<JsonObject> list(ResourceType t, String ns, String labels, String fields) {
        List<JsonObject> out = new ArrayList<>();
        store.list(t, ns, labels, fields, 0, null).items().forEach(o -> out.add(o.deepCopy()));
        return out;
    }

    private static boolean controlledBy(JsonObject o, String uid) {
        JsonArray refs = Json.arr(Json.meta(o), "ownerReferences");
        if (refs == null) {
            return false;
        }
        for (JsonElement r : refs) {
            JsonObject ref = r.getAsJsonObject();
            if (uid.equals(Json.str(ref, "uid")) && Json.bool(ref, "controller")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isReady(JsonObject pod) {
        return StatefulSetController.readySince(pod) != null;
    }

    private static int intOf(JsonObject o, String key) {
        return o != null && o.has(key) ? o.get(key).getAsInt() : 0;
    }

    private ResourceType type(String group, String plural) {
        return registry.find(group, "v1", plural);
    }

    private String now() {
        return DateTimeFormatter.ISO_INSTANT.format(Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
    }

    private static String hex(String seed, int length) {
        StringBuilder out = new StringBuilder();
        int h = seed.hashCode();
        while (out.length() < length) {
            h = h * 31 + 17;
            out.append(String.format("%08x", h));
        }
        return out.substring(0, length);
    }

}
