package io.tenantplane.plan.internal;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.transform.Transformer;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tenant tokens of synced Pods, as a pure planner: a host Pod whose transform mounts a tenant token reads it from
 * the host Secret {@code <host pod>-token} ({@link Transformer#tokenSecretName}), which holds one token per audience
 * the tenant Pod projects (minted by TokenRequest on the tenant API, bound to the tenant Pod), the tenant API's CA
 * and the virtual namespace. This planner says which of those Secrets to issue (missing), refresh (past 80% of the
 * shortest token's life, or missing an audience) and delete (no Pod of the tenant mounts it any more); the tokens
 * themselves come at execution time.
 *
 * <p>Token Secrets are recognised by the {@value #TOKEN_FOR} annotation together with the managed-by and tenant
 * labels; they are never the host copy of a tenant object, so the sync planner's ownership rules leave them alone.
 */
public final class TenantTokens {
    /** Annotation on a token Secret: the name of the host Pod that mounts it. */
    public static final String TOKEN_FOR = ReverseMapping.PREFIX + "token-for";
    /** Annotation on a token Secret: when its tokens are refreshed (RFC 3339), 80% into the shortest one's life. */
    public static final String REFRESH_AT = ReverseMapping.PREFIX + "token-refresh-at";
    /** Create: a synced Pod's token Secret did not exist. */
    public static final String ISSUED = "TenantTokenIssued";
    /** Update: the tokens reached 80% of their life (or the Pod projects another audience). */
    public static final String REFRESHED = "TenantTokenRefreshed";
    /** Delete: no host Pod of the tenant mounts the Secret any more. */
    public static final String UNUSED = "TenantTokenUnused";
    /** The token lifetime when a projection names none (the kubelet's default for {@code kube-api-access}). */
    public static final long DEFAULT_EXPIRATION_SECONDS = 3600;

    private TenantTokens() {
    }

    /** One projected token: its audience (null: the tenant API's own) and lifetime. */
    public record Audience(String audience, long expirationSeconds) {
    }

    /**
     * A token Secret to write: {@code decision} is a Create or Update of the Secret whose {@code desired} lacks the
     * {@code data} the executor adds once the tenant API issued the tokens.
     */
    public record Issue(Decision decision, JsonObject tenantPod, String serviceAccount, List<Audience> audiences) {
    }

    /** What to issue and what to delete. */
    public record Result(List<Issue> issues, List<Decision> deletes) {
        public Result {
            issues = List.copyOf(issues);
            deletes = List.copyOf(deletes);
        }
    }

    /**
     * @param plan          the sync plan of the pass: Pod decisions with a desired host Pod that mounts a token
     * @param tenantObjects the tenant objects the pass read (Pods are looked up there)
     * @param hostObjects   the host objects the pass read (host Pods that still mount a token keep their Secret,
     *                      unless the plan deletes them)
     * @param tokenSecrets  the tenant's token Secrets on the host
     * @param now           the current time
     * @param collect       whether unused Secrets are deleted (a full pass; a pass over one object only issues)
     */
    public static Result plan(String tenant, String hostNamespace, Plan plan, List<JsonObject> tenantObjects,
                              List<JsonObject> hostObjects, List<JsonObject> tokenSecrets, Instant now,
                              boolean collect) {
        Map<String, JsonObject> secrets = new HashMap<>();
        for (JsonObject s : tokenSecrets) {
            if (isTokenSecret(s, tenant)) {
                secrets.put(Json.string(s, "metadata", "name"), s);
            }
        }
        Map<String, JsonObject> pods = new HashMap<>();
        for (JsonObject o : tenantObjects) {
            if ("Pod".equals(Json.string(o, "kind"))) {
                pods.put(Json.string(o, "metadata", "namespace") + "/" + Json.string(o, "metadata", "name"), o);
            }
        }
        // A host Pod this pass deletes no longer keeps its Secret: both go in one pass (the token is bound to the
        // tenant Pod, which is gone, so it no longer works anyway).
        Set<String> deleted = new HashSet<>();
        for (Decision d : plan.decisions()) {
            if (d.action() == Action.DELETE && d.kind().equals("Pod") && d.host() != null) {
                deleted.add(d.host().name());
            }
        }
        Set<String> used = new HashSet<>();
        for (JsonObject h : hostObjects) {
            if ("Pod".equals(Json.string(h, "kind")) && !deleted.contains(Json.string(h, "metadata", "name"))
                    && mountsToken(h, Json.string(h, "metadata", "name"))) {
                used.add(Transformer.tokenSecretName(Json.string(h, "metadata", "name")));
            }
        }
        List<Issue> issues = new ArrayList<>();
        for (Decision d : plan.decisions()) {
            if (!d.kind().equals("Pod") || d.desired() == null || d.host() == null || d.source() == null
                    || !mountsToken(d.desired(), d.host().name())) {
                continue;
            }
            String name = Transformer.tokenSecretName(d.host().name());
            used.add(name);
            JsonObject pod = pods.get(d.source().virtualNamespace() + "/" + d.source().name());
            if (pod == null || Json.string(pod, "metadata", "deletionTimestamp") != null) {
                continue;
            }
            List<Audience> audiences = audiences(pod);
            String sa = Transformer.tenantServiceAccount(Json.object(pod, "spec"));
            JsonObject observed = secrets.get(name);
            String what = "Pod " + d.source().virtualNamespace() + "/" + d.source().name() + " of tenant " + tenant;
            if (observed == null) {
                issues.add(new Issue(Decision.create("Secret", d.source(),
                        new Decision.HostRef(hostNamespace, name), ISSUED, what + " mounts a token for ServiceAccount "
                        + d.source().virtualNamespace() + "/" + sa + ": it is minted by the tenant API (TokenRequest, "
                        + "bound to the Pod) into host Secret " + hostNamespace + "/" + name,
                        skeleton(tenant, hostNamespace, name, d)), pod, sa, audiences));
            } else if (due(observed, now) || !hasKeys(observed, audiences)) {
                issues.add(new Issue(Decision.update("Secret", d.source(),
                        new Decision.HostRef(hostNamespace, name), REFRESHED, what + ": its tokens in host Secret "
                        + hostNamespace + "/" + name + " are refreshed before 80% of their life",
                        skeleton(tenant, hostNamespace, name, d), observed), pod, sa, audiences));
            }
        }
        List<Decision> deletes = new ArrayList<>();
        if (collect) {
            for (var e : secrets.entrySet()) {
                if (!used.contains(e.getKey())) {
                    JsonObject s = e.getValue();
                    deletes.add(Decision.delete("Secret", null, new Decision.HostRef(hostNamespace,
                            e.getKey()), UNUSED, "host Secret " + hostNamespace + "/" + e.getKey() + " held the tenant "
                            + "token of host Pod " + Json.annotations(s).get(TOKEN_FOR) + ", which is gone; it is "
                            + "deleted", null, s));
                }
            }
        }
        return new Result(issues, deletes);
    }

    /** The audiences a tenant Pod projects tokens for, in its own order, each once. */
    public static List<Audience> audiences(JsonObject pod) {
        Map<String, Audience> out = new java.util.LinkedHashMap<>();
        for (JsonObject source : projectedSources(pod)) {
            JsonObject sat = Json.object(source, "serviceAccountToken");
            if (sat != null) {
                String audience = Json.string(sat, "audience");
                JsonElement exp = sat.get("expirationSeconds");
                long seconds = exp == null || exp.isJsonNull() ? DEFAULT_EXPIRATION_SECONDS : exp.getAsLong();
                out.merge(audience == null ? "" : audience, new Audience(audience, Math.max(600, seconds)),
                        (a, b) -> a.expirationSeconds() <= b.expirationSeconds() ? a : b);
            }
        }
        return List.copyOf(out.values());
    }

    /** The RFC 3339 time 80% into a token's life from {@code issued} to {@code expires}. */
    public static Instant refreshAt(Instant issued, Instant expires) {
        long life = Math.max(0, expires.getEpochSecond() - issued.getEpochSecond());
        return issued.plusSeconds(life * 8 / 10);
    }

    /** True when {@code s} is one of tenant {@code tenant}'s token Secrets on the host. */
    public static boolean isTokenSecret(JsonObject s, String tenant) {
        Map<String, String> labels = Json.labels(s);
        return "Secret".equals(Json.string(s, "kind"))
                && ReverseMapping.MANAGED_BY_VALUE.equals(labels.get(ReverseMapping.MANAGED_BY))
                && tenant.equals(labels.get(ReverseMapping.TENANT))
                && Json.annotations(s).get(TOKEN_FOR) != null
                && Transformer.tokenSecretName(Json.annotations(s).get(TOKEN_FOR))
                        .equals(Json.string(s, "metadata", "name"));
    }

    private static boolean due(JsonObject secret, Instant now) {
        String at = Json.annotations(secret).get(REFRESH_AT);
        try {
            return at == null || !now.isBefore(Instant.parse(at));
        } catch (DateTimeParseException e) {
            return true;
        }
    }

    private static boolean hasKeys(JsonObject secret, List<Audience> audiences) {
        JsonObject data = Json.object(secret, "data");
        for (Audience a : audiences) {
            if (data == null || !data.has(Transformer.tokenKey(a.audience()))) {
                return false;
            }
        }
        return true;
    }

    /** Whether a host Pod reads its token Secret (a projected source naming it). */
    static boolean mountsToken(JsonObject hostPod, String hostPodName) {
        String secret = Transformer.tokenSecretName(hostPodName);
        for (JsonObject source : projectedSources(hostPod)) {
            if (secret.equals(Json.string(source, "secret", "name"))) {
                return true;
            }
        }
        return false;
    }

    /** The sources of every projected volume of a Pod, in order. */
    private static List<JsonObject> projectedSources(JsonObject pod) {
        List<JsonObject> out = new ArrayList<>();
        JsonArray volumes = Json.array(Json.object(pod, "spec"), "volumes");
        for (int i = 0; volumes != null && i < volumes.size(); i++) {
            JsonArray sources = volumes.get(i).isJsonObject()
                    ? Json.array(Json.object(volumes.get(i).getAsJsonObject(), "projected"), "sources") : null;
            for (int j = 0; sources != null && j < sources.size(); j++) {
                if (sources.get(j).isJsonObject()) {
                    out.add(sources.get(j).getAsJsonObject());
                }
            }
        }
        return out;
    }

    private static JsonObject skeleton(String tenant, String hostNamespace, String name, Decision pod) {
        JsonObject meta = new JsonObject();
        meta.addProperty("name", name);
        meta.addProperty("namespace", hostNamespace);
        JsonObject labels = new JsonObject();
        labels.addProperty(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE);
        labels.addProperty(ReverseMapping.TENANT, tenant);
        labels.addProperty(ReverseMapping.VIRTUAL_NAMESPACE, pod.source().virtualNamespace());
        meta.add("labels", labels);
        JsonObject annotations = new JsonObject();
        annotations.addProperty(TOKEN_FOR, pod.host().name());
        meta.add("annotations", annotations);
        JsonObject s = new JsonObject();
        s.addProperty("apiVersion", "v1");
        s.addProperty("kind", "Secret");
        s.add("metadata", meta);
        s.addProperty("type", "Opaque");
        return s;
    }

}
