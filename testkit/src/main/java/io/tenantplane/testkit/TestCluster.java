package io.tenantplane.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * The API server an integration test talks to: an in-process {@link KubeApiServer} by default, or the real cluster
 * that {@code KUBECONFIG} points to when the JVM runs with {@code -Dtenantplane.it.realCluster=true}. Tests build
 * their clients from {@link #kubeconfig()} either way, so the same test runs in both places.
 *
 * <pre>{@code
 * try (TestCluster cluster = TestCluster.start()) {
 *     ApiClient client = Config.fromConfig(cluster.kubeconfig().toString());
 *     String ns = cluster.uniqueName("it");
 *     ...
 * }
 * }</pre>
 *
 * <p>Request logs, faults and outages exist only in process: tests that need them use {@link #server()} (or a
 * {@link KubeApiServer} directly) and do not run against a real cluster.
 */
public final class TestCluster implements AutoCloseable {
    /** The system property that selects a real cluster. */
    public static final String REAL_CLUSTER_PROPERTY = "tenantplane.it.realCluster";

    private final KubeApiServer server;
    private final Path kubeconfig;
    private final Path tempDir;

    private TestCluster(KubeApiServer server, Path kubeconfig, Path tempDir) {
        this.server = server;
        this.kubeconfig = kubeconfig;
        this.tempDir = tempDir;
    }

    /**
     * Connects to the real cluster when {@value #REAL_CLUSTER_PROPERTY} is {@code true}, else starts an in-process
     * server with the default configuration.
     *
     * @throws IllegalStateException if a real cluster is asked for but {@code KUBECONFIG} is unset or names no file
     */
    public static TestCluster start() {
        return start(System.getProperties(), System.getenv(), KubeApiServer.builder());
    }

    /** As {@link #start()}, building the in-process server (when one is used) from {@code builder}. */
    public static TestCluster start(KubeApiServer.Builder builder) {
        return start(System.getProperties(), System.getenv(), builder);
    }

    static TestCluster start(Properties properties, Map<String, String> env, KubeApiServer.Builder builder) {
        Objects.requireNonNull(builder, "builder");
        if (Boolean.parseBoolean(properties.getProperty(REAL_CLUSTER_PROPERTY, "false"))) {
            String kubeconfig = env.get("KUBECONFIG");
            if (kubeconfig == null || kubeconfig.isBlank()) {
                throw new IllegalStateException("-D" + REAL_CLUSTER_PROPERTY + "=true needs KUBECONFIG to point to "
                        + "the cluster's kubeconfig file");
            }
            Path file = Path.of(kubeconfig.split(File.pathSeparator)[0]);
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException("KUBECONFIG names no file: " + file);
            }
            return new TestCluster(null, file, null);
        }
        KubeApiServer server = builder.build().start();
        try {
            Path dir = Files.createTempDirectory("testkit-");
            return new TestCluster(server, server.writeKubeconfig(dir), dir);
        } catch (IOException e) {
            server.close();
            throw new UncheckedIOException("cannot create a directory for the kubeconfig", e);
        }
    }

    /** True when the tests run against a real cluster. */
    public boolean isReal() {
        return server == null;
    }

    /** The kubeconfig to build clients from (the real one, or one written for the in-process server). */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** The in-process server, or empty against a real cluster. */
    public Optional<KubeApiServer> server() {
        return Optional.ofNullable(server);
    }

    /**
     * A fresh DNS-1123 label starting with {@code prefix}, for a namespace or object that must not collide with
     * earlier runs on a shared real cluster.
     *
     * @throws IllegalArgumentException if the prefix is not a DNS-1123 label of at most 50 characters
     */
    public String uniqueName(String prefix) {
        if (prefix.length() > 50 || !Validation.isDns1123Label(prefix)) {
            throw new IllegalArgumentException("prefix must be a DNS-1123 label of at most 50 characters: \""
                    + prefix + "\"");
        }
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Stops the in-process server and removes its kubeconfig; does nothing to a real cluster. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
            try {
                Files.deleteIfExists(kubeconfig);
                Files.deleteIfExists(tempDir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove " + tempDir, e);
            }
        }
    }

    @Override
    public String toString() {
        return isReal() ? "TestCluster[real, " + kubeconfig + "]" : "TestCluster[" + server + "]";
    }
}
