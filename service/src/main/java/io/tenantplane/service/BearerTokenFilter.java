package io.tenantplane.service;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * When {@code tenantplane.auth.bearer-token-file} is set, every REST request must send
 * {@code Authorization: Bearer <token>} with that file's content; otherwise 401 with problem details. The file is
 * read per request so a rotated Secret takes effect without a restart. Health and metrics endpoints are served
 * outside JAX-RS and stay open for probes and scrapers.
 */
@Provider
@ApplicationScoped
@Priority(Priorities.AUTHENTICATION)
public class BearerTokenFilter implements ContainerRequestFilter {

    private static final Logger LOG = Logger.getLogger(BearerTokenFilter.class.getName());
    private static final String PREFIX = "Bearer ";

    private final Optional<Path> tokenFile;

    @Inject
    BearerTokenFilter(ServiceSettings settings) {
        this.tokenFile = settings.bearerTokenFile();
    }

    /** For CDI proxies only. */
    protected BearerTokenFilter() {
        this.tokenFile = Optional.empty();
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (tokenFile.isEmpty()) {
            return;
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            request.abortWith(unauthorized("This API needs an 'Authorization: Bearer <token>' header."));
            return;
        }
        byte[] expected;
        try {
            expected = Files.readString(tokenFile.get()).strip().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            LOG.warning(() -> "Cannot read the bearer token file " + tokenFile.get() + ": " + e);
            request.abortWith(new Problem("about:blank", "Service Unavailable", 503,
                    "The service cannot read its bearer token file; see its log.").toResponse());
            return;
        }
        byte[] presented = header.substring(PREFIX.length()).strip().getBytes(StandardCharsets.UTF_8);
        if (expected.length == 0 || !MessageDigest.isEqual(presented, expected)) {
            request.abortWith(unauthorized("The bearer token is not the one this service accepts."));
        }
    }

    private static jakarta.ws.rs.core.Response unauthorized(String detail) {
        var response = new Problem("about:blank", "Unauthorized", 401, detail).toResponse();
        return jakarta.ws.rs.core.Response.fromResponse(response)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"tenantplane\"")
                .build();
    }
}
