package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * {@code GET /api/v1/namespaces/{ns}/pods/{name}/log}, as kube-apiserver serves it and a kubelet answers it.
 *
 * <p>The API server's part follows {@code pkg/registry/core/pod/strategy.go} {@code LogLocation}: the pod must exist
 * (404), the container is the one named or the only one (400 "a container name must be specified"), and must be in
 * the pod (400 "container ... is not valid"); a pod on no node has an empty log. The kubelet of the pod's node is
 * found as {@code pkg/kubelet/client/kubelet_client.go} {@code GetConnectionInfo} finds it: the node's first address
 * of the preferred types (Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP: kube-apiserver's default
 * {@code --kubelet-preferred-address-types}) at {@code status.daemonEndpoints.kubeletEndpoint.Port} (10250 when
 * unset), called over HTTPS at {@code /containerLogs/<ns>/<pod>/<container>} with the query {@code LogLocation}
 * builds, and with the kubelet client TLS the server was built with ({@code --kubelet-client-certificate},
 * {@code --kubelet-certificate-authority}). A kubelet's error answer becomes the API error
 * {@code genericrest.GenericHttpResponseChecker} makes of it (400 and 500 keep the kubelet's text; other codes
 * become the generic message of their code); a call that cannot be made is a 500 naming the URL, as
 * {@code LocationStreamer} fails.
 *
 * <p>The kubelet's part, for nodes this server simulates ({@link Simulation#NODE_LABEL}), follows
 * {@code pkg/kubelet/server/server.go} {@code getContainerLogs} and {@code pkg/kubelet/kuberuntime/logs}:
 * a container that has not started is a 400 "is waiting to start", {@code previous} without a terminated previous
 * container is a 400, then {@code sinceSeconds}/{@code sinceTime}, {@code tailLines}, {@code timestamps} (RFC 3339
 * with nanoseconds and a space before the line) and {@code limitBytes} apply, and {@code follow} streams until the
 * container ends, the pod is gone or the client leaves.
 */
final class PodLogs {

    private static final List<String> ADDRESS_ORDER = List.of("Hostname", "InternalDNS", "InternalIP", "ExternalDNS",
            "ExternalIP");
    private static final List<String> LOG_QUERY = List.of("follow", "previous", "timestamps", "sinceSeconds",
            "sinceTime", "tailLines", "limitBytes", "stream");

    private final Store store;
    private final Registry registry;
    private final ContainerLogs logs;
    private final Clock clock;
    private final HttpClient kubelets;

    /** Whether this server's simulator runs the kubelet of a node (by name). */
    private final java.util.function.Predicate<String> simulated;

