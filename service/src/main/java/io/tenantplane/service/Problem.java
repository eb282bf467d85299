package io.tenantplane.service;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * An RFC 9457 problem details body.
 *
 * @param type   URI naming the problem type; {@code about:blank} when the status says it all
 * @param title  short summary of the problem type
 * @param status the HTTP status
 * @param detail what went wrong with this request
 */
public record Problem(String type, String title, int status, String detail) {

    /** The media type of problem details. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /** A response carrying this problem with its status. */
    public Response toResponse() {
        return Response.status(status).type(MediaType.valueOf(MEDIA_TYPE)).entity(this).build();
    }
}
