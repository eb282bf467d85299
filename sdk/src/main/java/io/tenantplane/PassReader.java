package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.apply.internal.Bounded;
import io.tenantplane.controlplane.ControlPlaneNames;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.transform.Transformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiPredicate;

/**
 * The read step of a convergence pass: what one full pass over a tenant plans with, read once (the tenant's objects
 * of every kind its policy sends, the host copies labelled with the tenant, the host CRDs of allowed custom kinds,
 * the cluster-scoped host objects the policy mirrors and the tenant's mirrors of them, the tenant API and DNS
 * Services), the lists run side by side; and what a pass over one object plans with ({@link #readOne}). It reads and
 * decides nothing else: the {@link Converger}'s pass plans from what it returns, and the service's {@code /explain}
 * plans from the same reads ({@link Converger#planRequest}).
 */
final class PassReader {

    private static final ResourceKind CRD = ResourceKind.wellKnown("apiextensions.k8s.io/v1",
            "CustomResourceDefinition").orElseThrow();

    /**
     * Namespaced kinds tenantplane can sync; their host copies are listed (by the tenant's labels) and collected even
     * after the policy stops naming them, and deleted with the tenant.
     */
    static final List<String> COLLECTABLE_KINDS = SyncPolicy.SUPPORTED_KINDS.stream()
            .filter(SyncPolicy.SupportedKind::namespaced).map(SyncPolicy.SupportedKind::kind).toList();

    /**
     * The objects one full pass reads.
     *
     * @param mirrorKinds  the host kinds the policy mirrors into the tenant ({@code fromHost} rules)
     * @param tenantMirrors the tenant's objects of those of {@code mirrorKinds} the tenant serves and could be read
     * @param mirrorsServed those kinds
     */
    record Reads(List<JsonObject> tenantObjects, List<JsonObject> hostObjects, List<JsonObject> crds,
                 List<ResourceKind> mirrorKinds, boolean podsListed, List<JsonObject> tenantMirrors,
                 List<ResourceKind> mirrorsServed) {
    }

