package io.tenantplane.plan.internal;

import static io.tenantplane.json.Build.obj;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What points a shared or dedicated tenant's aggregator at tenantplane's kubelet endpoint for {@code metrics.k8s.io}
 * ({@code kubectl top}): APIService {@value #API_SERVICE} and the ExternalName Service {@value #NAMESPACE}/{@value
 * #SERVICE} in the tenant, both marked as tenantplane's. Pure: the objects, and the decision for what the tenant has.
 *
 * <p>Why these two: kube-apiserver proxies an APIService with a {@code spec.service} to
 * {@code <externalName>:<spec.service.port>} for an ExternalName Service (aggregator routing off, as k3s runs with
 * {@code --egress-selector-mode=disabled}: {@code apiserver/pkg/util/proxy/proxy.go} {@code ResolveCluster}), verifying
 * the server against {@code spec.caBundle} (the installation's kubelet CA) by the name
 * {@value #SERVICE}.{@value #NAMESPACE}.svc ({@code kube-aggregator} {@code handler_proxy.go}), which the endpoint's
 * serving certificate carries ({@link #SERVING_NAME}), and presenting its front-proxy client certificate.
 *
 * <p>A tenant that registered {@code metrics.k8s.io} itself (installed its own metrics-server) keeps it: an APIService
 * or Service of these names without tenantplane's mark is never written.
 */
public final class MetricsRegistration {
    public static final String API_SERVICE = "v1beta1.metrics.k8s.io";
    public static final String NAMESPACE = "kube-system";
    public static final String SERVICE = "tenantplane-metrics";
    /** The name a tenant aggregator verifies the endpoint's serving certificate against. */
    public static final String SERVING_NAME = SERVICE + "." + NAMESPACE + ".svc";
    public static final String COMPONENT = "metrics-api";

    private MetricsRegistration() {
    }

    /**
     * The Service and the APIService, in the order they are written, for the kubelet endpoint at
     * {@code host}:{@code port} whose serving certificates the CA {@code caPem} (PEM) signs.
     */
    public static List<JsonObject> desired(String host, int port, String caPem) {
        JsonObject service = obj("apiVersion", "v1", "kind", "Service", "metadata", metadata(NAMESPACE, SERVICE),
                "spec", obj("type", "ExternalName", "externalName", host));
        JsonObject apiService = obj("apiVersion", "apiregistration.k8s.io/v1", "kind", "APIService",
                "metadata", metadata(null, API_SERVICE),
                "spec", obj("group", "metrics.k8s.io", "version", "v1beta1", "groupPriorityMinimum", 100,
                        "versionPriority", 100,
                        "caBundle", Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)),
                        "service", obj("namespace", NAMESPACE, "name", SERVICE, "port", port)));
        return List.of(service, apiService);
    }

    /** The metadata of both objects: their name ({@code namespace} null: cluster-scoped) and tenantplane's mark. */
    private static JsonObject metadata(String namespace, String name) {
        return obj("name", name, "namespace", namespace, "labels",
                obj(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE, ReverseMapping.COMPONENT, COMPONENT));
    }

    /** Whether {@code o} carries tenantplane's mark for these objects. */
    public static boolean ours(JsonObject o) {
        Map<String, String> labels = Json.labels(o);
        return ReverseMapping.MANAGED_BY_VALUE.equals(labels.get(ReverseMapping.MANAGED_BY))
                && COMPONENT.equals(labels.get(ReverseMapping.COMPONENT));
    }

    /**
     * What to do about {@code desired} given {@code current} in the tenant (null: absent): create it; update ours when
     * its labels or spec differ; leave the tenant's own (a Skip saying so); nothing when ours is as desired.
     */
    public static Optional<Decision> decide(String tenant, JsonObject desired, JsonObject current) {
        String kind = Json.string(desired, "kind");
        String ns = Json.string(desired, "metadata", "namespace");
        String name = Json.string(desired, "metadata", "name");
        Decision.HostRef ref = new Decision.HostRef(ns, name);
        String what = kind + " " + (ns == null ? "" : ns + "/") + name;
        if (current == null) {
            return Optional.of(Decision.create(kind, null, ref, Reasons.METRICS_API_REGISTERED, "tenant " + tenant
                    + " gets metrics.k8s.io from tenantplane's kubelet endpoint (" + what + ")", desired));
        }
        if (!ours(current)) {
            return Optional.of(Decision.skip(kind, null, ref, Reasons.METRICS_API_OWNED_BY_TENANT, what
                    + " of tenant " + tenant + " is the tenant's own; tenantplane leaves it", current));
        }
        boolean same = Json.labels(desired).equals(Json.labels(current)) && contains(Json.object(current, "spec"),
                Json.object(desired, "spec"));
        if (same) {
            return Optional.empty();
        }
        JsonObject update = current.deepCopy();
        Json.child(update, "metadata").add("labels", Json.object(desired, "metadata", "labels").deepCopy());
        JsonObject spec = Json.child(update, "spec");
        Json.object(desired, "spec").entrySet().forEach(e -> spec.add(e.getKey(), e.getValue().deepCopy()));
        return Optional.of(Decision.update(kind, null, ref, Reasons.METRICS_API_REGISTERED, what + " of tenant "
                + tenant + " points at tenantplane's kubelet endpoint again", update, current));
    }

    /**
     * In private mode, the delete of {@code current} when it is still tenantplane's registration pointing at the kubelet
     * endpoint (a private tenant's Pods have real kubelets and k3s's own metrics-server, whose deploy controller
     * registers {@code metrics.k8s.io} itself); empty for anything else, including an APIService k3s has pointed at
     * its metrics-server since.
     */
    public static Optional<Decision> retire(String tenant, JsonObject current) {
        if (current == null || !ours(current)) {
            return Optional.empty();
        }
        String kind = Json.string(current, "kind");
        boolean pointsHere = "Service".equals(kind)
                ? "ExternalName".equals(Json.string(current, "spec", "type"))
                : NAMESPACE.equals(Json.string(current, "spec", "service", "namespace"))
                        && SERVICE.equals(Json.string(current, "spec", "service", "name"));
        if (!pointsHere) {
            return Optional.empty();
        }
        String ns = Json.string(current, "metadata", "namespace");
        String name = Json.string(current, "metadata", "name");
        return Optional.of(Decision.delete(kind, null, new Decision.HostRef(ns, name), Reasons.METRICS_API_RETIRED,
                kind + " " + (ns == null ? "" : ns + "/") + name + " of tenant " + tenant + " is deleted: in private "
                        + "mode k3s's own metrics-server serves metrics.k8s.io", null, current));
    }

    /** Whether every field of {@code want} is in {@code have} with the same value (the server adds defaults). */
    private static boolean contains(JsonObject have, JsonObject want) {
        if (have == null) {
            return false;
        }
        for (Map.Entry<String, com.google.gson.JsonElement> e : want.entrySet()) {
            com.google.gson.JsonElement h = have.get(e.getKey());
            if (e.getValue().isJsonObject()) {
                if (h == null || !h.isJsonObject() || !contains(h.getAsJsonObject(), e.getValue().getAsJsonObject())) {
                    return false;
                }
            } else if (!e.getValue().equals(h)) {
                return false;
            }
        }
        return true;
    }
}
