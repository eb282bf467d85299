package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Unexpected REST failures as RFC 9457 problem details: logged here, answered with a 500 that leaks no internals.
 * Answers the resources chose ({@link ProblemException}) pass through unchanged.
 */
@Provider
@ApplicationScoped
public class ProblemMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class.getName());

    @Override
    public Response toResponse(Throwable error) {
        if (error instanceof WebApplicationException web) {
            // Answers of the resources carry their problem body already. A bare 404 (no resource at that path) must
            // stay bare: the runtime then passes the request on to health and metrics, served outside JAX-RS.
            return web.getResponse();
        }
        LOG.log(Level.WARNING, "REST request failed", error);
        return new Problem("about:blank", "Internal Server Error", 500,
                "The service failed to answer (" + error.getClass().getSimpleName() + "); see its log.").toResponse();
    }
}
