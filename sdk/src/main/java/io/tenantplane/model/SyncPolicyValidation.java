package io.tenantplane.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The rules of a SyncPolicy. */
final class SyncPolicyValidation {

    private static final Set<String> OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");

    private SyncPolicyValidation() {
    }

    static List<Problem> validate(SyncPolicy p) {
        List<Problem> out = new ArrayList<>();
        ObjectValidation.identity(p.apiVersion(), p.kind(), SyncPolicy.API_VERSION, SyncPolicy.KIND, out);
        ObjectValidation.metadata(p.metadata(), SyncPolicy.KIND, out);
        if (p.metadata() != null) {
            Checks.subdomain("metadata.name", p.metadata().name(), "a valid SyncPolicy name", out);
        }
        out.addAll(Structure.missingRequired(p));
        if (p.spec() != null) {
            Map<String, Integer> firstAt = new HashMap<>();
            for (int i = 0; i < p.spec().kinds().size(); i++) {
                rule(p.spec().kinds().get(i), "spec.kinds[" + i + "]", i, firstAt, out);
            }
        }
        if (p.status() != null) {
            ObjectValidation.conditions("status.conditions", p.status().conditions(), out);
        }
        return out;
    }

    private static void rule(SyncPolicy.KindRule r, String path, int index, Map<String, Integer> firstAt,
                             List<Problem> out) {
        if (r.kind() == null) {
            return;
        }
        var known = SyncPolicy.supportedKind(r.kind());
        if (known.isEmpty()) {
            out.add(Problem.of(path + ".kind", "unsupported kind \"" + r.kind() + "\"; supported kinds: "
                    + SyncPolicy.SUPPORTED_KINDS.stream().map(SyncPolicy.SupportedKind::kind)
                    .collect(Collectors.joining(", "))));
            return;
        }
        Integer first = firstAt.putIfAbsent(r.kind(), index);
        if (first != null) {
            out.add(Problem.of(path + ".kind", "a second rule for " + r.kind() + " (the first is spec.kinds[" + first
                    + "]); merge them into one rule"));
        }
        SyncPolicy.SupportedKind k = known.get();
        if (r.apiVersion() != null && !r.apiVersion().equals(k.apiVersion())) {
            out.add(Problem.of(path + ".apiVersion", r.kind() + " is synced as " + k.apiVersion() + ", got \""
                    + r.apiVersion() + "\"; remove apiVersion or set " + k.apiVersion()));
        }
        if (r.fromHost() == SyncPolicy.FromHost.STATUS && !k.hasStatus()) {
            out.add(Problem.of(path + ".fromHost", r.kind() + " has no status to copy back; use none or leave fromHost "
                    + "unset"));
        }
        if (r.namespaces() != null) {
            if (!k.namespaced()) {
                out.add(Problem.of(path + ".namespaces", r.kind() + " is cluster-scoped, so a namespace filter does "
                        + "not apply; remove it"));
            }
            namespaces(path + ".namespaces.include", r.namespaces().include(), true, out);
            namespaces(path + ".namespaces.exclude", r.namespaces().exclude(), false, out);
        }
        if (r.selector() != null) {
            selector(path + ".selector", r.selector(), out);
        }
    }

    private static void namespaces(String field, List<String> names, boolean include, List<Problem> out) {
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            Checks.label(field + "[" + i + "]", n, "a valid namespace name", out);
            if (include && SyncPolicy.SYSTEM_NAMESPACES.contains(n)) {
                out.add(Problem.of(field + "[" + i + "]", n + " is a tenant system namespace and is never synced; "
                        + "remove it"));
            }
        }
    }

    private static void selector(String field, LabelSelector s, List<Problem> out) {
        Checks.labels(field + ".matchLabels", s.matchLabels(), out);
        for (int i = 0; i < s.matchExpressions().size(); i++) {
            LabelSelector.Requirement r = s.matchExpressions().get(i);
            String p = field + ".matchExpressions[" + i + "]";
            if (r.key() != null && !Checks.isQualifiedName(r.key())) {
                out.add(Problem.of(p + ".key", "\"" + r.key() + "\" is not a valid label key"));
            }
            if (r.operator() == null) {
                continue;
            }
            if (!OPERATORS.contains(r.operator())) {
                out.add(Problem.of(p + ".operator", "unknown operator \"" + r.operator() + "\"; allowed values: In, "
                        + "NotIn, Exists, DoesNotExist"));
            } else if ((r.operator().equals("In") || r.operator().equals("NotIn")) && r.values().isEmpty()) {
                out.add(Problem.of(p + ".values", r.operator() + " needs at least one value"));
            } else if ((r.operator().equals("Exists") || r.operator().equals("DoesNotExist")) && !r.values().isEmpty()) {
                out.add(Problem.of(p + ".values", r.operator() + " takes no values; remove them"));
            }
        }
    }
}
