package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.PlanRequest;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import io.tenantplane.model.CustomResources;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.ObjectMeta;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.Problem;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The input of one offline run, sorted out: tenantplane custom resources, tenant objects (any other kind; their
 * {@code metadata.namespace} is their <em>virtual</em> namespace, {@code default} when absent) and current host
 * objects (only from {@code --host}, since a host object cannot be told apart from a tenant object by its content).
 */
final class Workspace {

    private final List<Doc> resources;
    private final List<Doc> tenantObjects;
    private final List<Doc> hostObjects;

    private Workspace(List<Doc> resources, List<Doc> tenantObjects, List<Doc> hostObjects) {
        this.resources = resources;
        this.tenantObjects = tenantObjects;
        this.hostObjects = hostObjects;
    }

    static Workspace read(List<String> files, List<String> hostFiles, InputStream stdin) {
        if (files.stream().filter("-"::equals).count() + hostFiles.stream().filter("-"::equals).count() > 1) {
            throw new CliException(null, "-f/--host", "stdin (-) can be read only once", "pass the other input as a file");
        }
        return of(Inputs.read(files, stdin, "-f"), Inputs.read(hostFiles, stdin, "--host"));
    }

    /** Sorts the documents out and checks what every command needs: valid names, no duplicates. */
    static Workspace of(List<Doc> docs, List<Doc> hostDocs) {
        List<Doc> resources = new ArrayList<>();
        List<Doc> tenants = new ArrayList<>();
        Map<String, Doc> seen = new HashMap<>();
        for (Doc d : docs) {
            if (d.isTenantPlaneResource()) {
                resources.add(d);
                continue;
            }
            String vns = virtualNamespace(d);
            checkName(d, vns);
            String key = d.kind() + "/" + vns + "/" + d.name();
            Doc before = seen.putIfAbsent(key, d);
            if (before != null) {
                throw new CliException(d.where(), "metadata.name", d.kind() + " " + (vns == null ? "" : vns + "/")
                        + d.name() + " is also in " + before.where(), "keep one copy of each tenant object");
            }
            tenants.add(d);
        }
        for (Doc h : hostDocs) {
            if (h.isTenantPlaneResource()) {
                throw new CliException(h.where(), "kind", h.kind() + " is a tenantplane resource, not a host object",
                        "pass TenantCluster, IsolationProfile and SyncPolicy with -f, not --host");
            }
        }
        return new Workspace(List.copyOf(resources), List.copyOf(tenants), List.copyOf(hostDocs));
    }

    /**
     * The object's namespace inside the tenant: {@code metadata.namespace}, or {@code default} for a namespaced kind
     * without one (as kubectl does); null for cluster-scoped kinds.
     */
    static String virtualNamespace(Doc d) {
        if (d.namespace() != null) {
            return d.namespace();
        }
        Optional<ResourceKind> rk = ResourceKind.wellKnown(d.apiVersion(), d.kind())
                .or(() -> ResourceKind.wellKnown(null, d.kind()));
        return rk.isPresent() && rk.get().namespaced() ? "default" : null;
    }

    private static void checkName(Doc d, String vns) {
        if (!HostNames.isDns1123Subdomain(d.name())) {
            throw new CliException(d.where(), "metadata.name", "'" + d.name() + "' is not a valid name",
                    "use at most 253 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit");
        }
        if (vns != null && !HostNames.isDns1123Label(vns)) {
            throw new CliException(d.where(), "metadata.namespace", "'" + vns + "' is not a valid namespace",
                    "use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit");
        }
    }

    List<Doc> tenantObjects() {
        return tenantObjects;
    }

    /** Every tenantplane resource, converted and validated together; any problem is bad input. */
    CustomResources customResources() {
        Parsed<CustomResources> parsed = CustomResources.from(resources.stream().map(Doc::loaded).toList());
        if (parsed instanceof Parsed.Invalid<CustomResources> invalid) {
            throw problems(invalid.problems());
        }
        return parsed.orElseThrow();
    }

    /** The one-line error for a list of problems: the first, and how many more there are. */
    static CliException problems(List<Problem> problems) {
        Problem first = problems.get(0);
        String more = problems.size() > 1
                ? " (and " + (problems.size() - 1) + " more problem" + (problems.size() > 2 ? "s" : "")
                + "; 'tenantplane validate -f ...' lists them all)" : "";
        return new CliException(first.source(), first.field(), first.message() + more, null);
    }

    /** The single tenant object of the input, for commands that explain one. */
    Doc singleTenantObject() {
        if (tenantObjects.size() != 1) {
            throw new CliException(null, "-f", "holds " + tenantObjects.size() + " tenant objects",
                    "pass --kind and --name to pick one");
        }
        return tenantObjects.get(0);
    }

    /** A kind the tenant objects use, matched without regard to case (for kinds outside the well-known table). */
    String kindNamed(String typed) {
        return tenantObjects.stream().map(Doc::kind).filter(k -> k.equalsIgnoreCase(typed)).findFirst()
                .orElseThrow(() -> new CliException(null, "--kind", "unknown kind '" + typed + "'",
                        "use a Kubernetes kind such as " + String.join(", ", Kinds.SYNCABLE)));
    }

