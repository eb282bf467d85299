package io.tenantplane.apply;

import io.tenantplane.errors.TenantPlaneException;

/** A kind that neither tenantplane's table nor the API server's discovery knows. */
public final class UnknownKindException extends TenantPlaneException {

    /** @param message names the kind and apiVersion, and what to do */
    public UnknownKindException(String message) {
        super(message);
    }
}
