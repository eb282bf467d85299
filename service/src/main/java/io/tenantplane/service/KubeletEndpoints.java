package io.tenantplane.service;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.tenantplane.TenantPlane;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.kubelet.KubeletServer;
import io.tenantplane.naming.ReverseMapping;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Wiring of tenantplane's kubelet endpoint ({@link KubeletServer}): the installation's kubelet CA, read from the
 * Secret {@code tenantplane.kubelet.ca-secret} in the service's namespace (created with a new CA when missing: the
 * first replica to create it wins, the others read it), a serving certificate for {@code tenantplane.kubelet.host},
 * and the server on {@code tenantplane.kubelet.port}. The CA is loaded in the background, retried every 5 s while the
 * host does not answer; until then tenants' client certificates wait (a Skip decision) and the endpoint is closed.
 */
@ApplicationScoped
public class KubeletEndpoints {

    private static final Logger LOG = Logger.getLogger(KubeletEndpoints.class.getName());
    /** A replica's serving certificate lives as long as the replica; a year bounds it. */
    private static final Duration SERVING_VALIDITY = Duration.ofDays(365);

    private final ServiceSettings.Kubelet settings;
    /** Where TenantClusters are (empty: every namespace); the endpoint reads tenants' aggregator CAs there. */
    private final List<String> tenantNamespaces;
    private final HostClients clients;
    private final Clock clock;
    private volatile KubeletCa ca;
    private volatile KubeletServer server;
    private volatile Thread loader;
    private volatile boolean stopped;

    @Inject
    KubeletEndpoints(ServiceSettings settings, HostClients clients, Clock clock) {
        this.settings = settings.kubelet();
        this.tenantNamespaces = settings.watchNamespaces();
        this.clients = clients;
        this.clock = clock;
    }

    /** For CDI proxies only. */
    protected KubeletEndpoints() {
        this.settings = null;
        this.tenantNamespaces = null;
        this.clients = null;
        this.clock = null;
    }

    /** What the plane points node mirrors at; empty when the endpoint is turned off. */
    public Optional<KubeletEndpoint> endpoint() {
        if (!settings.enabled()) {
            return Optional.empty();
        }
        return Optional.of(new KubeletEndpoint(settings.host(), settings.port(), () -> Optional.ofNullable(ca),
                KubeletEndpoint.DEFAULT_CLIENT_VALIDITY));
    }

    /** Loads the CA (retrying in the background) and then opens the endpoint, for {@code plane}'s tenants. */
    public void start(TenantPlane plane) {
        if (!settings.enabled()) {
            LOG.info("kubelet endpoint turned off (tenantplane.kubelet.enabled=false): kubectl logs inside tenants "
                    + "cannot reach their pods");
            return;
        }
        loader = Thread.ofVirtual().name("tenantplane-kubelet-ca").start(() -> {
            ApiClient host = clients.newClient(Duration.ofSeconds(10));
            while (!stopped) {
                try {
                    ca = loadOrCreate(new CoreV1Api(host), settings.namespace(), settings.caSecret(), clock);
                    server = plane.kubeletServer().serving(ca.issueServing(servingNames(settings.host()),
                                    SERVING_VALIDITY)).port(settings.port())
                            .maxStreamsPerTenant(settings.maxStreamsPerTenant()).maxStreams(settings.maxStreams())
                            .idleTimeout(settings.idleTimeout()).allowExec(settings.allowExec())
                            .tenantNamespaces(tenantNamespaces).start();
                    LOG.info(() -> "kubelet endpoint open on port " + server.port() + " for " + settings.host()
                            + ", CA from Secret " + settings.namespace() + "/" + settings.caSecret());
                    return;
                } catch (ApiException | IOException | RuntimeException e) {
                    LOG.log(Level.WARNING, "kubelet endpoint not open yet: " + e.getMessage() + "; retrying in 5s");
                }
                try {
                    Thread.sleep(5_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Whether the endpoint serves. */
    public boolean serving() {
        return server != null;
    }

    /** Closes the endpoint and its open streams. */
    public void stop() {
        stopped = true;
        Thread l = loader;
        if (l != null) {
            l.interrupt();
        }
        KubeletServer s = server;
        if (s != null) {
            s.close();
        }
    }

    /** The names of the serving certificate: the configured name, and its fully qualified and short forms. */
    static List<String> servingNames(String host) {
        List<String> names = new ArrayList<>(List.of(host));
        if (host.endsWith(".svc")) {
            names.add(host + ".cluster.local");
            names.add(host.substring(0, host.length() - ".svc".length()));
        }
        return names;
    }

    /** The CA in Secret {@code namespace/name} ({@code tls.crt}, {@code tls.key}), created when missing. */
    static KubeletCa loadOrCreate(CoreV1Api api, String namespace, String name, Clock clock) throws ApiException {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                V1Secret s = api.readNamespacedSecret(name, namespace).execute();
                Map<String, byte[]> data = s.getData() == null ? Map.of() : s.getData();
                if (!data.containsKey("tls.crt") || !data.containsKey("tls.key")) {
                    throw new IllegalStateException("Secret " + namespace + "/" + name + " lacks tls.crt or tls.key: "
                            + "delete it to let tenantplane create a new kubelet CA, or put one there");
                }
                return KubeletCa.fromPem(new String(data.get("tls.crt"), StandardCharsets.UTF_8),
                        new String(data.get("tls.key"), StandardCharsets.UTF_8), clock);
            } catch (ApiException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
            KubeletCa fresh = KubeletCa.generate("tenantplane-kubelet-ca", clock);
            V1Secret secret = new V1Secret().metadata(new V1ObjectMeta().name(name).namespace(namespace)
                            .putLabelsItem(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE)
                            .putAnnotationsItem(ReverseMapping.REASON, "the CA of tenantplane's kubelet endpoint: "
                                    + "tenant API servers trust it for kubectl logs in tenants; each tenant's client "
                                    + "certificate is signed by it"))
                    .type("kubernetes.io/tls")
                    .putDataItem("tls.crt", fresh.certificatePem().getBytes(StandardCharsets.UTF_8))
                    .putDataItem("tls.key", fresh.privateKeyPem().getBytes(StandardCharsets.UTF_8));
            try {
                api.createNamespacedSecret(namespace, secret).execute();
                return fresh;
            } catch (ApiException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                // Another replica created it first: read theirs.
            }
        }
        throw new IllegalStateException("Secret " + namespace + "/" + name + " could not be read or created");
    }
}
