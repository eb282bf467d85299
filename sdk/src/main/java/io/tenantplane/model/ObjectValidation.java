package io.tenantplane.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks every tenantplane custom resource shares: identity, metadata and status conditions. */
final class ObjectValidation {

    private ObjectValidation() {
    }

    static void identity(String apiVersion, String kind, String expectedApiVersion, String expectedKind,
                         List<Problem> out) {
        if (apiVersion == null) {
            out.add(Problem.of("apiVersion", "required field is missing; set apiVersion: " + expectedApiVersion));
        } else if (!apiVersion.equals(expectedApiVersion)) {
            out.add(Problem.of("apiVersion", "expected " + expectedApiVersion + ", got \"" + apiVersion + "\""));
        }
        if (kind == null) {
            out.add(Problem.of("kind", "required field is missing; set kind: " + expectedKind));
        } else if (!kind.equals(expectedKind)) {
            out.add(Problem.of("kind", "expected " + expectedKind + ", got \"" + kind + "\""));
        }
    }

    /**
     * metadata.name and metadata.namespace are required. Namespaced like the TenantCluster that uses it: references
     * resolve in the object's own namespace, so an offline check has to know it.
     */
    static void metadata(ObjectMeta m, String kind, List<Problem> out) {
        if (m == null) {
            out.add(Problem.of("metadata", "required field is missing; set metadata.name and metadata.namespace"));
            return;
        }
        if (m.name() == null || m.name().isEmpty()) {
            out.add(Problem.of("metadata.name", "required field is missing; name the " + kind));
        }
        if (m.namespace() == null || m.namespace().isEmpty()) {
            out.add(Problem.of("metadata.namespace", "required field is missing; a " + kind + " is namespaced: set the "
                    + "namespace it belongs to, e.g. team-dev"));
        } else {
            Checks.label("metadata.namespace", m.namespace(), "a valid namespace name", out);
        }
        Checks.labels("metadata.labels", m.labels(), out);
        Checks.annotations("metadata.annotations", m.annotations(), out);
    }

    static void conditions(String field, List<Condition> conditions, List<Problem> out) {
        Set<String> types = new HashSet<>();
        for (int i = 0; i < conditions.size(); i++) {
            Condition c = conditions.get(i);
            String p = field + "[" + i + "]";
            if (c.type() != null && !Checks.isQualifiedName(c.type())) {
                out.add(Problem.of(p + ".type", "\"" + c.type() + "\" is not a valid condition type: use a CamelCase "
                        + "name such as Ready"));
            }
            if (c.type() != null && !types.add(c.type())) {
                out.add(Problem.of(p + ".type", "a second condition of type " + c.type() + "; keep one per type"));
            }
            if (c.reason() != null && !Checks.isReason(c.reason())) {
                out.add(Problem.of(p + ".reason", "\"" + c.reason() + "\" is not a valid reason: use CamelCase letters "
                        + "and digits, e.g. ControlPlaneReady"));
            }
            if (c.lastTransitionTime() != null && !Checks.isRfc3339(c.lastTransitionTime())) {
                out.add(Problem.of(p + ".lastTransitionTime", "\"" + c.lastTransitionTime() + "\" is not an RFC 3339 "
                        + "time; write e.g. 2025-01-31T12:00:00Z"));
            }
            if (c.observedGeneration() != null && c.observedGeneration() < 0) {
                out.add(Problem.of(p + ".observedGeneration", "must not be negative, got " + c.observedGeneration()));
            }
        }
    }
}
