package io.tenantplane.apply;

import io.tenantplane.errors.TenantPlaneException;

/** The thread applying a plan was interrupted while waiting to retry; the interrupt flag is set again. */
public final class ApplyInterruptedException extends TenantPlaneException {

    ApplyInterruptedException(InterruptedException cause) {
        super("interrupted while waiting to retry a write", cause);
    }
}
