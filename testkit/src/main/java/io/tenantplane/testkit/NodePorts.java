package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Service node ports from the default range 30000-32767, as kube-apiserver allocates them
 * ({@code pkg/registry/core/service/portallocator/allocator.go}, with the static band of
 * {@code calculateRangeOffset}: {@code min(max(16, size/32), 128)} ports at the bottom, 86 here, kept for requested
 * ports, dynamic allocation drawing at random from the band above first): a requested port must be in the range
 * ({@code provided port is not in the valid range. The range of valid ports is 30000-32767}) and free ({@code provided
 * port is already allocated}), and a port is free again once no stored Service holds it.
 */
final class NodePorts {
    static final int BASE = 30000;
    static final int SIZE = 2768;
    static final String RANGE = "30000-32767";
    private static final int STATIC_BAND = Math.min(Math.max(16, SIZE / 32), 128);

    private final Random random;
    /** Allocated port → the Service holding it ({@code namespace/name}). */
    private final Map<Integer, String> owners = new HashMap<>();

    NodePorts(Random random) {
        this.random = random;
    }

    /** Why {@code port} cannot be given to Service {@code owner}, or null when it can ({@code Allocate}). */
    String problem(int port, String owner) {
        if (port < BASE || port >= BASE + SIZE) {
            return "provided port is not in the valid range. The range of valid ports is " + RANGE;
        }
        String holder = owners.get(port);
        return holder != null && !holder.equals(owner) ? "provided port is already allocated" : null;
    }

    /** A free port, from the dynamic band first, as {@code AllocateNext} does; {@code taken} are held already. */
    int next(List<Integer> taken) {
        for (int[] band : new int[][] {{STATIC_BAND, SIZE - STATIC_BAND}, {0, STATIC_BAND}}) {
            int start = random.nextInt(band[1]);
            for (int i = 0; i < band[1]; i++) {
                int port = BASE + band[0] + (start + i) % band[1];
                if (!owners.containsKey(port) && !taken.contains(port)) {
                    return port;
                }
            }
        }
        throw ApiError.internal("failed to allocate a nodePort: range is full");
    }

    /** Records what a stored Service holds after a write: {@code previous} released, {@code next} claimed. */
    void stored(JsonObject previous, JsonObject next) {
        if (previous != null) {
            for (int port : held(previous)) {
                owners.remove(port, ServiceIps.key(previous));
            }
        }
        if (next != null) {
            for (int port : held(next)) {
                owners.put(port, ServiceIps.key(next));
            }
        }
    }

    /** A service port's {@code nodePort}, 0 when it names none. */
    static int of(JsonObject port) {
        JsonElement n = port.get("nodePort");
        return n != null && n.isJsonPrimitive() && n.getAsJsonPrimitive().isNumber() ? n.getAsInt() : 0;
    }

    /** The node ports a Service spec's ports name, in their order. */
    static List<Integer> ofPorts(JsonObject spec) {
        List<Integer> out = new ArrayList<>();
        JsonArray ports = Json.arr(spec, "ports");
        for (JsonElement p : ports == null ? new JsonArray() : ports) {
            int n = p.isJsonObject() ? of(p.getAsJsonObject()) : 0;
            if (n != 0) {
                out.add(n);
            }
        }
        return out;
    }

    /** The node ports and health-check node port a Service holds. */
    static List<Integer> held(JsonObject service) {
        JsonObject spec = Json.obj(service, "spec");
        List<Integer> out = ofPorts(spec);
        JsonElement health = spec == null ? null : spec.get("healthCheckNodePort");
        if (health != null && health.isJsonPrimitive() && health.getAsJsonPrimitive().isNumber()
                && health.getAsInt() != 0) {
            out.add(health.getAsInt());
        }
        return out;
    }
}
