package io.tenantplane.apply.internal;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.json.Json;
import java.util.Map;
import java.util.Objects;

/**
 * Asks a tenant API for a service-account token ({@code POST .../serviceaccounts/{name}/token}, a TokenRequest), as
 * a kubelet does for a pod's projected token. Expected API failures are data in the answer, not exceptions.
 */
public final class TokenRequests {
    private final Rest rest;

    /** @param tenant a client of the tenant API (the tenant's admin identity may create {@code serviceaccounts/token}) */
    public TokenRequests(ApiClient tenant) {
        this.rest = new Rest(Objects.requireNonNull(tenant, "tenant"));
    }

    /**
     * The answer to one TokenRequest.
     *
     * @param token      the token, or null when none was issued
     * @param expiresAt  its {@code expirationTimestamp} (RFC 3339), or null
     * @param code       the HTTP status code (0 when no answer came)
     * @param problem    the API's reason and message when no token was issued
     */
    public record Issued(String token, String expiresAt, int code, String problem) {
        /** True when a token was issued. */
        public boolean ok() {
            return token != null;
        }
    }

    /**
     * Requests a token for ServiceAccount {@code namespace/serviceAccount}, bound to the Pod {@code pod} (its name and
     * uid), for {@code audience} (null: the API's own) and {@code expirationSeconds}.
     */
    public Issued issue(String namespace, String serviceAccount, String podName, String podUid, String audience,
                        long expirationSeconds) {
        JsonObject spec = new JsonObject();
        if (audience != null && !audience.isEmpty()) {
            spec.add("audiences", Json.gson().toJsonTree(java.util.List.of(audience)));
        }
        spec.addProperty("expirationSeconds", expirationSeconds);
        JsonObject ref = new JsonObject();
        ref.addProperty("apiVersion", "v1");
        ref.addProperty("kind", "Pod");
        ref.addProperty("name", podName);
        if (podUid != null) {
            ref.addProperty("uid", podUid);
        }
        spec.add("boundObjectRef", ref);
        JsonObject body = new JsonObject();
        body.addProperty("apiVersion", "authentication.k8s.io/v1");
        body.addProperty("kind", "TokenRequest");
        body.add("spec", spec);
        Rest.Reply reply = rest.call("POST", "/api/v1/namespaces/" + namespace + "/serviceaccounts/" + serviceAccount
                + "/token", Map.of(), body);
        if (reply.ok() && reply.body() != null && Json.string(reply.body(), "status", "token") != null) {
            return new Issued(Json.string(reply.body(), "status", "token"),
                    Json.string(reply.body(), "status", "expirationTimestamp"), reply.code(), null);
        }
        String message = reply.body() == null ? null : Json.string(reply.body(), "message");
        return new Issued(null, null, reply.code(), reply.reason() + (message == null ? "" : ": " + message));
    }
}
