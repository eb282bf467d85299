package io.tenantplane.errors;

/**
 * The root of tenantplane's unchecked exceptions: unexpected failures and input that cannot be used at all
 * (a malformed manifest, an invalid custom resource handed to a renderer). Expected API outcomes such as
 * 404, 409 or 422 are data in results, never exceptions.
 *
 * <p>Messages are written for the person who has to act: they name the file, object or field and say how to fix it.
 */
public class TenantPlaneException extends RuntimeException {

    /** @param message what went wrong and how to fix it */
    public TenantPlaneException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong and how to fix it
     * @param cause   the underlying failure
     */
    public TenantPlaneException(String message, Throwable cause) {
        super(message, cause);
    }
}
