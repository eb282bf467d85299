package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * Service-account tokens as kube-apiserver issues and checks them: {@code serviceaccounts/token} (TokenRequest,
 * {@code pkg/registry/core/serviceaccount/storage/token.go}, claims of {@code pkg/serviceaccount/claims.go},
 * validation of {@code pkg/apis/authentication/validation}) and {@code tokenreviews} (the service-account
 * authenticator's checks of {@code claims.go} {@code Validate}: signature, issuer, expiry, audience, and that the
 * service account and the bound pod still exist with the uid in the token).
 *
 * <p>Tokens are JWTs signed with ES256 (a key the server makes at its first token, as a cluster signs with its
 * service-account key); the issuer is {@value #ISSUER}, k3s's {@code --service-account-issuer}.
 */
final class Tokens {
    static final String ISSUER = "https://kubernetes.default.svc.cluster.local";
    private static final long DEFAULT_SECONDS = 3600;
    private static final long MIN_SECONDS = 600;
    private static final long MAX_SECONDS = 1L << 32;
    /** A bound pod or account deleted longer ago than this makes its tokens invalid ({@code claims.go}). */
    private static final long DELETED_GRACE_SECONDS = 60;
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    private final Store store;
    private final Registry registry;
    private final Clock clock;
    private KeyPair key;

    Tokens(Store store, Registry registry, Clock clock) {
        this.store = store;
        this.registry = registry;
        this.clock = clock;
    }

    /** {@code POST .../serviceaccounts/{name}/token}: a TokenRequest answered with its status. */
    JsonObject request(String namespace, String name, JsonObject body) {
        ResourceType accounts = registry.find("", "v1", "serviceaccounts");
        JsonObject spec = Json.obj(body, "spec");
        long seconds = DEFAULT_SECONDS;
        List<ApiError.Cause> causes = new ArrayList<>();
        JsonElement exp = spec == null ? null : spec.get("expirationSeconds");
        if (exp != null && !exp.isJsonNull()) {
            seconds = exp.getAsLong();
            if (seconds < MIN_SECONDS) {
                causes.add(ApiError.Cause.invalid("spec.expirationSeconds", Long.toString(seconds),
                        "may not specify a duration less than 10 minutes"));
            } else if (seconds > MAX_SECONDS) {
                causes.add(ApiError.Cause.invalid("spec.expirationSeconds", Long.toString(seconds),
                        "may not specify a duration larger than 2^32 seconds"));
            }
        }
        if (!causes.isEmpty()) {
            throw ApiError.invalid("authentication.k8s.io", "TokenRequest", name, causes);
        }
        JsonObject account = store.get(accounts, namespace, name);
        JsonObject ref = spec == null ? null : Json.obj(spec, "boundObjectRef");
        JsonObject pod = null;
        JsonObject secret = null;
        if (ref != null) {
            String kind = Json.str(ref, "kind");
            String apiVersion = Json.str(ref, "apiVersion");
            String refName = Json.str(ref, "name");
            boolean core = apiVersion == null || apiVersion.equals("v1");
            String uid;
            if (core && "Pod".equals(kind)) {
                pod = store.get(registry.find("", "v1", "pods"), namespace, refName);
                String podAccount = Json.str(Json.obj(pod, "spec"), "serviceAccountName");
                if (!name.equals(podAccount)) {
                    throw ApiError.badRequest("cannot bind token for serviceaccount \"" + name
                            + "\" to pod running with different serviceaccount name.");
                }
                uid = Json.str(Json.meta(pod), "uid");
            } else if (core && "Secret".equals(kind)) {
                secret = store.get(registry.find("", "v1", "secrets"), namespace, refName);
                uid = Json.str(Json.meta(secret), "uid");
            } else {
                throw ApiError.badRequest("cannot bind token to object of type " + (apiVersion == null ? "" : apiVersion)
                        + ", Kind=" + kind);
            }
            String wantUid = Json.str(ref, "uid");
            if (wantUid != null && !wantUid.isEmpty() && !wantUid.equals(uid)) {
                throw new ApiError(409, "Conflict", "Operation cannot be fulfilled on " + kind + " \"" + refName
                        + "\": the UID in the bound object reference (" + wantUid + ") does not match the UID in "
                        + "record. The object might have been deleted and then recreated", null);
            }
        }
        JsonArray audiences = spec == null ? null : Json.arr(spec, "audiences");
        if (audiences == null || audiences.isEmpty()) {
            audiences = Json.array(ISSUER);
        }
        Instant now = clock.instant();
        Instant expiry = now.plusSeconds(seconds);
        JsonObject kube = Json.object("namespace", namespace, "serviceaccount",
                Json.object("name", name, "uid", Json.str(Json.meta(account), "uid")));
        if (pod != null) {
            kube.add("pod", Json.object("name", Json.str(Json.meta(pod), "name"), "uid",
                    Json.str(Json.meta(pod), "uid")));
            String node = Json.str(Json.obj(pod, "spec"), "nodeName");
            if (node != null) {
                kube.add("node", Json.object("name", node));
            }
        }
        if (secret != null) {
            kube.add("secret", Json.object("name", Json.str(Json.meta(secret), "name"), "uid",
                    Json.str(Json.meta(secret), "uid")));
        }
        JsonObject claims = Json.object("aud", audiences, "exp", expiry.getEpochSecond(), "iat", now.getEpochSecond(),
                "iss", ISSUER, "jti", UUID.randomUUID().toString(), "kubernetes.io", kube, "nbf",
                now.getEpochSecond(), "sub", "system:serviceaccount:" + namespace + ":" + name);
        JsonObject out = new JsonObject();
        out.addProperty("kind", "TokenRequest");
        out.addProperty("apiVersion", "authentication.k8s.io/v1");
        JsonObject meta = new JsonObject();
        meta.addProperty("name", name);
        meta.addProperty("namespace", namespace);
        meta.addProperty("creationTimestamp", (String) null);
        out.add("metadata", meta);
        JsonObject outSpec = spec == null ? new JsonObject() : spec.deepCopy();
        outSpec.add("audiences", audiences.deepCopy());
        outSpec.addProperty("expirationSeconds", seconds);
        out.add("spec", outSpec);
        out.add("status", Json.object("token", sign(claims), "expirationTimestamp", expiry.toString()));
        return out;
    }

    /** {@code POST /apis/authentication.k8s.io/v1/tokenreviews}: the review with its status filled in. */
    JsonObject review(JsonObject body) {
        JsonObject spec = Json.obj(body, "spec");
        String token = spec == null ? null : Json.str(spec, "token");
        JsonObject out = body.deepCopy();
        out.addProperty("kind", "TokenReview");
        out.addProperty("apiVersion", "authentication.k8s.io/v1");
        JsonObject meta = Json.child(out, "metadata");
        meta.addProperty("creationTimestamp", (String) null);
        if (token == null || token.isEmpty()) {
            throw ApiError.invalid("authentication.k8s.io", "TokenReview", "", List.of(ApiError.Cause.required("spec.token")));
        }
        JsonArray wanted = spec == null ? null : Json.arr(spec, "audiences");
        JsonObject status;
        try {
            status = authenticate(token, wanted);
        } catch (Rejected e) {
            status = Json.object("user", new JsonObject(), "error", e.getMessage());
        }
        out.add("status", status);
        return out;
    }

    private JsonObject authenticate(String token, JsonArray wanted) {
        JsonObject claims = verify(token);
        if (!ISSUER.equals(Json.str(claims, "iss"))) {
            throw new Rejected("invalid bearer token, token issuer is not recognized");
        }
        long now = clock.instant().getEpochSecond();
        if (claims.has("exp") && now > claims.get("exp").getAsLong()) {
            throw new Rejected("[invalid bearer token, service account token has expired]");
        }
        if (claims.has("nbf") && now < claims.get("nbf").getAsLong()) {
            throw new Rejected("[invalid bearer token, service account token is not valid yet]");
        }
        JsonArray tokenAud = claims.get("aud").isJsonArray() ? claims.getAsJsonArray("aud")
                : Json.array(claims.get("aud").getAsString());
        JsonArray apiAud = Json.array(ISSUER);
        JsonArray asked = wanted == null || wanted.isEmpty() ? apiAud : wanted;
        JsonArray matched = new JsonArray();
        for (JsonElement a : asked) {
            if (tokenAud.contains(a)) {
                matched.add(a);
            }
        }
        if (matched.isEmpty()) {
            throw new Rejected("[invalid bearer token, token audiences " + Json.render(tokenAud)
                    + " is invalid for the target audiences " + Json.render(asked) + "]");
        }
        JsonObject kube = Json.obj(claims, "kubernetes.io");
        String namespace = Json.str(kube, "namespace");
        JsonObject sa = Json.obj(kube, "serviceaccount");
        JsonObject account = existing("serviceaccounts", namespace, Json.str(sa, "name"), Json.str(sa, "uid"),
                "service account");
        JsonObject extra = new JsonObject();
        JsonObject podRef = Json.obj(kube, "pod");
        if (podRef != null) {
            existing("pods", namespace, Json.str(podRef, "name"), Json.str(podRef, "uid"), "pod");
            extra.add("authentication.kubernetes.io/pod-name", Json.array(Json.str(podRef, "name")));
            extra.add("authentication.kubernetes.io/pod-uid", Json.array(Json.str(podRef, "uid")));
        }
        JsonObject secretRef = Json.obj(kube, "secret");
        if (secretRef != null) {
            existing("secrets", namespace, Json.str(secretRef, "name"), Json.str(secretRef, "uid"), "secret");
        }
        extra.add("authentication.kubernetes.io/credential-id", Json.array("JTI=" + Json.str(claims, "jti")));
        String user = "system:serviceaccount:" + namespace + ":" + Json.str(sa, "name");
        JsonObject userInfo = Json.object("username", user, "uid", Json.str(Json.meta(account), "uid"), "groups",
                Json.array("system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"),
                "extra", extra);
        return Json.object("authenticated", true, "user", userInfo, "audiences", matched);
    }

    private JsonObject existing(String plural, String namespace, String name, String uid, String what) {
        JsonObject o;
        try {
            o = store.get(registry.find("", "v1", plural), namespace, name);
        } catch (ApiError e) {
            throw new Rejected("[invalid bearer token, " + what + " " + namespace + "/" + name + " has been deleted]");
        }
        JsonObject m = Json.meta(o);
        if (!Json.str(m, "uid").equals(uid)) {
            throw new Rejected("[invalid bearer token, " + what + " UID (" + Json.str(m, "uid")
                    + ") does not match claim (" + uid + ")]");
        }
        String deleted = Json.str(m, "deletionTimestamp");
        if (deleted != null && Instant.parse(deleted).isBefore(clock.instant().minusSeconds(DELETED_GRACE_SECONDS))) {
            throw new Rejected("[invalid bearer token, " + what + " " + namespace + "/" + name + " has been deleted]");
        }
        return o;
    }

    // ---- JWS ES256 ----

    private synchronized KeyPair key() {
        if (key == null) {
            try {
                KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
                g.initialize(new ECGenParameterSpec("secp256r1"));
                key = g.generateKeyPair();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("no EC P-256 on this JDK", e);
            }
        }
        return key;
    }

    private String sign(JsonObject claims) {
        String header = B64.encodeToString(Json.bytes(Json.object("alg", "ES256", "kid", "testkit", "typ", "JWT")));
        String payload = B64.encodeToString(Json.bytes(claims));
        String input = header + "." + payload;
        try {
            Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
            s.initSign(key().getPrivate());
            s.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + B64.encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("signing a token failed", e);
        }
    }

    private JsonObject verify(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw new Rejected("invalid bearer token");
        }
        try {
            Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
            s.initVerify(key().getPublic());
            s.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!s.verify(B64D.decode(parts[2]))) {
                throw new Rejected("[invalid bearer token, square/go-jose: error in cryptographic primitive]");
            }
            return Json.parseObject(B64D.decode(parts[1]));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new Rejected("invalid bearer token");
        }
    }

    /** A token that does not authenticate: an unauthenticated review, not an error response. */
    private static final class Rejected extends RuntimeException {
        Rejected(String message) {
            super(message, null, false, false);
        }
    }
}
