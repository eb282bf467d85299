package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An in-process Kubernetes API server for tests: the real REST protocol (JSON over HTTP/1.1 on a loopback port),
 * discovery, CRDs with schema validation, optimistic concurrency, patches, finalizers, the status subresource and
 * chunked watches, so that client-java (typed APIs, generic APIs, informers) and {@code kubectl} work unchanged.
 * It adds hooks a real server lacks: a {@linkplain #requests() request log}, {@linkplain #faults() fault injection},
 * and {@linkplain #pause() outages}. What it does not emulate is listed in {@code docs/testing.md}.
 *
 * <pre>{@code
 * try (KubeApiServer server = KubeApiServer.builder().build().start()) {
 *     ApiClient client = Config.fromUrl(server.url(), false);
 *     new CoreV1Api(client).createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name("dev"))).execute();
 *     assertEquals(1, server.requests().count("create", "namespaces"));
 * }
 * }</pre>
 *
 * <p>Thread-safe. Each server is independent; nothing is static.
 */
public final class KubeApiServer implements AutoCloseable {
    private final int requestedPort;
    private final RequestLog log = new RequestLog();
    private final FaultInjector faults;
    private final WatchHub hub;
    private final Store store;
    private final Router router;
    private final Registry registry = new Registry();
    private final ClusterSimulator simulator;
    private final ContainerLogs containerLogs = new ContainerLogs();
    /** metrics-server, when built with {@link Builder#metricsServer()}; null otherwise. */
    private final MetricsServer metrics;
    /** The streaming subresources, when built with {@link Builder#streams()}; null otherwise. */
    private final StreamUpgrades upgrades;
    private java.net.ServerSocket front;
    private final java.time.Clock clock;
    private final Object lifecycle = new Object();
    private ExecutorService executor;
    private HttpServer http;
    private int port;
    /** The TLS listener, when built with {@link Builder#tls}; null otherwise. */
    private final javax.net.ssl.SSLContext tls;
    private com.sun.net.httpserver.HttpsServer https;
    private int httpsPort;
    private boolean started;
    private boolean paused;
    private boolean closed;

    private KubeApiServer(Builder b) {
        this.requestedPort = b.port;
        this.hub = new WatchHub(b.watchHistory);
        Registry.builtins(b.builtinKinds).forEach(registry::add);
        // Generated names are random per server, as on a real one (utilrand.String); faults keep their seed.
        this.store = new Store(registry, hub, b.clock, new Random(), b.serviceCidr);
        this.faults = new FaultInjector(b.faultSeed, () -> hub.closeAll(null));
        this.router = new Router(registry, store, hub, log, faults, b.clock, b.bookmarkInterval,
                () -> "127.0.0.1:" + port);
        router.podLogs(new PodLogs(store, registry, containerLogs, b.clock, b.kubeletClient, this::simulates));
        this.metrics = b.metricsServer ? new MetricsServer(store, registry, b.clock, this::simulates) : null;
        router.aggregation(new Aggregator(store, registry, b.proxyClient), metrics);
        this.clock = b.clock;
        this.tls = b.tls;
        this.upgrades = b.streams ? new StreamUpgrades(store, registry, b.kubeletClient, this::simulates) : null;
        store.bootstrap(b.namespaces);
        this.simulator = b.simulation == null ? null
                : new ClusterSimulator(store, registry, b.clock, b.simulation, this::isPaused, containerLogs);
    }

    /**
     * Appends {@code line} to the log of {@code container} in Pod {@code namespace/pod} (stamped with this server's
     * clock), as the container would write it: {@code pods/log} serves it when the pod runs on a simulated node.
     *
     * @throws IllegalArgumentException when the pod does not exist
     */
    public void appendContainerLog(String namespace, String pod, String container, String line) {
        JsonObject p;
        try {
            p = store.get(registry.find("", "v1", "pods"), namespace, pod);
        } catch (ApiError e) {
            throw new IllegalArgumentException("no pod " + namespace + "/" + pod + " to log to", e);
        }
        containerLogs.append(Json.str(Json.meta(p), "uid"), container, clock.instant(), line);
    }