    /**
     * The objects a pass over one tenant object reads.
     *
     * @param tenantObjects the object (when it exists) and, for Endpoints and EndpointSlices, their Service
     * @param hostObjects   the object's host copy (when it exists), and for a Pod the host objects the policy mirrors
     * @param hostPods      the tenant's host Pods, read for an endpoint (which may name only them); null otherwise
     * @param crds          the host's CRD of a custom kind when no full pass has judged the kind yet; null otherwise
     * @param hostClasses   the host objects the policy mirrors, as read for a Pod; null when not read here
     * @param tokenSecrets  a Pod's token Secret on the host (empty when absent); null when not read
     */
    record One(List<JsonObject> tenantObjects, List<JsonObject> hostObjects, List<JsonObject> hostPods,
               List<JsonObject> crds, List<JsonObject> hostClasses, List<JsonObject> tokenSecrets) {
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
     * kinds, the cluster-scoped host objects the policy mirrors and the tenant's mirrors of them. The lists run up to
     * {@code writeConcurrency} at once.
     */
    Reads read() {
        return read(true);
    }

    /**
     * {@link #read()}, with the tenant's mirrors of host-mirrored kinds only when {@code mirrors}: a question about
     * what the pass decides for one object (explain) does not need them.
     */
    Reads read(boolean mirrors) {
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
        for (String kind : COLLECTABLE_KINDS) {
            if (listed.add(kind)) {
                ResourceKind hk = ResourceKind.wellKnown(null, kind).orElseThrow();
                hostReads.add(hostList(hk, hostNs, ReverseMapping.MANAGED_BY + "="
                        + ReverseMapping.MANAGED_BY_VALUE + "," + ReverseMapping.TENANT + "=" + tenant));
            }
        }
        List<java.util.function.Supplier<List<JsonObject>>> reads = new ArrayList<>(tenantReads);
        reads.addAll(hostReads);
        // The tenant's mirrors of each mirrored kind it serves; a kind it does not serve, or cannot be read in now,
        // is left out of this pass (the next full pass tries again), without failing the pass.
        List<ResourceKind> mirrorsServed = new ArrayList<>();
        List<ResourceKind> inTenant = new ArrayList<>();
        for (ResourceKind mk : mirrors ? mirrorKinds : List.<ResourceKind>of()) {
            try {
                inTenant.add(tenantResources.resolve(mk.apiVersion(), mk.kind()));
                mirrorsServed.add(mk);
            } catch (io.tenantplane.apply.UnknownKindException notInTenant) {
                // Not served by the tenant now.
            }
        }
        AtomicReferenceArray<List<JsonObject>> mirrorReads = new AtomicReferenceArray<>(inTenant.size());
        for (int i = 0; i < inTenant.size(); i++) {
            int at = i;
            ResourceKind tk = inTenant.get(i);
            reads.add(() -> {
                try {
                    mirrorReads.set(at, tenantReader.list(tk, null, null));
                } catch (ReadFailedException unreadable) {
                    // Left null: the kind sits this pass out.
                }
                return List.of();
            });
        }
        List<List<JsonObject>> results = readAll(reads);
        for (int i = 0; i < tenantReads.size() + hostReads.size(); i++) {
            (i < tenantReads.size() ? tenantObjects : hostObjects).addAll(results.get(i));
        }
        List<JsonObject> tenantMirrors = new ArrayList<>();
        List<ResourceKind> served = new ArrayList<>();
        for (int i = 0; i < mirrorsServed.size(); i++) {
            if (mirrorReads.get(i) != null) {
                served.add(mirrorsServed.get(i));
                tenantMirrors.addAll(mirrorReads.get(i));
            }
        }
        return new Reads(tenantObjects, hostObjects, crds, mirrorKinds, podsListed, tenantMirrors, served);
    }

    /**
     * What a pass over one tenant object ({@code ref}, e.g. a watch event on it or its host copy) plans with: the
     * object and its host copy by name; for an endpoint, its Service and the tenant's host Pods; the host's CRD of a
     * custom kind when {@code factsKnown} is false; for a Pod, the host objects the policy mirrors when
     * {@code knownClasses} is null, and its token Secret when {@code tokens}.
     *
     * @param tk the tenant's resource of the object's kind
     * @param hk the host's, or null when the kind is not written on the host (a custom kind not allowed or not served)
     */
    One readOne(TenantObjectRef ref, ResourceKind tk, ResourceKind hk, SyncPolicy.KindRule rule, boolean factsKnown,
                List<JsonObject> knownClasses, boolean tokens) {
        List<JsonObject> tenantObjects = new ArrayList<>();
        tenantReader.get(tk, ref.virtualNamespace(), ref.name()).ifPresent(tenantObjects::add);
        String service = endpointsService(ref, tenantObjects);
        if (service != null) {
            tenantReader.get(ResourceKind.wellKnown("v1", "Service").orElseThrow(), ref.virtualNamespace(), service)
                    .ifPresent(tenantObjects::add);
        }
        List<JsonObject> hostObjects = new ArrayList<>();
        if (hk != null) {
            hostReader.get(hk, hostNs, ref.hostName()).ifPresent(hostObjects::add);
        }
        List<JsonObject> hostPods = service != null || ref.kind().equals("EndpointSlice")
                ? hostReader.list(ResourceKind.wellKnown("v1", "Pod").orElseThrow(), hostNs,
                        ReverseMapping.TENANT + "=" + tenant)
                : null;
        List<JsonObject> crds = !factsKnown && rule != null && rule.custom() ? crds(rule) : null;
        List<JsonObject> classes = null;
        if (ref.kind().equals("Pod") && !policy.mirrors().isEmpty()) {
            classes = knownClasses == null ? hostClasses() : knownClasses;
            hostObjects.addAll(classes);
        }
        List<JsonObject> tokenSecrets = ref.kind().equals("Pod") && tokens
                ? hostReader.get(ResourceKind.wellKnown("v1", "Secret").orElseThrow(), hostNs,
                        Transformer.tokenSecretName(ref.hostName())).stream().toList()
                : null;
        return new One(tenantObjects, hostObjects, hostPods, crds, knownClasses == null ? classes : null,
                tokenSecrets);
    }

    /**
     * The tenant API and DNS Services on the host, where the tenant's Pods reach their API and DNS: taken by name
     * from the Services list the provisioning just before this pass handed on (which holds every Service of the
     * tenant there, its synced copies too, so only these two are kept), else read by name (the DNS Service only
     * when the API Service exists). Empty when neither exists yet.
     */
    List<JsonObject> controlPlaneServices() {
        ControlPlaneNames n = ControlPlaneNames.of(ctx.cluster());
        List<JsonObject> handed = ctx.listed("v1", "Service", n.namespace(), ReverseMapping.TENANT + "=" + tenant)
                .orElse(List.of()).stream().filter(o -> List.of(n.apiService(), n.dnsService())
                        .contains(Json.string(o, "metadata", "name"))).toList();
        if (handed.stream().anyMatch(o -> n.apiService().equals(Json.string(o, "metadata", "name")))) {
            return handed;
        }
        ResourceKind service = ResourceKind.wellKnown("v1", "Service").orElseThrow();
        List<JsonObject> read = new ArrayList<>();
        hostReader.get(service, n.namespace(), n.apiService()).ifPresent(read::add);
        if (!read.isEmpty()) {
            hostReader.get(service, n.namespace(), n.dnsService()).ifPresent(read::add);
        }
        return List.copyOf(read);
    }

    /** The Service whose endpoints {@code ref} is (read as {@code found}), or null when it is no endpoint. */
    private static String endpointsService(TenantObjectRef ref, List<JsonObject> found) {
        if (ref.kind().equals("Endpoints")) {
            return ref.name();
        }
        if (ref.kind().equals("EndpointSlice") && !found.isEmpty()) {
            return Json.labels(found.get(0)).get("kubernetes.io/service-name");
        }
        return null;
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
