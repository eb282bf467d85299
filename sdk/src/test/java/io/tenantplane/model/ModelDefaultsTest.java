package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Defaults, derived names and the SyncPolicy helpers. */
class ModelDefaultsTest {

    private static TenantCluster tenant(TenantCluster.Mode mode, String namespace, String name, String hostNamespace) {
        return TenantCluster.of(ObjectMeta.of(namespace, name), new TenantCluster.Spec(mode,
                new TenantCluster.Ref("restricted"), new TenantCluster.Ref("default"), hostNamespace, null));
    }

    @Test
    void sharedTenantsRunInTheirOwnNamespace() {
        assertEquals("team-dev", tenant(null, "team-dev", "dev", null).hostNamespace());
    }

    @Test
    void dedicatedTenantsGetANamespaceNamedAfterNamespaceAndTenantUnlessTheyNameOne() {
        assertEquals("team-dev-x-dev", tenant(TenantCluster.Mode.DEDICATED, "team-dev", "dev", null).hostNamespace());
        assertEquals("dev-pods", tenant(TenantCluster.Mode.PRIVATE, "team-dev", "dev", "dev-pods").hostNamespace());
        String longNs = "a-namespace-with-a-rather-long-name-for-a-platform-team";
        String host = tenant(TenantCluster.Mode.DEDICATED, longNs, "tenant-with-long-name", null).hostNamespace();
        assertTrue(host.length() <= 63, host);
        assertTrue(host.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"), host);
    }

    @Test
    void tenantClusterDefaultsDependOnTheDatastore() {
        TenantCluster sqlite = tenant(null, "team-dev", "dev", null).withDefaults();
        TenantCluster.ControlPlane cp = sqlite.spec().controlPlane();
        assertEquals(TenantCluster.Mode.SHARED, sqlite.spec().mode());
        assertEquals(1, cp.replicas());
        assertEquals(TenantCluster.DEFAULT_K3S_VERSION, cp.version());
        assertEquals(new TenantCluster.Datastore(TenantCluster.DatastoreType.SQLITE, "5Gi", null), cp.datastore());
        TenantCluster etcd = TenantCluster.of(ObjectMeta.of("team-dev", "dev"), new TenantCluster.Spec(null,
                new TenantCluster.Ref("restricted"), new TenantCluster.Ref("default"), null,
                new TenantCluster.ControlPlane(null, null, new TenantCluster.Datastore(TenantCluster.DatastoreType.ETCD,
                        null, null), null))).withDefaults();
        assertEquals(3, etcd.spec().controlPlane().replicas());
        assertEquals(etcd, etcd.withDefaults());
    }

    @Test
    void isolationProfileDefaultsAreSecure() {
        IsolationProfile p = IsolationProfile.of(ObjectMeta.of("team-dev", "empty"),
                new IsolationProfile.Spec(null, null, null, null, null, null, null));
        IsolationProfile d = p.withDefaults();
        assertEquals(new IsolationProfile.DefaultDeny(true, true), d.spec().network().defaultDeny());
        assertEquals(List.of(), d.spec().network().allow());
        assertEquals(new IsolationProfile.PodSecurity(IsolationProfile.Level.RESTRICTED, "latest"), d.spec().podSecurity());
        assertEquals(List.of(IsolationProfile.ServiceType.CLUSTER_IP), d.spec().services().allowedTypes());
        assertTrue(p.allowsServiceType(IsolationProfile.ServiceType.CLUSTER_IP));
        assertFalse(p.allowsServiceType(IsolationProfile.ServiceType.NODE_PORT));
        assertEquals("dev-workload", p.workloadServiceAccountName("dev"));
        assertEquals(IsolationProfile.Level.RESTRICTED, p.podSecurityLevel());
    }

    @Test
    void theDefaultPolicyIsTheExampleOneAndSyncsNoServiceAccounts() {
        SyncPolicy example = SyncPolicy.fromJson(Manifests.read(Fixtures.EXAMPLES.resolve("syncpolicy.yaml")).get(0)
                .object()).orElseThrow();
        SyncPolicy def = SyncPolicy.defaultPolicy();
        assertEquals(example.spec(), def.spec());
        assertEquals(java.util.Set.of("ConfigMap", "Endpoints", "Ingress", "PersistentVolumeClaim", "Pod", "Secret",
                "Service"), def.toHostKinds());
        assertEquals(Optional.empty(), def.rule("ServiceAccount"));
        assertEquals(SyncPolicy.FromHost.STATUS, def.rule("Pod").orElseThrow().effectiveFromHost());
        assertEquals(SyncPolicy.FromHost.NONE, def.rule("Secret").orElseThrow().effectiveFromHost());
        assertEquals("networking.k8s.io/v1", def.rule("Ingress").orElseThrow().effectiveApiVersion());
    }

    @Test
    void theDefaultPolicyIsValidOnceItHasANamespace() {
        SyncPolicy def = SyncPolicy.defaultPolicy();
        SyncPolicy placed = new SyncPolicy(def.apiVersion(), def.kind(), ObjectMeta.of("team-dev", "default"), def.spec());
        assertEquals(List.of(), placed.validate());
    }

    @Test
    void everyEnumConstantHasItsYamlSpelling() {
        assertEquals("tenant-api", IsolationProfile.Allowance.TENANT_API.value());
        assertEquals("ClusterIP", IsolationProfile.ServiceType.CLUSTER_IP.value());
        assertEquals("Migrating", TenantCluster.Phase.MIGRATING.value());
        assertEquals("True", Condition.Status.TRUE.value());
        assertEquals("etcd", TenantCluster.DatastoreType.ETCD.value());
    }
}
