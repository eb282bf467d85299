package io.tenantplane.sync;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Response;

/**
 * List-then-watch of one kind in one namespace (or all), on one thread: the reflector half of an informer without
 * its object cache. It keeps only each object's key and resourceVersion, so it can tell a relist's adds, changes and
 * deletions apart, resumes a dropped watch from the last resourceVersion (bookmarks keep that fresh) and lists again
 * only when the server says the version is gone (410).
 */
final class Watcher implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Watcher.class.getName());
    private static final String[] AUTH = {"BearerToken"};
    private static final int PAGE = 500;

    /** Receives the changes; called on the watcher's thread, so it must be quick (e.g. queue a key). */
    interface Handler {
        /**
         * @param type   {@code ADDED}, {@code MODIFIED} or {@code DELETED}
         * @param object the object (for a deletion found by a relist: only apiVersion, kind and metadata)
         */
        void onEvent(String type, JsonObject object);
    }

    private final String description;
    private final ApiClient client;
    private final OkHttpClient streaming;
    private final ResourceKind kind;
    private final String namespace;
    private final String labelSelector;
    private final Handler handler;
    private final ThreadFactory threads;
    private final boolean quietFirstList;
    private final CountDownLatch synced = new CountDownLatch(1);
    private final Map<String, String> known = new HashMap<>();
    private volatile boolean closed;
    private volatile Call current;
    private volatile Thread thread;
    private String resourceVersion;

    /**
     * @param quietFirstList when true the first list only records what exists and reports nothing (the caller runs a
     *                       full pass anyway); later lists and all watch events are reported
     */
    Watcher(ApiClient client, ResourceKind kind, String namespace, String labelSelector, Handler handler,
            ThreadFactory threads, boolean quietFirstList) {
        this.client = Objects.requireNonNull(client, "client");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.namespace = namespace;
        this.labelSelector = labelSelector;
        this.handler = Objects.requireNonNull(handler, "handler");
        this.threads = Objects.requireNonNull(threads, "threads");
        this.quietFirstList = quietFirstList;
        // A watch is idle for minutes at a time: no read timeout on its stream (the server ends it by timeoutSeconds).
        this.streaming = client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build();
        this.description = kind.plural() + (namespace == null ? "" : " in " + namespace)
                + (labelSelector == null ? "" : " [" + labelSelector + "]") + " at " + client.getBasePath();
    }

    ResourceKind kind() {
        return kind;
    }

    String namespace() {
        return namespace;
    }

    void start() {
        Thread t = threads.newThread(this::run);
        thread = t;
        t.start();
    }

    /** Waits until the first list was delivered. */
    boolean awaitSynced(Duration timeout) throws InterruptedException {
        return synced.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean hasSynced() {
        return synced.getCount() == 0;
    }

    private void run() {
        int failures = 0;
        while (!closed) {
            try {
                if (resourceVersion == null) {
                    relist();
                    synced.countDown();
                }
                watchOnce();
                failures = 0;
            } catch (Gone e) {
                resourceVersion = null;
            } catch (Exception e) {
                // OkHttp is written in Kotlin and can throw InterruptedException without declaring it, when close()
                // interrupts a call that is still connecting: that, like anything after close(), ends the loop.
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    if (!closed) {
                        LOG.log(System.Logger.Level.WARNING, "watch of " + description + " was interrupted; it stops");
                    }
                    break;
                }
                if (closed) {
                    break;
                }
                failures++;
                LOG.log(System.Logger.Level.DEBUG, "watch of " + description + " failed (" + failures + ")", e);
                if (!pause(backoff(failures))) {
                    break;
                }
                if (failures > 3) {
                    resourceVersion = null;
                }
            }
        }
    }

    private static Duration backoff(int failures) {
        long ms = Math.min(30_000L, 250L << Math.min(failures, 7));
        return Duration.ofMillis(ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1));
    }

    private boolean pause(Duration d) {
        try {
            Thread.sleep(d);
            return !closed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void relist() throws IOException {
        List<JsonObject> items = new ArrayList<>();
        String cont = null;
        String listVersion;
        do {
            List<Pair> q = new ArrayList<>();
            q.add(new Pair("limit", String.valueOf(PAGE)));
            if (cont != null) {
                q.add(new Pair("continue", cont));
            }
            if (labelSelector != null) {
                q.add(new Pair("labelSelector", labelSelector));
            }
            JsonObject page = getJson(q);
            JsonElement arr = page.get("items");
            if (arr != null && arr.isJsonArray()) {
                arr.getAsJsonArray().forEach(e -> items.add(e.getAsJsonObject()));
            }
            listVersion = Json.string(page, "metadata", "resourceVersion");
            cont = Json.string(page, "metadata", "continue");
        } while (cont != null && !cont.isEmpty() && !closed);
        boolean quiet = quietFirstList && !hasSynced();
        Set<String> seen = new HashSet<>();
        for (JsonObject o : items) {
            typed(o);
            String key = key(o);
            seen.add(key);
            String rv = Json.string(o, "metadata", "resourceVersion");
            String before = known.put(key, rv);
            if (quiet) {
                continue;
            }
            if (before == null) {
                handler.onEvent("ADDED", o);
            } else if (!before.equals(rv)) {
                handler.onEvent("MODIFIED", o);
            }
        }
        for (String key : new ArrayList<>(known.keySet())) {
            if (!seen.contains(key)) {
                known.remove(key);
                handler.onEvent("DELETED", tombstone(key));
            }
        }
        resourceVersion = listVersion;
    }

    private JsonObject getJson(List<Pair> query) throws IOException {
        Call call = call(query, client.getHttpClient());
        current = call;
        try (Response r = call.execute()) {
            String body = r.body() == null ? "" : r.body().string();
            if (r.code() == 410) {
                throw new Gone();
            }
            if (!r.isSuccessful()) {
                throw new IOException("list of " + description + " answered " + r.code() + ": " + body);
            }
            return JsonParser.parseString(body).getAsJsonObject();
        }
    }

    private void watchOnce() throws IOException {
        List<Pair> q = new ArrayList<>();
        q.add(new Pair("watch", "true"));
        q.add(new Pair("allowWatchBookmarks", "true"));
        q.add(new Pair("resourceVersion", resourceVersion));
        q.add(new Pair("timeoutSeconds", String.valueOf(240 + ThreadLocalRandom.current().nextInt(120))));
        if (labelSelector != null) {
            q.add(new Pair("labelSelector", labelSelector));
        }
        Call call = call(q, streaming);
        current = call;
        if (closed) {
            return;
        }
        try (Response r = call.execute()) {
            if (r.code() == 410) {
                throw new Gone();
            }
            if (!r.isSuccessful() || r.body() == null) {
                throw new IOException("watch of " + description + " answered " + r.code());
            }
            // Lines straight from the connection's own buffer: a BufferedReader over charStream() would hold a 16 KiB
            // char buffer and an 8 KiB byte buffer for as long as the watch is open, most of an idle tenant's heap.
            okio.BufferedSource source = r.body().source();
            String line;
            while (!closed && (line = source.readUtf8Line()) != null) {
                if (!line.isBlank()) {
                    event(JsonParser.parseString(line).getAsJsonObject());
                }
            }
        } catch (InterruptedIOException e) {
            if (!closed) {
                throw e;
            }
        }
    }

    private void event(JsonObject e) {
        String type = Json.string(e, "type");
        JsonObject o = Json.object(e, "object");
        if (type == null || o == null) {
            return;
        }
        if (type.equals("ERROR")) {
            JsonElement code = o.get("code");
            if (code != null && code.getAsInt() == 410) {
                throw new Gone();
            }
            throw new IllegalStateException("watch of " + description + " sent an error: " + o);
        }
        String rv = Json.string(o, "metadata", "resourceVersion");
        if (rv != null) {
            resourceVersion = rv;
        }
        if (type.equals("BOOKMARK")) {
            return;
        }
        typed(o);
        String key = key(o);
        if (type.equals("DELETED")) {
            known.remove(key);
        } else {
            known.put(key, rv);
        }
        handler.onEvent(type, o);
    }

    private Call call(List<Pair> query, OkHttpClient http) {
        try {
            Map<String, String> headers = new HashMap<>();
            headers.put("Accept", "application/json");
            Call built = client.buildCall(null, kind.collectionPath(namespace), "GET", query, List.of(), null,
                    headers, new HashMap<>(), new HashMap<>(), AUTH, null);
            return http.newCall(built.request());
        } catch (ApiException e) {
            throw new IllegalStateException("cannot build a request for " + description, e);
        }
    }

    private void typed(JsonObject o) {
        if (!o.has("apiVersion")) {
            o.addProperty("apiVersion", kind.apiVersion());
        }
        if (!o.has("kind")) {
            o.addProperty("kind", kind.kind());
        }
    }

    private static String key(JsonObject o) {
        String ns = Json.string(o, "metadata", "namespace");
        return (ns == null ? "" : ns) + "/" + Json.string(o, "metadata", "name");
    }

    private JsonObject tombstone(String key) {
        int slash = key.indexOf('/');
        JsonObject o = new JsonObject();
        o.addProperty("apiVersion", kind.apiVersion());
        o.addProperty("kind", kind.kind());
        JsonObject meta = Json.child(o, "metadata");
        if (slash > 0) {
            meta.addProperty("namespace", key.substring(0, slash));
        }
        meta.addProperty("name", key.substring(slash + 1));
        return o;
    }

    /** Stops watching and waits for the thread to end. */
    @Override
    public void close() {
        closed = true;
        Call c = current;
        if (c != null) {
            c.cancel();
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Watcher[" + description + "]";
    }

    /** The server no longer has the resourceVersion the watch resumes from: list again. */
    private static final class Gone extends RuntimeException {
        Gone() {
            super("resourceVersion expired", null, false, false);
        }
    }
}
