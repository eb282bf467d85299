package io.tenantplane.testkit;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.util.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The front door: builder, lifecycle, kubeconfig, the JUnit extension and the real-cluster switch. */
class LifecycleTest {
    @TempDir
    Path dir;

    @Test
    void theBuilderRejectsBadValuesNamingThem() {
        var b = KubeApiServer.builder();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.watchHistory(0)).getMessage()
                .contains("watchHistory"));
        assertThrows(IllegalArgumentException.class, () -> b.port(70000));
        assertThrows(IllegalArgumentException.class, () -> b.namespaces("Not_A_Name"));
        assertThrows(IllegalArgumentException.class, () -> b.bookmarkInterval(java.time.Duration.ZERO));
        assertThrows(NullPointerException.class, () -> b.clock(null));
    }

    @Test
    void aServerStartsOnceAndClosesForGood() throws Exception {
        KubeApiServer server = KubeApiServer.builder().build();
        assertThrows(IllegalStateException.class, server::url);
        server.start();
        assertThrows(IllegalStateException.class, server::start);
        ApiClient client = Clients.client(server);
        server.close();
        server.close();
        assertThrows(IllegalStateException.class, server::start);
        ApiException e = assertThrows(ApiException.class, () -> new CoreV1Api(client).listNamespace().execute());
        assertInstanceOf(java.net.ConnectException.class, e.getCause());
    }

    @Test
    void theClockAndTheInitialNamespacesAreConfigurable() throws Exception {
        Clock fixed = Clock.fixed(Instant.parse("2025-03-01T10:00:00Z"), ZoneOffset.UTC);
        try (KubeApiServer server = KubeApiServer.builder().clock(fixed).namespaces("alpha", "beta").build().start()) {
            var namespaces = new CoreV1Api(Clients.client(server)).listNamespace().execute().getItems();
            assertEquals(List.of("alpha", "beta"), namespaces.stream().map(n -> n.getMetadata().getName()).toList());
            assertEquals(fixed.instant(), namespaces.get(0).getMetadata().getCreationTimestamp().toInstant());
        }
    }

    @Test
    void withoutBuiltinKindsOnlyNamespacesAndCrdsAreServed() throws Exception {
        try (KubeApiServer server = KubeApiServer.builder().withoutBuiltinKinds().build().start()) {
            CoreV1Api core = new CoreV1Api(Clients.client(server));
            assertEquals(4, core.listNamespace().execute().getItems().size());
            assertEquals(404, assertThrows(ApiException.class, () -> core.listNamespacedPod("default").execute())
                    .getCode());
        }
    }

    @Test
    void theKubeconfigWorksWithClientJava() throws Exception {
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            Path kubeconfig = server.writeKubeconfig(dir);
            assertEquals(dir.resolve("kubeconfig"), kubeconfig);
            ApiClient client = Config.fromConfig(kubeconfig.toString());
            assertEquals(server.url(), client.getBasePath());
            assertFalse(new CoreV1Api(client).listNamespace().execute().getItems().isEmpty());
            ApiClient fromUrl = Config.fromUrl(server.url(), false);
            assertFalse(new CoreV1Api(fromUrl).listNamespace().execute().getItems().isEmpty());
        }
    }

    @Test
    void anExtensionOnAnInstanceFieldGivesEachTestAFreshServer() {
        KubeApiServerExtension extension = new KubeApiServerExtension();
        assertThrows(IllegalStateException.class, extension::server);
        extension.beforeEach(null);
        KubeApiServer first = extension.server();
        extension.afterEach(null);
        extension.beforeEach(null);
        assertNotSame(first, extension.server());
        extension.afterEach(null);
        assertThrows(IllegalStateException.class, extension::server);
    }

    @Test
    void anExtensionOnAStaticFieldSharesOneServerAcrossTheClass() {
        KubeApiServerExtension extension = new KubeApiServerExtension(KubeApiServer.builder().watchHistory(10));
        extension.beforeAll(null);
        KubeApiServer shared = extension.server();
        extension.beforeEach(null);
        extension.afterEach(null);
        extension.beforeEach(null);
        assertSame(shared, extension.server());
        extension.afterAll(null);
        assertThrows(IllegalStateException.class, extension::server);
    }

    @Test
    void aTestClusterIsInProcessUnlessARealOneIsAskedFor() throws Exception {
        Path kubeconfig;
        try (TestCluster cluster = TestCluster.start(new Properties(), Map.of(), KubeApiServer.builder())) {
            assertFalse(cluster.isReal());
            assertTrue(cluster.server().isPresent());
            kubeconfig = cluster.kubeconfig();
            assertFalse(new CoreV1Api(Config.fromConfig(kubeconfig.toString())).listNamespace().execute()
                    .getItems().isEmpty());
            assertTrue(cluster.uniqueName("it").matches("it-[0-9a-f]{8}"));
        }
        assertFalse(Files.exists(kubeconfig), "the generated kubeconfig is removed on close");
    }

    @Test
    void aRealClusterIsUsedThroughKubeconfigWhenThePropertyIsSet() throws Exception {
        Properties real = new Properties();
        real.setProperty(TestCluster.REAL_CLUSTER_PROPERTY, "true");
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> TestCluster.start(real, Map.of(), KubeApiServer.builder()));
        assertTrue(missing.getMessage().contains("KUBECONFIG"), missing.getMessage());
        try (KubeApiServer standIn = KubeApiServer.builder().build().start()) {
            Path kubeconfig = standIn.writeKubeconfig(dir);
            try (TestCluster cluster = TestCluster.start(real, Map.of("KUBECONFIG", kubeconfig.toString()),
                    KubeApiServer.builder())) {
                assertTrue(cluster.isReal());
                assertTrue(cluster.server().isEmpty());
                assertEquals(kubeconfig, cluster.kubeconfig());
                new CoreV1Api(Config.fromConfig(cluster.kubeconfig().toString())).listNamespace().execute();
            }
            assertTrue(Files.exists(kubeconfig), "a real cluster's kubeconfig is left alone");
        }
    }
}
