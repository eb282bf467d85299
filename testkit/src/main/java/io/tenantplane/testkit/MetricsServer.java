package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * metrics-server, as a host with it installed serves {@code metrics.k8s.io/v1beta1} (reached through the aggregator
 * on a real cluster; answered in-process here). What it follows, in {@code kubernetes-sigs/metrics-server}:
 * <ul>
 *   <li>{@code pkg/api/pod.go}: pods are listed by namespace and label selector; a field selector is matched against
 *       the object metadata fields alone ({@code metadata.name}, {@code metadata.namespace}: any other field reads as
 *       empty, as a {@code fields.Set} lookup does); the answer is sorted by namespace, then name. A get of a pod that
 *       does not exist is a NotFound for {@code pods}, of one without metrics a NotFound for
 *       {@code pods.metrics.k8s.io}.</li>
 *   <li>{@code pkg/storage/pod.go} ({@code GetMetrics}): a pod has metrics only when every one of its containers has
 *       (here: usage set with {@link KubeApiServer#setContainerUsage}) and, in {@code pkg/api/pod.go} of the versions
 *       that filter it, only while Running; its PodMetrics carries the pod's labels, the earliest container timestamp
 *       and the window.</li>
 *   <li>{@code pkg/storage/node.go}: a node's usage. Here the sum of the Running pods' usage on it (a real node also
 *       counts its system daemons), for nodes this server's simulator runs.</li>
 * </ul>
 * Usage is what the test sets, canonicalised as {@code resource.Quantity} prints it. The window is metrics-server's
 * default {@code --metric-resolution}, 15 s.
 */
final class MetricsServer {
    static final String GROUP = "metrics.k8s.io";
    static final String VERSION = "v1beta1";
    private static final String WINDOW = "15s";

    /** A container's usage as last scraped. */
    record Usage(Instant time, Quantity cpu, Quantity memory) {
    }

    private final Store store;
    private final Registry registry;
    private final Clock clock;
    private final java.util.function.Predicate<String> simulatedNode;
    private final Map<String, Usage> usage = new ConcurrentHashMap<>();

    MetricsServer(Store store, Registry registry, Clock clock, Predicate<String> simulatedNode) {
        this.store = store;
        this.registry = registry;
        this.clock = clock;
        this.simulatedNode = simulatedNode;
    }

    void set(String podUid, String container, String cpu, String memory) {
        usage.put(podUid + "/" + container, new Usage(clock.instant(), Quantity.parse(cpu), Quantity.parse(memory)));
    }

    /** {@code GET /apis/metrics.k8s.io/v1beta1/...}; null when the path is not one metrics-server serves. */
    JsonObject serve(List<String> rest, Map<String, String> query) {
        if (rest.isEmpty()) {
            return resources();
        }
        String namespace = null;
        List<String> r = rest;
        if (r.size() >= 3 && r.get(0).equals("namespaces")) {
            namespace = r.get(1);
            r = r.subList(2, r.size());
        }
        String resource = r.get(0);
        String name = r.size() > 1 ? r.get(1) : null;
        if (r.size() > 2) {
            return null;
        }
        return switch (resource) {
            case "pods" -> name == null ? podList(namespace, query) : pod(namespace, name);
            case "nodes" -> namespace != null ? null : name == null ? nodeList(query) : node(name);
            default -> null;
        };
    }

    static JsonObject resources() {
        JsonArray list = new JsonArray();
        list.add(Json.object("name", "nodes", "singularName", "", "namespaced", false, "kind", "NodeMetrics",
                "verbs", Json.array("get", "list")));
        list.add(Json.object("name", "pods", "singularName", "", "namespaced", true, "kind", "PodMetrics",
                "verbs", Json.array("get", "list")));
        return Json.object("kind", "APIResourceList", "apiVersion", "v1", "groupVersion", GROUP + "/" + VERSION,
                "resources", list);
    }

    private JsonObject podList(String namespace, Map<String, String> query) {
        ResourceType pods = registry.find("", "v1", "pods");
        List<JsonObject> items = new ArrayList<>(store.list(pods, namespace, query.get("labelSelector"), null, 0, null)
                .items());
        Predicate<JsonObject> fields = metaFields(query.get("fieldSelector"));
        items.removeIf(fields.negate());
        items.sort(Comparator.comparing((JsonObject p) -> Json.str(Json.meta(p), "namespace"))
                .thenComparing(p -> Json.str(Json.meta(p), "name")));
        JsonArray out = new JsonArray();
        for (JsonObject p : items) {
            JsonObject m = podMetrics(p);
            if (m != null) {
                out.add(m);
            }
        }
        return Json.object("kind", "PodMetricsList", "apiVersion", GROUP + "/" + VERSION,
                "metadata", new JsonObject(), "items", out);
    }

    private JsonObject pod(String namespace, String name) {
        JsonObject p = store.get(registry.find("", "v1", "pods"), namespace, name);
        JsonObject m = podMetrics(p);
        if (m == null) {
            throw ApiError.notFound(GROUP, "pods", namespace + "/" + name);
        }
        return m;
    }

    private JsonObject podMetrics(JsonObject pod) {
        if (!"Running".equals(Json.str(Json.obj(pod, "status"), "phase"))) {
            return null;
        }
        String uid = Json.str(Json.meta(pod), "uid");
        JsonArray containers = Json.arr(Json.obj(pod, "spec"), "containers");
        if (containers == null || containers.isEmpty()) {
            return null;
        }
        JsonArray out = new JsonArray();
        Instant earliest = null;
        for (JsonElement c : containers) {
            String name = Json.str(c.getAsJsonObject(), "name");
            Usage u = usage.get(uid + "/" + name);
            if (u == null) {
                return null;
            }
            earliest = earliest == null || u.time().isBefore(earliest) ? u.time() : earliest;
            out.add(Json.object("name", name, "usage", Json.object("cpu", u.cpu().canonical(),
                    "memory", Quantity.canonical(u.memory().value(), true))));
        }
        JsonObject meta = Json.object("name", Json.str(Json.meta(pod), "name"),
                "namespace", Json.str(Json.meta(pod), "namespace"),
                "creationTimestamp", clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        JsonObject labels = Json.obj(Json.meta(pod), "labels");
        if (labels != null) {
            meta.add("labels", labels.deepCopy());
        }
        return Json.object("kind", "PodMetrics", "apiVersion", GROUP + "/" + VERSION, "metadata", meta,
                "timestamp", earliest.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(),
                "window", WINDOW, "containers", out);
    }

    private JsonObject nodeList(Map<String, String> query) {
        ResourceType nodes = registry.find("", "v1", "nodes");
        JsonArray out = new JsonArray();
        Predicate<JsonObject> fields = metaFields(query.get("fieldSelector"));
        for (JsonObject n : store.list(nodes, null, query.get("labelSelector"), null, 0, null).items()) {
            if (fields.test(n)) {
                JsonObject m = nodeMetrics(n);
                if (m != null) {
                    out.add(m);
                }
            }
        }
        return Json.object("kind", "NodeMetricsList", "apiVersion", GROUP + "/" + VERSION,
                "metadata", new JsonObject(), "items", out);
    }

    private JsonObject node(String name) {
        JsonObject m = nodeMetrics(store.get(registry.find("", "v1", "nodes"), null, name));
        if (m == null) {
            throw ApiError.notFound(GROUP, "nodes", name);
        }
        return m;
    }

    private JsonObject nodeMetrics(JsonObject node) {
        String name = Json.str(Json.meta(node), "name");
        if (!simulatedNode.test(name)) {
            return null;
        }
        BigDecimal cpu = BigDecimal.ZERO;
        BigDecimal memory = BigDecimal.ZERO;
        for (JsonObject p : store.list(registry.find("", "v1", "pods"), null, null, "spec.nodeName=" + name, 0, null)
                .items()) {
            JsonObject m = podMetrics(p);
            if (m == null) {
                continue;
            }
            for (JsonElement c : m.getAsJsonArray("containers")) {
                JsonObject u = c.getAsJsonObject().getAsJsonObject("usage");
                cpu = cpu.add(Quantity.parse(u.get("cpu").getAsString()).value());
                memory = memory.add(Quantity.parse(u.get("memory").getAsString()).value());
            }
        }
        JsonObject meta = Json.object("name", name,
                "creationTimestamp", clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        JsonObject labels = Json.obj(Json.meta(node), "labels");
        if (labels != null) {
            meta.add("labels", labels.deepCopy());
        }
        return Json.object("kind", "NodeMetrics", "apiVersion", GROUP + "/" + VERSION, "metadata", meta,
                "timestamp", clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(),
                "window", WINDOW, "usage", Json.object("cpu", Quantity.canonical(cpu, false),
                        "memory", Quantity.canonical(memory, true)));
    }

    /**
     * A field selector over object metadata alone, as {@code generic.AddObjectMetaFieldsSet} builds the set and
     * {@code fields.Selector.Matches} reads it: an unknown field is empty.
     */
    private static Predicate<JsonObject> metaFields(String selector) {
        return Selectors.fieldTerms(selector, field -> { }, (o, field) -> switch (field) {
            case "metadata.name" -> Json.str(Json.meta(o), "name");
            case "metadata.namespace" -> Json.str(Json.meta(o), "namespace") == null ? ""
                    : Json.str(Json.meta(o), "namespace");
            default -> "";
        });
    }
}
