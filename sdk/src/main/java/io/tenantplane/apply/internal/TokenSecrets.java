package io.tenantplane.apply.internal;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Applier;
import io.tenantplane.json.Json;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.transform.Transformer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * Fills the token Secret a {@link TenantTokens.Issue} asks for: one token per audience minted by the tenant API
 * (TokenRequest, bound to the tenant Pod), the tenant API's CA and the virtual namespace, with the time the tokens
 * are due for refresh. The sync pass and a migration that copies Pods into another namespace both write their token
 * Secrets through this, before the Pods that mount them.
 */
public final class TokenSecrets {

    private TokenSecrets() {
    }

    /** The Secret write, or why the tenant API issued no token. */
    private sealed interface Minted permits Ready, Refused {
    }

    /** The decision to write, its desired Secret complete. */
    private record Ready(Decision write) implements Minted {
    }

    /** The tenant API refused a token: the Secret is not written (the Pod's volume waits for it, as a kubelet does). */
    private record Refused(Outcome.Failed outcome) implements Minted {
    }

    /**
     * Mints the tokens of {@code issue} through {@code requests} at {@code now}.
     *
     * @param caPem the tenant API's CA certificate (PEM), empty when unknown
     */
    private static Minted mint(TenantTokens.Issue issue, TokenRequests requests, String caPem, Instant now) {
        Decision d = issue.decision();
        JsonObject desired = d.desired().deepCopy();
        JsonObject data = Json.child(desired, "data");
        String vns = Json.string(issue.tenantPod(), "metadata", "namespace");
        Instant refresh = null;
        for (TenantTokens.Audience a : issue.audiences()) {
            TokenRequests.Issued t = requests.issue(vns, issue.serviceAccount(),
                    Json.string(issue.tenantPod(), "metadata", "name"),
                    Json.string(issue.tenantPod(), "metadata", "uid"), a.audience(), a.expirationSeconds());
            if (!t.ok()) {
                return new Refused(new Outcome.Failed(d, t.code(), "TokenRequestFailed", "the tenant API issued no "
                        + "token for ServiceAccount " + vns + "/" + issue.serviceAccount() + ": " + t.problem(), 1));
            }
            data.addProperty(Transformer.tokenKey(a.audience()), base64(t.token()));
            // The API may shorten a token's life (--service-account-max-token-expiration), never lengthen it: the
            // shorter of what was asked and what was granted counts.
            long granted = t.expiresAt() == null ? a.expirationSeconds()
                    : Math.max(0, Instant.parse(t.expiresAt()).getEpochSecond() - now.getEpochSecond());
            Instant at = TenantTokens.refreshAt(now, now.plusSeconds(Math.min(a.expirationSeconds(), granted)));
            refresh = refresh == null || at.isBefore(refresh) ? at : refresh;
        }
        data.addProperty("ca.crt", base64(caPem == null ? "" : caPem));
        data.addProperty("namespace", base64(vns));
        JsonObject annotations = Json.child(desired, "metadata", "annotations");
        annotations.addProperty(TenantTokens.REFRESH_AT, String.valueOf(refresh));
        annotations.addProperty(ReverseMapping.REASON, d.reason());
        return new Ready(d.withObjects(desired, d.observed()));
    }

    /**
     * Mints the tokens of {@code issue} and writes its Secret through {@code hostApplier}: the write's outcome, or the
     * tenant API's refusal as a failed one (nothing written). The caller reports it.
     */
    public static Outcome write(TenantTokens.Issue issue, TokenRequests requests, String caPem, Instant now,
                                Applier hostApplier) {
        return switch (mint(issue, requests, caPem, now)) {
            case Ready ready -> hostApplier.apply(ready.write(), Applier.Replanner.NONE);
            case Refused refused -> refused.outcome();
        };
    }

    private static String base64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
