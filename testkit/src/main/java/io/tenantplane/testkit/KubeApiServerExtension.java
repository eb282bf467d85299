package io.tenantplane.testkit;

import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs a {@link KubeApiServer} around JUnit 5 tests. Registered on a static field, one server serves the whole class;
 * on an instance field, each test gets a fresh one. Test methods may also take a {@link KubeApiServer} parameter.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KubeApiServerExtension kube = new KubeApiServerExtension();
 *
 * @Test
 * void createsTheNamespace() throws Exception {
 *     ApiClient client = Config.fromUrl(kube.url(), false);
 *     ...
 * }
 * }</pre>
 *
 * <p>JUnit is an optional dependency of the testkit: this class needs {@code junit-jupiter-api} on the test
 * classpath, which any JUnit 5 test has.
 */
public final class KubeApiServerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {
    private final KubeApiServer.Builder builder;
    private KubeApiServer server;
    private boolean perClass;

    /** An extension with the default server configuration. */
    public KubeApiServerExtension() {
        this(KubeApiServer.builder());
    }

    /** An extension whose servers are built from {@code builder} (built anew for each server). */
    public KubeApiServerExtension(KubeApiServer.Builder builder) {
        this.builder = Objects.requireNonNull(builder, "builder");
    }

    /**
     * The running server.
     *
     * @throws IllegalStateException outside a test or a test class the extension is registered for
     */
    public synchronized KubeApiServer server() {
        if (server == null) {
            throw new IllegalStateException("no server is running: use it from a test or a @BeforeEach/@BeforeAll");
        }
        return server;
    }

    /** The running server's base URL. */
    public String url() {
        return server().url();
    }

    /** Writes the running server's kubeconfig into {@code dir}; see {@link KubeApiServer#writeKubeconfig(Path)}. */
    public Path writeKubeconfig(Path dir) {
        return server().writeKubeconfig(dir);
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        perClass = true;
        server = builder.build().start();
    }

    @Override
    public synchronized void beforeEach(ExtensionContext context) {
        if (server == null) {
            server = builder.build().start();
        }
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) {
        if (!perClass && server != null) {
            server.close();
            server = null;
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
        perClass = false;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KubeApiServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return server();
    }
}
