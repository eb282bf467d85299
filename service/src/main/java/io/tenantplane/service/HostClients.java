package io.tenantplane.service;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Config;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * Builds clients of the host API server (the cluster the service runs in).
 *
 * <p>Where the host is, in order: {@code tenantplane.host.url} when set (tests point it at an in-process server);
 * the pod's service account when running in a pod; else {@code KUBECONFIG} or {@code ~/.kube/config}.
 */
@ApplicationScoped
public class HostClients {

    private static final Logger LOG = Logger.getLogger(HostClients.class.getName());

    private final ServiceSettings settings;
    private final org.eclipse.microprofile.config.Config config;
    private volatile ApiClient shared;

    @Inject
    HostClients(ServiceSettings settings, org.eclipse.microprofile.config.Config config) {
        this.settings = settings;
        this.config = config;
    }

    /** For CDI proxies only. */
    protected HostClients() {
        this.settings = null;
        this.config = null;
    }

    /** The host client shared by the service's components. */
    @Produces
    ApiClient hostClient() {
        ApiClient c = shared;
        if (c == null) {
            synchronized (this) {
                c = shared;
                if (c == null) {
                    c = newClient();
                    shared = c;
                }
            }
        }
        return c;
    }

    /** A fresh client whose every call gives up after {@code callTimeout}, for loops that must not hang. */
    public ApiClient newClient(Duration callTimeout) {
        ApiClient client = newClient();
        client.setHttpClient(client.getHttpClient().newBuilder().callTimeout(callTimeout).build());
        return client;
    }

    /**
     * A fresh client for informers and watches: no read timeout, because a watch legitimately stays silent for
     * minutes; the watch requests themselves carry {@code timeoutSeconds} so the server ends them.
     */
    public ApiClient newWatchClient() {
        ApiClient client = newClient();
        client.setHttpClient(client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build());
        return client;
    }

    /** A fresh client with client-java's default timeouts. */
    public ApiClient newClient() {
        try {
            if (settings.hostUrl().isPresent()) {
                return new ClientBuilder().setBasePath(settings.hostUrl().get().toString()).build();
            }
            if (inPod()) {
                LOG.fine("Using the pod's service account for the host API");
                return ClientBuilder.cluster().build();
            }
            return ClientBuilder.standard().build();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot configure the host API client: " + e.getMessage(), e);
        }
    }

    private boolean inPod() {
        return config.getOptionalValue(Config.ENV_SERVICE_HOST, String.class).isPresent()
                && Files.isReadable(Path.of(Config.SERVICEACCOUNT_TOKEN_PATH));
    }
}
