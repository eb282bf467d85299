package io.tenantplane.apply;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import okhttp3.Call;
import okhttp3.Response;

/**
 * Reads objects of any kind from one API server as JSON, with the {@link ApiClient}'s own base path, TLS and
 * authentication. A list is read page by page; list items get their {@code apiVersion} and {@code kind} back (the
 * server leaves them out of items). A read the server refuses throws {@link ReadFailedException}: a pass or a
 * migration step cannot plan on a partial view. The reading side of {@link Applier}; thread-safe.
 */
public final class Reader {

    private static final String[] AUTH = {"BearerToken"};
    private static final int PAGE = 500;

    private final ApiClient client;

    /** Reads through {@code client}. */
    public Reader(ApiClient client) {
        this.client = client;
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
        return list(kind, namespace, labelSelector, false);
    }

    /**
     * Every object of {@code kind} in {@code namespace}, or none when the server answers that the namespace does not
     * exist (yet, or any more).
     */
    public List<JsonObject> listIfNamespaceExists(ResourceKind kind, String namespace) {
        return list(kind, namespace, null, namespace != null);
    }

    private List<JsonObject> list(ResourceKind kind, String namespace, String labelSelector, boolean absentIsEmpty) {
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
            Answer a = call(kind.collectionPath(namespace), q);
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
        Answer a = call(kind.objectPath(kind.namespaced() ? namespace : null, name), Map.of());
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

    private static JsonObject typed(JsonObject o, ResourceKind kind) {
        if (!o.has("apiVersion")) {
            o.addProperty("apiVersion", kind.apiVersion());
        }
        if (!o.has("kind")) {
            o.addProperty("kind", kind.kind());
        }
        return o;
    }

    private Answer call(String path, Map<String, String> query) {
        List<Pair> pairs = new ArrayList<>();
        query.forEach((k, v) -> pairs.add(new Pair(k, v)));
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        Call call;
        try {
            call = client.buildCall(null, path, "GET", pairs, List.of(), null, headers, new HashMap<>(),
                    new HashMap<>(), AUTH, null);
        } catch (ApiException e) {
            throw new ReadFailedException("build a request for " + path, 0, e.getMessage());
        }
        try (Response r = call.execute()) {
            String text = r.body() == null ? "" : r.body().string();
            JsonObject body = null;
            if (!text.isBlank()) {
                try {
                    JsonElement e = JsonParser.parseString(text);
                    body = e.isJsonObject() ? e.getAsJsonObject() : null;
                } catch (RuntimeException e) {
                    body = null;
                }
            }
            return new Answer(r.code(), body);
        } catch (IOException e) {
            throw new ReadFailedException("read " + path + " from " + client.getBasePath(), 0,
                    e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private record Answer(int code, JsonObject body) {
        String message() {
            String m = body == null ? null : Json.string(body, "message");
            return m != null ? m : "HTTP " + code;
        }
    }
}
