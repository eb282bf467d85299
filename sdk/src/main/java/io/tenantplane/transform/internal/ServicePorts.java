package io.tenantplane.transform.internal;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.util.Objects;

/**
 * Which port of one Service is which port of another: the tenant Service and its host copy, or a Service before and
 * after an update. One rule for every place that carries a port's allocated node port from one to the other.
 */
public final class ServicePorts {
    private ServicePorts() {
    }

    /**
     * True when {@code a} and {@code b} are the same service port. By name when either is named, as kube-apiserver
     * keeps a port's node port across an update (by {@code name} alone: {@code patchAllocatedValues} in
     * pkg/registry/core/service/storage/storage.go; an absent name is the empty name, as in Go). Unnamed ports (a
     * Service may leave its name empty only when it has one port) are the same only with the same {@code port} and
     * {@code protocol} (TCP when absent, the API's default): where the server would carry a node port to a changed
     * port, tenantplane does not read a stale copy's node port as the changed port's.
     */
    public static boolean same(JsonObject a, JsonObject b) {
        String an = Objects.requireNonNullElse(Json.string(a, "name"), "");
        String bn = Objects.requireNonNullElse(Json.string(b, "name"), "");
        if (!an.isEmpty() || !bn.isEmpty()) {
            return an.equals(bn);
        }
        return Objects.equals(a.get("port"), b.get("port"))
                && Objects.requireNonNullElse(Json.string(a, "protocol"), "TCP")
                .equals(Objects.requireNonNullElse(Json.string(b, "protocol"), "TCP"));
    }
}
