package io.tenantplane.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResourceKindTest {

    @ParameterizedTest(name = "{0} {1} in {2} lives at {3}")
    @CsvSource({
        "v1,                         Pod,           team-dev, /api/v1/namespaces/team-dev/pods/x",
        ",                           Service,       team-dev, /api/v1/namespaces/team-dev/services/x",
        "networking.k8s.io/v1,       Ingress,       team-dev, /apis/networking.k8s.io/v1/namespaces/team-dev/ingresses/x",
        "v1,                         Node,          team-dev, /api/v1/nodes/x",
        "apps/v1,                    StatefulSet,   a,        /apis/apps/v1/namespaces/a/statefulsets/x",
        "events.k8s.io/v1,           Event,         a,        /apis/events.k8s.io/v1/namespaces/a/events/x",
        "tenantplane.io/v1alpha1,    TenantCluster, a,        /apis/tenantplane.io/v1alpha1/namespaces/a/tenantclusters/x",
    })
    void knownKindsResolveToTheirRestPaths(String apiVersion, String kind, String ns, String path) {
        ResourceKind k = ResourceKind.wellKnown(apiVersion, kind).orElseThrow();
        assertEquals(path, k.objectPath(ns, "x"));
    }

    @ParameterizedTest(name = "{0} {1} is not in the table")
    @CsvSource({"example.com/v1, Widget", "v2, Pod", ", Widget"})
    void unknownKindsAreNotGuessed(String apiVersion, String kind) {
        assertTrue(ResourceKind.wellKnown(apiVersion, kind).isEmpty());
    }

    @ParameterizedTest(name = "a bare {0} means the {1} one")
    @CsvSource({"Event, v1", "Ingress, networking.k8s.io/v1"})
    void aBareKindMeansTheOneKubectlWouldPick(String kind, String apiVersion) {
        assertEquals(apiVersion, ResourceKind.wellKnown(null, kind).orElseThrow().apiVersion());
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} -> {1}")
    @org.junit.jupiter.params.provider.CsvSource({
            "Pod, v1/Pod", "pod, v1/Pod", "pods, v1/Pod", "po, v1/Pod", "PO, v1/Pod", "' svc ', v1/Service",
            "configmaps, v1/ConfigMap", "netpol, networking.k8s.io/v1/NetworkPolicy",
            "endpointslices, discovery.k8s.io/v1/EndpointSlice", "events, v1/Event", "Event, v1/Event",
            "deploy, apps/v1/Deployment", "tc, tenantplane.io/v1alpha1/TenantCluster",
            "syncpolicies, tenantplane.io/v1alpha1/SyncPolicy"})
    void aKindIsTakenAsKubectlTakesIt(String typed, String expected) {
        ResourceKind k = ResourceKind.typed(typed).orElseThrow();
        assertEquals(expected, k.apiVersion() + "/" + k.kind());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"", " ", "p", "pod s", "Widget", "gadgets"})
    void anUnknownTypedKindIsEmpty(String typed) {
        assertEquals(java.util.Optional.empty(), ResourceKind.typed(typed));
    }
}
