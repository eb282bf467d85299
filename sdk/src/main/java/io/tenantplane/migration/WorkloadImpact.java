package io.tenantplane.migration;

import java.util.Objects;

/**
 * What one tenant workload sees during a migration.
 *
 * @param kind             the tenant object's kind, e.g. {@code Pod}
 * @param virtualNamespace its namespace inside the tenant
 * @param name             its name inside the tenant
 * @param downtime         the short form: {@code none}, {@code overlap}, {@code reduced capacity},
 *                         {@code until replacement Ready} or {@code brief gap} (a Service whose cluster IP moves
 *                         from one host copy to the next)
 * @param sees             a sentence: what happens to it and when
 */
public record WorkloadImpact(String kind, String virtualNamespace, String name, String downtime, String sees) {

    public WorkloadImpact {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(downtime, "downtime");
        Objects.requireNonNull(sees, "sees");
    }
}
