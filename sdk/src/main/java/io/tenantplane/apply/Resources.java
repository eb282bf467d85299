package io.tenantplane.apply;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.internal.Rest;
import io.tenantplane.json.Json;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Resolves a kind to its {@link ResourceKind} on one API server: the fixed table first, API discovery for any other
 * kind (cached for the life of this object). Thread-safe.
 */
public final class Resources {

    private final Rest rest;
    private final ConcurrentMap<String, ResourceKind> discovered = new ConcurrentHashMap<>();

    private Resources(ApiClient client) {
        this.rest = new Rest(client);
    }

    /** Resolution against the API server behind {@code client}. */
    public static Resources of(ApiClient client) {
        return new Resources(Objects.requireNonNull(client, "client"));
    }

    /**
     * The resource of {@code kind} at {@code apiVersion}.
     *
     * @param apiVersion e.g. {@code v1} or {@code networking.k8s.io/v1}; may be null for the kinds of the fixed table
     * @param kind       e.g. {@code Ingress}
     * @throws UnknownKindException when neither the table nor the server's discovery knows the kind
     */
    public ResourceKind resolve(String apiVersion, String kind) {
        Optional<ResourceKind> known = ResourceKind.wellKnown(apiVersion, kind);
        if (known.isPresent()) {
            return known.get();
        }
        if (apiVersion == null) {
            throw new UnknownKindException("kind " + kind + " is not one tenantplane knows without an apiVersion;"
                    + " name its apiVersion in the SyncPolicy");
        }
        String key = apiVersion + "/" + kind;
        ResourceKind cached = discovered.get(key);
        if (cached != null) {
            return cached;
        }
        ResourceKind found = discover(apiVersion, kind);
        discovered.put(key, found);
        return found;
    }

    private ResourceKind discover(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        String path = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
        Rest.Reply reply = rest.get(path);
        if (!reply.ok() || reply.body() == null) {
            throw new UnknownKindException("discovery of " + apiVersion + " failed (" + reply.code() + " "
                    + reply.reason() + "): " + reply.message());
        }
        JsonElement resources = reply.body().get("resources");
        if (resources != null && resources.isJsonArray()) {
            for (JsonElement e : resources.getAsJsonArray()) {
                JsonObject r = e.getAsJsonObject();
                String name = Json.string(r, "name");
                if (kind.equals(Json.string(r, "kind")) && name != null && !name.contains("/")) {
                    boolean namespaced = r.has("namespaced") && r.get("namespaced").getAsBoolean();
                    return new ResourceKind(group, version, kind, name, namespaced);
                }
            }
        }
        throw new UnknownKindException("the API server does not serve kind " + kind + " in " + apiVersion);
    }
}
