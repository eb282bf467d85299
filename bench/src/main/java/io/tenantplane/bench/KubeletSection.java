package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletServer;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;

/**
 * The kubelet endpoint's cost, in one process: heap and platform threads it adds for idle tenants (none are held per
 * tenant until one calls), heap and platform threads per open log stream, the time to read a container log through
 * it against reading the same log from the host API directly (the baseline, same run, same client), and for
 * {@code kubectl top} the heap of the tenants' aggregator CAs it keeps and a PodMetrics list through it against the
 * host's own.
 */
final class KubeletSection {

    static final String REPRODUCE = "bench/run.sh kubelet";
    private static final double MIB = 1024.0 * 1024;
    /** A log read through the endpoint should cost at most this much more than from the host directly. */
    static final double TARGET_RATIO = 2.0;
    /**
     * kubectl top through the endpoint makes three host reads (the TenantCluster, the tenant's host Pods, their
     * PodMetrics) where the baseline makes one; it should cost at most this much more.
     */
    static final double TOP_TARGET_RATIO = 4.0;

    /**
     * Tenants, open streams (spread over the tenants), log lines, timed read repetitions and the untimed ones before
     * them (both paths warmed alike, so the figure compares compiled code with compiled code, not the JIT's start).
     */
    record Config(int tenants, int streams, int logLines, int reads, int warmups) {
        static Config full() {
            return new Config(300, 200, 100_000, 9, 9);
        }

        static Config quick() {
            return new Config(20, 20, 5_000, 3, 1);
        }
    }

    private KubeletSection() {
    }

