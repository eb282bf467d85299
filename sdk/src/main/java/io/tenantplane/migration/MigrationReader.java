package io.tenantplane.migration;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Retries;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.transform.SyncRules;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The read step of a migration pass: one consistent read of a tenant, what the {@link MigrationPlanner} plans the
 * next step from ({@link MigrationSnapshot}). It reads and decides nothing else; the {@link MigrationRunner} executes.
 */
final class MigrationReader {

    private static final ResourceKind TENANT_CLUSTERS = ResourceKind.wellKnown(TenantCluster.API_VERSION,
            TenantCluster.KIND).orElseThrow();
    private static final List<String> HOST_KINDS = hostKinds();
    private static final List<String> OWNER_KINDS = List.of("ReplicaSet", "StatefulSet", "Job", "DaemonSet");

    /** What one read gives: the TenantCluster as read, as placed, and the snapshot to plan from. */
    record Read(JsonObject json, TenantCluster cluster, MigrationSnapshot snapshot) {
    }

    private final Reader hostReads;
    private final Retries retries;
    private final UnaryOperator<TenantCluster> onHost;

    MigrationReader(Reader hostReads, Retries retries, UnaryOperator<TenantCluster> onHost) {
        this.hostReads = hostReads;
        this.retries = retries;
        this.onHost = onHost;
    }

    /**
     * The TenantCluster {@code key} (as the host holds it, placed by {@code onHost}), its profile and policy, the host
     * objects of every kind a move touches in its namespace and its own one (and that Namespace), and the tenant's
     * objects of every kind its policy syncs, its Pods' owners and its Nodes.
     *
     * @throws ReadFailedException when any of it cannot be read, or the TenantCluster, profile or policy is invalid
     */
    Read read(TenantKey key, ApiClient tenantClient) {
        JsonObject json = hostReads.get(TENANT_CLUSTERS, key.namespace(), key.name())
                .orElseThrow(() -> new ReadFailedException("get TenantCluster " + key, 404, "not found"));
        TenantCluster tc = onHost.apply(switch (TenantCluster.fromJson(json)) {
            case Parsed.Ok<TenantCluster> ok -> ok.value();
            case Parsed.Invalid<TenantCluster> bad -> throw new ReadFailedException("read TenantCluster " + key, 422,
                    bad.problems().toString());
        });
        IsolationProfile profile = readProfile(tc);
        SyncPolicy policy = readPolicy(tc);
        List<JsonObject> hostObjects = new ArrayList<>();
        String cns = tc.namespace();
        String own = MigrationPlanner.ownNamespace(tc);
        for (String ns : own.equals(cns) ? List.of(cns) : List.of(cns, own)) {
            for (String kind : HOST_KINDS) {
                hostObjects.addAll(hostReads.listIfNamespaceExists(ResourceKind.wellKnown(null, kind).orElseThrow(), ns));
            }
        }
        hostReads.get(ResourceKind.wellKnown("v1", "Namespace").orElseThrow(), null, own).ifPresent(hostObjects::add);
        Reader tenantReads = new Reader(tenantClient, retries);
        Set<String> tenantKinds = new LinkedHashSet<>();
        tenantKinds.add("Pod");
        SyncRules rules = SyncRules.of(policy);
        for (SyncPolicy.SupportedKind k : SyncPolicy.SUPPORTED_KINDS) {
            if (k.namespaced() && rules.syncsToHost(k.kind())) {
                tenantKinds.add(k.kind());
            }
        }
        tenantKinds.addAll(OWNER_KINDS);
        tenantKinds.add("Node");
        List<JsonObject> tenantObjects = new ArrayList<>();
        for (String kind : tenantKinds) {
            tenantObjects.addAll(tenantReads.list(ResourceKind.wellKnown(null, kind).orElseThrow(), null, null));
        }
        MigrationState state = MigrationState.fromTenantCluster(json).orElse(null);
        return new Read(json, tc, new MigrationSnapshot(tc, state, profile, policy, tenantObjects, hostObjects));
    }

    private IsolationProfile readProfile(TenantCluster tc) {
        String name = tc.spec() == null || tc.spec().isolationProfileRef() == null ? null
                : tc.spec().isolationProfileRef().name();
        ResourceKind kind = ResourceKind.wellKnown(IsolationProfile.API_VERSION, IsolationProfile.KIND).orElseThrow();
        JsonObject json = name == null ? null : hostReads.get(kind, tc.namespace(), name).orElse(null);
        if (json == null) {
            throw new ReadFailedException("get IsolationProfile " + tc.namespace() + "/" + name, 404, "not found");
        }
        return switch (IsolationProfile.fromJson(json)) {
            case Parsed.Ok<IsolationProfile> ok -> ok.value();
            case Parsed.Invalid<IsolationProfile> bad -> throw new ReadFailedException("read IsolationProfile "
                    + name, 422, bad.problems().toString());
        };
    }

    private SyncPolicy readPolicy(TenantCluster tc) {
        String name = tc.spec() == null || tc.spec().syncPolicyRef() == null ? null : tc.spec().syncPolicyRef().name();
        if (name == null) {
            return SyncPolicy.defaultPolicy();
        }
        ResourceKind kind = ResourceKind.wellKnown(SyncPolicy.API_VERSION, SyncPolicy.KIND).orElseThrow();
        JsonObject json = hostReads.get(kind, tc.namespace(), name)
                .orElseThrow(() -> new ReadFailedException("get SyncPolicy " + tc.namespace() + "/" + name, 404,
                        "not found"));
        return switch (SyncPolicy.fromJson(json)) {
            case Parsed.Ok<SyncPolicy> ok -> ok.value();
            case Parsed.Invalid<SyncPolicy> bad -> throw new ReadFailedException("read SyncPolicy " + name, 422,
                    bad.problems().toString());
        };
    }

    private static List<String> hostKinds() {
        List<String> out = new ArrayList<>();
        for (SyncPolicy.SupportedKind k : SyncPolicy.SUPPORTED_KINDS) {
            if (k.namespaced()) {
                out.add(k.kind());
            }
        }
        for (String k : List.of("ResourceQuota", "LimitRange", "Role", "RoleBinding", "StatefulSet")) {
            if (!out.contains(k)) {
                out.add(k);
            }
        }
        return List.copyOf(out);
    }
}
