package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/** The one HTTP handler: parses a Kubernetes API path, applies faults, serves it from the store, logs it. */
final class Router implements HttpHandler {
    private static final long DEFAULT_WATCH_TIMEOUT_MILLIS = Duration.ofMinutes(30).toMillis();
    /** The kinds with a {@code scale} subresource, as group/plural. */
    private static final java.util.Set<String> SCALABLE = java.util.Set.of("apps/deployments", "apps/statefulsets",
            "apps/replicasets");
    private static final String MERGE_PATCH_TYPES = "application/json-patch+json, application/merge-patch+json";

    /** A parsed request. For non-resource paths {@code type} is null and {@code resource} is empty. */
    private record Request(String method, String path, Map<String, String> query, String verb, ResourceType type,
            String group, String resource, String namespace, String name, String subresource, String userAgent) {
        RequestLog.Entry entry(int code) {
            return new RequestLog.Entry(verb, group, subresource == null ? resource : resource + "/" + subresource,
                    namespace, name, path, code, userAgent);
        }

        String param(String key) {
            return query.get(key);
        }
    }

    private final Registry registry;
    private final Store store;
    private final WatchHub hub;
    private final Discovery discovery;
    private final OpenApi openApi;
    private final RequestLog log;
    private final FaultInjector faults;
    private final Clock clock;
    private final long bookmarkMillis;
    private final Supplier<String> serverAddress;
    private final Tokens tokens;
    private final Authorizer authorizer;
    /** kube-apiserver's {@code --max-request-body-bytes} default ({@code DefaultMaxRequestBodyBytes}). */
    static final int MAX_REQUEST_BODY = 3 * 1024 * 1024;

    private PodLogs podLogs;
    private Aggregator aggregator;
    private MetricsServer metrics;

    /**
     * Serves aggregated APIs: what {@code aggregator}'s APIServices point at, and {@code metrics} (may be null) as
     * metrics-server serves {@code metrics.k8s.io} on a host that has it.
     */
    void aggregation(Aggregator aggregator, MetricsServer metrics) {
        this.aggregator = aggregator;
        this.metrics = metrics;
        discovery.aggregated(() -> {
            Map<String, List<String>> groups = new java.util.LinkedHashMap<>(aggregator.groupVersions());
            if (metrics != null) {
                groups.computeIfAbsent(MetricsServer.GROUP, g -> new ArrayList<>()).add(MetricsServer.VERSION);
            }
            return groups;
        });
    }

    /** Serves {@code pods/log} with {@code logs}; without it, a log request is a 404 as for an unknown path. */
    void podLogs(PodLogs podLogs) {
        this.podLogs = podLogs;
    }

    Router(Registry registry, Store store, WatchHub hub, RequestLog log, FaultInjector faults, Clock clock,
            Duration bookmarkInterval, Supplier<String> serverAddress) {
        this.registry = registry;
        this.store = store;
        this.hub = hub;
        this.discovery = new Discovery(registry);
        this.openApi = new OpenApi(registry);
        this.log = log;
        this.faults = faults;
        this.clock = clock;
        this.bookmarkMillis = Math.max(1, bookmarkInterval.toMillis());
        this.serverAddress = serverAddress;
        this.tokens = new Tokens(store, registry, clock);
        this.authorizer = new Authorizer(store, registry);
    }