    static Report.Section run(Config c) throws Exception {
        String ns = "team-bench";
        // The host API serves TLS, as every real one does: the baseline and the endpoint's host calls both pay for it.
        KubeletCa ca = KubeletCa.generate("bench-kubelet-ca", Clock.systemUTC());
        KubeApiServer host = KubeApiServer.builder().namespaces("default", "kube-system", ns)
                .simulate(Simulation.builder().nodes(1).build()).metricsServer()
                .tls(ca.context(ca.issueServing(List.of("127.0.0.1"), Duration.ofDays(1)))).build().start();
        List<String> uids = new ArrayList<>();
        try {
            for (String crd : Cluster.CRDS) {
                try (InputStream in = Cluster.class.getResourceAsStream("/crds/" + crd)) {
                    for (var lo : io.tenantplane.model.Manifests.parse(new String(in.readAllBytes(),
                            java.nio.charset.StandardCharsets.UTF_8), java.nio.file.Path.of(crd))) {
                        Cluster.create(host.url(), lo.object());
                    }
                }
            }
            for (int t = 0; t < c.tenants(); t++) {
                String tenant = "t" + t;
                List<JsonObject> resources = Cluster.tenantResources(tenant, ns);
                if (t == 0) {
                    Cluster.create(host.url(), resources.get(0));
                    Cluster.create(host.url(), resources.get(1));
                }
                uids.add(Json.string(Cluster.create(host.url(), resources.get(2)), "metadata", "uid"));
                Cluster.syncPrerequisites(tenant, ns).forEach(o -> Cluster.create(host.url(), o));
                TenantObjectRef src = new TenantObjectRef(tenant, "Pod", "default", "web", "uid-" + t);
                JsonObject meta = new JsonObject();
                meta.addProperty("name", HostNames.hostName("web", "default", tenant));
                meta.addProperty("namespace", ns);
                JsonObject labels = new JsonObject();
                ReverseMapping.labels(src).forEach(labels::addProperty);
                JsonObject annotations = new JsonObject();
                ReverseMapping.annotations(src, "bench").forEach(annotations::addProperty);
                meta.add("labels", labels);
                meta.add("annotations", annotations);
                JsonObject pod = Cluster.parse("""
                        {"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"app","image":"busybox"}]}}""");
                pod.add("metadata", meta);
                Cluster.create(host.url(), pod);
            }
            String first = HostNames.hostName("web", "default", "t0");
            waitRunning(host, ns, c.tenants());
            String line = "0123456789".repeat(9) + " a log line of about a hundred bytes";
            for (int i = 0; i < c.logLines(); i++) {
                host.appendContainerLog(ns, first, "app", line + " " + i);
            }
            for (int t = 1; t < c.tenants(); t++) {
                host.appendContainerLog(ns, HostNames.hostName("web", "default", "t" + t), "app", "hello");
            }
            // kubectl top: every host Pod measured by the host's metrics-server, and every tenant's control plane
            // having published its request-header CA (what its aggregator's certificate is checked against).
            List<KubeletCa.Credential> aggregators = new ArrayList<>();
            for (int t = 0; t < c.tenants(); t++) {
                host.setContainerUsage(ns, HostNames.hostName("web", "default", "t" + t), "app", "25m", "48Mi");
                KubeletCa requestHeader = KubeletCa.generate("k3s-request-header-ca@" + t, Clock.systemUTC());
                aggregators.add(requestHeader.issueClient("system:auth-proxy", Duration.ofDays(1)));
                JsonObject secret = Cluster.parse("""
                        {"apiVersion":"v1","kind":"Secret","metadata":{"name":"t%d-kubeconfig","namespace":"%s"},
                         "data":{"request-header-ca.crt":"%s"}}""".formatted(t, ns, java.util.Base64.getEncoder()
                        .encodeToString(requestHeader.certificatePem().getBytes(java.nio.charset.StandardCharsets
                                .US_ASCII))));
                Cluster.create(host.url(), secret);
            }

            ApiClient hostClient = new io.kubernetes.client.util.ClientBuilder().setBasePath(host.httpsUrl())
                    .setCertificateAuthority(ca.certificatePem().getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .build();
            hostClient.setReadTimeout(0);
            // The tenants' TLS contexts are the callers' (tenant API servers'), made before the baseline.
            List<SSLContext> tls = new ArrayList<>();
            for (int t = 0; t < c.tenants(); t++) {
                tls.add(ca.context(ca.issueTenantClient(new TenantKey(ns, "t" + t), uids.get(t),
                        Duration.ofDays(1))));
            }
            double heapBefore = heapMiB();
            int threadsBefore = serverThreads();
            KubeletServer server = KubeletServer.builder().hostClient(hostClient).ca(ca)
                    .serving(ca.issueServing(List.of("localhost"), Duration.ofDays(1)))
                    .bindAddress(InetAddress.getLoopbackAddress()).port(0).maxStreams(c.streams() + 10)
                    .maxStreamsPerTenant(c.streams()).start();
            List<Figure> figures = new ArrayList<>();
            try {
                double heapIdle = heapMiB();
                int threadsIdle = serverThreads();
                figures.add(new Figure(String.format(Locale.ROOT, "Heap the endpoint adds, %d idle tenants (per tenant)",
                        c.tenants()), Figure.number((heapIdle - heapBefore) * 1024 / c.tenants()) + " KiB", "—", null,
                        "≤ " + Figure.number(FootprintSection.TARGET_MIB * 1024) + " KiB",
                        (heapIdle - heapBefore) / c.tenants() <= FootprintSection.TARGET_MIB, REPRODUCE));
                figures.add(Figure.plain("Platform threads before → with the endpoint (idle)", threadsBefore + " → "
                        + threadsIdle, REPRODUCE));

                // The baseline: the same log read from the host API directly over TLS, same HTTP client kind.
                HttpClient overTls = HttpClient.newBuilder().sslContext(tls.get(0)).build();
                String direct = host.httpsUrl() + "/api/v1/namespaces/" + ns + "/pods/" + first
                        + "/log?container=app";
                // For comparison with earlier runs: the same read over the testkit's plain HTTP, which no real API
                // server offers.
                HttpClient unencrypted = HttpClient.newBuilder().build();
                String directPlain = host.url() + "/api/v1/namespaces/" + ns + "/pods/" + first + "/log?container=app";
                double[] plainBase = new double[c.reads()];
                double[] base = new double[c.reads()];
                double[] through = new double[c.reads()];
                HttpClient viaEndpoint = HttpClient.newBuilder().sslContext(tls.get(0)).build();
                String endpoint = "https://localhost:" + server.port() + "/containerLogs/default/web/app";
                long bytes = 0;
                for (int i = -c.warmups(); i < c.reads(); i++) {
                    long s = System.nanoTime();
                    bytes = overTls.send(HttpRequest.newBuilder(URI.create(direct)).build(),
                            HttpResponse.BodyHandlers.ofByteArray()).body().length;
                    double hostMs = (System.nanoTime() - s) / 1e6;
                    s = System.nanoTime();
                    unencrypted.send(HttpRequest.newBuilder(URI.create(directPlain)).build(),
                            HttpResponse.BodyHandlers.discarding());
                    double plainMs = (System.nanoTime() - s) / 1e6;
                    s = System.nanoTime();
                    long got = viaEndpoint.send(HttpRequest.newBuilder(URI.create(endpoint)).build(),
                            HttpResponse.BodyHandlers.ofByteArray()).body().length;
                    double endpointMs = (System.nanoTime() - s) / 1e6;
                    if (got != bytes) {
                        throw new IllegalStateException("the endpoint gave " + got + " bytes, the host " + bytes);
                    }
                    if (i >= 0) {
                        base[i] = hostMs;
                        plainBase[i] = plainMs;
                        through[i] = endpointMs;
                    }
                }
                // Probe: the same reads with a raw socket client (no HTTP client library) on both sides.
                double[] rawBase = new double[c.reads()];
                double[] rawThrough = new double[c.reads()];
                java.net.URI hu = URI.create(host.httpsUrl());
                for (int i = -c.warmups(); i < c.reads(); i++) {
                    long s0 = System.nanoTime();
                    try (java.net.Socket sock = tls.get(0).getSocketFactory().createSocket(hu.getHost(),
                            hu.getPort())) {
                        sock.getOutputStream().write(("GET /api/v1/namespaces/" + ns + "/pods/" + first
                                + "/log?container=app HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                        sock.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                    }
                    double hostMs = (System.nanoTime() - s0) / 1e6;
                    s0 = System.nanoTime();
                    try (java.net.Socket sock = tls.get(0).getSocketFactory().createSocket("localhost",
                            server.port())) {
                        sock.getOutputStream().write(("GET /containerLogs/default/web/app HTTP/1.1\r\nHost: x\r\n"
                                + "Connection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                        sock.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                    }
                    if (i >= 0) {
                        rawBase[i] = hostMs;
                        rawThrough[i] = (System.nanoTime() - s0) / 1e6;
                    }
                }
                double b = median(base);
                double m = median(through);
                figures.add(new Figure(String.format(Locale.ROOT, "Read a %s MiB container log through the endpoint",
                        Figure.number(bytes / MIB)), Figure.number(m) + " ms", "host pods/log directly over TLS "
                        + Figure.number(b) + " ms", m / b, "≤ " + Figure.number(TARGET_RATIO) + "×",
                        m / b <= TARGET_RATIO, REPRODUCE));
                figures.add(Figure.plain("The same direct read over the testkit's plain HTTP (no real API server "
                        + "serves it; the baseline of earlier runs)", Figure.number(median(plainBase)) + " ms",
                        REPRODUCE));
                figures.add(Figure.plain("The same read with a bare socket client (no HTTP library): endpoint against "
                        + "the host API directly, both over TLS", Figure.number(median(rawThrough)) + " ms vs "
                        + Figure.number(median(rawBase)) + " ms", REPRODUCE));
                // What one loopback TLS hop costs on this machine by itself: the same bytes over a TLS connection with
                // the endpoint's kind of credentials, against a plain one (bare sockets, warmed alike).
                SSLContext servingTls = ca.context(ca.issueServing(List.of("localhost"), Duration.ofDays(1)));
                double[] hop = transfer(servingTls, tls.get(0), (int) bytes, c.warmups(), c.reads());
                figures.add(Figure.plain("The same bytes over one loopback TLS connection against a plain one (bare "
                        + "sockets): the TLS hop alone", Figure.number(hop[1]) + " ms vs " + Figure.number(hop[0])
                        + " ms", REPRODUCE));

                // kubectl top: the first aggregator call makes the endpoint read every tenant's request-header CA;
                // the heap that index keeps, per tenant, and a PodMetrics list through the endpoint against the same
                // list from the host's metrics API directly (the baseline, same client kind, both over TLS).
                HttpClient viaAggregator = HttpClient.newBuilder().sslContext(KubeletCa.context(aggregators.get(0),
                        ca.certificatePem())).build();
                String top = "https://localhost:" + server.port() + "/apis/metrics.k8s.io/v1beta1/namespaces/default"
                        + "/pods";
                // Known issuers only: the endpoint reads the CAs of all tenants when the first unknown one calls.
                double heapBeforeIndex = heapMiB();
                HttpResponse<String> firstTop = viaAggregator.send(HttpRequest.newBuilder(URI.create(top)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (firstTop.statusCode() != 200 || !firstTop.body().contains("\"web\"")) {
                    throw new IllegalStateException("kubectl top's call through the endpoint: " + firstTop.statusCode()
                            + " " + firstTop.body());
                }
                double heapIndexed = heapMiB();
                for (int t = 1; t < c.tenants(); t++) {
                    // Every tenant's aggregator admitted without another read of the host.
                    try (HttpClient aggregator = HttpClient.newBuilder().sslContext(KubeletCa.context(
                            aggregators.get(t), ca.certificatePem())).build()) {
                        int code = aggregator.send(HttpRequest.newBuilder(URI.create(top)).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode();
                        if (code != 200) {
                            throw new IllegalStateException("tenant t" + t + "'s kubectl top: " + code);
                        }
                    }
                }
                figures.add(new Figure(String.format(Locale.ROOT, "Heap the endpoint keeps for kubectl top, %d "
                        + "tenants' aggregator CAs known (per tenant)", c.tenants()), Figure.number(
                        (heapIndexed - heapBeforeIndex) * 1024 / c.tenants()) + " KiB", "—", null,
                        "≤ " + Figure.number(FootprintSection.TARGET_MIB * 1024) + " KiB",
                        (heapIndexed - heapBeforeIndex) / c.tenants() <= FootprintSection.TARGET_MIB, REPRODUCE));
                String directTop = host.httpsUrl() + "/apis/metrics.k8s.io/v1beta1/namespaces/" + ns
                        + "/pods?labelSelector=" + ReverseMapping.TENANT + "%3Dt0";
                double[] topBase = new double[c.reads()];
                double[] topThrough = new double[c.reads()];
                for (int i = -c.warmups(); i < c.reads(); i++) {
                    long s = System.nanoTime();
                    overTls.send(HttpRequest.newBuilder(URI.create(directTop)).build(),
                            HttpResponse.BodyHandlers.discarding());
                    double hostMs = (System.nanoTime() - s) / 1e6;
                    s = System.nanoTime();
                    viaAggregator.send(HttpRequest.newBuilder(URI.create(top)).build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (i >= 0) {
                        topBase[i] = hostMs;
                        topThrough[i] = (System.nanoTime() - s) / 1e6;
                    }
                }
                double tb = median(topBase);
                double tm = median(topThrough);
                figures.add(new Figure("kubectl top pod's call through the endpoint (TenantCluster, host Pods and "
                        + "PodMetrics read, renamed)", Figure.number(tm) + " ms", "the host's PodMetrics list directly "
                        + Figure.number(tb) + " ms", tm / tb, "≤ " + Figure.number(TOP_TARGET_RATIO) + "×",
                        tm / tb <= TOP_TARGET_RATIO, REPRODUCE));

                // Open follow streams, spread over the tenants.
                List<InputStream> open = new ArrayList<>();
                double heapOpenBefore = heapMiB();
                int threadsOpenBefore = serverThreads();
                for (int i = 0; i < c.streams(); i++) {
                    int t = 1 + i % (c.tenants() - 1);
                    HttpResponse<InputStream> r = HttpClient.newBuilder().sslContext(tls.get(t)).build().send(
                            HttpRequest.newBuilder(URI.create("https://localhost:" + server.port()
                                    + "/containerLogs/default/web/app?follow=true")).build(),
                            HttpResponse.BodyHandlers.ofInputStream());
                    r.body().readNBytes(6);
                    open.add(r.body());
                }
                double heapOpen = heapMiB();
                int threadsOpen = serverThreads();
                figures.add(Figure.plain(String.format(Locale.ROOT, "Heap per open log stream (%d streams, both ends "
                        + "in this process)", c.streams()), Figure.number((heapOpen - heapOpenBefore) * 1024
                        / c.streams()) + " KiB", REPRODUCE));
                figures.add(Figure.plain(String.format(Locale.ROOT, "Platform threads (callers' HTTP clients aside) "
                        + "before → with %d open streams",
                        c.streams()), threadsOpenBefore + " → " + threadsOpen, REPRODUCE));
                figures.add(Figure.plain("Streams the endpoint counts open", Integer.toString(server.openStreams()),
                        REPRODUCE));
                for (InputStream in : open) {
                    in.close();
                }
            } finally {
                server.close();
            }
            List<String> notes = List.of("One process: a testkit host with a simulated node and one managed host Pod "
                    + "per tenant, and the SDK's KubeletServer on loopback TLS. Heap is measured after a full GC "
                    + "(median of three). The open streams' heap includes the client ends (JDK HttpClient) in the "
                    + "same process, so it overstates the endpoint's share. The endpoint keeps nothing per tenant "
                    + "until a tenant calls (then a semaphore), which is why it runs in the controller: no extra "
                    + "JVM, image or process per tenant (docs/architecture.md).");
            return new Report.Section(Main.TITLES.get("kubelet"), figures, notes);
        } finally {
            host.close();
        }
    }

    private static void waitRunning(KubeApiServer host, String ns, int tenants) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            long running = Cluster.list(host.url(), "Pod", ns, null).stream()
                    .filter(p -> "Running".equals(Json.string(p, "status", "phase"))).count();
            if (running == tenants) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the host pods did not start");
    }

    /** Live platform threads, without the callers' JDK HttpClient threads (one selector per client). */
    private static int serverThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!t.isVirtual() && !t.getName().startsWith("HttpClient-")) {
                n++;
            }
        }
        return n;
    }

    private static double heapMiB() throws InterruptedException {
        double[] samples = new double[3];
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
            samples[i] = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / MIB;
        }
        return median(samples);
    }

    /**
     * Medians of sending {@code size} bytes over loopback, plain (index 0) and TLS with the given contexts (index 1),
     * each read to the end by a bare socket client, after {@code warmups} untimed rounds.
     */
    private static double[] transfer(SSLContext server, SSLContext client, int size, int warmups, int reads)
            throws Exception {
        byte[] data = new byte[size];
        Arrays.fill(data, (byte) 'x');
        double[][] ms = new double[2][reads];
        try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                javax.net.ssl.SSLServerSocket secure = (javax.net.ssl.SSLServerSocket) server.getServerSocketFactory()
                        .createServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            secure.setNeedClientAuth(true);
            for (java.net.ServerSocket listening : List.of(plain, secure)) {
                Thread.ofVirtual().start(() -> {
                    while (!listening.isClosed()) {
                        try (java.net.Socket s = listening.accept()) {
                            java.io.OutputStream out = new java.io.BufferedOutputStream(s.getOutputStream(), 64 * 1024);
                            out.write(data);
                            out.flush();
                        } catch (java.io.IOException e) {
                            // closed at the end of the probe
                        }
                    }
                });
            }
            for (int i = -warmups; i < reads; i++) {
                for (int tlsHop = 0; tlsHop < 2; tlsHop++) {
                    long s0 = System.nanoTime();
                    try (java.net.Socket sock = tlsHop == 0
                            ? new java.net.Socket(InetAddress.getLoopbackAddress(), plain.getLocalPort())
                            : client.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                                    secure.getLocalPort())) {
                        if (sock.getInputStream().transferTo(java.io.OutputStream.nullOutputStream()) != size) {
                            throw new IllegalStateException("the probe read fewer bytes than were sent");
                        }
                    }
                    if (i >= 0) {
                        ms[tlsHop][i] = (System.nanoTime() - s0) / 1e6;
                    }
                }
            }
        }
        return new double[] {median(ms[0]), median(ms[1])};
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
