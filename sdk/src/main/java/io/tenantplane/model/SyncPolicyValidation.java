package io.tenantplane.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
            Map<String, Integer> mirrorAt = new HashMap<>();
            for (int i = 0; i < p.spec().fromHost().size(); i++) {
                mirror(p.spec().fromHost().get(i), "spec.fromHost[" + i + "]", i, mirrorAt, out);
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
        Integer first = firstAt.putIfAbsent(r.kind(), index);
        if (first != null) {
            out.add(Problem.of(path + ".kind", "a second rule for " + r.kind() + " (the first is spec.kinds[" + first
                    + "]); merge them into one rule"));
        }
        var known = SyncPolicy.supportedKind(r.kind());
        if (known.isEmpty()) {
            customRule(r, path, out);
        } else {
            builtInRule(r, known.get(), path, out);
        }
        if (r.namespaces() != null) {
            namespaces(path + ".namespaces.include", r.namespaces().include(), true, out);
            namespaces(path + ".namespaces.exclude", r.namespaces().exclude(), false, out);
        }
        if (r.selector() != null) {
            selector(path + ".selector", r.selector(), out);
        }
        for (int i = 0; i < r.patches().size(); i++) {
            patch(r.patches().get(i), path + ".patches[" + i + "]", out);
        }
    }

    private static void builtInRule(SyncPolicy.KindRule r, SyncPolicy.SupportedKind k, String path,
                                    List<Problem> out) {
        if (r.apiVersion() != null && !r.apiVersion().equals(k.apiVersion())) {
            out.add(Problem.of(path + ".apiVersion", r.kind() + " is synced as " + k.apiVersion() + ", got \""
                    + r.apiVersion() + "\"; remove apiVersion or set " + k.apiVersion()));
        }
        if (!k.namespaced() && r.toHost()) {
            out.add(Problem.of(path + ".toHost", r.kind() + " is cluster-scoped, and cluster-scoped kinds never go to "
                    + "the host (one tenant's object would act on every tenant); set toHost: false, or list "
                    + r.kind() + " under spec.fromHost to mirror the host's into the tenant"));
        }
        if (r.fromHost() == SyncPolicy.FromHost.STATUS && !k.hasStatus()) {
            out.add(Problem.of(path + ".fromHost", r.kind() + " has no status to copy back; use none or leave fromHost "
                    + "unset"));
        }
        if (r.namespaces() != null && !k.namespaced()) {
            out.add(Problem.of(path + ".namespaces", r.kind() + " is cluster-scoped, so a namespace filter does "
                    + "not apply; remove it"));
        }
        if (!r.references().isEmpty()) {
            out.add(Problem.of(path + ".references", "tenantplane rewrites the references of " + r.kind()
                    + " itself; references are declared for custom kinds only: remove them"));
        }
        if (!r.labelSelectors().isEmpty()) {
            out.add(Problem.of(path + ".labelSelectors", "tenantplane scopes the selectors of " + r.kind()
                    + " itself; labelSelectors are declared for custom kinds only: remove them"));
        }
    }

    private static void customRule(SyncPolicy.KindRule r, String path, List<Problem> out) {
        if (!isKindName(r.kind())) {
            out.add(Problem.of(path + ".kind", "\"" + r.kind() + "\" is not a kind name: a kind is CamelCase letters "
                    + "and digits starting with an upper-case letter, e.g. Certificate"));
            return;
        }
        if (SyncPolicy.SYSTEM_KINDS.contains(r.kind())) {
            out.add(Problem.of(path + ".kind", r.kind() + " is never synced: it belongs to the control plane of the "
                    + "tenant or the host; remove the rule"));
            return;
        }
        apiVersion(r.apiVersion(), r.kind(), path, out);
        for (int i = 0; i < r.references().size(); i++) {
            SyncPolicy.Reference ref = r.references().get(i);
            String p = path + ".references[" + i + "]";
            objectField(ref.path(), p + ".path", "a reference", out);
            if (ref.kind() != null) {
                if (!isKindName(ref.kind())) {
                    out.add(Problem.of(p + ".kind", "\"" + ref.kind() + "\" is not a kind name, e.g. Secret"));
                } else if (SyncPolicy.supportedKind(ref.kind()).filter(k -> !k.namespaced()).isPresent()) {
                    out.add(Problem.of(p + ".kind", ref.kind() + " is cluster-scoped; a reference names an object "
                            + "in the same virtual namespace: leave cluster-scoped names out of references, they are "
                            + "copied unchanged"));
                }
            }
        }
        for (int i = 0; i < r.labelSelectors().size(); i++) {
            SyncPolicy.SelectorField f = r.labelSelectors().get(i);
            objectField(f.path(), path + ".labelSelectors[" + i + "].path", "a selector", out);
        }
    }

    private static void apiVersion(String apiVersion, String kind, String path, List<Problem> out) {
        if (apiVersion == null) {
            out.add(Problem.of(path + ".apiVersion", kind + " is not a built-in kind tenantplane knows; set its "
                    + "apiVersion, e.g. cert-manager.io/v1"));
            return;
        }
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        if ((slash >= 0 && !Checks.isDns1123Subdomain(group)) || !Checks.isDns1035Label(version)
                || version.contains("/")) {
            out.add(Problem.of(path + ".apiVersion", "\"" + apiVersion + "\" is not an apiVersion: write group/version, "
                    + "e.g. cert-manager.io/v1"));
        }
    }

    /** A path that names a field of the object's content: not its identity, metadata or status. */
    private static void objectField(String text, String field, String what, List<Problem> out) {
        if (text == null) {
            return;
        }
        FieldPath path;
        try {
            path = FieldPath.parse(text);
        } catch (IllegalArgumentException e) {
            out.add(Problem.of(field, e.getMessage()));
            return;
        }
        if (RESERVED_ROOTS.contains(path.root())) {
            out.add(Problem.of(field, what + " cannot be at " + text + ": apiVersion, kind, metadata and status are "
                    + "tenantplane's and the host's; name a field under spec (or the kind's own top-level fields)"));
        }
    }

    private static final Set<String> RESERVED_ROOTS = Set.of("apiVersion", "kind", "metadata", "status");

    private static void patch(SyncPolicy.Patch patch, String path, List<Problem> out) {
        if (patch.path() == null || patch.op() == null) {
            return;
        }
        FieldPath fp;
        try {
            fp = FieldPath.parse(patch.path());
        } catch (IllegalArgumentException e) {
            out.add(Problem.of(path + ".path", e.getMessage()));
            return;
        }
        boolean hasValue = patch.value() != null && !patch.value().isJsonNull();
        if (patch.op() == SyncPolicy.PatchOp.SET && hasValue == (patch.valueFrom() != null)) {
            out.add(Problem.of(path + ".value", "op set takes exactly one of value and valueFrom (tenant, "
                    + "virtualNamespace, hostNamespace)"));
        }
        if (patch.op() == SyncPolicy.PatchOp.REMOVE && (hasValue || patch.valueFrom() != null)) {
            out.add(Problem.of(path + ".value", "op remove takes no value; remove value and valueFrom"));
        }
        if (!fp.root().equals("metadata")) {
            if (RESERVED_ROOTS.contains(fp.root())) {
                out.add(Problem.of(path + ".path", "a patch cannot change " + fp.root() + ": it is tenantplane's "
                        + "and the host's"));
            }
            return;
        }
        List<FieldPath.Step> steps = fp.steps();
        boolean labels = steps.size() == 3 && steps.get(1) instanceof FieldPath.Member m1
                && (m1.name().equals("labels") || m1.name().equals("annotations"));
        if (!labels || !(steps.get(2) instanceof FieldPath.Member key)) {
            out.add(Problem.of(path + ".path", "under metadata a patch may set or remove only one label or "
                    + "annotation: metadata.labels[key] or metadata.annotations[key]"));
            return;
        }
        String what = ((FieldPath.Member) steps.get(1)).name().equals("labels") ? "label" : "annotation";
        if (!Checks.isQualifiedName(key.name())) {
            out.add(Problem.of(path + ".path", "\"" + key.name() + "\" is not a valid " + what + " key"));
        } else if (key.name().startsWith("tenantplane.io/") || key.name().contains(".tenantplane.io/")) {
            out.add(Problem.of(path + ".path", key.name() + " is reserved for tenantplane's own bookkeeping; use "
                    + "another key"));
        }
        if (hasValue && !(patch.value().isJsonPrimitive() && patch.value().getAsJsonPrimitive().isString())) {
            out.add(Problem.of(path + ".value", "a " + what + " value is a string; quote it"));
        } else if (hasValue && what.equals("label") && !Checks.isLabelValue(patch.value().getAsString())) {
            out.add(Problem.of(path + ".value", "\"" + patch.value().getAsString() + "\" is not a valid label value: at "
                    + "most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"));
        }
    }

    private static void mirror(SyncPolicy.HostMirror m, String path, int index, Map<String, Integer> firstAt,
                               List<Problem> out) {
        if (m.kind() == null) {
            return;
        }
        Integer first = firstAt.putIfAbsent(m.kind(), index);
        if (first != null) {
            out.add(Problem.of(path + ".kind", "a second mirror rule for " + m.kind() + " (the first is spec.fromHost["
                    + first + "]); merge them into one rule"));
        }
        var builtIn = SyncPolicy.MIRROR_KINDS.stream().filter(k -> k.kind().equals(m.kind())).findFirst();
        if (builtIn.isPresent()) {
            if (m.apiVersion() != null && !m.apiVersion().equals(builtIn.get().apiVersion())) {
                out.add(Problem.of(path + ".apiVersion", m.kind() + " is mirrored as " + builtIn.get().apiVersion()
                        + ", got \"" + m.apiVersion() + "\"; remove apiVersion or set " + builtIn.get().apiVersion()));
            }
        } else if (SyncPolicy.supportedKind(m.kind()).isPresent()
                || SyncPolicy.SYSTEM_KINDS.contains(m.kind())) {
            out.add(Problem.of(path + ".kind", m.kind() + " cannot be mirrored from the host; fromHost takes "
                    + "cluster-scoped kinds: StorageClass, IngressClass, PriorityClass, RuntimeClass, or a "
                    + "cluster-scoped custom kind with its apiVersion"));
        } else if (!isKindName(m.kind())) {
            out.add(Problem.of(path + ".kind", "\"" + m.kind() + "\" is not a kind name, e.g. StorageClass"));
        } else {
            apiVersion(m.apiVersion(), m.kind(), path, out);
        }
        for (int i = 0; i < m.names().size(); i++) {
            Checks.subdomain(path + ".names[" + i + "]", m.names().get(i), "a valid object name", out);
        }
        if (m.names().isEmpty() && m.selector() == null) {
            out.add(Problem.of(path, "say which host objects to mirror: list names, set a selector, or both "
                    + "(selector: {} mirrors all)"));
        }
        if (m.selector() != null) {
            selector(path + ".selector", m.selector(), out);
        }
    }

    private static boolean isKindName(String kind) {
        if (kind.isEmpty() || kind.length() > 63 || !Character.isUpperCase(kind.charAt(0))) {
            return false;
        }
        return kind.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
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