    @Override
    public void handle(HttpExchange ex) {
        Request request = null;
        int code = 0;
        boolean logged = false;
        try {
            Integer delegated = aggregated(ex);
            if (delegated != null) {
                code = delegated;
                return;
            }
            request = parse(ex);
            FaultInjector.Decision decision = request.type() == null ? FaultInjector.Decision.NONE
                    : faults.decide(request.entry(0));
            if (decision.delayMillis() > 0) {
                Thread.sleep(decision.delayMillis());
            }
            FaultRule fault = decision.fault();
            if (fault != null) {
                switch (fault.kind()) {
                    case STATUS -> {
                        code = send(ex, ApiError.forCode(fault.code(), fault.message()));
                        return;
                    }
                    case RESET_CONNECTION -> {
                        code = 0;
                        return;
                    }
                    case DROP_WATCH -> {
                        ex.getResponseHeaders().set("Content-Type", "application/json");
                        ex.sendResponseHeaders(200, 0);
                        code = 200;
                        return;
                    }
                    default -> throw new IllegalStateException(fault.toString());
                }
            }
            if (request.verb().equals("watch")) {
                logged = true;
                code = watch(ex, request);
            } else {
                code = serve(ex, request);
            }
        } catch (ApiError e) {
            code = sendQuietly(ex, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The client went away mid-response; nothing to answer.
            code = code == 0 ? 499 : code;
        } catch (RuntimeException e) {
            code = sendQuietly(ex, ApiError.internal(e.toString()));
        } finally {
            if (request != null && !logged) {
                log.record(request.entry(code));
            } else if (request == null) {
                log.record(new RequestLog.Entry(ex.getRequestMethod().toLowerCase(Locale.ROOT), "", "", null, null,
                        ex.getRequestURI().getRawPath(), code, ex.getRequestHeaders().getFirst("User-Agent")));
            }
            ex.close();
        }
    }

    /**
     * A request for an aggregated group/version: proxied to its APIService's service, or answered by the metrics
     * server; null when the path is not one (the registry serves it, or no one does).
     */
    private Integer aggregated(HttpExchange ex) throws IOException {
        if (aggregator == null) {
            return null;
        }
        String[] parts = ex.getRequestURI().getRawPath().replaceAll("^/+", "").split("/");
        if (parts.length < 3 || !parts[0].equals("apis")) {
            return null;
        }
        String group = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
        String version = URLDecoder.decode(parts[2], StandardCharsets.UTF_8);
        JsonObject apiService = aggregator.remote(group, version);
        if (apiService != null) {
            return aggregator.proxy(ex, apiService);
        }
        if (metrics == null || !group.equals(MetricsServer.GROUP) || !version.equals(MetricsServer.VERSION)) {
            return null;
        }
        if (!ex.getRequestMethod().equalsIgnoreCase("GET")) {
            return send(ex, ApiError.methodNotAllowed());
        }
        List<String> rest = new ArrayList<>();
        for (int i = 3; i < parts.length; i++) {
            rest.add(URLDecoder.decode(parts[i], StandardCharsets.UTF_8));
        }
        try {
            JsonObject body = metrics.serve(rest, query(ex.getRequestURI().getRawQuery()));
            return body == null ? send(ex, ApiError.pathNotFound()) : send(ex, 200, body, List.of());
        } catch (ApiError e) {
            return send(ex, e);
        }
    }

    // ---- parsing ----

    private Request parse(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
        String path = ex.getRequestURI().getRawPath();
        Map<String, String> query = query(ex.getRequestURI().getRawQuery());
        String userAgent = ex.getRequestHeaders().getFirst("User-Agent");
        List<String> segments = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                segments.add(URLDecoder.decode(s, StandardCharsets.UTF_8));
            }
        }
        String group;
        List<String> rest;
        if (segments.size() >= 2 && segments.get(0).equals("api")) {
            group = "";
            rest = segments.subList(2, segments.size());
        } else if (segments.size() >= 3 && segments.get(0).equals("apis")) {
            group = segments.get(1);
            rest = segments.subList(3, segments.size());
        } else {
            return new Request(method, path, query, "get", null, "", "", null, null, null, userAgent);
        }
        String version = segments.get(0).equals("api") ? segments.get(1) : segments.get(2);
        if (rest.isEmpty()) {
            return new Request(method, path, query, "get", null, "", "", null, null, null, userAgent);
        }
        boolean legacyWatch = rest.get(0).equals("watch");
        if (legacyWatch) {
            rest = rest.subList(1, rest.size());
        }
        String namespace = null;
        String resource;
        String name = null;
        String sub = null;
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")
                && !(rest.size() == 3 && (rest.get(2).equals("status") || rest.get(2).equals("finalize")))) {
            namespace = rest.get(1);
            resource = rest.get(2);
            name = rest.size() > 3 ? rest.get(3) : null;
            sub = rest.size() > 4 ? rest.get(4) : null;
            if (rest.size() > 5) {
                throw ApiError.pathNotFound();
            }
        } else if (!rest.isEmpty()) {
            resource = rest.get(0);
            name = rest.size() > 1 ? rest.get(1) : null;
            sub = rest.size() > 2 ? rest.get(2) : null;
            if (rest.size() > 3) {
                throw ApiError.pathNotFound();
            }
        } else {
            throw ApiError.pathNotFound();
        }
        ResourceType type;
        if (group.isEmpty() && resource.equals("bindings") && namespace != null && name == null) {
            type = registry.find("", version, "pods");
            sub = "binding";
        } else {
            type = registry.find(group, version, resource);
        }
        if (type == null || (namespace != null && !type.namespaced())) {
            throw ApiError.pathNotFound();
        }
        if (sub != null && !(sub.equals("status") && type.statusSubresource())
                && !(sub.equals("binding") && type.is("", "pods"))
                && !(sub.equals("token") && type.is("", "serviceaccounts"))
                && !(sub.equals("log") && type.is("", "pods"))
                && !(sub.equals("ephemeralcontainers") && type.is("", "pods"))
                && !(sub.equals("scale") && SCALABLE.contains(type.group() + "/" + type.plural()))) {
            throw ApiError.pathNotFound();
        }
        boolean watch = legacyWatch || "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
        String verb = switch (method) {
            case "GET" -> name == null ? (watch ? "watch" : "list") : (legacyWatch ? "watch" : "get");
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name == null ? "deletecollection" : "delete";
            default -> method.toLowerCase(Locale.ROOT);
        };
        return new Request(method, path, query, verb, type, group, type.plural(), namespace, name, sub, userAgent);
    }

    /** The query's parameters, the last value of each (as this server has always read them). */
    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        queryValues(raw).forEach((k, v) -> q.put(k, v.get(v.size() - 1)));
        return q;
    }

    /** The query's parameters with every value of each, in order. */
    static Map<String, List<String>> queryValues(String raw) {
        Map<String, List<String>> q = new java.util.LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            q.computeIfAbsent(key, x -> new ArrayList<>()).add(value);
        }
        return q;
    }

    // ---- serving ----

    private int serve(HttpExchange ex, Request r) throws IOException {
        if (r.type() == null) {
            return nonResource(ex, r);
        }
        ResourceType t = r.type();
        if (t.namespaced() && r.namespace() == null && (r.name() != null || !r.verb().equals("list"))) {
            throw r.name() == null ? ApiError.methodNotAllowed() : ApiError.pathNotFound();
        }
        byte[] body = ex.getRequestBody().readNBytes(MAX_REQUEST_BODY + 1);
        if (body.length > MAX_REQUEST_BODY) {
            // limitedReadBody (endpoints/handlers/rest.go): MaxRequestBodyBytes is 3 MiB by default.
            throw new ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is "
                    + MAX_REQUEST_BODY, null);
        }
        boolean status = "status".equals(r.subresource());
        boolean ephemeral = "ephemeralcontainers".equals(r.subresource());
        Store.WriteOptions opts = new Store.WriteOptions("All".equals(r.param("dryRun")),
                r.param("fieldValidation") == null ? "" : r.param("fieldValidation"), new ArrayList<>(),
                new ManagedFields.Writer(managerOrUserAgent(r.param("fieldManager"),
                        ex.getRequestHeaders().getFirst("User-Agent")), status || ephemeral ? r.subresource() : ""),
                null);
        if ("binding".equals(r.subresource()) && !r.verb().equals("create")
                || (r.verb().equals("update") || r.verb().equals("patch")) && r.name() == null) {
            throw ApiError.methodNotAllowed();
        }
        if (t.createOnly() && !(r.verb().equals("create") && r.name() == null)) {
            throw ApiError.methodNotAllowed();
        }
        if ("token".equals(r.subresource())) {
            if (!r.verb().equals("create")) {
                throw ApiError.methodNotAllowed();
            }
            return send(ex, 201, tokens.request(r.namespace(), r.name(), Json.parseObject(body)), List.of());
        }
        if (t.createOnly()) {
            return send(ex, 201, t.plural().equals("subjectaccessreviews")
                    ? authorizer.review(Json.parseObject(body)) : tokens.review(Json.parseObject(body)), List.of());
        }
        if ("log".equals(r.subresource())) {
            if (podLogs == null) {
                throw ApiError.pathNotFound();
            }
            if (!r.verb().equals("get")) {
                throw ApiError.methodNotAllowed();
            }
            try {
                return podLogs.serve(ex, r.namespace(), r.name(), r.query());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        if ("scale".equals(r.subresource())) {
            // autoscaling/v1 Scale of a workload: get, update and patch (kubectl scale patches it).
            return switch (r.verb()) {
                case "get" -> send(ex, 200, store.scale(t, r.namespace(), r.name()), List.of());
                case "update" -> send(ex, 200, store.updateScale(t, r.namespace(), r.name(), null, Json.parse(body),
                        opts), opts.warnings());
                case "patch" -> send(ex, 200, store.updateScale(t, r.namespace(), r.name(), patchType(ex, t),
                        Json.parse(body), opts), opts.warnings());
                default -> throw ApiError.methodNotAllowed();
            };
        }
        if (ephemeral) {
            // pods/ephemeralcontainers: get, update and patch (kubectl debug patches it), nothing else.
            return switch (r.verb()) {
                case "get" -> send(ex, 200, store.get(t, r.namespace(), r.name()), List.of());
                case "update" -> send(ex, 200, store.updateEphemeralContainers(t, r.namespace(), r.name(), null,
                        Json.parse(body), opts), opts.warnings());
                case "patch" -> {
                    String patchType = patchType(ex, t);
                    if (patchType.equals("apply")) {
                        // A known difference (docs/testing.md): a real server also takes an apply here.
                        throw ApiError.unsupportedMediaType("application/apply-patch+yaml", MERGE_PATCH_TYPES
                                + ", application/strategic-merge-patch+json (this test server does not apply "
                                + "configurations to pods/ephemeralcontainers)");
                    }
                    yield send(ex, 200, store.updateEphemeralContainers(t, r.namespace(), r.name(), patchType,
                            Json.parse(body), opts), opts.warnings());
                }
                default -> throw ApiError.methodNotAllowed();
            };
        }
        return switch (r.verb()) {
            case "get" -> {
                JsonObject o = store.get(t, r.namespace(), r.name());
                if (wantsTable(ex)) {
                    yield send(ex, 200, Tables.table(t, List.of(o), Json.object("resourceVersion",
                            Json.str(Json.obj(o, "metadata"), "resourceVersion")), r.param("includeObject"),
                            clock.instant()), List.of());
                }
                yield send(ex, 200, o, List.of());
            }
            case "list" -> list(ex, r);
            case "create" -> {
                if ("binding".equals(r.subresource())) {
                    JsonObject binding = Json.parseObject(body);
                    String pod = r.name() != null ? r.name() : Json.str(Json.obj(binding, "metadata"), "name");
                    if (pod == null) {
                        throw ApiError.badRequest("a binding needs metadata.name: the pod to bind");
                    }
                    yield send(ex, 201, store.bind(t, r.namespace(), pod, binding), List.of());
                }
                if (r.name() != null || r.subresource() != null) {
                    throw ApiError.methodNotAllowed();
                }
                yield send(ex, 201, store.create(t, r.namespace(), requestObject(ex, t, body), opts),
                        opts.warnings());
            }
            case "update" -> {
                yield send(ex, 200, store.update(t, r.namespace(), r.name(), requestObject(ex, t, body), status,
                        opts), opts.warnings());
            }
            case "patch" -> {
                String patchType = patchType(ex, t);
                checkPatchOptions(r, patchType);
                if (patchType.equals("apply")) {
                    Store.ApplyResult applied = store.apply(t, r.namespace(), r.name(), applyConfiguration(body),
                            status, "true".equals(r.param("force")), opts);
                    yield send(ex, applied.created() ? 201 : 200, applied.object(), opts.warnings());
                }
                yield send(ex, 200, store.patch(t, r.namespace(), r.name(), patchType, Json.parse(body), status,
                        opts), opts.warnings());
            }
            case "delete" -> {
                if (r.subresource() != null) {
                    throw ApiError.methodNotAllowed();
                }
                JsonObject options = body.length == 0 ? new JsonObject() : Json.parseObject(body);
                // DeleteOptions may come as query parameters too (kubectl --grace-period sends the body).
                for (String p : List.of("gracePeriodSeconds", "propagationPolicy")) {
                    if (r.param(p) != null && !options.has(p)) {
                        if (p.equals("gracePeriodSeconds")) {
                            try {
                                options.addProperty(p, Long.parseLong(r.param(p)));
                            } catch (NumberFormatException e) {
                                throw ApiError.badRequest("gracePeriodSeconds: Invalid value: \"" + r.param(p)
                                        + "\": must be a number");
                            }
                        } else {
                            options.addProperty(p, r.param(p));
                        }
                    }
                }
                yield send(ex, 200, store.delete(t, r.namespace(), r.name(), options, opts), List.of());
            }
            case "deletecollection" -> {
                Store.Page page = store.deleteCollection(t, r.namespace(), r.param("labelSelector"),
                        r.param("fieldSelector"), opts);
                yield send(ex, 200, listObject(t, page), List.of());
            }
            default -> throw ApiError.methodNotAllowed();
        };
    }

    private int list(HttpExchange ex, Request r) throws IOException {
        long limit = 0;
        if (r.param("limit") != null && !r.param("limit").isEmpty()) {
            try {
                limit = Long.parseLong(r.param("limit"));
            } catch (NumberFormatException e) {
                throw ApiError.badRequest("limit: Invalid value: \"" + r.param("limit") + "\": must be a number");
            }
        }
        Store.Page page = store.list(r.type(), r.namespace(), r.param("labelSelector"), r.param("fieldSelector"), limit,
                r.param("continue"));
        if (wantsTable(ex)) {
            return send(ex, 200, Tables.table(r.type(), page.items(), listMeta(page), r.param("includeObject"),
                    clock.instant()), List.of());
        }
        return send(ex, 200, listObject(r.type(), page), List.of());
    }

    private static JsonObject listObject(ResourceType t, Store.Page page) {
        JsonArray items = new JsonArray();
        page.items().forEach(items::add);
        return Json.object("kind", t.kind() + "List", "apiVersion", t.apiVersion(), "metadata", listMeta(page),
                "items", items);
    }

    private static JsonObject listMeta(Store.Page page) {
        JsonObject meta = Json.object("resourceVersion", page.resourceVersion());
        if (page.continueToken() != null) {
            meta.addProperty("continue", page.continueToken());
        }
        if (page.remainingItemCount() != null) {
            meta.addProperty("remainingItemCount", page.remainingItemCount());
        }
        return meta;
    }

    private int nonResource(HttpExchange ex, Request r) throws IOException {
        if (!r.method().equals("GET")) {
            throw ApiError.methodNotAllowed();
        }
        String path = r.path().endsWith("/") && r.path().length() > 1 ? r.path().substring(0, r.path().length() - 1)
                : r.path();
        String[] parts = path.substring(1).split("/");
        JsonElement body = switch (path) {
            case "/version" -> discovery.version();
            case "/api" -> discovery.apiVersions(serverAddress.get());
            case "/apis" -> discovery.groupList();
            case "/healthz", "/livez", "/readyz" -> null;
            case "/", "" -> Json.object("paths", Json.array("/api", "/api/v1", "/apis", "/healthz", "/livez",
                    "/openapi/v2", "/openapi/v3", "/readyz", "/version"));
            default -> {
                if (parts[0].equals("api") && parts.length == 2) {
                    yield discovery.resources("", parts[1]);
                } else if (parts[0].equals("apis") && parts.length == 2) {
                    yield discovery.group(parts[1]);
                } else if (parts[0].equals("apis") && parts.length == 3) {
                    yield discovery.resources(parts[1], parts[2]);
                } else if (parts[0].equals("openapi")) {
                    yield openApi.serve(path);
                }
                yield null;
            }
        };
        if (body == null && (path.equals("/healthz") || path.equals("/livez") || path.equals("/readyz"))) {
            byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            ex.sendResponseHeaders(200, ok.length);
            ex.getResponseBody().write(ok);
            return 200;
        }
        if (body == null) {
            throw ApiError.pathNotFound();
        }
        return send(ex, 200, body, List.of());
    }

    // ---- watch ----

    private int watch(HttpExchange ex, Request r) throws IOException, InterruptedException {
        ResourceType t = r.type();
        String fieldSelector = r.param("fieldSelector");
        if (r.name() != null) {
            String byName = "metadata.name=" + r.name();
            fieldSelector = fieldSelector == null || fieldSelector.isEmpty() ? byName : fieldSelector + "," + byName;
        }
        boolean bookmarks = "true".equals(r.param("allowWatchBookmarks"));
        boolean sendInitial = "true".equals(r.param("sendInitialEvents"));
        WatchHub.Subscription sub;
        try {
            sub = store.watch(t, r.namespace(), r.param("labelSelector"), fieldSelector, r.param("resourceVersion"),
                    sendInitial);
        } catch (ApiError e) {
            if (e.code != 410) {
                log.record(r.entry(e.code));
                throw e;
            }
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            log.record(r.entry(200));
            OutputStream os = ex.getResponseBody();
            writeEvent(os, "ERROR", e.toStatus());
            return 200;
        }
        long timeoutMillis = DEFAULT_WATCH_TIMEOUT_MILLIS;
        if (r.param("timeoutSeconds") != null && !r.param("timeoutSeconds").isEmpty()) {
            try {
                timeoutMillis = Long.parseLong(r.param("timeoutSeconds")) * 1000;
            } catch (NumberFormatException e) {
                hub.unsubscribe(sub);
                log.record(r.entry(400));
                throw ApiError.badRequest("timeoutSeconds: must be a number");
            }
        }
        try {
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            log.record(r.entry(200));
            OutputStream os = ex.getResponseBody();
            // The JDK server holds chunked headers until the first chunk; a quiet watch must still be "open".
            os.flush();
            long start = System.nanoTime();
            long deadline = start + timeoutMillis * 1_000_000;
            long nextBookmark = start + bookmarkMillis * 1_000_000;
            int initialLeft = sub.initialCount;
            Printer printer = new Printer(t, wantsTable(ex), r.param("includeObject"));
            if (initialLeft == 0 && sendInitial && bookmarks) {
                writeEvent(os, "BOOKMARK", initialEventsEnd(t, sub.startVersion));
            }
            while (true) {
                long now = System.nanoTime();
                if (now >= deadline) {
                    if (bookmarks && sub.idle()) {
                        writeEvent(os, "BOOKMARK", bookmark(t, hub.lastPublished()));
                    }
                    break;
                }
                long wakeAt = bookmarks ? Math.min(deadline, nextBookmark) : deadline;
                WatchHub.Item item = sub.poll(Math.max(1, (wakeAt - now) / 1_000_000));
                if (item == WatchHub.Item.END) {
                    break;
                }
                if (item != null) {
                    writeEvent(os, item.type(), printer.print(Store.present(t, item.object())));
                    if (initialLeft > 0 && --initialLeft == 0 && sendInitial && bookmarks) {
                        writeEvent(os, "BOOKMARK", initialEventsEnd(t, sub.startVersion));
                    }
                    continue;
                }
                if (bookmarks && System.nanoTime() >= nextBookmark) {
                    long version = hub.lastPublished();
                    if (sub.idle()) {
                        writeEvent(os, "BOOKMARK", bookmark(t, version));
                    }
                    nextBookmark = System.nanoTime() + bookmarkMillis * 1_000_000;
                }
            }
            return 200;
        } finally {
            hub.unsubscribe(sub);
        }
    }

    /**
     * Turns watched objects into one-row Tables when the client asked for tables ({@code kubectl get -w}); as on a
     * real server only the first carries the column definitions.
     */
    private final class Printer {
        private final ResourceType type;
        private final String includeObject;
        private final boolean tables;
        private boolean first = true;

        Printer(ResourceType type, boolean tables, String includeObject) {
            this.type = type;
            this.tables = tables;
            this.includeObject = includeObject;
        }

        JsonObject print(JsonObject o) {
            if (!tables) {
                return o;
            }
            JsonObject table = Tables.table(type, List.of(o), Json.object("resourceVersion",
                    Json.str(Json.obj(o, "metadata"), "resourceVersion")), includeObject, clock.instant());
            if (!first) {
                table.remove("columnDefinitions");
            }
            first = false;
            return table;
        }
    }

    private static JsonObject bookmark(ResourceType t, long version) {
        return Json.object("kind", t.kind(), "apiVersion", t.apiVersion(), "metadata",
                Json.object("resourceVersion", Long.toString(version)));
    }

    private static JsonObject initialEventsEnd(ResourceType t, long version) {
        JsonObject b = bookmark(t, version);
        Json.meta(b).add("annotations", Json.object("k8s.io/initial-events-end", "true"));
        return b;
    }

    private static void writeEvent(OutputStream os, String type, JsonObject object) throws IOException {
        JsonObject event = Json.object("type", type, "object", object);
        os.write(Json.bytes(event));
        os.write('\n');
        os.flush();
    }

    // ---- content negotiation ----

    private static boolean wantsTable(HttpExchange ex) {
        String accept = ex.getRequestHeaders().getFirst("Accept");
        return accept != null && accept.contains("as=Table");
    }

    /** The object in a create or update body: JSON, or protobuf for the few kinds kubectl's generators send. */
    private static JsonObject requestObject(HttpExchange ex, ResourceType t, byte[] body) {
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        if (Protobuf.isProtobuf(type)) {
            return Protobuf.decode(body, t);
        }
        if (type != null && !type.isEmpty() && !type.startsWith("application/json") && !type.startsWith("*/*")) {
            throw ApiError.unsupportedMediaType(type, "application/json");
        }
        return Json.parseObject(body);
    }

    private static String patchType(HttpExchange ex, ResourceType t) {
        String raw = ex.getRequestHeaders().getFirst("Content-Type");
        String type = raw == null ? "" : raw.split(";")[0].trim().toLowerCase(Locale.ROOT);
        return switch (type) {
            case "application/json-patch+json" -> "json";
            case "application/merge-patch+json" -> "merge";
            case "application/strategic-merge-patch+json" -> {
                if (!t.strategicMerge()) {
                    throw ApiError.unsupportedMediaType(type, MERGE_PATCH_TYPES
                            + " (strategic merge patch is not supported for custom resources)");
                }
                yield "strategic";
            }
            case "application/apply-patch+yaml" -> "apply";
            default -> throw ApiError.unsupportedMediaType(type, MERGE_PATCH_TYPES
                    + (t.strategicMerge() ? ", application/strategic-merge-patch+json" : "")
                    + ", application/apply-patch+yaml");
        };
    }

    /**
     * {@code ValidatePatchOptions} ({@code apimachinery/pkg/apis/meta/v1/validation/validation.go}): an apply needs a
     * field manager; {@code force} belongs to apply alone.
     */
    private static void checkPatchOptions(Request r, String patchType) {
        if (patchType.equals("apply") && (r.param("fieldManager") == null || r.param("fieldManager").isEmpty())) {
            throw ApiError.invalid("meta.k8s.io", "PatchOptions", "", List.of(new ApiError.Cause("FieldValueRequired",
                    "fieldManager", "Required value: is required for apply patch")));
        }
        if (!patchType.equals("apply") && r.param("force") != null) {
            throw ApiError.invalid("meta.k8s.io", "PatchOptions", "", List.of(ApiError.Cause.forbidden("force",
                    "may not be specified for non-apply patch")));
        }
    }

    /** An apply configuration is YAML (JSON is YAML), decoded as {@code yaml.Unmarshal} into an unstructured map. */
    private static JsonElement applyConfiguration(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.stripLeading().startsWith("{")) {
            return Json.parse(body);
        }
        Object parsed;
        try {
            parsed = new org.yaml.snakeyaml.Yaml(new org.yaml.snakeyaml.constructor.SafeConstructor(
                    new org.yaml.snakeyaml.LoaderOptions())).load(text);
        } catch (RuntimeException e) {
            throw ApiError.badRequest("error decoding YAML: " + e.getMessage());
        }
        return Json.GSON.toJsonTree(parsed);
    }

    /** {@code managerOrUserAgent} (handlers/rest.go): the fieldManager, else the User-Agent up to its first "/". */
    private static String managerOrUserAgent(String manager, String userAgent) {
        if (manager != null && !manager.isEmpty()) {
            return manager;
        }
        String prefix = userAgent == null ? "" : userAgent.split("/", -1)[0];
        return prefix.length() > 128 ? prefix.substring(0, 128) : prefix;
    }

    // ---- responses ----

    private static int send(HttpExchange ex, int code, JsonElement body, List<String> warnings) throws IOException {
        byte[] bytes = Json.bytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        for (String w : warnings) {
            ex.getResponseHeaders().add("Warning", "299 - \"" + w.replace("\"", "\\\"") + "\"");
        }
        ex.sendResponseHeaders(code, bytes.length);
        ex.getResponseBody().write(bytes);
        return code;
    }

    private static int send(HttpExchange ex, ApiError e) throws IOException {
        if (e.retryAfterSeconds > 0) {
            ex.getResponseHeaders().set("Retry-After", Integer.toString(e.retryAfterSeconds));
        }
        return send(ex, e.code, e.toStatus(), List.of());
    }

    private static int sendQuietly(HttpExchange ex, ApiError e) {
        try {
            return send(ex, e);
        } catch (IOException | RuntimeException ignored) {
            // Headers may already be out (a failed stream); the client sees the connection end.
            return e.code;
        }
    }
}
