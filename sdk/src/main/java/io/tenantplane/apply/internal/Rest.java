package io.tenantplane.apply.internal;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.tenantplane.apply.WriteRate;
import io.tenantplane.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.Call;
import okhttp3.Response;

/**
 * JSON over client-java's {@link ApiClient}: the client's base path, TLS and authentication are used as configured,
 * and every HTTP answer comes back as a {@link Reply} (an error answer is data; only a request that cannot even be built
 * throws).
 */
public final class Rest {

    private static final String[] AUTH = {"BearerToken"};

    private final ApiClient client;
    private final WriteRate rate;
    private final Object tenant;

    public Rest(ApiClient client) {
        this(client, WriteRate.unlimited(), null);
    }

    /** Every request waits for a token of {@code rate} for {@code tenant} first. */
    public Rest(ApiClient client, WriteRate rate, Object tenant) {
        this.client = client;
        this.rate = rate;
        this.tenant = tenant;
    }

    public Rest throttled(WriteRate rate, Object tenant) {
        return new Rest(client, rate, tenant);
    }

    public ApiClient client() {
        return client;
    }

    public Reply get(String path) {
        return call("GET", path, Map.of(), null);
    }

    public Reply call(String method, String path, Map<String, String> query, JsonElement body) {
        if (rate.limited()) {
            try {
                rate.acquire(tenant);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Reply.noAnswer("Interrupted", "interrupted while waiting for the client-side rate limit");
            }
        }
        List<Pair> pairs = new ArrayList<>();
        query.forEach((k, v) -> pairs.add(new Pair(k, v)));
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        if (body != null) {
            headers.put("Content-Type", "application/json");
        }
        Call call;
        try {
            call = client.buildCall(null, path, method, pairs, List.of(), body, headers, new HashMap<>(),
                    new HashMap<>(), AUTH, null);
        } catch (ApiException e) {
            return Reply.noAnswer("RequestNotBuilt", e.getMessage());
        }
        try (Response response = call.execute()) {
            String text = response.body() == null ? "" : response.body().string();
            return new Reply(response.code(), parse(text));
        } catch (IOException e) {
            return Reply.noAnswer(e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
        }
    }

    private static JsonObject parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            JsonElement e = JsonParser.parseString(text);
            return e.isJsonObject() ? withoutManagedFields(e.getAsJsonObject()) : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * {@code o} without {@code metadata.managedFields}: nothing in the SDK reads them, a write without them keeps the
     * server's, and they are often the largest part of an object a real API server returns (client-go's
     * {@code TransformStripManagedFields} drops them from caches for the same reason). An object the SDK keeps, such
     * as the Event an {@code EventObserver} counts on, would otherwise hold the server's field bookkeeping too.
     */
    public static JsonObject withoutManagedFields(JsonObject o) {
        if (o.get("metadata") instanceof JsonObject meta) {
            meta.remove("managedFields");
        }
        return o;
    }

    /**
     * One HTTP answer.
     *
     * @param code the HTTP status code, 0 when no answer came
     * @param body the JSON body: the object on success, a {@code Status} on failure; may be null
     */
    public record Reply(int code, JsonObject body) {

        public static Reply noAnswer(String reason, String message) {
            JsonObject status = new JsonObject();
            status.addProperty("kind", "Status");
            status.addProperty("reason", reason);
            status.addProperty("message", message);
            return new Reply(0, status);
        }

        public boolean ok() {
            return code >= 200 && code < 300;
        }

        /** The Kubernetes {@code Status.reason} (e.g. {@code Conflict}, {@code AlreadyExists}), or the HTTP code. */
        public String reason() {
            String r = body == null ? null : Json.string(body, "reason");
            return r != null && !r.isEmpty() ? r : (code == 0 ? "NoAnswer" : "Http" + code);
        }

        public String message() {
            String m = body == null ? null : Json.string(body, "message");
            return m != null ? m : "the API server answered " + code;
        }

        /** Answers that may succeed when tried again: conflicts, throttling, server errors, no answer. */
        public boolean retryable() {
            return code == 0 || code == 409 || code == 429 || code >= 500;
        }
    }
}
