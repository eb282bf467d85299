package io.tenantplane.apply;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.internal.Rest;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads objects of any kind from one API server as JSON, with the {@link ApiClient}'s own base path, TLS and
 * authentication. A list is read page by page; list items get their {@code apiVersion} and {@code kind} back (the
 * server leaves them out of items); every object read comes without {@code metadata.managedFields}. Every request
 * (each page of a list on its own) that the server answers with throttling (429) or a server error (5xx), or does not
 * answer (a timeout, a reset connection), is tried again as its {@link Retries} say: reads are idempotent, and one
 * failed read fails the whole pass that needed it. A read the server still refuses throws
 * {@link ReadFailedException}: a pass or a migration step cannot plan on a partial view. The reading side of
 * {@link Applier} ({@link Applier#reader()} reads with the applier's retries); thread-safe.
 */
public final class Reader {

    private static final int PAGE = 500;

    private final ApiClient client;
    private final Rest rest;
    private final Retries retries;

    /** Reads through {@code client}, trying a failed read again as {@link Retries#DEFAULT} says. */
    public Reader(ApiClient client) {
        this(client, Retries.DEFAULT);
    }

    /** Reads through {@code client}, trying a failed read again as {@code retries} say. */
    public Reader(ApiClient client, Retries retries) {
        this.client = client;
        this.rest = new Rest(client);
        this.retries = java.util.Objects.requireNonNull(retries, "retries");
    }

    /** The client it reads through. */
    public ApiClient client() {
        return client;
    }

    /**
     * Every object of {@code kind}.
     *
     * @param namespace     null for all namespaces (or a cluster-scoped kind)
     * @param labelSelector null for no selector
     */
    public List<JsonObject> list(ResourceKind kind, String namespace, String labelSelector) {
        return list(kind, namespace, labelSelector, null, false);
    }

    /**
     * Every object of {@code kind} in {@code namespace} that {@code fieldSelector} selects ({@code
     * involvedObject.uid=...,reason=...}: only the fields the server indexes for the kind).
     */
    public List<JsonObject> listWhere(ResourceKind kind, String namespace, String fieldSelector) {
        return list(kind, namespace, null, fieldSelector, false);
    }

    /**
     * Every object of {@code kind} in {@code namespace}, or none when the server answers that the namespace does not
     * exist (yet, or any more).
     */
    public List<JsonObject> listIfNamespaceExists(ResourceKind kind, String namespace) {
        return list(kind, namespace, null, null, namespace != null);
    }

    private List<JsonObject> list(ResourceKind kind, String namespace, String labelSelector, String fieldSelector,
                                  boolean absentIsEmpty) {
        List<JsonObject> items = new ArrayList<>();
        String cont = null;
        do {
            Map<String, String> q = new HashMap<>();
            q.put("limit", String.valueOf(PAGE));
            if (cont != null) {
                q.put("continue", cont);
            }
            if (labelSelector != null) {
                q.put("labelSelector", labelSelector);
            }
            if (fieldSelector != null) {
                q.put("fieldSelector", fieldSelector);
            }
            Rest.Reply a = call(kind.collectionPath(namespace), q);
            if (a.code() == 404 && absentIsEmpty) {
                return List.of();
            }
            if (a.code() != 200 || a.body() == null) {
                throw new ReadFailedException("list " + kind.plural() + where(namespace), a.code(), a.message());
            }
            JsonElement arr = a.body().get("items");
            if (arr != null && arr.isJsonArray()) {
                for (JsonElement e : arr.getAsJsonArray()) {
                    JsonObject o = e.getAsJsonObject();
                    typed(o, kind);
                    items.add(o);
                }
            }
            cont = Json.string(a.body(), "metadata", "continue");
        } while (cont != null && !cont.isEmpty());
        return items;
    }

    /**
     * The object, or empty when the server says 404.
     *
     * @param namespace ignored for a cluster-scoped kind
     */
    public Optional<JsonObject> get(ResourceKind kind, String namespace, String name) {
        Rest.Reply a = call(kind.objectPath(kind.namespaced() ? namespace : null, name), Map.of());
        if (a.code() == 404) {
            return Optional.empty();
        }
        if (a.code() != 200 || a.body() == null) {
            throw new ReadFailedException("get " + kind.plural() + " " + name + where(namespace), a.code(),
                    a.message());
        }
        return Optional.of(typed(a.body(), kind));
    }

    private static String where(String namespace) {
        return namespace == null ? "" : " in " + namespace;
    }

    /**
     * The object as the SDK keeps it: with its {@code apiVersion} and {@code kind}, and without
     * {@code metadata.managedFields}, which nothing here reads (a write without them keeps the server's) and which
     * is often the largest part of an object a real API server returns (as client-go's
     * {@code TransformStripManagedFields} drops them from caches).
     */
    private static JsonObject typed(JsonObject o, ResourceKind kind) {
        Rest.withoutManagedFields(o);
        if (!o.has("apiVersion")) {
            o.addProperty("apiVersion", kind.apiVersion());
        }
        if (!o.has("kind")) {
            o.addProperty("kind", kind.kind());
        }
        return o;
    }

    /**
     * A GET through the SDK's one request path ({@link Rest}), tried again while the answer is one that may change
     * (429, 5xx, no answer) and attempts are left; no answer at all in the end is a {@link ReadFailedException}.
     */
    private Rest.Reply call(String path, Map<String, String> query) {
        for (int attempt = 1; ; attempt++) {
            Rest.Reply r = rest.call("GET", path, query, null);
            boolean unbuildable = r.code() == 0
                    && ("RequestNotBuilt".equals(r.reason()) || "Interrupted".equals(r.reason()));
            boolean again = !unbuildable && (r.code() == 0 || r.code() == 429 || r.code() >= 500);
            if (again && attempt < retries.maxAttempts()) {
                try {
                    Thread.sleep(retries.backoff(attempt));
                    continue;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ReadFailedException("read " + path + " from " + client.getBasePath(), r.code(),
                            "interrupted while waiting to try again after: " + r.message());
                }
            }
            if (r.code() == 0) {
                throw new ReadFailedException(("RequestNotBuilt".equals(r.reason()) ? "build a request for " + path
                        : "read " + path + " from " + client.getBasePath()), 0, r.reason() + ": " + r.message());
            }
            return r;
        }
    }
}
