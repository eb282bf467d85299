package io.tenantplane.kubelet;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.KubeletRequest;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.TenantKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The kubelet API of the node mirrors: what a tenant API server calls when a tenant user runs {@code kubectl logs},
 * {@code exec}, {@code attach} or {@code port-forward} on a Pod bound to a mirror. One
 * endpoint serves every tenant; it runs in the controller's JVM (docs/architecture.md says why).
 *
 * <p><b>Who may call.</b> TLS with a required client certificate signed by the installation's {@link KubeletCa} (or a
 * tenant aggregator's, below): the certificate names one tenant ({@link KubeletCa#tenantOf}); a call is admitted only while that TenantCluster exists
 * with the uid the certificate was issued for, and reaches only Pods that tenant manages on the host: the host copy
 * must carry the tenant's reverse mapping for exactly the Pod named ({@link ReverseMapping#inspect}), so neither a
 * forged node address nor a forged pod name reaches another tenant's Pod or a foreign one.
 *
 * <p><b>What it serves.</b> {@code GET /containerLogs/<namespace>/<pod>/<container>} with {@code follow},
 * {@code previous}, {@code timestamps}, {@code sinceSeconds}, {@code sinceTime}, {@code tailLines},
 * {@code limitBytes} and {@code stream}, the query kube-apiserver sends ({@code pkg/registry/core/pod/strategy.go}
 * {@code LogLocation}), answered from the host API's {@code pods/log} of the host copy, streamed as it comes.
 * {@code exec}, {@code attach} and {@code portForward} as SPDY/3.1 upgrades, the protocol kube-apiserver 1.30+ speaks
 * to a kubelet (it translates kubectl's WebSocket, {@code StreamTranslatorProxy}), relayed to the host copy through
 * the host API's WebSocket subresources ({@link StreamRelay}); {@link Builder#allowExec} turns them off.
 * {@code /stats/summary} and {@code /metrics/...} (what a metrics-server inside a tenant would scrape) are refused
 * (501) with the reason: such a metrics-server calls every node's kubelet itself and every mirror points at this one
 * address, so its call cannot say which node it asks about; and answering from the host node's kubelet would need
 * {@code nodes/proxy} on the host, which reaches every kubelet API of every host node.
 *
 * <p><b>{@code kubectl top}.</b> {@code /apis/metrics.k8s.io/v1beta1/...} is served to a tenant API server's
 * aggregator instead ({@link MetricsApi}): a caller whose certificate one tenant's published request-header CA signed
 * ({@link FrontProxies}), with the common name {@value FrontProxies#ALLOWED_NAME}, gets that tenant's Pods' usage from
 * the host's metrics-server. A kubelet client certificate may not call it, nor an aggregator anything else.
 *
 * <p><b>Bounds.</b> At most {@link Builder#maxStreamsPerTenant} calls per tenant and {@link Builder#maxStreams} in
 * all at once (429 beyond); a call that moves no byte for {@link Builder#idleTimeout} is closed. Each call has its
 * own virtual thread and uses its own HTTP client view (no read timeout shared with reconciliation), so a slow or
 * stuck stream holds one slot and nothing else: reconciliation never waits for it. Writes to a slow reader block that
 * call's thread only, which stops reading from the host in turn (back-pressure over TCP).
 */
public final class KubeletServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(KubeletServer.class.getName());
    private static final String[] AUTH = {"BearerToken"};
    private static final ResourceKind PODS = ResourceKind.wellKnown("v1", "Pod").orElseThrow();
    /** The {@code pods/log} query parameters passed through, as kube-apiserver's {@code LogLocation} sends them. */
    private static final Set<String> LOG_PARAMS = Set.of("follow", "previous", "timestamps", "sinceSeconds",
            "sinceTime", "tailLines", "limitBytes", "stream");

    private final SSLServerSocket server;
    private final ExecutorService calls;
    private final Thread acceptor;
    private final Reader host;
    private final ApiClient hostClient;
    private final OkHttpClient streams;
    /** WebSockets to the host: a pool of their own, so each upgrade gets a fresh HTTP/1.1 connection. */
    private final OkHttpClient sockets;
    private final boolean allowExec;
    private final Observer observer;
    private final int maxStreamsPerTenant;
    private final Semaphore all;
    private final Duration idleTimeout;
    private final Map<TenantKey, Semaphore> perTenant = new ConcurrentHashMap<>();
    private final Set<Stream> open = ConcurrentHashMap.newKeySet();
    private final KubeletCa ca;
    private final FrontProxies frontProxies;
    private final MetricsApi metricsApi;
    private final Thread watchdog;
    private volatile boolean closed;

    private KubeletServer(Builder b) throws IOException {
        this.hostClient = b.hostClient;
        this.host = new Reader(b.hostClient);
        this.observer = b.observer;
        this.maxStreamsPerTenant = b.maxStreamsPerTenant;
        this.all = new Semaphore(b.maxStreams);
        this.idleTimeout = b.idleTimeout;
        this.streams = b.hostClient.getHttpClient().newBuilder()
                .readTimeout(b.idleTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .callTimeout(0, TimeUnit.MILLISECONDS)
                .build();
        this.sockets = streams.newBuilder().connectionPool(new okhttp3.ConnectionPool(0, 1, TimeUnit.SECONDS))
                .build();
        this.allowExec = b.allowExec;
        this.ca = b.ca;
        this.frontProxies = new FrontProxies(host, b.tenantNamespaces, System::nanoTime);
        this.metricsApi = new MetricsApi(host);
        SSLContext tls = b.ca.serverContext(b.serving, frontProxies);
        this.server = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket(b.port, 128, b.bindAddress);
        server.setNeedClientAuth(true);
        this.calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("tenantplane-kubelet-", 0).factory());
        this.acceptor = Thread.ofVirtual().name("tenantplane-kubelet-accept").start(this::accept);
        this.watchdog = Thread.ofVirtual().name("tenantplane-kubelet-idle").start(this::closeIdle);
    }

    /** A builder; host client, CA and serving credential are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The port this endpoint listens on (the one given, or the one the system chose for 0). */
    public int port() {
        return server.getLocalPort();
    }

    /** Calls being served right now. */
    public int openStreams() {
        return open.size();
    }

    /** Stops accepting calls and closes every open one. */
    @Override
    public void close() {
        closed = true;
        watchdog.interrupt();
        for (Stream s : open) {
            s.close();
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // stopping anyway
        }
        acceptor.interrupt();
        calls.shutdownNow();
    }

    private void accept() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "kubelet endpoint: accept failed: " + e.getMessage());
                continue;
            }
            try {
                calls.execute(() -> connection((SSLSocket) s));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                closeQuietly(s);
                return;
            }
        }
    }

    /**
     * One connection: the TLS handshake and the first request head within 10 s, then its calls, one after another,
     * while each answer leaves it reusable (a kept connection may idle 90 s between calls, as Go's transport allows).
     */
    private void connection(SSLSocket socket) {
        try {
            // As Go's net package sets on every TCP connection (kube-apiserver's client and a kubelet's server both):
            // an answer's head and body go out at once, not the body after the caller's delayed ACK of the head.
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            java.io.OutputStream out = new java.io.BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            while (!closed) {
                Exchange ex = Exchange.read(socket, in, out);
                if (ex == null) {
                    break;
                }
                socket.setSoTimeout(0);
                handle(ex);
                if (!ex.keepAlive()) {
                    break;
                }
                socket.setSoTimeout(90_000);
            }
        } catch (IOException e) {
            // A caller without a certificate of the installation's CA ends here (the handshake fails), as does one
            // that goes away or keeps a connection idle too long.
        } finally {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already broken
        }
    }

    // ------------------------------------------------------------ one call

    private void handle(Exchange ex) {
        long start = System.nanoTime();
        Call call = Call.parse(ex.method, ex.path);
        TenantKey tenant = null;
        String user = null;
        Answer answer;
        try {
            if (call.verb().equals("healthz")) {
                answer = text(ex, 200, "Healthy", "ok");
                return;
            }
            Optional<java.security.cert.X509Certificate> peer = ex.peer();
            // The TLS layer admits two kinds of certificate; which one this is decides what may be called.
            Optional<KubeletCa.Identity> who = peer.filter(ca::signed).flatMap(KubeletCa::tenantOf);
            Optional<FrontProxies.Tenant> aggregator = who.isPresent() ? Optional.empty()
                    : peer.flatMap(frontProxies::identify);
            if (who.isPresent()) {
                tenant = who.get().tenant();
                answer = call.verb().equals("metricsApi")
                        ? text(ex, 403, "NotTheAggregator", "metrics.k8s.io is served to a tenant API server's "
                                + "aggregator (its front-proxy client certificate), not to its kubelet client")
                        : serve(ex, call, who.get());
            } else if (aggregator.isPresent()) {
                tenant = aggregator.get().key();
                user = ex.header("X-Remote-User");
                answer = metrics(ex, call, aggregator.get(), peer.get());
            } else {
                answer = text(ex, 403, "NotATenant", "the client certificate names no tenant: only a tenant API "
                        + "server's kubelet client certificate, issued by tenantplane, or its aggregator's "
                        + "certificate, is admitted");
            }
        } catch (IOException e) {
            ex.closeAfter();
            answer = new Answer(499, "ClientGone", "the caller went away: " + e.getMessage(), null);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "kubelet call " + call + " failed", e);
            ex.closeAfter();
            answer = safeText(ex, 500, "InternalError", "tenantplane's kubelet endpoint failed: " + e);
        } finally {
            try {
                ex.out.flush();
            } catch (IOException e) {
                ex.closeAfter();
            }
        }
        if (tenant != null) {
            observer.kubeletRequest(tenant, new KubeletRequest(call.verb(), call.namespace(), call.pod(),
                    call.container(), answer.hostPod(), user, answer.code(), answer.reason(), answer.message(),
                    Duration.ofNanos(System.nanoTime() - start)));
        }
    }

    private Answer serve(Exchange ex, Call call, KubeletCa.Identity who) throws IOException {
        TenantKey key = who.tenant();
        Optional<JsonObject> tcJson;
        try {
            tcJson = TenantPlace.current(host, key, who.uid());
        } catch (ReadFailedException e) {
            return text(ex, 503, "HostUnreadable", "cannot read TenantCluster " + key + ": " + e.getMessage());
        }
        if (tcJson.isEmpty()) {
            return text(ex, 403, "TenantGone", "TenantCluster " + key + " that this client certificate was issued "
                    + "for no longer exists");
        }
        if (!(TenantCluster.fromJson(tcJson.get()) instanceof Parsed.Ok<TenantCluster> ok)) {
            return text(ex, 503, "TenantUnreadable", "TenantCluster " + key + " cannot be read");
        }
        TenantCluster tc = ok.value();
        if (TenantPlace.mode(tc) == TenantCluster.Mode.PRIVATE) {
            return text(ex, 404, "NotServed", "tenant " + key + " runs in private mode: its Pods run on its own k3s "
                    + "agents, whose kubelets serve these calls");
        }
        switch (call.verb()) {
            case "containerLogs", "exec", "attach", "portForward" -> {
            }
            case "stats", "metrics" -> {
                // /stats/summary (older metrics-server, kubectl's node proxy) and /metrics/resource (metrics-server
                // 0.6+): both are about one node. metrics-server calls each node's kubelet itself, and every mirror
                // names this one endpoint, so its call does not say which node; a call through the tenant API's node
                // proxy does (X-Forwarded-Uri), but the answer would have to come from the host node's kubelet, through
                // the host API's nodes/proxy, which reaches every kubelet API of every host node, exec included.
                return text(ex, 501, "NotServed", "tenantplane's kubelet endpoint does not serve " + call.path()
                        + ": metrics-server calls each node's kubelet directly and every node mirror of a tenant "
                        + "points at this one endpoint, so such a call cannot say which host node it asks about; "
                        + "answering from the host node's kubelet would need nodes/proxy on the host, which reaches "
                        + "every kubelet API of every host node (exec included), and tenantplane is not granted it; "
                        + "read usage on the host (kubectl top pods -n " + tc.hostNamespace() + ")");
            }
            default -> {
                return text(ex, 404, "NotServed", "tenantplane's kubelet endpoint serves containerLogs for node "
                        + "mirrors, not " + ex.method + " " + call.path());
            }
        }
        if (call.namespace() == null || call.pod() == null) {
            return text(ex, 400, "BadPath", "expected /" + call.verb() + "/<namespace>/<pod>[/<container>], got "
                    + call.path());
        }
        Semaphore mine = perTenant.computeIfAbsent(key, k -> new Semaphore(maxStreamsPerTenant));
        if (!mine.tryAcquire()) {
            return text(ex, 429, "TooManyStreams", "tenant " + key + " has " + maxStreamsPerTenant + " kubelet calls "
                    + "open already (the most one tenant may have); close one and try again");
        }
        try {
            if (!all.tryAcquire()) {
                return text(ex, 429, "TooManyStreams", "tenantplane's kubelet endpoint serves as many calls as it "
                        + "may at once; try again");
            }
            try {
                return servePod(ex, call, tc);
            } finally {
                all.release();
            }
        } finally {
            mine.release();
        }
    }

    /**
     * A call of a tenant API server's aggregator: {@code metrics.k8s.io} of that tenant ({@link MetricsApi}). Admitted
     * only with the common name kube-apiserver's front proxy has in k3s ({@value FrontProxies#ALLOWED_NAME}, its
     * {@code requestheader-allowed-names}), while the TenantCluster whose CA signed the certificate exists with the uid
     * it had when the CA was read. The caller's identity ({@code X-Remote-User}) was authorized by the tenant API server
     * before it proxied the call (kube-apiserver authorizes every request, aggregated ones included, before its
     * aggregator proxies it); it is recorded, not checked again.
     */
    private Answer metrics(Exchange ex, Call call, FrontProxies.Tenant aggregator,
                           java.security.cert.X509Certificate peer) throws IOException {
        String cn = commonName(peer);
        if (!FrontProxies.ALLOWED_NAME.equals(cn)) {
            return text(ex, 403, "NotTheAggregator", "a certificate of tenant " + aggregator.key() + "'s front-proxy "
                    + "CA with common name \"" + cn + "\" is not its aggregator's (" + FrontProxies.ALLOWED_NAME + ")");
        }
        if (call.path().startsWith("/openapi/")) {
            // The aggregator's OpenAPI controller asks every aggregated server for its spec and skips a 404 as "no
            // spec served" (kube-aggregator's openapi downloader); anything else it retries and logs.
            return json(ex, MetricsApi.status(404, "NotFound", "tenantplane's metrics.k8s.io publishes no OpenAPI "
                    + "document"));
        }
        if (!call.verb().equals("metricsApi")) {
            return text(ex, 403, "NotTheKubelet", "a tenant API server's aggregator may call metrics.k8s.io only, not "
                    + ex.method + " " + call.path());
        }
        if (!ex.method.equals("GET")) {
            return json(ex, MetricsApi.status(405, "MethodNotAllowed", "the server does not allow this method on the "
                    + "requested resource"));
        }
        TenantKey key = aggregator.key();
        Optional<JsonObject> tcJson;
        try {
            tcJson = TenantPlace.current(host, key, aggregator.uid());
        } catch (ReadFailedException e) {
            return json(ex, MetricsApi.status(503, "ServiceUnavailable", "cannot read TenantCluster " + key + ": "
                    + e.getMessage()));
        }
        if (tcJson.isEmpty() || !(TenantCluster.fromJson(tcJson.get()) instanceof Parsed.Ok<TenantCluster> ok)) {
            return text(ex, 403, "TenantGone", "TenantCluster " + key + " whose aggregator CA signed this "
                    + "certificate no longer exists");
        }
        Semaphore mine = perTenant.computeIfAbsent(key, k -> new Semaphore(maxStreamsPerTenant));
        if (!mine.tryAcquire()) {
            return json(ex, MetricsApi.status(429, "TooManyRequests", "tenant " + key + " has " + maxStreamsPerTenant
                    + " kubelet calls open already (the most one tenant may have); try again"));
        }
        try {
            return json(ex, metricsApi.serve(ok.value(), call.path(), ex.firstQuery()));
        } finally {
            mine.release();
        }
    }

    private static String commonName(java.security.cert.X509Certificate c) {
        try {
            for (javax.naming.ldap.Rdn rdn : new javax.naming.ldap.LdapName(
                    c.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (javax.naming.InvalidNameException e) {
            return "";
        }
        return "";
    }

    private static Answer json(Exchange ex, MetricsApi.Reply reply) throws IOException {
        byte[] body = Json.gson().toJson(reply.body()).getBytes(StandardCharsets.UTF_8);
        ex.head(reply.code(), Map.of("Content-Type", "application/json", "Content-Length",
                String.valueOf(body.length)));
        ex.out.write(body);
        ex.out.flush();
        return new Answer(reply.code(), reply.reason(), reply.code() == 200 ? "served " + reply.reason()
                : Json.string(reply.body(), "message"), null);
    }

    private Answer servePod(Exchange ex, Call call, TenantCluster tc) throws IOException {
        String tenant = tc.tenant();
        String hostName = HostNames.hostName(call.pod(), call.namespace(), tenant);
        Optional<JsonObject> pod = Optional.empty();
        String hostNs = null;
        for (String ns : TenantPlace.hostNamespaces(tc)) {
            try {
                pod = host.get(PODS, ns, hostName).filter(p -> TenantPlace.managedCopy(p, tenant, ns,
                        call.namespace(), call.pod()));
            } catch (ReadFailedException e) {
                return text(ex, 503, "HostUnreadable", "cannot read the host copy of Pod " + call.namespace() + "/"
                        + call.pod() + ": " + e.getMessage());
            }
            if (pod.isPresent()) {
                hostNs = ns;
                break;
            }
        }
        String hostPod = hostNs + "/" + hostName;
        if (pod.isEmpty()) {
            return text(ex, 404, "PodNotFound", "pod \"" + call.pod() + "\" in namespace \"" + call.namespace()
                    + "\" of tenant " + tenant + " has no host copy that tenantplane manages");
        }
        if (call.container() != null && !hasContainer(pod.get(), call.container())) {
            return withPod(text(ex, 404, "ContainerNotFound", "container \"" + call.container() + "\" is not in "
                    + "pod \"" + call.pod() + "\""), hostPod);
        }
        if (!call.verb().equals("containerLogs")) {
            return stream(ex, call, hostNs, hostName, hostPod);
        }
        return logs(ex, call, hostNs, hostName, hostPod);
    }

    /** Exec, attach or port-forward: an SPDY/3.1 upgrade relayed to the host copy ({@link StreamRelay}). */
    private Answer stream(Exchange ex, Call call, String hostNs, String hostName, String hostPod) throws IOException {
        if (!allowExec) {
            return withPod(text(ex, 403, "ExecTurnedOff", call.verb() + " into tenant Pods is turned off in this "
                    + "installation (tenantplane.kubelet.allow-exec=false); logs still work"), hostPod);
        }
        String upgrade = ex.header("Upgrade");
        if (upgrade == null || !upgrade.toLowerCase(java.util.Locale.ROOT).contains("spdy/3.1")) {
            return withPod(text(ex, 400, "UpgradeRequired", call.verb() + " needs the connection upgraded to "
                    + "SPDY/3.1, as kube-apiserver asks a kubelet; this endpoint does not serve "
                    + (upgrade == null ? "a request without an upgrade" : "an upgrade to " + upgrade)), hostPod);
        }
        String protocol = StreamRelay.negotiate(ex, call.verb());
        if (protocol == null) {
            return withPod(text(ex, 403, "ProtocolNotSupported", "unable to upgrade: unable to negotiate protocol: "
                    + "client supports " + ex.header("X-Stream-Protocol-Version") + ", server supports ["
                    + (call.verb().equals("portForward") ? StreamRelay.PORT_FORWARD_PROTOCOL
                    : StreamRelay.EXEC_PROTOCOL) + "]"), hostPod);
        }
        Stream stream = new Stream(ex);
        open.add(stream);
        try {
            StreamRelay.Result r = call.verb().equals("portForward")
                    ? StreamRelay.portForward(ex, stream, hostNs, hostName, hostClient, sockets)
                    : StreamRelay.execOrAttach(ex, stream, call.verb(), call.container(), hostNs, hostName,
                            hostClient, sockets);
            return new Answer(r.code(), r.reason(), r.message(), hostPod);
        } finally {
            open.remove(stream);
        }
    }

    private Answer logs(Exchange ex, Call call, String hostNs, String hostName, String hostPod)
            throws IOException {
        Map<String, String> query = ex.firstQuery();
        List<Pair> pairs = new ArrayList<>();
        if (call.container() != null) {
            pairs.add(new Pair("container", call.container()));
        }
        query.forEach((k, v) -> {
            if (LOG_PARAMS.contains(k)) {
                pairs.add(new Pair(k, v));
            }
        });
        Request request;
        try {
            Map<String, String> headers = new HashMap<>();
            headers.put("Accept", "*/*");
            request = hostClient.buildRequest(null, "/api/v1/namespaces/" + hostNs + "/pods/" + hostName + "/log",
                    "GET", pairs, List.of(), null, headers, new HashMap<>(), new HashMap<>(), AUTH, null);
        } catch (ApiException e) {
            return withPod(text(ex, 500, "RequestNotBuilt", e.getMessage()), hostPod);
        }
        okhttp3.Call upstream = streams.newCall(request);
        Stream stream = new Stream(ex);
        stream.onClose(upstream::cancel);
        open.add(stream);
        boolean follow = "true".equals(query.get("follow"));
        if (follow) {
            // A followed log ends only when the caller leaves: watch for that, and end the connection with it.
            ex.onClientGone(stream::close);
        }
        try (Response response = upstream.execute()) {
            if (response.code() != 200) {
                String body = response.body() == null ? "" : response.body().string();
                return withPod(text(ex, response.code(), "HostRefused", statusMessage(body, response.code())),
                        hostPod);
            }
            OutputStream out = ex.body("text/plain");
            AtomicLong bytes = new AtomicLong();
            try (InputStream in = response.body().byteStream()) {
                // Reading the host's answer overlaps writing it to the caller; flushed when nothing is at hand.
                Pipe.copy(in, out, stream::progress, bytes, "tenantplane-kubelet-log");
                out.close();
            } catch (IOException e) {
                ex.closeAfter();
                if (stream.idled) {
                    return new Answer(200, "IdleTimeout", "the log stream moved no byte for " + idleTimeout
                            + " and was closed after " + bytes + " bytes", hostPod);
                }
                if (closed) {
                    return new Answer(200, "EndpointClosed", "the endpoint shut down after " + bytes + " bytes",
                            hostPod);
                }
                return new Answer(200, "StreamEnded", "the stream ended after " + bytes + " bytes: " + e.getMessage(),
                        hostPod);
            }
            return new Answer(200, "Streamed", "streamed " + bytes + " bytes of the host copy's log", hostPod);
        } finally {
            open.remove(stream);
        }
    }

    // ------------------------------------------------------------ helpers

    private static boolean hasContainer(JsonObject pod, String name) {
        for (String field : List.of("containers", "initContainers", "ephemeralContainers")) {
            JsonElement list = Json.object(pod, "spec") == null ? null : Json.object(pod, "spec").get(field);
            if (list != null && list.isJsonArray()) {
                for (JsonElement c : list.getAsJsonArray()) {
                    if (c.isJsonObject() && name.equals(Json.string(c.getAsJsonObject(), "name"))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static String statusMessage(String body, int code) {
        try {
            JsonElement e = com.google.gson.JsonParser.parseString(body);
            if (e.isJsonObject() && Json.string(e.getAsJsonObject(), "message") != null) {
                return "the host API answered " + code + ": " + Json.string(e.getAsJsonObject(), "message");
            }
        } catch (RuntimeException ignored) {
            // not JSON: pass the text on
        }
        return "the host API answered " + code + (body.isBlank() ? "" : ": " + body.strip());
    }

    private static Answer withPod(Answer a, String hostPod) {
        return new Answer(a.code(), a.reason(), a.message(), hostPod);
    }

    /** Answers with a plain-text body, as a kubelet does; the tenant API server passes the text on to the user. */
    private static Answer text(Exchange ex, int code, String reason, String message) throws IOException {
        ex.text(code, message);
        return new Answer(code, reason, message, null);
    }

    private static Answer safeText(Exchange ex, int code, String reason, String message) {
        try {
            return text(ex, code, reason, message);
        } catch (IOException | RuntimeException e) {
            return new Answer(code, reason, message, null);
        }
    }

    /** Closes calls that moved no byte for the idle timeout. */
    private void closeIdle() {
        long tick = Math.max(50, Math.min(1000, idleTimeout.toMillis() / 4));
        while (!closed) {
            try {
                Thread.sleep(tick);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Stream s : open) {
                if (now - s.last > idleTimeout.toNanos()) {
                    s.idled = true;
                    s.close();
                }
            }
        }
    }

    private record Answer(int code, String reason, String message, String hostPod) {
    }

    /**
     * A kubelet API path, as kube-apiserver builds it: {@code /containerLogs/<ns>/<pod>/<container>},
     * {@code /exec|attach/<ns>/<pod>[/<uid>]/<container>}, {@code /portForward/<ns>/<pod>[/<uid>]}, and the node-level
     * paths ({@code /stats/...}, {@code /healthz}, anything else).
     */
    record Call(String verb, String namespace, String pod, String container, String path) {

        static Call parse(String method, String rawPath) {
            String path = rawPath == null ? "/" : rawPath;
            String[] p = path.replaceAll("^/+", "").split("/");
            for (int i = 0; i < p.length; i++) {
                p[i] = URLDecoder.decode(p[i], StandardCharsets.UTF_8);
            }
            String first = p.length == 0 ? "" : p[0];
            return switch (first) {
                case "healthz" -> new Call("healthz", null, null, null, path);
                case "apis" -> new Call("metricsApi", null, null, null, path);
                case "stats" -> new Call("stats", null, null, null, path);
                case "metrics" -> new Call("metrics", null, null, null, path);
                case "containerLogs" -> p.length == 4 ? new Call(first, p[1], p[2], p[3], path)
                        : new Call(first, null, null, null, path);
                case "exec", "attach" -> p.length == 4 ? new Call(first, p[1], p[2], p[3], path)
                        : p.length == 5 ? new Call(first, p[1], p[2], p[4], path)
                        : new Call(first, null, null, null, path);
                case "portForward" -> p.length == 3 || p.length == 4 ? new Call(first, p[1], p[2], null, path)
                        : new Call(first, null, null, null, path);
                default -> new Call("other", null, null, null, path);
            };
        }
    }

    /** Settings of a {@link KubeletServer}. */
    public static final class Builder {
        private ApiClient hostClient;
        private KubeletCa ca;
        private KubeletCa.Credential serving;
        private InetAddress bindAddress = new InetSocketAddress(0).getAddress();
        private int port = 10250;
        private int maxStreamsPerTenant = 10;
        private int maxStreams = 200;
        private Duration idleTimeout = Duration.ofHours(4);
        private Observer observer = Observer.NOOP;
        private boolean allowExec = true;
        private List<String> tenantNamespaces = List.of();

        private Builder() {
        }

        /**
         * The host namespaces whose TenantClusters this endpoint serves aggregators of (empty, the default: every
         * namespace); an installation that watches some namespaces only names them, and lists TenantClusters there
         * only.
         */
        public Builder tenantNamespaces(List<String> namespaces) {
            this.tenantNamespaces = List.copyOf(Objects.requireNonNull(namespaces, "namespaces"));
            return this;
        }

        /**
         * Whether exec, attach and port-forward into tenant Pods are served (default true); false refuses them with
         * 403 before anything reaches the host, while logs keep working.
         */
        public Builder allowExec(boolean allowExec) {
            this.allowExec = allowExec;
            return this;
        }

        /** The host API: where the host copies of tenant Pods are read and their logs streamed from. */
        public Builder hostClient(ApiClient hostClient) {
            this.hostClient = Objects.requireNonNull(hostClient, "hostClient");
            return this;
        }

        /** The installation's kubelet CA: client certificates must be signed by it. */
        public Builder ca(KubeletCa ca) {
            this.ca = Objects.requireNonNull(ca, "ca");
            return this;
        }

        /** The serving certificate and key, issued by the same CA ({@link KubeletCa#issueServing}). */
        public Builder serving(KubeletCa.Credential serving) {
            this.serving = Objects.requireNonNull(serving, "serving");
            return this;
        }

        /** The address to listen on (default all). */
        public Builder bindAddress(InetAddress bindAddress) {
            this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
            return this;
        }

        /** The port (default 10250, a kubelet's; 0 for any free one). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /** Calls one tenant may have open at once (default 10). */
        public Builder maxStreamsPerTenant(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxStreamsPerTenant must be at least 1, got " + max);
            }
            this.maxStreamsPerTenant = max;
            return this;
        }

        /** Calls open at once in all (default 200). */
        public Builder maxStreams(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxStreams must be at least 1, got " + max);
            }
            this.maxStreams = max;
            return this;
        }

        /**
         * How long a call may move no byte before it is closed (default 4 h, a kubelet's
         * {@code streamingConnectionIdleTimeout}).
         */
        public Builder idleTimeout(Duration idleTimeout) {
            if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
            }
            this.idleTimeout = idleTimeout;
            return this;
        }

        /** Told of every call once it ends (default none). */
        public Builder observer(Observer observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** Starts listening. */
        public KubeletServer start() throws IOException {
            Objects.requireNonNull(hostClient, "hostClient is required");
            Objects.requireNonNull(ca, "ca is required");
            Objects.requireNonNull(serving, "serving is required");
            return new KubeletServer(this);
        }
    }
}
