package io.tenantplane.service;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.tenantplane.PlanRequest;
import io.tenantplane.TenantContext;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.apply.UnknownKindException;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads what the explain and trace endpoints need from the live API servers, as the CLI reads it from files: the
 * tenant's objects of every kind its policy syncs (and of the kind asked about), and the host objects a pass would
 * plan against. A read the server refuses fails the request (503): an answer must not rest on a partial view.
 */
final class LiveReads {

    private static final int PAGE = 500;

    private LiveReads() {
    }

    /** A read failed; the message says which. */
    static final class ReadFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReadFailed(String message) {
            super(message);
        }
    }

    /**
     * What a pass over {@code ctx} would plan with, for a question about {@code kind} {@code virtualNamespace/name}:
     * the tenant's objects of each kind its policy sends to the host and of {@code kind} (system namespaces
     * included, as the pass lists them), the host copies labelled with the tenant in its host namespace, and whatever holds the asked object's
     * host name (a foreign object there is a Conflict).
     */
    static PlanRequest planRequest(TenantContext ctx, ApiClient tenant, ApiClient host, ResourceKind kind,
                                   String virtualNamespace, String name, java.util.Set<String> allowedKinds) {
        Map<String, String> kinds = new LinkedHashMap<>();
        java.util.Set<String> custom = new java.util.HashSet<>();
        for (SyncPolicy.KindRule r : ctx.policy().spec().kinds()) {
            if (r != null && r.kind() != null && r.toHost()) {
                kinds.putIfAbsent(r.kind(), r.effectiveApiVersion());
                if (r.custom()) {
                    custom.add(r.kind());
                }
            }
        }
        kinds.putIfAbsent(kind.kind(), kind.apiVersion());
        Resources tenantResources = Resources.of(tenant);
        Resources hostResources = Resources.of(host);
        List<JsonObject> tenantObjects = new ArrayList<>();
        List<JsonObject> hostObjects = new ArrayList<>();
        String selector = ReverseMapping.TENANT + "=" + ctx.tenant();
        for (Map.Entry<String, String> e : kinds.entrySet()) {
            boolean isCustom = custom.contains(e.getKey());
            ResourceKind tk;
            try {
                tk = tenantResources.resolve(e.getValue(), e.getKey());
            } catch (UnknownKindException unknown) {
                if (isCustom) {
                    // The tenant does not serve it (yet): nothing of it to explain but its absence.
                    continue;
                }
                throw new ReadFailed(unknown.getMessage());
            }
            // System namespaces included, as the pass lists them: the planner makes them SystemNamespace skips.
            tenantObjects.addAll(list(tenant, tk, null, null));
            if (isCustom) {
                // As the pass: a kind the installation does not allow is never read on the host; for one it allows,
                // the host's CRD says whether the host serves it.
                if (!io.tenantplane.transform.HostFacts.allowed(allowedKinds, tk.kind(), tk.apiVersion())) {
                    continue;
                }
                if (tk.crdName().isPresent()) {
                    get(host, CRD, null, tk.crdName().get()).ifPresent(hostObjects::add);
                }
                ResourceKind hk;
                try {
                    hk = hostResources.resolve(tk.apiVersion(), tk.kind());
                } catch (UnknownKindException notOnHost) {
                    continue;
                }
                if (hk.namespaced()) {
                    hostObjects.addAll(list(host, hk, ctx.hostNamespace(), selector));
                }
                continue;
            }
            ResourceKind hk;
            try {
                hk = hostResources.resolve(tk.apiVersion(), tk.kind());
            } catch (UnknownKindException unknown) {
                throw new ReadFailed(unknown.getMessage());
            }
            hostObjects.addAll(list(host, hk, hk.namespaced() ? ctx.hostNamespace() : null, selector));
        }
        // The host classes the policy mirrors: a Pod naming one that is not mirrored stays in the tenant.
        for (SyncPolicy.HostMirror m : ctx.policy().mirrors()) {
            if (m.kind() == null || m.effectiveApiVersion() == null) {
                continue;
            }
            try {
                ResourceKind mk = hostResources.resolve(m.effectiveApiVersion(), m.kind());
                if (!mk.namespaced()) {
                    hostObjects.addAll(list(host, mk, null, null));
                }
            } catch (UnknownKindException notServed) {
                // Nothing to mirror.
            }
        }
        if (custom.contains(kind.kind())
                && !io.tenantplane.transform.HostFacts.allowed(allowedKinds, kind.kind(), kind.apiVersion())) {
            return new PlanRequest(ctx.cluster(), ctx.profile(), ctx.policy(), tenantObjects, hostObjects);
        }
        String hostName = virtualNamespace == null ? HostNames.clusterScopedHostName(name, ctx.tenant())
                : HostNames.hostName(name, virtualNamespace, ctx.tenant());
        String hostNamespace = kind.namespaced() ? ctx.hostNamespace() : null;
        boolean listed = hostObjects.stream().anyMatch(o -> kind.kind().equals(Json.string(o, "kind"))
                && hostName.equals(Json.string(o, "metadata", "name")));
        if (!listed) {
            try {
                get(host, hostResources.resolve(kind.apiVersion(), kind.kind()), hostNamespace, hostName)
                        .ifPresent(hostObjects::add);
            } catch (UnknownKindException notOnHost) {
                if (!custom.contains(kind.kind())) {
                    throw new ReadFailed(notOnHost.getMessage());
                }
            }
        }
        // The tenant API and DNS Services tell where the tenant's pods reach their API and DNS, as the pass reads them.
        ResourceKind services = hostResources.resolve("v1", "Service");
        ControlPlaneNames names = ControlPlaneNames.of(ctx.cluster());
        get(host, services, ctx.cluster().namespace(), names.apiService()).ifPresent(hostObjects::add);
        get(host, services, ctx.cluster().namespace(), names.dnsService()).ifPresent(hostObjects::add);
        return new PlanRequest(ctx.cluster(), ctx.profile(), ctx.policy(), tenantObjects, hostObjects);
    }

    private static final ResourceKind CRD = ResourceKind.wellKnown("apiextensions.k8s.io/v1",
            "CustomResourceDefinition").orElseThrow();

    /** Every object of {@code kind}, page by page, each with its apiVersion and kind. */
    static List<JsonObject> list(ApiClient client, ResourceKind kind, String namespace, String labelSelector) {
        var api = new DynamicKubernetesApi(kind.group(), kind.version(), kind.plural(), client);
        List<JsonObject> out = new ArrayList<>();
        String cont = null;
        do {
            var options = new ListOptions();
            options.setLimit(PAGE);
            options.setContinue(cont);
            options.setLabelSelector(labelSelector);
            String what = "list " + kind.plural() + (namespace == null ? "" : " in " + namespace) + " at "
                    + client.getBasePath();
            KubernetesApiResponse<DynamicKubernetesListObject> r = call(what,
                    () -> namespace == null ? api.list(options) : api.list(namespace, options));
            if (!r.isSuccess() || r.getObject() == null) {
                throw new ReadFailed(what + " failed: " + describe(r));
            }
            for (DynamicKubernetesObject o : r.getObject().getItems()) {
                out.add(typed(o.getRaw(), kind));
            }
            cont = r.getObject().getMetadata() == null ? null : r.getObject().getMetadata().getContinue();
        } while (cont != null && !cont.isEmpty());
        return out;
    }

    /** The object, or empty when the server says 404. */
    static Optional<JsonObject> get(ApiClient client, ResourceKind kind, String namespace, String name) {
        var api = new DynamicKubernetesApi(kind.group(), kind.version(), kind.plural(), client);
        String what = "get " + kind.plural() + " " + (namespace == null ? "" : namespace + "/") + name + " at "
                + client.getBasePath();
        KubernetesApiResponse<DynamicKubernetesObject> r = call(what,
                () -> kind.namespaced() ? api.get(namespace, name) : api.get(name));
        if (r.getHttpStatusCode() == 404) {
            return Optional.empty();
        }
        if (!r.isSuccess() || r.getObject() == null) {
            throw new ReadFailed(what + " failed: " + describe(r));
        }
        return Optional.of(typed(r.getObject().getRaw(), kind));
    }

    /** client-java reports a call that got no answer as an unchecked exception. */
    private static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new ReadFailed(what + " failed: no answer (" + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")");
        }
    }

    private static JsonObject typed(JsonObject raw, ResourceKind kind) {
        JsonObject o = raw.deepCopy();
        if (!o.has("apiVersion")) {
            o.addProperty("apiVersion", kind.apiVersion());
        }
        if (!o.has("kind")) {
            o.addProperty("kind", kind.kind());
        }
        return o;
    }

    private static String describe(KubernetesApiResponse<?> r) {
        String message = r.getStatus() == null ? null : r.getStatus().getMessage();
        return "HTTP " + r.getHttpStatusCode() + (message == null ? "" : " " + Objects.toString(message));
    }
}
