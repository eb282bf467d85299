package io.tenantplane.migration;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The host and tenant objects as the planner sees them, with the effect of the decisions planned so far applied in
 * memory, so that later steps are planned against the state earlier steps leave behind.
 */
final class World {

    private final Map<Key, JsonObject> host = new LinkedHashMap<>();
    private final Map<Key, JsonObject> tenant = new LinkedHashMap<>();

    World(List<JsonObject> hostObjects, List<JsonObject> tenantObjects) {
        hostObjects.forEach(o -> host.put(Key.of(o), o.deepCopy()));
        tenantObjects.forEach(o -> tenant.put(Key.of(o), o.deepCopy()));
    }

    record Key(String kind, String namespace, String name) {
        static Key of(JsonObject o) {
            return new Key(Json.string(o, "kind"), Json.string(o, "metadata", "namespace"),
                    Json.string(o, "metadata", "name"));
        }
    }

    JsonObject host(String kind, String namespace, String name) {
        return host.get(new Key(kind, namespace, name));
    }

    JsonObject tenant(String kind, String namespace, String name) {
        return tenant.get(new Key(kind, namespace, name));
    }

    /** Host objects in {@code namespace}, in a stable order. */
    List<JsonObject> hostIn(String namespace) {
        return host.values().stream().filter(o -> Objects.equals(namespace, Json.string(o, "metadata", "namespace")))
                .toList();
    }

    List<JsonObject> hostObjects() {
        return List.copyOf(host.values());
    }

    List<JsonObject> tenantObjects() {
        return List.copyOf(tenant.values());
    }

    List<JsonObject> tenantOfKind(String kind) {
        return tenant.values().stream().filter(o -> kind.equals(Json.string(o, "kind"))).toList();
    }

    /** Applies a planned decision as if it had been written. Status decisions change nothing here. */
    void apply(StepDecision d) {
        Map<Key, JsonObject> side = switch (d.api()) {
            case HOST -> host;
            case TENANT -> tenant;
            case STATUS -> null;
        };
        if (side == null) {
            return;
        }
        Decision x = d.decision();
        if (x.action() == Action.CREATE || x.action() == Action.UPDATE) {
            JsonObject o = x.desired().deepCopy();
            if (!o.has("kind")) {
                o.addProperty("kind", x.kind());
            }
            if (x.host() != null && x.host().namespace() != null) {
                Json.child(o, "metadata").addProperty("namespace", x.host().namespace());
            }
            side.put(Key.of(o), o);
        } else if (x.action() == Action.DELETE) {
            String ns = x.host() == null ? null : x.host().namespace();
            String name = x.host() == null ? null : x.host().name();
            side.remove(new Key(x.kind(), ns, name));
            if (x.kind().equals("Namespace")) {
                String gone = name;
                side.keySet().removeIf(k -> gone.equals(k.namespace()));
            }
        }
    }

    void applyAll(List<StepDecision> decisions) {
        decisions.forEach(this::apply);
    }

    /** A copy, for planning without touching this one. */
    World copy() {
        World w = new World(List.of(), List.of());
        host.forEach((k, v) -> w.host.put(k, v.deepCopy()));
        tenant.forEach((k, v) -> w.tenant.put(k, v.deepCopy()));
        return w;
    }

    static List<JsonObject> sorted(List<JsonObject> objects) {
        List<JsonObject> out = new ArrayList<>(objects);
        out.sort(java.util.Comparator.comparing((JsonObject o) -> String.valueOf(Json.string(o, "kind")))
                .thenComparing(o -> String.valueOf(Json.string(o, "metadata", "namespace")))
                .thenComparing(o -> String.valueOf(Json.string(o, "metadata", "name"))));
        return out;
    }
}
