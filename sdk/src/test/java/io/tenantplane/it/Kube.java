package io.tenantplane.it;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
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

/** What a test does to an API server by hand (as kubectl, a host controller or a kubelet would): plain JSON calls. */
final class Kube {

    private final ApiClient client;

    Kube(ApiClient client) {
        this.client = client;
    }

    ApiClient client() {
        return client;
    }

    static JsonObject json(String text) {
        return JsonParser.parseString(text).getAsJsonObject();
    }

    static ResourceKind kind(String kind) {
        return ResourceKind.wellKnown(null, kind).orElseThrow(() -> new IllegalArgumentException(kind));
    }

    static ResourceKind kindOf(JsonObject o) {
        return ResourceKind.wellKnown(Json.string(o, "apiVersion"), Json.string(o, "kind")).orElseThrow();
    }

    JsonObject create(JsonObject o) {
        ResourceKind k = kindOf(o);
        return ok(call("POST", k.collectionPath(Json.string(o, "metadata", "namespace")), Map.of(), o), "create");
    }

    JsonObject createCrd(JsonObject crd) {
        return ok(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Map.of(), crd), "create");
    }

    Optional<JsonObject> get(String kind, String ns, String name) {
        Reply r = call("GET", kind(kind).objectPath(ns, name), Map.of(), null);
        return r.code() == 404 ? Optional.empty() : Optional.of(ok(r, "get"));
    }

    JsonObject require(String kind, String ns, String name) {
        return get(kind, ns, name).orElseThrow(() -> new AssertionError(kind + " " + ns + "/" + name + " not found"));
    }

    List<JsonObject> list(String kind, String ns, String labelSelector) {
        Map<String, String> q = labelSelector == null ? Map.of() : Map.of("labelSelector", labelSelector);
        JsonObject l = ok(call("GET", kind(kind).collectionPath(ns), q, null), "list");
        List<JsonObject> out = new ArrayList<>();
        l.getAsJsonArray("items").forEach(e -> out.add(e.getAsJsonObject()));
        return out;
    }

    JsonObject update(JsonObject o) {
        ResourceKind k = kindOf(o);
        return ok(call("PUT", k.objectPath(Json.string(o, "metadata", "namespace"), Json.string(o, "metadata", "name")),
                Map.of(), o), "update");
    }

    /**
     * Writes {@code o}'s status. A Pod keeps the QoS class the server computed, as a kubelet's status manager does:
     * the API server refuses a status write that changes it.
     */
    JsonObject updateStatus(JsonObject o) {
        ResourceKind k = kindOf(o);
        keepQosClass(this, o);
        return ok(call("PUT", k.objectPath(Json.string(o, "metadata", "namespace"),
                Json.string(o, "metadata", "name")) + "/status", Map.of(), o), "update status");
    }

    /**
     * Plays the host's StatefulSet, ReplicaSet and Deployment controllers for a tenant's control plane in {@code ns}
     * (a host without a simulator runs none): its StatefulSet reports every replica ready and, where the tenant has
     * one, its DNS Deployment every replica available.
     */
    void controlPlaneRuns(String ns, String tenant) {
        JsonObject sts = require("StatefulSet", ns, tenant + "-control-plane");
        long replicas = Json.number(sts, 1, "spec", "replicas");
        sts.add("status", json("{\"replicas\":" + replicas + ",\"readyReplicas\":" + replicas
                + ",\"availableReplicas\":" + replicas + "}"));
        updateStatus(sts);
        get("Deployment", ns, tenant + "-dns").ifPresent(dns -> {
            long want = Json.number(dns, 1, "spec", "replicas");
            dns.add("status", json("{\"replicas\":" + want + ",\"readyReplicas\":" + want
                    + ",\"availableReplicas\":" + want + ",\"updatedReplicas\":" + want + "}"));
            updateStatus(dns);
        });
    }

    void delete(String kind, String ns, String name) {
        Reply r = call("DELETE", kind(kind).objectPath(ns, name), Map.of(), null);
        if (r.code() != 404) {
            ok(r, "delete");
        }
    }

    /**
     * Deletes a Pod with grace period 0 and its uid as precondition: what a kubelet does once the containers of a pod
     * being deleted have stopped.
     */
    void confirmPodDeletion(JsonObject pod) {
        JsonObject options = json("""
                {"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,"preconditions":{"uid":"%s"}}"""
                .formatted(Json.string(pod, "metadata", "uid")));
        ok(call("DELETE", kind("Pod").objectPath(Json.string(pod, "metadata", "namespace"),
                Json.string(pod, "metadata", "name")), Map.of(), options), "confirm deletion");
    }

    /** Binds a pod to a node, as a scheduler does. */
    void bind(String ns, String pod, String node) {
        JsonObject b = json("""
                {"apiVersion":"v1","kind":"Binding","metadata":{"name":"%s","namespace":"%s"},
                 "target":{"apiVersion":"v1","kind":"Node","name":"%s"}}""".formatted(pod, ns, node));
        ok(call("POST", kind("Pod").objectPath(ns, pod) + "/binding", Map.of(), b), "bind");
    }

    private static JsonObject ok(Reply r, String what) {
        if (r.code() < 200 || r.code() >= 300) {
            throw new AssertionError(what + " answered " + r.code() + ": " + r.body());
        }
        return r.body();
    }

    record Reply(int code, JsonObject body) {
    }

    Reply call(String method, String path, Map<String, String> query, JsonElement body) {
        List<Pair> pairs = new ArrayList<>();
        query.forEach((k, v) -> pairs.add(new Pair(k, v)));
        Map<String, String> headers = new HashMap<>();
        headers.put("Accept", "application/json");
        if (body != null) {
            headers.put("Content-Type", "application/json");
        }
        try {
            Call call = client.buildCall(null, path, method, pairs, List.of(), body, headers, new HashMap<>(),
                    new HashMap<>(), new String[] {"BearerToken"}, null);
            try (Response r = call.execute()) {
                String text = r.body() == null ? "" : r.body().string();
                return new Reply(r.code(), text.isBlank() ? null : JsonParser.parseString(text).getAsJsonObject());
            }
        } catch (ApiException | IOException e) {
            throw new AssertionError(method + " " + path + " failed", e);
        }
    }

    static void keepQosClass(Kube kube, JsonObject pod) {
        if (!"Pod".equals(Json.string(pod, "kind")) || Json.string(pod, "status", "qosClass") != null) {
            return;
        }
        kube.get("Pod", Json.string(pod, "metadata", "namespace"), Json.string(pod, "metadata", "name"))
                .map(current -> Json.string(current, "status", "qosClass"))
                .ifPresent(q -> Json.child(pod, "status").addProperty("qosClass", q));
    }
}