    /**
     * The tenant this run is about and everything the planner needs for it.
     *
     * @param tenantFlag    {@code --tenant}: picks a TenantCluster, or names the tenant when there is none
     * @param namespaceFlag {@code --tenant-namespace}: the host namespace when there is no TenantCluster
     */
    Target target(String tenantFlag, String namespaceFlag) {
        CustomResources crs = customResources();
        List<TenantCluster> tcs = crs.tenantClusters();
        if (tenantFlag != null && !tcs.isEmpty()) {
            tcs = tcs.stream().filter(tc -> tenantFlag.equals(tc.tenant())).toList();
            if (tcs.isEmpty()) {
                throw new CliException(null, "--tenant", "no TenantCluster named '" + tenantFlag + "' among the inputs"
                        + " (there: " + String.join(", ", crs.tenantClusters().stream().map(TenantCluster::tenant)
                        .toList()) + ")", "pass one of those names");
            }
        }
        if (tcs.size() > 1) {
            throw new CliException(null, "-f", "holds " + tcs.size() + " TenantClusters (" + String.join(", ",
                    tcs.stream().map(TenantCluster::id).toList()) + ")", "pass --tenant NAME to pick one");
        }
        List<JsonObject> tenants = tenantObjects.stream().map(Workspace::withVirtualNamespace).toList();
        if (tcs.size() == 1) {
            TenantCluster tc = tcs.get(0);
            String hostNs = tc.hostNamespace();
            if (namespaceFlag != null && !namespaceFlag.equals(hostNs)) {
                throw new CliException(null, "--tenant-namespace", "'" + namespaceFlag + "' is not the host namespace"
                        + " of TenantCluster " + tc.id() + ", which is '" + hostNs + "' (mode " + tc.mode().value() + ")",
                        "leave out --tenant-namespace, or fix it");
            }
            // Moving between modes, host objects listed without a namespace come from where the tenant runs now.
            String listedIn = migrating(tc) && tc.status().hostNamespace() != null ? tc.status().hostNamespace()
                    : hostNs;
            return new Target(tc, false, crs.isolationProfileFor(tc).orElse(null), crs.syncPolicyFor(tc).orElse(null),
                    tenants, hostObjects(listedIn));
        }
        if (tenantFlag == null || namespaceFlag == null) {
            throw new CliException(null, tenantFlag == null ? "--tenant" : "--tenant-namespace",
                    "is required when the input holds no TenantCluster",
                    "add the TenantCluster's manifest with -f, or pass --tenant and --tenant-namespace");
        }
        ExplainSyncCommand.Names.checkLabel(tenantFlag, "--tenant");
        ExplainSyncCommand.Names.checkLabel(namespaceFlag, "--tenant-namespace");
        if (crs.syncPolicies().size() > 1 || crs.isolationProfiles().size() > 1) {
            throw new CliException(null, "-f", "holds several " + (crs.syncPolicies().size() > 1
                    ? "SyncPolicies" : "IsolationProfiles") + " and no TenantCluster to say which applies",
                    "add the TenantCluster, or pass only the one that applies");
        }
        SyncPolicy sp = crs.syncPolicies().isEmpty() ? null : crs.syncPolicies().get(0);
        IsolationProfile ip = crs.isolationProfiles().isEmpty() ? null : crs.isolationProfiles().get(0);
        TenantCluster named = TenantCluster.of(ObjectMeta.of(namespaceFlag, tenantFlag), null);
        return new Target(named, true, ip, sp, tenants, hostObjects(namespaceFlag));
    }

    /** True when {@code tc}'s status.mode differs from its spec.mode, or a migration is recorded in its status. */
    static boolean migrating(TenantCluster tc) {
        TenantCluster.Status s = tc.status();
        return s != null && (s.migration() != null || s.mode() != null && s.mode() != tc.mode());
    }

    /** The {@code --host} objects as they were given (no namespace filled in). */
    List<JsonObject> hostObjectsAsGiven() {
        return hostObjects.stream().map(Doc::object).toList();
    }

    private List<JsonObject> hostObjects(String hostNamespace) {
        List<JsonObject> out = new ArrayList<>();
        for (Doc h : hostObjects) {
            JsonObject o = h.object();
            if (h.namespace() == null && ResourceKind.wellKnown(null, h.kind()).map(ResourceKind::namespaced).orElse(false)) {
                o = o.deepCopy();
                Json.child(o, "metadata").addProperty("namespace", hostNamespace);
            }
            out.add(o);
        }
        return out;
    }

    private static JsonObject withVirtualNamespace(Doc d) {
        String vns = virtualNamespace(d);
        if (vns == null || vns.equals(d.namespace())) {
            return d.object();
        }
        JsonObject copy = d.object().deepCopy();
        Json.child(copy, "metadata").addProperty("namespace", vns);
        return copy;
    }

    /**
     * One tenant and what the planner needs for it.
     *
     * @param cluster  the TenantCluster; made up from {@code --tenant}/{@code --tenant-namespace} when
     *                 {@code fromFlags}
     * @param profile  the IsolationProfile, or null when none was given (the secure defaults then apply)
     * @param policy   the SyncPolicy, or null when none was given (the default policy then applies)
     */
    record Target(TenantCluster cluster, boolean fromFlags, IsolationProfile profile, SyncPolicy policy,
                  List<JsonObject> tenantObjects, List<JsonObject> hostObjects) {

        String tenant() {
            return cluster.tenant();
        }

        String hostNamespace() {
            return cluster.hostNamespace();
        }

        boolean isPrivate() {
            return !fromFlags && cluster.mode() == TenantCluster.Mode.PRIVATE;
        }

        /** True when the TenantCluster is moving (or asked to move) between modes: its plan is a migration. */
        boolean migrating() {
            return !fromFlags && Workspace.migrating(cluster);
        }

        /**
         * What the front door plans. A private-mode tenant syncs nothing (its workloads run on its own k3s
         * agents): the SDK plans it with an empty policy, as the pass does, so every tenant object is a Skip and
         * every host copy an orphan.
         */
        PlanRequest request() {
            return new PlanRequest(cluster, profile, policy, tenantObjects, hostObjects);
        }
    }
}