    /**
     * Sets the usage metrics-server reports for {@code container} of Pod {@code namespace/pod} from now on (stamped
     * with this server's clock), as if scraped from its kubelet; {@code cpu} and {@code memory} are quantities
     * ({@code "250m"}, {@code "64Mi"}). A pod is in {@code metrics.k8s.io} once every container of it has usage and
     * while it is Running (see {@link Builder#metricsServer()}).
     *
     * @throws IllegalStateException when this server was not built with {@link Builder#metricsServer()}
     * @throws IllegalArgumentException when the pod does not exist or a quantity does not parse
     */
    public void setContainerUsage(String namespace, String pod, String container, String cpu, String memory) {
        if (metrics == null) {
            throw new IllegalStateException("this server serves no metrics API: build it with metricsServer()");
        }
        JsonObject p;
        try {
            p = store.get(registry.find("", "v1", "pods"), namespace, pod);
        } catch (ApiError e) {
            throw new IllegalArgumentException("no pod " + namespace + "/" + pod + " to set usage of", e);
        }
        metrics.set(Json.str(Json.meta(p), "uid"), container, cpu, memory);
    }

    /** Whether this server's simulator runs the kubelet of node {@code name}. */
    private boolean simulates(String name) {
        return simulator != null && simulator.runs(name);
    }

    /** A builder with the defaults: built-in kinds, 1000 events of watch history, an ephemeral port. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds {@code 127.0.0.1} and starts serving.
     *
     * @return this server
     * @throws IllegalStateException if already started or closed
     * @throws UncheckedIOException if the port cannot be bound
     */
    public KubeApiServer start() {
        synchronized (lifecycle) {
            if (started || closed) {
                throw new IllegalStateException(closed ? "the server is closed" : "the server is already started");
            }
            bind(requestedPort);
            started = true;
            if (simulator != null) {
                simulator.start();
            }
            return this;
        }
    }

