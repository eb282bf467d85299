package io.tenantplane.service;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthenticationV1Api;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReview;
import io.kubernetes.client.openapi.models.V1TokenReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenReviewStatus;
import io.kubernetes.client.openapi.models.V1UserInfo;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delegated authentication and authorisation through the host API server, as kube-rbac-proxy and the
 * {@code --authentication-kubeconfig}/{@code --authorization-kubeconfig} of kube-controller-manager do: a bearer token
 * is checked with a {@code TokenReview}, a request with a {@code SubjectAccessReview} for the user the review named.
 *
 * <p>Answers are cached for {@link #CACHE_TTL} (allowed and denied alike, keyed by a SHA-256 of the token, never the
 * token itself), at most {@link #MAX_CACHED} of each; so a burst of requests costs the host one review each, and a
 * revoked token or binding stops working within the TTL. When the host does not answer, nothing is assumed:
 * {@link Unavailable} is thrown and the request is refused (fail closed).
 */
final class KubernetesAccess {

    /** How long a review's answer is reused. */
    static final Duration CACHE_TTL = Duration.ofSeconds(10);
    /** Cached answers kept of each kind before the cache is emptied. */
    static final int MAX_CACHED = 10_000;

    /** The host could not answer a review; the request must be refused. */
    static final class Unavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    /**
     * What a request wants to do, as a SubjectAccessReview's resource attributes.
     *
     * @param verb      e.g. {@code get}
     * @param group     the API group, {@code ""} for core
     * @param resource  the resource (plural), e.g. {@code tenantclusters}
     * @param namespace the namespace, {@code ""} for cluster-scoped
     * @param name      the object's name, {@code ""} for any
     */
    record Attributes(String verb, String group, String resource, String namespace, String name) {

        /** Null parts become empty. */
        Attributes {
            Objects.requireNonNull(verb, "verb");
            Objects.requireNonNull(resource, "resource");
            group = Objects.requireNonNullElse(group, "");
            namespace = Objects.requireNonNullElse(namespace, "");
            name = Objects.requireNonNullElse(name, "");
        }

        /** As {@code kubectl auth can-i} says it. */
        String describe() {
            return verb + " " + resource + (group.isEmpty() ? "" : "." + group)
                    + (name.isEmpty() ? "" : " \"" + name + "\"")
                    + (namespace.isEmpty() ? "" : " in namespace \"" + namespace + "\"");
        }
    }

    private record Cached<T>(T value, Instant until) {
    }

    private record Question(Caller caller, Attributes attributes) {
    }

    private final AuthenticationV1Api authentication;
    private final AuthorizationV1Api authorization;
    private final Clock clock;
    private final Map<String, Cached<Optional<Caller>>> tokens = new ConcurrentHashMap<>();
    private final Map<Question, Cached<Boolean>> decisions = new ConcurrentHashMap<>();

    /**
     * @param host  a client of the host API server whose calls time out (a review must not hang a request)
     * @param clock the clock the cache expires by
     */
    KubernetesAccess(ApiClient host, Clock clock) {
        this.authentication = new AuthenticationV1Api(host);
        this.authorization = new AuthorizationV1Api(host);
        this.clock = clock;
    }

    /**
     * The user a bearer token belongs to, or empty when the host does not accept the token.
     *
     * @throws Unavailable when the host cannot be asked
     */
    Optional<Caller> authenticate(String token) {
        String key = sha256(token);
        Instant now = clock.instant();
        Cached<Optional<Caller>> hit = tokens.get(key);
        if (hit != null && now.isBefore(hit.until())) {
            return hit.value();
        }
        V1TokenReview review = new V1TokenReview().metadata(new V1ObjectMeta())
                .spec(new V1TokenReviewSpec().token(token));
        V1TokenReviewStatus status;
        try {
            status = authentication.createTokenReview(review).execute().getStatus();
        } catch (ApiException e) {
            throw new Unavailable("the host API did not review the token (" + explain(e, "tokenreviews") + ")");
        }
        Optional<Caller> caller = Optional.empty();
        if (status != null && Boolean.TRUE.equals(status.getAuthenticated()) && status.getUser() != null
                && status.getUser().getUsername() != null) {
            V1UserInfo user = status.getUser();
            caller = Optional.of(new Caller(user.getUsername(), user.getUid(),
                    Objects.requireNonNullElse(user.getGroups(), List.of()),
                    Objects.requireNonNullElse(user.getExtra(), Map.of())));
        }
        put(tokens, key, new Cached<>(caller, now.plus(CACHE_TTL)));
        return caller;
    }

    /**
     * Whether the host's authorizers let {@code caller} do {@code attributes}.
     *
     * @throws Unavailable when the host cannot be asked
     */
    boolean allows(Caller caller, Attributes attributes) {
        Question q = new Question(caller, attributes);
        Instant now = clock.instant();
        Cached<Boolean> hit = decisions.get(q);
        if (hit != null && now.isBefore(hit.until())) {
            return hit.value();
        }
        V1SubjectAccessReview review = new V1SubjectAccessReview().metadata(new V1ObjectMeta())
                .spec(new V1SubjectAccessReviewSpec().user(caller.name()).uid(caller.uid().isEmpty() ? null
                        : caller.uid()).groups(caller.groups()).extra(caller.extra().isEmpty() ? null : caller.extra())
                        .resourceAttributes(new V1ResourceAttributes().verb(attributes.verb())
                                .group(attributes.group()).resource(attributes.resource())
                                .namespace(attributes.namespace()).name(attributes.name())));
        boolean allowed;
        try {
            var status = authorization.createSubjectAccessReview(review).execute().getStatus();
            allowed = status != null && status.getAllowed() && !Boolean.TRUE.equals(status.getDenied());
        } catch (ApiException e) {
            throw new Unavailable("the host API did not review the access (" + explain(e, "subjectaccessreviews")
                    + ")");
        }
        put(decisions, q, new Cached<>(allowed, now.plus(CACHE_TTL)));
        return allowed;
    }

    private static <K, V> void put(Map<K, V> cache, K key, V value) {
        if (cache.size() >= MAX_CACHED) {
            cache.clear();
        }
        cache.put(key, value);
    }

    private static String explain(ApiException e, String resource) {
        if (e.getCode() == 0) {
            return "no answer: " + e.getMessage();
        }
        if (e.getCode() == 403) {
            return "HTTP 403: the service's ServiceAccount may not create " + resource
                    + "; grant it as k8s/rbac.yaml does";
        }
        return "HTTP " + e.getCode();
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
