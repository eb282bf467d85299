package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.controlplane.ControlPlaneRenderer;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.internal.ProvisionPlan;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The decision for a tenant's {@code <tenant>-kubelet-client} Secret: the credential its API server calls
 * tenantplane's kubelet endpoint with (see {@link KubeletEndpoint}). Issued when missing; issued again when it was
 * issued for another TenantCluster object (another uid), by another CA, or when a third of its life is left; otherwise
 * left as it is. A Secret of that name tenantplane does not manage for the tenant is a Conflict, never overwritten.
 */
final class KubeletClients {

    private KubeletClients() {
    }

    static Decision decide(TenantKey key, String uid, TenantCluster place, KubeletEndpoint endpoint,
                           JsonObject observed, Instant now) {
        ControlPlaneNames n = ControlPlaneNames.of(place);
        Optional<KubeletCa> authority = endpoint.ca();
        if (authority.isEmpty()) {
            return Decision.skip("Secret", new Decision.SourceRef(place.tenant(), null, key.name(), uid),
                    new Decision.HostRef(n.namespace(), n.kubeletClientSecret()), Reasons.KUBELET_CA_UNAVAILABLE,
                            "tenant "
                            + place.tenant() + "'s kubelet client certificate waits for the kubelet CA, which is not "
                            + "loaded yet; the next pass issues it", observed);
        }
        KubeletCa ca = authority.get();
        String tenant = place.tenant();
        Decision.SourceRef source = new Decision.SourceRef(tenant, null, key.name(), uid);
        Decision.HostRef host = new Decision.HostRef(n.namespace(), n.kubeletClientSecret());
        String what = "Secret " + n.namespace() + "/" + n.kubeletClientSecret();
        if (observed != null && !ProvisionPlan.owned(observed, tenant)) {
            return Decision.conflict("Secret", source, host, Reasons.FOREIGN_OBJECT, what
                    + " would hold tenant " + tenant + "'s kubelet client credential, but the host already has an "
                    + "object of that name that tenantplane does not manage for it; it is left alone, and the tenant "
                    + "API cannot call tenantplane's kubelet endpoint (kubectl logs fails in the tenant)",
                    observed);
        }
        String stale = observed == null ? null : staleness(observed, key, uid, ca, now);
        if (observed != null && stale == null) {
            return Decision.unchanged("Secret", source, host, Reasons.KUBELET_CLIENT_CURRENT,
                    what + " holds a current kubelet "
                    + "client certificate of tenant " + tenant, null, observed);
        }
        KubeletCa.Credential c = ca.issueTenantClient(key, uid, endpoint.clientValidity());
        JsonObject labels = new JsonObject();
        labels.addProperty(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE);
        ControlPlaneRenderer.selectorLabels(tenant).forEach(labels::addProperty);
        JsonObject annotations = new JsonObject();
        annotations.addProperty(ReverseMapping.REASON, "tenant " + tenant + "'s API server calls tenantplane's "
                + "kubelet endpoint (" + endpoint.host() + ":" + endpoint.port() + ") with this certificate, for logs "
                + "of Pods on node mirrors; valid until " + c.certificate().getNotAfter().toInstant());
        JsonObject meta = new JsonObject();
        meta.addProperty("name", n.kubeletClientSecret());
        meta.addProperty("namespace", n.namespace());
        meta.add("labels", labels);
        meta.add("annotations", annotations);
        JsonObject data = new JsonObject();
        data.addProperty("ca.crt", b64(ca.certificatePem()));
        data.addProperty("tls.crt", b64(c.certificatePem()));
        data.addProperty("tls.key", b64(c.privateKeyPem()));
        data.addProperty(ControlPlaneNames.KUBELET_CONFIG_KEY,
                b64(KubeletEndpoint.k3sDropIn(ControlPlaneRenderer.KUBELET_CLIENT_DIR)));
        JsonObject secret = new JsonObject();
        secret.addProperty("apiVersion", "v1");
        secret.addProperty("kind", "Secret");
        secret.add("metadata", meta);
        secret.addProperty("type", "kubernetes.io/tls");
        secret.add("data", data);
        if (observed == null) {
            return Decision.create("Secret", source, host, Reasons.KUBELET_CLIENT_ISSUED,
                    what + ": tenantplane issues tenant "
                    + tenant + "'s kubelet client certificate, so that its API server can call the kubelet endpoint",
                    secret);
        }
        JsonObject body = secret.deepCopy();
        Json.child(body, "metadata").addProperty("resourceVersion", Json.string(observed, "metadata",
                "resourceVersion"));
        return Decision.update("Secret", source, host, Reasons.KUBELET_CLIENT_RENEWED,
                what + ": tenant " + tenant + "'s kubelet "
                + "client certificate is issued again: " + stale, body, observed);
    }

    /** Why the stored credential must be issued again; null when it is current. */
    private static String staleness(JsonObject observed, TenantKey key, String uid, KubeletCa ca, Instant now) {
        Map<String, String> data = data(observed);
        Map<String, String> labels = Json.labels(observed);
        if (!ControlPlaneRenderer.COMPONENT.equals(labels.get(ControlPlaneRenderer.COMPONENT_LABEL))) {
            return "its labels were changed (they mark it as part of the tenant's control plane, removed with it)";
        }
        if (!ca.certificatePem().equals(data.get("ca.crt"))) {
            return "it names another kubelet CA";
        }
        if (!KubeletEndpoint.k3sDropIn(ControlPlaneRenderer.KUBELET_CLIENT_DIR)
                .equals(data.get(ControlPlaneNames.KUBELET_CONFIG_KEY))) {
            return "its k3s config drop-in differs";
        }
        KubeletCa.Credential c;
        try {
            c = KubeletCa.Credential.fromPem(data.get("tls.crt"), data.get("tls.key"));
        } catch (RuntimeException e) {
            return "its certificate or key cannot be read (" + e.getMessage() + ")";
        }
        Optional<KubeletCa.Identity> id = KubeletCa.tenantOf(c.certificate());
        if (id.isEmpty() || !id.get().tenant().equals(key) || !Objects.equals(id.get().uid(), uid)) {
            return "it was issued for another TenantCluster";
        }
        try {
            c.certificate().verify(ca.certificate().getPublicKey());
        } catch (java.security.GeneralSecurityException e) {
            return "it was not signed by the current kubelet CA";
        }
        if (c.dueForRenewal(now)) {
            return "a third of its life or less is left (valid until " + c.certificate().getNotAfter().toInstant()
                    + ")";
        }
        return null;
    }

    private static Map<String, String> data(JsonObject secret) {
        Map<String, String> out = new java.util.HashMap<>();
        JsonObject d = Json.object(secret, "data");
        if (d != null) {
            for (Map.Entry<String, com.google.gson.JsonElement> e : d.entrySet()) {
                if (e.getValue().isJsonPrimitive()) {
                    try {
                        out.put(e.getKey(), new String(Base64.getDecoder().decode(e.getValue().getAsString()),
                                StandardCharsets.UTF_8));
                    } catch (IllegalArgumentException ignored) {
                        // not base64: treated as missing
                    }
                }
            }
        }
        return out;
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