    private void bind(int at) {
        try {
            executor = Executors.newVirtualThreadPerTaskExecutor();
            // With streams, a socket of our own takes the connections (see StreamUpgrades) and the HTTP server
            // listens behind it on a port of its own.
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    upgrades == null ? at : 0), 512);
            http.createContext("/", router);
            http.setExecutor(executor);
            http.start();
            port = http.getAddress().getPort();
            if (tls != null) {
                // The same API over TLS, as a real kube-apiserver serves it (on a port of its own).
                https = com.sun.net.httpserver.HttpsServer.create(new InetSocketAddress(
                        InetAddress.getLoopbackAddress(), httpsPort), 512);
                https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
                https.createContext("/", router);
                https.setExecutor(executor);
                https.start();
                httpsPort = https.getAddress().getPort();
            }
            if (upgrades != null) {
                front = new java.net.ServerSocket(at, 512, InetAddress.getLoopbackAddress());
                int behind = port;
                port = front.getLocalPort();
                java.net.ServerSocket listening = front;
                Thread.ofVirtual().name("testkit-front").start(() -> accept(listening, behind));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind 127.0.0.1:" + at, e);
        }
    }

    /** Hands each connection to {@link StreamUpgrades} when its first request is an upgrade, else to the server. */
    private void accept(java.net.ServerSocket listening, int behind) {
        while (!listening.isClosed()) {
            java.net.Socket client;
            try {
                client = listening.accept();
            } catch (IOException e) {
                return;
            }
            executor.execute(() -> connection(client, behind));
        }
    }

    private void connection(java.net.Socket client, int behind) {
        try (client) {
            java.io.InputStream in = new java.io.BufferedInputStream(client.getInputStream());
            java.io.ByteArrayOutputStream head = new java.io.ByteArrayOutputStream();
            int state = 0;
            while (state < 4) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.write(b);
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3))
                        ? state + 1 : (b == '\r' ? 1 : 0);
                if (head.size() > 64 * 1024) {
                    return;
                }
            }
            String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
            String[] requestLine = lines[0].split(" ");
            java.util.Map<String, List<String>> headers = new java.util.LinkedHashMap<>();
            java.util.Map<String, String> first = new java.util.LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    String name = lines[i].substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
                    String value = lines[i].substring(colon + 1).trim();
                    headers.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
                    first.putIfAbsent(name, value);
                }
            }
            String target = requestLine.length > 1 ? requestLine[1] : "/";
            int q = target.indexOf('?');
            String path = q < 0 ? target : target.substring(0, q);
            if (requestLine.length == 3 && StreamUpgrades.handles(path, first)) {
                upgrades.serve(client, in, requestLine[0], path, q < 0 ? "" : target.substring(q + 1), headers);
                return;
            }
            try (java.net.Socket server = new java.net.Socket(InetAddress.getLoopbackAddress(), behind)) {
                server.getOutputStream().write(head.toByteArray());
                server.getOutputStream().flush();
                Thread up = Thread.ofVirtual().start(() -> copy(in, server));
                copy(server.getInputStream(), client);
                up.interrupt();
            }
        } catch (IOException ignored) {
            // a side went away
        }
    }

    private static void copy(java.io.InputStream from, java.net.Socket to) {
        byte[] buf = new byte[16 * 1024];
        try {
            java.io.OutputStream out = to.getOutputStream();
            int n;
            while ((n = from.read(buf)) > 0) {
                out.write(buf, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        } catch (IOException ignored) {
            // a side went away
        }
    }

    /**
     * The base URL, {@code http://127.0.0.1:PORT}, for {@code Config.fromUrl(url, false)} or
     * {@code ClientBuilder.standard(false).setBasePath(url)}.
     *
     * @throws IllegalStateException if the server was never started
     */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /**
     * The base URL of the TLS listener, {@code https://127.0.0.1:PORT}, when built with {@link Builder#tls}.
     *
     * @throws IllegalStateException if the server was built without TLS or was never started
     */
    public String httpsUrl() {
        synchronized (lifecycle) {
            if (tls == null || !started) {
                throw new IllegalStateException(tls == null ? "built without tls(...)" : "not started");
            }
            return "https://127.0.0.1:" + httpsPort;
        }
    }

    /** The bound port. */
    public int port() {
        synchronized (lifecycle) {
            if (!started) {
                throw new IllegalStateException("the server is not started");
            }
            return port;
        }
    }

    /**
     * Writes a kubeconfig for this server to {@code dir/kubeconfig} (replacing it) and returns its path; it works
     * with {@code kubectl --kubeconfig} and client-java's {@code KubeConfig}. The context is {@code testkit}, with
     * namespace {@code default} and no credentials.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public Path writeKubeconfig(Path dir) {
        Objects.requireNonNull(dir, "dir");
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: testkit
                  cluster:
                    server: %s
                contexts:
                - name: testkit
                  context:
                    cluster: testkit
                    namespace: default
                    user: testkit
                current-context: testkit
                preferences: {}
                users:
                - name: testkit
                  user: {}
                """.formatted(url());
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve("kubeconfig");
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a kubeconfig to " + dir, e);
        }
    }

    /** The log of requests answered so far. */
    public RequestLog requests() {
        return log;
    }

    /** The fault rules applied to resource requests. */
    public FaultInjector faults() {
        return faults;
    }

    /** How many watch streams are open now; handy to wait for an informer to (re)connect. */
    public int openWatches() {
        return hub.open();
    }

    /** The latest resourceVersion of any write (the counter is global, as in etcd). */
    public String resourceVersion() {
        return store.resourceVersion();
    }

    /**
     * Starts an outage: open watches end, the port is closed (new connections are refused) and requests in flight
     * fail. State is kept. Does nothing when already paused.
     */
    public void pause() {
        synchronized (lifecycle) {
            if (!started || paused || closed) {
                return;
            }
            paused = true;
            hub.closeAll(null);
            stopHttp();
        }
    }

    /**
     * Ends an outage: serves again on the same port, with the same state.
     *
     * @throws UncheckedIOException if the port cannot be bound again
     */
    public void resume() {
        synchronized (lifecycle) {
            if (!paused || closed) {
                return;
            }
            bind(port);
            paused = false;
        }
    }

    /** True between {@link #pause()} and {@link #resume()}. */
    public boolean isPaused() {
        synchronized (lifecycle) {
            return paused;
        }
    }

    /** Ends all watches and stops serving; the server cannot be started again. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            if (simulator != null) {
                simulator.close();
            }
            hub.closeAll(null);
            if (started && !paused) {
                stopHttp();
            }
        }
    }

    private void stopHttp() {
        if (front != null) {
            try {
                front.close();
            } catch (IOException ignored) {
                // stopping anyway
            }
        }
        http.stop(0);
        if (https != null) {
            https.stop(0);
        }
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        synchronized (lifecycle) {
            return "KubeApiServer[" + (started ? "http://127.0.0.1:" + port : "not started")
                    + (paused ? ", paused" : "") + (closed ? ", closed" : "") + "]";
        }
    }

    /**
     * Configures a {@link KubeApiServer}. Setters validate at once and name the bad value; {@link #build()} copies
     * the configuration, so a builder can be reused.
     */
    public static final class Builder {
        private boolean builtinKinds = true;
        private int watchHistory = 1000;
        private int port;
        private Clock clock = Clock.systemUTC();
        private long faultSeed = 1;
        private Duration bookmarkInterval = Duration.ofSeconds(1);
        private List<String> namespaces = List.of("default", "kube-system", "kube-public", "kube-node-lease");
        private String serviceCidr = "10.96.0.0/16";
        private Simulation simulation;
        private javax.net.ssl.SSLContext kubeletClient;
        private boolean streams;
        private javax.net.ssl.SSLContext tls;
        private boolean metricsServer;
        private javax.net.ssl.KeyManager[] proxyClient;

        private Builder() {
        }

        /**
         * Serves {@code metrics.k8s.io/v1beta1} as a host with metrics-server installed does (see
         * {@link KubeApiServer#setContainerUsage}); needs {@link #simulate} for node metrics and Running pods. Default
         * off: the group is not served, as on a cluster without metrics-server.
         */
        public Builder metricsServer() {
            this.metricsServer = true;
            return this;
        }

        /**
         * The client certificate the aggregator presents to an APIService's service (kube-apiserver's
         * {@code --proxy-client-cert-file} and {@code --proxy-client-key-file}). Presented whatever issuers the
         * service asks for, as client-go's transport does with a static key pair. Default none.
         */
        public Builder proxyClient(java.security.PrivateKey key, java.security.cert.X509Certificate... chain) {
            Objects.requireNonNull(key, "key");
            if (chain.length == 0) {
                throw new IllegalArgumentException("proxyClient needs the certificate chain");
            }
            java.security.cert.X509Certificate[] certs = chain.clone();
            this.proxyClient = new javax.net.ssl.KeyManager[] {new javax.net.ssl.X509ExtendedKeyManager() {
                @Override
                public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
                    return new String[] {"proxy"};
                }

                @Override
                public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers,
                        java.net.Socket socket) {
                    return "proxy";
                }

                @Override
                public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                        javax.net.ssl.SSLEngine engine) {
                    return "proxy";
                }

                @Override
                public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
                    return null;
                }

                @Override
                public String chooseServerAlias(String keyType, java.security.Principal[] issuers,
                        java.net.Socket socket) {
                    return null;
                }

                @Override
                public java.security.cert.X509Certificate[] getCertificateChain(String alias) {
                    return certs.clone();
                }

                @Override
                public java.security.PrivateKey getPrivateKey(String alias) {
                    return key;
                }
            }};
            return this;
        }

        /** Serves the built-in kinds (core, apps, batch, networking, RBAC, ...). This is the default. */
        public Builder withBuiltinKinds() {
            this.builtinKinds = true;
            return this;
        }

        /** Serves only namespaces and CustomResourceDefinitions (and whatever CRDs are created). */
        public Builder withoutBuiltinKinds() {
            this.builtinKinds = false;
            return this;
        }

        /**
         * How many events (across all resources, like etcd's history) are kept for watches that resume from a
         * resourceVersion; a watch from an older one gets 410 Gone. Default 1000.
         *
         * @throws IllegalArgumentException if {@code events} is less than 1
         */
        public Builder watchHistory(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("watchHistory must be at least 1: " + events);
            }
            this.watchHistory = events;
            return this;
        }

        /**
         * The port to bind on 127.0.0.1; 0 (the default) picks a free one.
         *
         * @throws IllegalArgumentException if {@code port} is not within 0..65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be within 0..65535: " + port);
            }
            this.port = port;
            return this;
        }

        /** The clock for creationTimestamp, deletionTimestamp and condition times. Default: system UTC. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The seed of the random source that fault fractions draw from. Default 1. */
        public Builder faultSeed(long seed) {
            this.faultSeed = seed;
            return this;
        }

        /**
         * How often a watch with {@code allowWatchBookmarks=true} gets a BOOKMARK when idle. Default one second.
         *
         * @throws IllegalArgumentException if {@code interval} is not positive
         */
        public Builder bookmarkInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("bookmarkInterval must be positive: " + interval);
            }
            this.bookmarkInterval = interval;
            return this;
        }

        /**
         * The namespaces that exist at start. Default: {@code default}, {@code kube-system}, {@code kube-public},
         * {@code kube-node-lease}.
         *
         * @throws IllegalArgumentException if a name is not a valid namespace name
         */
        public Builder namespaces(String... names) {
            List<String> list = new ArrayList<>();
            for (String n : names) {
                Objects.requireNonNull(n, "namespace name");
                if (!Validation.isDns1123Label(n)) {
                    throw new IllegalArgumentException("not a valid namespace name: \"" + n + "\"");
                }
                list.add(n);
            }
            this.namespaces = List.copyOf(list);
            return this;
        }

        /**
         * The IPv4 range Service ClusterIPs are allocated from, as kube-apiserver's
         * {@code --service-cluster-ip-range}. Default {@code 10.96.0.0/16} (kind's; k3s uses {@code 10.43.0.0/16}).
         *
         * @throws IllegalArgumentException if {@code cidr} is not an IPv4 CIDR with a prefix from /12 to /28
         */
        public Builder serviceCidr(String cidr) {
            Objects.requireNonNull(cidr, "cidr");
            new ServiceIps(cidr, new Random());
            this.serviceCidr = cidr;
            return this;
        }

        /**
         * Runs simulated nodes, kubelets, a scheduler, the ReplicaSet and Deployment controllers and the garbage
         * collector against this server from {@link KubeApiServer#start()} to {@link KubeApiServer#close()}.
         * Default: none (pods stay Pending, as on a cluster without nodes).
         */
        public Builder simulate(Simulation simulation) {
            this.simulation = Objects.requireNonNull(simulation, "simulation");
            return this;
        }

        /**
         * The TLS this server calls kubelets with, for {@code pods/log} of pods on nodes it does not simulate: its
         * client certificate and the CA it trusts for kubelets (kube-apiserver's {@code --kubelet-client-certificate},
         * {@code --kubelet-client-key} and {@code --kubelet-certificate-authority}). Default none: such a call fails
         * as it would without a kubelet client credential.
         */
        public Builder kubeletClient(javax.net.ssl.SSLContext kubeletClient) {
            this.kubeletClient = Objects.requireNonNull(kubeletClient, "kubeletClient");
            return this;
        }

        /**
         * Serves {@code pods/exec}, {@code pods/attach} and {@code pods/portforward} (see {@link StreamUpgrades}): a
         * socket of the server's own takes every connection and passes those that are not such an upgrade to the HTTP
         * server behind it. Default off: without it these requests are answered as any unknown path.
         */
        public Builder streams() {
            this.streams = true;
            return this;
        }

        /**
         * Serves the API over TLS as well, with {@code serving}'s certificate, on a second port ({@link
         * KubeApiServer#httpsUrl()}): what a real kube-apiserver always does. Client certificates are not asked for
         * (the server authenticates no one). Not with {@link #streams()}, whose front socket is plain.
         */
        public Builder tls(javax.net.ssl.SSLContext serving) {
            this.tls = Objects.requireNonNull(serving, "serving");
            return this;
        }

        /** A new server with this configuration, not yet listening; call {@link KubeApiServer#start()}. */
        public KubeApiServer build() {
            Builder copy = new Builder();
            copy.builtinKinds = builtinKinds;
            copy.watchHistory = watchHistory;
            copy.port = port;
            copy.clock = clock;
            copy.faultSeed = faultSeed;
            copy.bookmarkInterval = bookmarkInterval;
            copy.namespaces = namespaces;
            copy.serviceCidr = serviceCidr;
            copy.simulation = simulation;
            copy.kubeletClient = kubeletClient;
            copy.streams = streams;
            copy.tls = tls;
            copy.metricsServer = metricsServer;
            copy.proxyClient = proxyClient;
            if (tls != null && streams) {
                throw new IllegalStateException("tls(...) and streams() together: the streams' front socket is "
                        + "plain HTTP; use one of them");
            }
            return new KubeApiServer(copy);
        }
    }
}
