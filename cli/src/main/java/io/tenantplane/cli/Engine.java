package io.tenantplane.cli;

import io.tenantplane.TenantPlane;

/**
 * The SDK's front door for the offline operations, built on first use: most runs need it once, and a CLI that
 * starts fast builds nothing it does not use.
 */
final class Engine {

    private Engine() {
    }

    static TenantPlane plane() {
        return Holder.PLANE;
    }

    private static final class Holder {
        static final TenantPlane PLANE = TenantPlane.builder().build();
    }
}
