package io.tenantplane.kubelet;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.custom.Quantity;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.Ownership;
import io.tenantplane.naming.ReverseMapping;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code metrics.k8s.io/v1beta1} for one tenant, what {@code kubectl top} inside it reads: the host's metrics
 * (metrics-server's {@code PodMetrics} of the tenant's host Pods) under the tenant's names. Pure over what it is given
 * to read; one instance serves every tenant.
 *
 * <ul>
 *   <li>{@code pods}: the host PodMetrics in the tenant's host namespace(s) whose host Pod is one tenantplane manages
 *       for exactly this tenant ({@link ReverseMapping#inspect}); each named, namespaced and labelled as the tenant
 *       Pod (the host copy's labels without the {@code tenantplane.io/} ones), its containers, timestamp and window as
 *       the host measured them. A label selector is passed to the host with the tenant's own labels added (host
 *       copies carry the tenant's labels); a field selector is matched here against the tenant's
 *       {@code metadata.name} and {@code metadata.namespace}, as metrics-server matches object metadata. A get of a
 *       Pod without metrics is a NotFound for {@code pods.metrics.k8s.io}, as metrics-server answers.</li>
 *   <li>{@code nodes}: per node mirror (named after its host node), the sum of this tenant's Pods' usage on that host
 *       node, never the host node's own usage, which would show other tenants' load. A label selector is refused
 *       (400): a mirror's labels are its host node's, and selecting by them would need {@code list} on host nodes.</li>
 * </ul>
 * A host without metrics-server (no {@code metrics.k8s.io}) is answered 503 saying so; a host that refuses the read
 * is answered 503 with its answer.
 */
final class MetricsApi {
    static final String GROUP = "metrics.k8s.io";
    static final String VERSION = "v1beta1";
    static final String PREFIX = "/apis/" + GROUP + "/" + VERSION;
    static final ResourceKind POD_METRICS = new ResourceKind(GROUP, VERSION, "PodMetrics", "pods", true);
    private static final ResourceKind PODS = ResourceKind.wellKnown("v1", "Pod").orElseThrow();

    /** An answer: the status code and the JSON body (an object or a Status). */
    record Reply(int code, JsonObject body, String reason) {
    }

    /** One tenant Pod with its host copy and the host's metrics of it. */
    record Measured(String namespace, String name, JsonObject labels, String node, JsonObject hostMetrics) {
    }

    private final Reader host;

    MetricsApi(Reader host) {
        this.host = host;
    }

    /** Answers {@code path} (under {@link #PREFIX}) for tenant {@code tc}. */
    Reply serve(TenantCluster tc, String path, Map<String, String> query) {
        if (!path.startsWith(PREFIX)) {
            return status(404, "NotFound", "the server could not find the requested resource");
        }
        List<String> rest = new ArrayList<>();
        for (String p : path.substring(PREFIX.length()).split("/")) {
            if (!p.isEmpty()) {
                rest.add(java.net.URLDecoder.decode(p, java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        if (rest.isEmpty()) {
            return new Reply(200, resources(), "Discovery");
        }
        String namespace = null;
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        String resource = rest.get(0);
        String name = rest.size() == 2 ? rest.get(1) : null;
        if (rest.size() > 2 || !(resource.equals("pods") || resource.equals("nodes"))
                || (resource.equals("nodes") && namespace != null)) {
            return status(404, "NotFound", "the server could not find the requested resource");
        }
        try {
            if (resource.equals("pods")) {
                return name == null ? podList(tc, namespace, query) : pod(tc, namespace, name);
            }
            return name == null ? nodeList(tc, query) : node(tc, name);
        } catch (ReadFailedException e) {
            if (e.code() == 404) {
                return status(503, "ServiceUnavailable", "the host serves no metrics API (metrics.k8s.io): install "
                        + "metrics-server on the host cluster for kubectl top inside tenants; " + e.getMessage());
            }
            return status(503, "ServiceUnavailable", "tenantplane could not read the host's metrics: "
                    + e.getMessage());
        } catch (IllegalArgumentException e) {
            return status(400, "BadRequest", e.getMessage());
        }
    }

    static JsonObject resources() {
        JsonArray list = new JsonArray();
        list.add(resource("nodes", false, "NodeMetrics"));
        list.add(resource("pods", true, "PodMetrics"));
        JsonObject r = new JsonObject();
        r.addProperty("kind", "APIResourceList");
        r.addProperty("apiVersion", "v1");
        r.addProperty("groupVersion", GROUP + "/" + VERSION);
        r.add("resources", list);
        return r;
    }

    private static JsonObject resource(String name, boolean namespaced, String kind) {
        JsonObject o = new JsonObject();
        o.addProperty("name", name);
        o.addProperty("singularName", "");
        o.addProperty("namespaced", namespaced);
        o.addProperty("kind", kind);
        JsonArray verbs = new JsonArray();
        verbs.add("get");
        verbs.add("list");
        o.add("verbs", verbs);
        return o;
    }

    private Reply podList(TenantCluster tc, String namespace, Map<String, String> query) {
        List<Measured> pods = measured(tc, namespace, query.get("labelSelector"));
        java.util.function.Predicate<Measured> fields = fieldSelector(query.get("fieldSelector"));
        JsonArray items = new JsonArray();
        pods.stream().filter(fields).sorted(Comparator.comparing(Measured::namespace).thenComparing(Measured::name))
                .forEach(m -> items.add(podMetrics(m)));
        return new Reply(200, list("PodMetricsList", items), "Listed");
    }

    private Reply pod(TenantCluster tc, String namespace, String name) {
        if (namespace == null) {
            return status(404, "NotFound", "the server could not find the requested resource");
        }
        String hostName = HostNames.hostName(name, namespace, tc.tenant());
        for (String hostNs : TenantPlace.hostNamespaces(tc)) {
            Optional<JsonObject> hostPod = host.get(PODS, hostNs, hostName);
            if (hostPod.isEmpty() || !TenantPlace.managedCopy(hostPod.get(), tc.tenant(), hostNs, namespace, name)) {
                continue;
            }
            Optional<JsonObject> metrics = host.get(POD_METRICS, hostNs, hostName);
            if (metrics.isPresent()) {
                return new Reply(200, podMetrics(new Measured(namespace, name, tenantLabels(hostPod.get()),
                        Json.string(hostPod.get(), "spec", "nodeName"), metrics.get())), "Got");
            }
        }
        return status(404, "NotFound", "pods.metrics.k8s.io \"" + namespace + "/" + name + "\" not found");
    }

    private Reply nodeList(TenantCluster tc, Map<String, String> query) {
        if (query.get("labelSelector") != null && !query.get("labelSelector").isBlank()) {
            // A mirror's labels are its host node's; selecting by them would need list on the host's nodes, which
            // tenantplane is not granted for this alone.
            return status(400, "BadRequest", "tenantplane's metrics API does not select node metrics by label; name "
                    + "the node (kubectl top node <name>) or list them all");
        }
        Map<String, List<Measured>> byNode = byNode(measured(tc, null, null));
        java.util.function.Predicate<Measured> fields = fieldSelector(query.get("fieldSelector"));
        JsonArray items = new JsonArray();
        for (Map.Entry<String, List<Measured>> e : byNode.entrySet()) {
            if (fields.test(new Measured(null, e.getKey(), null, e.getKey(), null))) {
                items.add(nodeMetrics(e.getKey(), e.getValue()));
            }
        }
        return new Reply(200, list("NodeMetricsList", items), "Listed");
    }

    private Reply node(TenantCluster tc, String name) {
        List<Measured> on = byNode(measured(tc, null, null)).get(name);
        if (on == null) {
            return status(404, "NotFound", "nodes.metrics.k8s.io \"" + name + "\" not found");
        }
        return new Reply(200, nodeMetrics(name, on), "Got");
    }

    private static Map<String, List<Measured>> byNode(List<Measured> pods) {
        Map<String, List<Measured>> out = new java.util.TreeMap<>();
        for (Measured m : pods) {
            if (m.node() != null && !m.node().isEmpty()) {
                out.computeIfAbsent(m.node(), k -> new ArrayList<>()).add(m);
            }
        }
        return out;
    }

    /** The tenant Pods (in {@code namespace}, or all) with host metrics, the user's label selector applied. */
    private List<Measured> measured(TenantCluster tc, String namespace, String labelSelector) {
        StringBuilder selector = new StringBuilder(ReverseMapping.TENANT + "=" + tc.tenant());
        if (namespace != null) {
            selector.append(',').append(ReverseMapping.VIRTUAL_NAMESPACE).append('=').append(namespace);
        }
        if (labelSelector != null && !labelSelector.isBlank()) {
            selector.append(',').append(labelSelector);
        }
        List<Measured> out = new ArrayList<>();
        for (String hostNs : TenantPlace.hostNamespaces(tc)) {
            Map<String, Measured> hostPods = new LinkedHashMap<>();
            // The two lists are independent: the metrics are read beside the Pods, not after them.
            java.util.concurrent.CompletableFuture<List<JsonObject>> measurements = new java.util.concurrent
                    .CompletableFuture<>();
            Thread.ofVirtual().name("tenantplane-kubelet-metrics").start(() -> {
                try {
                    measurements.complete(host.list(POD_METRICS, hostNs, selector.toString()));
                } catch (RuntimeException e) {
                    measurements.completeExceptionally(e);
                }
            });
            List<JsonObject> listed;
            try {
                listed = host.list(PODS, hostNs, selector.toString());
            } catch (ReadFailedException e) {
                if (e.code() == 400) {
                    throw new IllegalArgumentException("the label selector is not valid: " + e.getMessage());
                }
                throw e;
            }
            for (JsonObject p : listed) {
                if (ReverseMapping.inspect(p, tc.tenant(), hostNs) instanceof Ownership.Managed m
                        && m.source().kind().equals("Pod")) {
                    // What the tenant knows of it; the host's measurement is joined in below.
                    hostPods.put(Json.string(p, "metadata", "name"), new Measured(m.source().virtualNamespace(),
                            m.source().name(), tenantLabels(p), Json.string(p, "spec", "nodeName"), null));
                }
            }
            // Read even when no Pod matched: a host without metrics-server is said so, not shown as no Pods.
            for (JsonObject metrics : joined(measurements)) {
                Measured pod = hostPods.get(Json.string(metrics, "metadata", "name"));
                if (pod != null) {
                    out.add(new Measured(pod.namespace(), pod.name(), pod.labels(), pod.node(), metrics));
                }
            }
        }
        return out;
    }

    private static List<JsonObject> joined(java.util.concurrent.CompletableFuture<List<JsonObject>> read) {
        try {
            return read.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private static JsonObject tenantLabels(JsonObject hostPod) {
        JsonObject labels = new JsonObject();
        Json.labels(hostPod).forEach((k, v) -> {
            if (!ReverseMapping.isReserved(k)) {
                labels.addProperty(k, v);
            }
        });
        return labels;
    }

    private static JsonObject podMetrics(Measured m) {
        JsonObject o = new JsonObject();
        o.addProperty("kind", "PodMetrics");
        o.addProperty("apiVersion", GROUP + "/" + VERSION);
        JsonObject meta = new JsonObject();
        meta.addProperty("name", m.name());
        meta.addProperty("namespace", m.namespace());
        String created = Json.string(m.hostMetrics(), "metadata", "creationTimestamp");
        if (created != null) {
            meta.addProperty("creationTimestamp", created);
        }
        if (m.labels() != null && !m.labels().isEmpty()) {
            meta.add("labels", m.labels());
        }
        o.add("metadata", meta);
        copy(m.hostMetrics(), o, "timestamp");
        copy(m.hostMetrics(), o, "window");
        JsonElement containers = m.hostMetrics().get("containers");
        o.add("containers", containers == null ? new JsonArray() : containers.deepCopy());
        return o;
    }

    private static JsonObject nodeMetrics(String node, List<Measured> pods) {
        BigDecimal cpu = BigDecimal.ZERO;
        BigDecimal memory = BigDecimal.ZERO;
        String timestamp = null;
        String window = null;
        for (Measured m : pods) {
            String t = Json.string(m.hostMetrics(), "timestamp");
            if (t != null && (timestamp == null || t.compareTo(timestamp) < 0)) {
                timestamp = t;
                window = Json.string(m.hostMetrics(), "window");
            }
            JsonElement containers = m.hostMetrics().get("containers");
            if (containers == null || !containers.isJsonArray()) {
                continue;
            }
            for (JsonElement c : containers.getAsJsonArray()) {
                JsonObject usage = c.isJsonObject() ? Json.object(c.getAsJsonObject(), "usage") : null;
                cpu = cpu.add(quantity(usage, "cpu"));
                memory = memory.add(quantity(usage, "memory"));
            }
        }
        JsonObject o = new JsonObject();
        o.addProperty("kind", "NodeMetrics");
        o.addProperty("apiVersion", GROUP + "/" + VERSION);
        JsonObject meta = new JsonObject();
        meta.addProperty("name", node);
        o.add("metadata", meta);
        if (timestamp != null) {
            o.addProperty("timestamp", timestamp);
        }
        if (window != null) {
            o.addProperty("window", window);
        }
        JsonObject usage = new JsonObject();
        usage.addProperty("cpu", new Quantity(cpu, Quantity.Format.DECIMAL_SI).toSuffixedString());
        usage.addProperty("memory", new Quantity(memory, Quantity.Format.BINARY_SI).toSuffixedString());
        o.add("usage", usage);
        return o;
    }

    private static BigDecimal quantity(JsonObject usage, String key) {
        String s = usage == null ? null : Json.string(usage, key);
        if (s == null) {
            return BigDecimal.ZERO;
        }
        try {
            return Quantity.fromString(s).getNumber();
        } catch (RuntimeException e) {
            return BigDecimal.ZERO;
        }
    }

    /**
     * A field selector over {@code metadata.name} and {@code metadata.namespace}: metrics-server matches object
     * metadata fields ({@code generic.AddObjectMetaFieldsSet}), where any other field reads as empty.
     */
    static java.util.function.Predicate<Measured> fieldSelector(String selector) {
        if (selector == null || selector.isBlank()) {
            return m -> true;
        }
        List<java.util.function.Predicate<Measured>> terms = new ArrayList<>();
        for (String raw : selector.split(",")) {
            String term = raw.trim();
            int at;
            int len;
            boolean negate;
            if ((at = term.indexOf("!=")) > 0) {
                negate = true;
                len = 2;
            } else if ((at = term.indexOf("==")) > 0) {
                negate = false;
                len = 2;
            } else if ((at = term.indexOf('=')) > 0) {
                negate = false;
                len = 1;
            } else {
                throw new IllegalArgumentException("invalid selector: '" + selector + "'; can't understand '" + term
                        + "'");
            }
            String field = term.substring(0, at).trim();
            String value = term.substring(at + len).trim();
            terms.add(m -> {
                String actual = switch (field) {
                    case "metadata.name" -> m.name();
                    case "metadata.namespace" -> m.namespace() == null ? "" : m.namespace();
                    default -> "";
                };
                return negate != value.equals(actual);
            });
        }
        return m -> terms.stream().allMatch(t -> t.test(m));
    }

    private static JsonObject list(String kind, JsonArray items) {
        JsonObject o = new JsonObject();
        o.addProperty("kind", kind);
        o.addProperty("apiVersion", GROUP + "/" + VERSION);
        o.add("metadata", new JsonObject());
        o.add("items", items);
        return o;
    }

    private static void copy(JsonObject from, JsonObject to, String key) {
        if (from.has(key)) {
            to.add(key, from.get(key).deepCopy());
        }
    }

    static Reply status(int code, String reason, String message) {
        JsonObject s = new JsonObject();
        s.addProperty("kind", "Status");
        s.addProperty("apiVersion", "v1");
        s.add("metadata", new JsonObject());
        s.addProperty("status", "Failure");
        s.addProperty("message", message);
        s.addProperty("reason", reason);
        s.addProperty("code", code);
        return new Reply(code, s, reason);
    }
}
