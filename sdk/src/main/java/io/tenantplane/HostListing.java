package io.tenantplane;

import com.google.gson.JsonObject;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Resources;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.internal.ProvisionPlan;
import io.tenantplane.plan.internal.Removal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one provisioning reads of the host: for each kind and namespace it renders into, one list of the objects
 * labelled with the tenant (the selector a pass lists the tenant's host copies with), instead of a read per
 * object; kept as this call leaves them, its writes included, and handed on to the pass that follows.
 * An object of a rendered name that is not so labelled (a foreign one, or one whose labels were changed) is not
 * in the list: the create is then refused as AlreadyExists, and the applier reads that object and plans it again,
 * which judges it as a read of it would have. Cluster-scoped objects (the tenant's Namespace) are read one by
 * one. What removing a tenant reads is here too ({@link #removable}).
 */
final class HostListing {
    private final Reader reader;
    private final String tenant;
    private final String selector;
    private final Map<String, Group> groups = new LinkedHashMap<>();

    /** One list: the objects by name, and whether every write to them since is known. */
    private static final class Group {
        final ResourceKind kind;
        final String namespace;
        final Map<String, JsonObject> byName = new LinkedHashMap<>();
        boolean known = true;

        Group(ResourceKind kind, String namespace) {
            this.kind = kind;
            this.namespace = namespace;
        }
    }

    HostListing(Reader reader, String tenant) {
        this.reader = reader;
        this.tenant = tenant;
        this.selector = ReverseMapping.TENANT + "=" + tenant;
    }

    /** The object as this call knows it, from its kind's list in that namespace (listed at its first use). */
    Optional<JsonObject> get(ResourceKind kind, String namespace, String name) {
        if (!kind.namespaced()) {
            return reader.get(kind, null, name);
        }
        Group g = groups.computeIfAbsent(key(kind.apiVersion(), kind.kind(), namespace), k -> {
            Group fresh = new Group(kind, namespace);
            for (JsonObject o : reader.list(kind, namespace, selector)) {
                fresh.byName.put(Json.string(o, "metadata", "name"), o);
            }
            return fresh;
        });
        return Optional.ofNullable(g.byName.get(name));
    }

    /**
     * The host objects provisioning plans from ({@link ProvisionPlan#plan}): of the name of each of {@code rendered}
     * and of each of {@code retirable} the rendering does not hold, as this call knows them.
     */
    ProvisionPlan.Observed observe(Resources resources, List<JsonObject> rendered,
                                   List<ProvisionPlan.Retirable> retirable) {
        Map<String, JsonObject> read = new HashMap<>();
        for (JsonObject rendering : rendered) {
            ResourceKind kind = resources.resolve(Json.string(rendering, "apiVersion"), Json.string(rendering, "kind"));
            String ns = kind.namespaced() ? Json.string(rendering, "metadata", "namespace") : null;
            get(kind, ns, Json.string(rendering, "metadata", "name"))
                    .ifPresent(o -> read.put(ProvisionPlan.id(rendering), o));
        }
        for (ProvisionPlan.Retirable gone : retirable) {
            if (!ProvisionPlan.wanted(rendered, gone.kind(), gone.name())) {
                get(ResourceKind.wellKnown(null, gone.kind()).orElseThrow(), gone.namespace(), gone.name())
                        .ifPresent(o -> read.put(ProvisionPlan.id(gone.kind(), gone.namespace(), gone.name()), o));
            }
        }
        return new ProvisionPlan.Observed(read);
    }

    /**
     * Takes in what {@code o} left on the host: the written object, or its absence after a delete. A write that
     * failed leaves that list unknown, and it is not handed on.
     */
    void left(Outcome o) {
        Decision d = o.decision();
        // A delete's desired object is its delete options (e.g. the StatefulSet replacement's Orphan policy):
        // the object it is about is the one observed.
        JsonObject about = d.action() == Action.DELETE || d.desired() == null ? d.observed() : d.desired();
        if (about == null) {
            return;
        }
        Group g = groups.get(key(Json.string(about, "apiVersion"), Json.string(about, "kind"),
                Json.string(about, "metadata", "namespace")));
        if (g == null) {
            return;
        }
        String name = Json.string(about, "metadata", "name");
        switch (o) {
            case Outcome.Applied a when d.action() == Action.DELETE -> g.byName.remove(name);
            case Outcome.Applied a when a.result() != null
                    && tenant.equals(Json.labels(a.result()).get(ReverseMapping.TENANT)) ->
                    g.byName.put(name, a.result());
            case Outcome.Applied a -> g.byName.remove(name);
            case Outcome.NotWritten n -> {
            }
            default -> g.known = false;
        }
    }

    /** The lists whose every object this call knows as it left it. */
    List<TenantContext.HostList> handedOn() {
        return groups.values().stream().filter(g -> g.known)
                .map(g -> new TenantContext.HostList(g.kind.apiVersion(), g.kind.kind(), g.namespace, selector,
                        List.copyOf(g.byName.values())))
                .toList();
    }

    /** What removing a tenant reads ({@link #removable}). */
    record Removable(List<JsonObject> copies, List<JsonObject> rendered, List<JsonObject> namespaces) {
    }

    /**
     * What removing {@code tc} plans from ({@link Removal#plan}): in every place the tenant may have objects in
     * ({@link Removal#places}), its host copies of every collectable kind and its rendered objects, listed by its
     * labels, and the namespaces of those places other than the TenantCluster's own.
     */
    static Removable removable(Reader reader, TenantCluster tc) {
        String selector = Removal.selector(tc.tenant());
        List<String> places = Removal.places(tc);
        List<JsonObject> copies = new ArrayList<>();
        List<JsonObject> rendered = new ArrayList<>();
        List<JsonObject> namespaces = new ArrayList<>();
        for (String ns : places) {
            for (String kind : PassReader.COLLECTABLE_KINDS) {
                copies.addAll(reader.list(ResourceKind.wellKnown(null, kind).orElseThrow(), ns, selector));
            }
        }
        for (String ns : places) {
            for (String kind : Removal.RENDERED_KINDS) {
                rendered.addAll(reader.list(ResourceKind.wellKnown(null, kind).orElseThrow(), ns, selector));
            }
        }
        ResourceKind namespaceKind = ResourceKind.wellKnown("v1", "Namespace").orElseThrow();
        for (String ns : places) {
            if (!ns.equals(tc.namespace())) {
                reader.get(namespaceKind, null, ns).ifPresent(namespaces::add);
            }
        }
        return new Removable(List.copyOf(copies), List.copyOf(rendered), List.copyOf(namespaces));
    }

    private static String key(String apiVersion, String kind, String namespace) {
        return apiVersion + "/" + kind + "/" + namespace;
    }
}
