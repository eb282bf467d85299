package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.apply.internal.Bounded;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The read step of a convergence pass: what one full pass over a tenant plans with, read once (the tenant's objects
 * of every kind its policy sends, the host copies labelled with the tenant, the host CRDs of allowed custom kinds,
 * the cluster-scoped host objects the policy mirrors), the lists run side by side. It reads and decides nothing else:
 * the {@link Converger}'s pass plans from what it returns, and the service's {@code /explain} plans from the same
 * reads ({@link Converger#planRequest}).
 */
final class PassReader {

    private static final ResourceKind CRD = ResourceKind.wellKnown("apiextensions.k8s.io/v1",
            "CustomResourceDefinition").orElseThrow();

    /** The objects one full pass reads. */
    record Reads(List<JsonObject> tenantObjects, List<JsonObject> hostObjects, List<JsonObject> crds,
                 List<ResourceKind> mirrorKinds, boolean podsListed) {
    }

    private final TenantContext ctx;
    private final String tenant;
    private final String hostNs;
    private final SyncPolicy policy;
    private final Reader tenantReader;
    private final Resources tenantResources;
    private final Reader hostReader;
    private final Resources hostResources;
    /** Whether the installation's allow-list holds a custom kind (kind, apiVersion). */
    private final BiPredicate<String, String> allowed;
    private final int concurrency;

    PassReader(TenantContext ctx, SyncPolicy policy, Reader tenantReader, Resources tenantResources,
               Reader hostReader, Resources hostResources, BiPredicate<String, String> allowed, int concurrency) {
        this.ctx = ctx;
        this.tenant = ctx.tenant();
        this.hostNs = ctx.hostNamespace();
        this.policy = policy;
        this.tenantReader = tenantReader;
        this.tenantResources = tenantResources;
        this.hostReader = hostReader;
        this.hostResources = hostResources;
        this.allowed = allowed;
        this.concurrency = concurrency;
    }

    /**
     * What a full pass plans with, read as it reads: the tenant's objects of every kind the policy sends to the
     * host (system namespaces included: the planner makes them Skip decisions, so "why is this not on the host?"
     * has an answer), the host copies labelled with the tenant in its host namespace (of those kinds, of custom
     * kinds the policy stopped sending, and of every kind tenantplane collects), the host CRDs of allowed custom
     * kinds, and the cluster-scoped host objects the policy mirrors. The lists run up to
     * {@code writeConcurrency} at once.
     */
    Reads read() {
        List<JsonObject> tenantObjects = new ArrayList<>();
        List<JsonObject> hostObjects = new ArrayList<>();
        Set<String> listed = new java.util.HashSet<>();
        boolean podsListed = false;
        List<java.util.function.Supplier<List<JsonObject>>> tenantReads = new ArrayList<>();
        List<java.util.function.Supplier<List<JsonObject>>> hostReads = new ArrayList<>();
        List<JsonObject> crds = new ArrayList<>();
        for (SyncPolicy.KindRule rule : policy.spec() == null ? List.<SyncPolicy.KindRule>of()
                : policy.spec().kinds()) {
            if (rule != null && rule.kind() != null && !rule.toHost() && rule.custom()
                    && listed.add(rule.kind())) {
                // A custom kind the policy stopped sending: its host copies are collected (KindNotSynced).
                retiredCustomKind(rule, hostReads);
                continue;
            }
            if (rule == null || rule.kind() == null || !rule.toHost() || !listed.add(rule.kind())) {
                continue;
            }
            if (rule.custom()) {
                customKind(rule, tenantReads, hostReads, crds);
                continue;
            }
            ResourceKind tk = tenantResources.resolve(rule.effectiveApiVersion(), rule.kind());
            podsListed |= tk.kind().equals("Pod");
            // System namespaces are listed too: the planner makes them Skip decisions, so "why is this not on
            // the host?" has an answer.
            tenantReads.add(() -> tenantReader.list(tk, null, null));
            ResourceKind hk = hostResources.resolve(tk.apiVersion(), tk.kind());
            hostReads.add(hostList(hk, hk.namespaced() ? hostNs : null, ReverseMapping.TENANT + "=" + tenant));
        }
        List<ResourceKind> mirrorKinds = new ArrayList<>();
        for (SyncPolicy.HostMirror m : policy.mirrors()) {
            ResourceKind mk = mirrorKind(m);
            if (mk != null) {
                mirrorKinds.add(mk);
                hostReads.add(() -> hostReader.list(mk, null, null));
            }
        }
        for (String kind : Converger.COLLECTABLE_KINDS) {
            if (listed.add(kind)) {
                ResourceKind hk = ResourceKind.wellKnown(null, kind).orElseThrow();
                hostReads.add(hostList(hk, hostNs, ReverseMapping.MANAGED_BY + "="
                        + ReverseMapping.MANAGED_BY_VALUE + "," + ReverseMapping.TENANT + "=" + tenant));
            }
        }
        List<java.util.function.Supplier<List<JsonObject>>> reads = new ArrayList<>(tenantReads);
        reads.addAll(hostReads);
        List<List<JsonObject>> results = readAll(reads);
        for (int i = 0; i < results.size(); i++) {
            (i < tenantReads.size() ? tenantObjects : hostObjects).addAll(results.get(i));
        }
        return new Reads(tenantObjects, hostObjects, crds, mirrorKinds, podsListed);
    }

    /**
     * Reads for a custom kind: the tenant's objects when the tenant serves the kind; the host's CRD for it and the
     * host copies when the installation allows the kind (a kind not allowed is never read or written on the host,
     * and its objects become {@code KindNotAllowed} skips).
     */
    private void customKind(SyncPolicy.KindRule rule, List<java.util.function.Supplier<List<JsonObject>>> tenantReads,
                            List<java.util.function.Supplier<List<JsonObject>>> hostReads, List<JsonObject> crds) {
        ResourceKind tk;
        try {
            tk = tenantResources.resolve(rule.effectiveApiVersion(), rule.kind());
        } catch (io.tenantplane.apply.UnknownKindException notInTenant) {
            // The tenant has not installed the kind: nothing of it to sync, but copies may be left to collect.
            tk = null;
        }
        if (tk != null) {
            ResourceKind listed = tk;
            tenantReads.add(() -> tenantReader.list(listed, null, null));
        }
        if (!allowed.test(rule.kind(), rule.effectiveApiVersion())) {
            return;
        }
        if (tk != null && tk.crdName().isPresent()) {
            hostReader.get(CRD, null, tk.crdName().get()).ifPresent(crds::add);
        }
        ResourceKind hk;
        try {
            hk = hostResources.resolve(rule.effectiveApiVersion(), rule.kind());
        } catch (io.tenantplane.apply.UnknownKindException notOnHost) {
            return;
        }
        if (hk.namespaced()) {
            hostReads.add(hostList(hk, hostNs, ReverseMapping.TENANT + "=" + tenant));
        }
    }

    /**
     * The read of one host list: the one the provisioning before this pass handed on in the context when it has
     * it (the same kind, namespace and selector, or a selector asking less), or a list request.
     */
    private java.util.function.Supplier<List<JsonObject>> hostList(ResourceKind hk, String namespace,
                                                                  String selector) {
        if (namespace != null) {
            Optional<List<JsonObject>> handed = ctx.listed(hk.apiVersion(), hk.kind(), namespace, selector);
            if (handed.isPresent()) {
                List<JsonObject> items = handed.get();
                return () -> items;
            }
        }
        return () -> hostReader.list(hk, namespace, selector);
    }

    /** Lists the host copies of a custom kind the policy keeps in the tenant, if the installation allows it. */
    private void retiredCustomKind(SyncPolicy.KindRule rule,
                                   List<java.util.function.Supplier<List<JsonObject>>> hostReads) {
        if (rule.effectiveApiVersion() == null || !allowed.test(rule.kind(), rule.effectiveApiVersion())) {
            return;
        }
        try {
            ResourceKind hk = hostResources.resolve(rule.effectiveApiVersion(), rule.kind());
            if (hk.namespaced()) {
                hostReads.add(() -> hostReader.list(hk, hostNs, ReverseMapping.MANAGED_BY + "="
                        + ReverseMapping.MANAGED_BY_VALUE + "," + ReverseMapping.TENANT + "=" + tenant));
            }
        } catch (io.tenantplane.apply.UnknownKindException notOnHost) {
            // Nothing of it on the host.
        }
    }

    /** The host's CRD of a custom kind the policy sends, as a full pass reads it (empty when not allowed or absent). */
    List<JsonObject> crds(SyncPolicy.KindRule rule) {
        List<JsonObject> crds = new ArrayList<>();
        customKind(rule, new ArrayList<>(), new ArrayList<>(), crds);
        return crds;
    }

    /** The host's objects of every kind the policy mirrors (before any full pass has read them). */
    List<JsonObject> hostClasses() {
        List<JsonObject> out = new ArrayList<>();
        for (SyncPolicy.HostMirror m : policy.mirrors()) {
            ResourceKind mk = mirrorKind(m);
            if (mk != null) {
                out.addAll(hostReader.list(mk, null, null));
            }
        }
        return List.copyOf(out);
    }

    /** The resource of a fromHost rule's kind on the host, or null when the host does not serve it. */
    private ResourceKind mirrorKind(SyncPolicy.HostMirror m) {
        if (m == null || m.kind() == null || m.effectiveApiVersion() == null) {
            return null;
        }
        boolean builtIn = SyncPolicy.MIRROR_KINDS.stream().anyMatch(k -> k.kind().equals(m.kind()));
        if (!builtIn && !allowed.test(m.kind(), m.effectiveApiVersion())) {
            return null;
        }
        try {
            ResourceKind k = hostResources.resolve(m.effectiveApiVersion(), m.kind());
            return k.namespaced() ? null : k;
        } catch (io.tenantplane.apply.UnknownKindException e) {
            return null;
        }
    }

    /**
     * Runs the pass's lists, up to the pass's write concurrency at once (each is a separate request; with one writer
     * they go one after another); the results in the order given. The first failure is thrown once all ended.
     */
    private List<List<JsonObject>> readAll(List<java.util.function.Supplier<List<JsonObject>>> reads) {
        List<List<JsonObject>> results = new ArrayList<>(java.util.Collections.nCopies(reads.size(), null));
        Bounded.run(reads.size(), concurrency, "tenantplane-read-" + ctx.key().name(), i -> {
            List<JsonObject> r = reads.get(i).get();
            synchronized (results) {
                results.set(i, r);
            }
        });
        synchronized (results) {
            return List.copyOf(results);
        }
    }
}
