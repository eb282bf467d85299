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

    /**
     * A plane whose installation allows the custom kinds of {@code --allow-kind} (as the service's
     * {@code tenantplane.sync.allowed-kinds}), so that an offline plan decides custom kinds as the live one does.
     */
    static TenantPlane plane(java.util.List<String> allowedKinds) {
        if (allowedKinds.isEmpty()) {
            return plane();
        }
        try {
            return TenantPlane.builder().allowedKinds(allowedKinds).build();
        } catch (IllegalArgumentException e) {
            String what = e.getMessage().replaceFirst("^allowed kind ", "");
            throw new CliException(null, "--allow-kind", what.substring(0, what.indexOf(':') < 0 ? what.length()
                    : what.indexOf(':')), "pass Kind.group, e.g. --allow-kind Certificate.cert-manager.io");
        }
    }

    /** The {@code --allow-kind} option of the commands that plan. */
    static picocli.CommandLine.Model.OptionSpec allowKindOption() {
        return Specs.values("KIND.GROUP", "A custom kind the installation allows SyncPolicies to sync, as the "
                + "service's tenantplane.sync.allowed-kinds, e.g. Certificate.cert-manager.io. Repeatable. Without it a "
                + "custom kind is a KindNotAllowed skip. Whether the host serves it is judged from the "
                + "CustomResourceDefinitions among the --host objects.", "--allow-kind");
    }

    private static final class Holder {
        static final TenantPlane PLANE = TenantPlane.builder().build();
    }
}
