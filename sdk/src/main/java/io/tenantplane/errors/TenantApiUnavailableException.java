package io.tenantplane.errors;

/**
 * A tenant's API cannot be reached yet: its control plane is not ready, or the kubeconfig Secret is missing or
 * unusable. Passes report it as a {@code TenantApiUnavailable} failure and are tried again.
 */
public final class TenantApiUnavailableException extends TenantPlaneException {

    /** @param message which tenant, what is missing, and what to check */
    public TenantApiUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message which tenant, what is missing, and what to check
     * @param cause   the underlying failure
     */
    public TenantApiUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
