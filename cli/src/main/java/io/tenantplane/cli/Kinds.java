package io.tenantplane.cli;

import io.tenantplane.apply.ResourceKind;
import io.tenantplane.model.SyncPolicy;
import java.util.List;
import java.util.Optional;

/** Resolves a kind as users type it ({@code pod}, {@code pods}, {@code po}, {@code Pod}) to its canonical form. */
final class Kinds {

    /** The namespaced kinds a SyncPolicy can copy to the host, in the order messages list them. */
    static final List<String> SYNCABLE = SyncPolicy.SUPPORTED_KINDS.stream().filter(SyncPolicy.SupportedKind::namespaced)
            .map(SyncPolicy.SupportedKind::kind).toList();

    private Kinds() {
    }

    /** The canonical kind, e.g. {@code pods} → {@code Pod}; empty when the kind is unknown. */
    static Optional<ResourceKind> resolve(String typed) {
        return ResourceKind.typed(typed);
    }

    /** Like {@link #resolve} but unknown kinds are bad input naming {@code option}. */
    static ResourceKind require(String typed, String option) {
        return resolve(typed).orElseThrow(() -> new CliException(null, option, "unknown kind '" + typed + "'",
                "use a Kubernetes kind such as " + String.join(", ", SYNCABLE)));
    }
}