    PodLogs(Store store, Registry registry, ContainerLogs logs, Clock clock, SSLContext kubeletClient,
            java.util.function.Predicate<String> simulated) {
        this.simulated = simulated;
        this.store = store;
        this.registry = registry;
        this.logs = logs;
        this.clock = clock;
        this.kubelets = kubeletClient == null ? null : HttpClient.newBuilder().sslContext(kubeletClient)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    int serve(HttpExchange ex, String namespace, String name, Map<String, String> query)
            throws IOException, InterruptedException {
        ResourceType pods = registry.find("", "v1", "pods");
        JsonObject pod = store.get(pods, namespace, name);
        JsonObject spec = Json.obj(pod, "spec");
        String container = container(spec, name, query.get("container"));
        String nodeName = Json.str(spec, "nodeName");
        if (nodeName == null || nodeName.isEmpty()) {
            return text(ex, 200, "");
        }
        JsonObject node = store.get(registry.find("", "v1", "nodes"), null, nodeName);
        // A node mirror copies its host node's labels, the simulation's marker included: only a node this server's
        // simulator registered is its own.
        if (simulated.test(nodeName)) {
            return local(ex, pods, pod, container, query);
        }
        return remote(ex, node, namespace, name, container, query);
    }

    // ---- the kubelet of another node, over HTTPS ----

    private int remote(HttpExchange ex, JsonObject node, String namespace, String pod, String container,
                       Map<String, String> query) throws IOException, InterruptedException {
        KubeletAddress kubelet = KubeletAddress.of(node);
        String address = kubelet.host();
        int port = kubelet.port();
        StringBuilder q = new StringBuilder();
        for (String k : LOG_QUERY) {
            if (query.containsKey(k)) {
                q.append(q.isEmpty() ? "" : "&").append(k).append('=')
                        .append(URLEncoder.encode(query.get(k), StandardCharsets.UTF_8));
            }
        }
        String host = address.contains(":") ? "[" + address + "]" : address;
        String url = "https://" + host + ":" + port + "/containerLogs/" + namespace + "/" + pod + "/" + container
                + (q.isEmpty() ? "" : "?" + q);
        if (kubelets == null) {
            throw ApiError.internal("Get \"" + url + "\": this testkit server has no kubelet client credential "
                    + "(KubeApiServer.Builder.kubeletClient), as kube-apiserver without --kubelet-client-certificate");
        }
        HttpResponse<InputStream> response;
        try {
            response = kubelets.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw ApiError.internal("Get \"" + url + "\": " + e);
        }
        int code = response.statusCode();
        if (code < 200 || code > 206) {
            String body;
            try (InputStream in = response.body()) {
                body = new String(in.readNBytes(50_000), StandardCharsets.UTF_8);
            }
            throw checked(code, body, pod);
        }
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, 0);
        try (InputStream in = response.body(); OutputStream out = ex.getResponseBody()) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        }
        return 200;
    }

    /**
     * Where kube-apiserver calls a node's kubelet ({@code pkg/kubelet/client/kubelet_client.go}
     * {@code GetConnectionInfo}): the first address of the preferred types, at the daemon endpoint's port (10250 when
     * unset).
     */
    record KubeletAddress(String host, int port) {
        static KubeletAddress of(JsonObject node) {
            String address = null;
            JsonObject status = Json.obj(node, "status");
            for (String type : ADDRESS_ORDER) {
                for (JsonElement a : items(status, "addresses")) {
                    if (address == null && type.equals(Json.str(a.getAsJsonObject(), "type"))) {
                        address = Json.str(a.getAsJsonObject(), "address");
                    }
                }
            }
            if (address == null) {
                throw ApiError.internal("no preferred addresses found; known addresses: []");
            }
            int port = 10250;
            JsonObject endpoint = Json.obj(Json.obj(status, "daemonEndpoints"), "kubeletEndpoint");
            if (endpoint != null && endpoint.has("Port") && endpoint.get("Port").getAsInt() > 0) {
                port = endpoint.get("Port").getAsInt();
            }
            return new KubeletAddress(address, port);
        }
    }

    /**
     * The API error {@code GenericHttpResponseChecker.Check} makes of a kubelet's answer, with the message
     * {@code errors.NewGenericServerResponse} gives each code.
     */
    static ApiError checked(int code, String body, String pod) {
        String text = body.strip();
        return switch (code) {
            case 500 -> ApiError.internal(text);
            case 400 -> ApiError.badRequest(text);
            case 403 -> new ApiError(403, "Forbidden", text + " (get pods/log " + pod + ")", null);
            case 404 -> new ApiError(404, "NotFound", "the server could not find the requested resource (get pods/log "
                    + pod + ")", null);
            case 401 -> new ApiError(401, "Unauthorized", "the server has asked for the client to provide credentials "
                    + "(get pods/log " + pod + ")", null);
            case 429 -> new ApiError(429, "TooManyRequests", "the server has received too many requests and has "
                    + "asked us to try again later (get pods/log " + pod + ")", null);
            default -> code >= 500
                    ? new ApiError(code, "InternalError", "an error on the server (\"" + text + "\") has prevented "
                            + "the request from succeeding (get pods/log " + pod + ")", null)
                    : new ApiError(code, "Unknown", "the server responded with the status code " + code + " but did "
                            + "not return more information (get pods/log " + pod + ")", null);
        };
    }

    // ---- the simulated kubelet ----

    private int local(HttpExchange ex, ResourceType pods, JsonObject pod, String container, Map<String, String> query)
            throws IOException, InterruptedException {
        String name = Json.str(Json.meta(pod), "name");
        String namespace = Json.str(Json.meta(pod), "namespace");
        String uid = Json.str(Json.meta(pod), "uid");
        JsonObject state = containerStatus(pod, container);
        if (state == null || Json.obj(state, "state") == null || Json.obj(Json.obj(state, "state"), "waiting") != null) {
            String reason = state == null ? "ContainerCreating" : Json.str(Json.obj(Json.obj(state, "state"),
                    "waiting"), "reason");
            throw ApiError.badRequest("container \"" + container + "\" in pod \"" + name + "\" is waiting to start: "
                    + (reason == null ? "ContainerCreating" : reason));
        }
        if ("true".equals(query.get("previous"))) {
            throw ApiError.badRequest("previous terminated container \"" + container + "\" in pod \"" + name
                    + "\" not found");
        }
        Instant since = null;
        if (query.containsKey("sinceSeconds")) {
            since = clock.instant().minusSeconds(number(query, "sinceSeconds"));
        } else if (query.containsKey("sinceTime")) {
            try {
                since = Instant.parse(query.get("sinceTime"));
            } catch (DateTimeParseException e) {
                throw ApiError.badRequest("sinceTime: Invalid value: \"" + query.get("sinceTime") + "\"");
            }
        }
        long tail = query.containsKey("tailLines") ? number(query, "tailLines") : -1;
        long limit = query.containsKey("limitBytes") ? number(query, "limitBytes") : -1;
        if (tail < -1 || limit == 0 || limit < -1) {
            throw ApiError.badRequest("tailLines and limitBytes must be positive");
        }
        boolean timestamps = "true".equals(query.get("timestamps"));
        boolean follow = "true".equals(query.get("follow"));
        List<ContainerLogs.Line> all = logs.lines(uid, container, 0);
        List<ContainerLogs.Line> first = new ArrayList<>();
        for (ContainerLogs.Line l : all) {
            if (since == null || !l.time().isBefore(since)) {
                first.add(l);
            }
        }
        if (tail >= 0 && first.size() > tail) {
            first = first.subList(first.size() - (int) tail, first.size());
        }
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, 0);
        long[] left = {limit};
        // A Go http.ResponseWriter buffers 4 KiB before it sends a chunk; the kubelet flushes when it follows.
        try (OutputStream out = new java.io.BufferedOutputStream(ex.getResponseBody(), 4096)) {
            if (!write(out, first, timestamps, left)) {
                return 200;
            }
            int next = all.size();
            while (follow && !ended(pods, namespace, name, uid, container)) {
                logs.await(50);
                List<ContainerLogs.Line> more = logs.lines(uid, container, next);
                next += more.size();
                if (!write(out, more, timestamps, left)) {
                    return 200;
                }
            }
        }
        return 200;
    }

    /** Writes lines; false when {@code limitBytes} is used up. */
    private static boolean write(OutputStream out, List<ContainerLogs.Line> lines, boolean timestamps, long[] left)
            throws IOException {
        for (ContainerLogs.Line l : lines) {
            String s = (timestamps ? DateTimeFormatter.ISO_INSTANT.format(l.time()) + " " : "") + l.text() + "\n";
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            if (left[0] >= 0 && b.length >= left[0]) {
                out.write(b, 0, (int) left[0]);
                out.flush();
                return false;
            }
            out.write(b);
            if (left[0] >= 0) {
                left[0] -= b.length;
            }
        }
        out.flush();
        return true;
    }

    private boolean ended(ResourceType pods, String namespace, String name, String uid, String container) {
        JsonObject pod;
        try {
            pod = store.get(pods, namespace, name);
        } catch (ApiError e) {
            return true;
        }
        if (!uid.equals(Json.str(Json.meta(pod), "uid"))) {
            return true;
        }
        JsonObject s = containerStatus(pod, container);
        return s == null || Json.obj(s, "state") == null || Json.obj(Json.obj(s, "state"), "terminated") != null;
    }


    private static long number(Map<String, String> query, String key) {
        try {
            return Long.parseLong(query.get(key));
        } catch (NumberFormatException e) {
            throw ApiError.badRequest(key + ": Invalid value: \"" + query.get(key) + "\": must be a number");
        }
    }

    private static com.google.gson.JsonArray items(JsonObject o, String key) {
        com.google.gson.JsonArray a = Json.arr(o, key);
        return a == null ? new com.google.gson.JsonArray() : a;
    }

    /**
     * The container a log or exec request is about, as the API server resolves it: the one named (it must be one of
     * the pod's containers, init or ephemeral containers), or the only one ({@code pkg/registry/core/pod/strategy.go}).
     *
     * @throws ApiError 400 naming the choices, or the container that is not in the pod
     */
    static String container(JsonObject spec, String pod, String requested) {
        List<String> names = names(spec, "containers");
        if (requested == null || requested.isEmpty()) {
            if (names.size() != 1) {
                List<String> init = names(spec, "initContainers");
                throw ApiError.badRequest("a container name must be specified for pod " + pod + ", choose one of: "
                        + names + (init.isEmpty() ? "" : " or one of the init containers: " + init));
            }
            return names.get(0);
        }
        if (!names.contains(requested) && !names(spec, "initContainers").contains(requested)
                && !names(spec, "ephemeralContainers").contains(requested)) {
            throw ApiError.badRequest("container " + requested + " is not valid for pod " + pod);
        }
        return requested;
    }

    /** The status of {@code container} in {@code pod}, or null when it has none yet. */
    static JsonObject containerStatus(JsonObject pod, String container) {
        JsonObject status = Json.obj(pod, "status");
        for (String f : List.of("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")) {
            for (JsonElement c : items(status, f)) {
                if (container.equals(Json.str(c.getAsJsonObject(), "name"))) {
                    return c.getAsJsonObject();
                }
            }
        }
        return null;
    }

    static List<String> names(JsonObject spec, String field) {
        List<String> out = new ArrayList<>();
        for (JsonElement c : items(spec, field)) {
            out.add(Json.str(c.getAsJsonObject(), "name"));
        }
        return out;
    }

    private static int text(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(code, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        }
        return code;
    }
}
