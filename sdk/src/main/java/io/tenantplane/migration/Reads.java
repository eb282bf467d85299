package io.tenantplane.migration;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.tenantplane.ReadFailedException;
import io.tenantplane.apply.ResourceKind;
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
 * Reads objects as JSON through an {@link ApiClient} (its base path, TLS and credentials), page by page, putting back
 * the {@code apiVersion} and {@code kind} a list leaves out of its items. A refused read throws
 * {@link ReadFailedException}: a migration step is never planned on a partial view.
 */
final class Reads {

    private static final String[] AUTH = {"BearerToken"};
    private static final int PAGE = 500;

    private final ApiClient client;

    Reads(ApiClient client) {
        this.client = client;
    }

    /** Every object of {@code kind} in {@code namespace} (null: all namespaces, or a cluster-scoped kind). */
    List<JsonObject> list(ResourceKind kind, String namespace) {
        List<JsonObject> items = new ArrayList<>();
        String cont = null;
        do {
            Map<String, String> q = new HashMap<>();
            q.put("limit", String.valueOf(PAGE));
            if (cont != null) {
                q.put("continue", cont);
            }
            Answer a = call(kind.collectionPath(namespace), q);
            if (a.code == 404 && namespace != null) {
                return List.of(); // the namespace does not exist (yet, or any more)
            }
            if (a.code != 200 || a.body == null) {
                throw new ReadFailedException("list " + kind.plural() + (namespace == null ? "" : " in " + namespace),
                        a.code, a.message());
            }
            JsonElement arr = a.body.get("items");
            if (arr != null && arr.isJsonArray()) {
                for (JsonElement e : arr.getAsJsonArray()) {
                    items.add(typed(e.getAsJsonObject(), kind));
                }
            }
            cont = Json.string(a.body, "metadata", "continue");
        } while (cont != null && !cont.isEmpty());
        return items;
    }

    /** The object, or empty on 404. */
    Optional<JsonObject> get(ResourceKind kind, String namespace, String name) {
        Answer a = call(kind.objectPath(kind.namespaced() ? namespace : null, name), Map.of());
        if (a.code == 404) {
            return Optional.empty();
        }
        if (a.code != 200 || a.body == null) {
            throw new ReadFailedException("get " + kind.plural() + " " + name, a.code, a.message());
        }
        return Optional.of(typed(a.body, kind));
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
            throw new ReadFailedException("read " + path, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private record Answer(int code, JsonObject body) {
        String message() {
            String m = body == null ? null : Json.string(body, "message");
            return m != null ? m : "HTTP " + code;
        }
    }
}
