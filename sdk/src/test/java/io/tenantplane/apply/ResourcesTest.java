package io.tenantplane.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.testkit.KubeApiServer;
import org.junit.jupiter.api.Test;

class ResourcesTest {

    @Test
    void kindsOutsideTheTableAreFoundByDiscoveryOnceAndCached() throws Exception {
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            ApiClient client = new ClientBuilder().setBasePath(server.url()).build();
            Resources resources = Resources.of(client);

            ResourceKind jobs = resources.resolve("batch/v1", "Job");
            assertEquals("jobs", jobs.plural());
            long discovery = server.requests().total();
            assertEquals(0, discovery, "the table answers without a request");

            ResourceKind bindings = resources.resolve("rbac.authorization.k8s.io/v1", "ClusterRoleBinding");
            assertFalse(bindings.namespaced());
            new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi("apiextensions.k8s.io", "v1",
                    "customresourcedefinitions", client).create(new io.kubernetes.client.util.generic.dynamic
                    .DynamicKubernetesObject(com.google.gson.JsonParser.parseString("""
                    {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                     "metadata":{"name":"widgets.example.com"},
                     "spec":{"group":"example.com","scope":"Namespaced",
                       "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
                       "versions":[{"name":"v1","served":true,"storage":true,
                         "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}
                    """).getAsJsonObject()));
            ResourceKind widgets = resources.resolve("example.com/v1", "Widget");
            assertEquals("widgets", widgets.plural());
            assertTrue(widgets.namespaced());
            long afterFirst = server.requests().total();
            resources.resolve("example.com/v1", "Widget");
            assertEquals(afterFirst, server.requests().total(), "discovery is cached");

            UnknownKindException e = assertThrows(UnknownKindException.class,
                    () -> resources.resolve("example.com/v1", "Gadget"));
            assertTrue(e.getMessage().contains("Gadget"), e.getMessage());
            assertTrue(assertThrows(UnknownKindException.class, () -> resources.resolve(null, "Gadget"))
                    .getMessage().contains("apiVersion"));
        }
    }
}
