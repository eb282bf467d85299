package io.tenantplane.service;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Authenticates every REST request as {@code tenantplane.auth.mode} says (see {@link ServiceSettings.Auth}):
 * <ul>
 *   <li>{@code kubernetes}: the {@code Authorization: Bearer} token is reviewed by the host (TokenReview); an unknown
 *   token is 401, a host that does not answer is 503 (never let through). The caller, a {@link Caller}, is kept in
 *   {@link RequestCaller} for {@link AccessControl} to authorise per resource.</li>
 *   <li>{@code token-file}: the token must equal the file's content, read per request so a rotated Secret takes
 *   effect without a restart.</li>
 *   <li>{@code none}: no check.</li>
 * </ul>
 * Health and metrics endpoints are served outside JAX-RS and stay open for probes and scrapers.
 */
@Provider
@ApplicationScoped
@Priority(Priorities.AUTHENTICATION)
public class AuthFilter implements ContainerRequestFilter {

    private static final Logger LOG = Logger.getLogger(AuthFilter.class.getName());
    private static final String PREFIX = "Bearer ";

    private final ServiceSettings.Auth mode;
    private final Optional<Path> tokenFile;
    private final AccessControl access;
    private final RequestCaller requestCaller;

    @Inject
    AuthFilter(ServiceSettings settings, AccessControl access, RequestCaller requestCaller) {
        this.mode = settings.auth();
        this.tokenFile = settings.bearerTokenFile();
        this.access = access;
        this.requestCaller = requestCaller;
    }

    /** For CDI proxies only. */
    protected AuthFilter() {
        this.mode = null;
        this.tokenFile = Optional.empty();
        this.access = null;
        this.requestCaller = null;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (mode == ServiceSettings.Auth.NONE) {
            return;
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                || header.substring(PREFIX.length()).isBlank()) {
            request.abortWith(unauthorized("This API needs an 'Authorization: Bearer <token>' header"
                    + (mode == ServiceSettings.Auth.KUBERNETES ? " with a token of this cluster, e.g. from"
                    + " 'kubectl create token <service account>'." : ".")));
            return;
        }
        String presented = header.substring(PREFIX.length()).strip();
        if (mode == ServiceSettings.Auth.TOKEN_FILE) {
            checkTokenFile(request, presented);
            return;
        }
        Optional<Caller> caller;
        try {
            caller = access.authenticate(presented);
        } catch (KubernetesAccess.Unavailable e) {
            LOG.warning(() -> "Refusing a REST request: " + e.getMessage());
            request.abortWith(new Problem("about:blank", "Service Unavailable", 503, "The service cannot verify"
                    + " the bearer token now: " + e.getMessage() + ". Nothing is served unverified; try again.")
                    .toResponse());
            return;
        }
        if (caller.isEmpty()) {
            request.abortWith(unauthorized("The host API server does not accept this bearer token (unknown,"
                    + " expired or revoked)."));
            return;
        }
        requestCaller.set(caller.get());
    }

    private void checkTokenFile(ContainerRequestContext request, String presented) {
        byte[] expected;
        try {
            expected = Files.readString(tokenFile.orElseThrow()).strip().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            LOG.warning(() -> "Cannot read the bearer token file " + tokenFile.get() + ": " + e);
            request.abortWith(new Problem("about:blank", "Service Unavailable", 503,
                    "The service cannot read its bearer token file; see its log.").toResponse());
            return;
        }
        if (expected.length == 0 || !MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), expected)) {
            request.abortWith(unauthorized("The bearer token is not the one this service accepts."));
        }
    }

    private static Response unauthorized(String detail) {
        var response = new Problem("about:blank", "Unauthorized", 401, detail).toResponse();
        return Response.fromResponse(response)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"tenantplane\"")
                .build();
    }
}
