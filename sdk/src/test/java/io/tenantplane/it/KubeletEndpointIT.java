package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.kubelet.KubeletServer;
import io.tenantplane.observe.KubeletRequest;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubectl logs} inside a tenant, end to end against in-process servers: a simulated host (nodes, scheduler,
 * kubelets with container logs), one in-process API server per tenant that calls kubelets as kube-apiserver does
 * (the node mirror's address and port, the client certificate and CA from the {@code <tenant>-kubelet-client} Secret
 * tenantplane wrote), and tenantplane's kubelet endpoint in between. Also: who is refused, and that open streams
 * never hold up reconciliation.
 */
@Tag(Live.HOOKS)
class KubeletEndpointIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path work;

    private Live live;
    private KubeletCa ca;
    private KubeletServer kubelet;
    private TenantPlane plane;
    private final List<KubeletRequest> calls = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        live = Live.simulated(Simulation.builder().nodes(2).build());
        ca = KubeletCa.generate("tenantplane-kubelet-ca", Clock.systemUTC());
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Observer recording = new Observer() {
            @Override
            public void kubeletRequest(TenantKey tenant, KubeletRequest request) {
                calls.add(request);
            }
        };
        plane = live.plane(b -> b.kubeletEndpoint(new KubeletEndpoint("localhost", port, ca)).observer(recording));
        kubelet = plane.kubeletServer().serving(ca.issueServing(List.of("localhost"), Duration.ofDays(1)))
                .bindAddress(InetAddress.getLoopbackAddress()).port(port).maxStreamsPerTenant(5)
                .idleTimeout(Duration.ofSeconds(20)).start();
    }

    @AfterEach
    void stop() {
        if (kubelet != null) {
            kubelet.close();
        }
        live.close();
    }

    /** Provisions {@code tenant} and starts its API server with the kubelet client credential tenantplane issued. */
    private Kube tenant(String tenant) {
        // Up to ten tenants share the host namespace and its quotas (Live.quotaTimes): without room for all ten the
        // host refuses the eighth tenant's pods (exceeded quota: limits.cpu), as a real cluster would.
        live.createTenant(tenant, Live.quotaTimes(10));
        plane.ensure(live.key(tenant));
        JsonObject secret = live.hostKube.require("Secret", live.namespace, tenant + "-kubelet-client");
        return live.tenant(tenant, KubeApiServer.builder().kubeletClient(tls(secret)).streams());
    }

    /** A tenant Pod {@code name}, synced, running on a simulated host node and bound to its mirror. */
    private void runningPod(Kube api, String tenant, String name) {
        api.create(SyncIT.pod("default", name, Map.of("app", name)));
        java.util.concurrent.atomic.AtomicReference<io.tenantplane.ConvergenceReport> last =
                new java.util.concurrent.atomic.AtomicReference<>();
        assertTrue(eventually(() -> {
            last.set(plane.converge(live.key(tenant)));
            JsonObject pod = api.require("Pod", "default", name);
            return "Running".equals(Json.string(pod, "status", "phase"))
                    && Json.string(pod, "spec", "nodeName") != null;
        }), () -> "tenant Pod " + name + " runs: " + api.require("Pod", "default", name) + "; the last pass: "
                + last.get().outcomes());
    }

    private static String hostName(String pod, String tenant) {
        return pod + "-x-default-x-" + tenant;
    }

    @Test
    void kubectlLogsInsideATenantReadsTheHostCopysLogWithTailAndFollow() throws Exception {
        Kube dev = tenant("dev");
        runningPod(dev, "dev", "web");
        JsonObject node = dev.require("Node", null, Json.string(dev.require("Pod", "default", "web"), "spec",
                "nodeName"));
        JsonArray addresses = Json.object(node, "status").getAsJsonArray("addresses");
        assertEquals(1, addresses.size(), addresses::toString);
        assertEquals("localhost", Json.string(addresses.get(0).getAsJsonObject(), "address"),
                "the mirror points the tenant API at the kubelet endpoint, not at the host node");
        assertEquals(kubelet.port(), Json.object(node, "status", "daemonEndpoints", "kubeletEndpoint").get("Port")
                .getAsInt());
        KubeApiServer host = live.requireHostServer();
        for (int i = 1; i <= 3; i++) {
            host.appendContainerLog(live.namespace, hostName("web", "dev"), "app", "line " + i);
        }
        Path kubeconfig = live.tenantServer("dev").writeKubeconfig(work.resolve("dev"));

        Run tail = kubectl(kubeconfig, "logs", "web", "--tail=2");
        assertEquals(0, tail.code(), tail.err());
        assertEquals("line 2\nline 3\n", tail.out());

        Run stamped = kubectl(kubeconfig, "logs", "pod/web", "-c", "app", "--timestamps", "--limit-bytes=60");
        assertEquals(0, stamped.code(), stamped.err());
        assertTrue(stamped.out().matches("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z simulated container .*"), stamped.out());
        assertEquals(60, stamped.out().getBytes(StandardCharsets.UTF_8).length, "--limit-bytes cuts the stream");

        Process follow = new ProcessBuilder("kubectl", "--kubeconfig", kubeconfig.toString(), "logs", "-f", "web")
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(follow.getInputStream(),
                    StandardCharsets.UTF_8));
            assertTrue(out.readLine().startsWith("simulated container app started"), "the container's first line");
            assertEquals("line 1", out.readLine());
            assertEquals("line 3", skip(out, 1));
            host.appendContainerLog(live.namespace, hostName("web", "dev"), "app", "line 4, written while followed");
            assertEquals("line 4, written while followed", out.readLine(), "follow streams new lines as they come");
        } finally {
            follow.destroy();
            assertTrue(follow.waitFor(10, TimeUnit.SECONDS));
        }

        Run missing = kubectl(kubeconfig, "logs", "web", "-c", "sidecar");
        assertFalse(missing.code() == 0);
        assertTrue(missing.err().contains("container sidecar is not valid for pod web"), missing.err());
        // tail and timestamps have ended; the follow stream ends when the in-process tenant API notices kubectl left,
        // which it (the JDK's HTTP server) does only on its next write.
        assertTrue(eventually(() -> calls.stream().filter(c -> c.verb().equals("containerLogs")
                && c.reason().equals("Streamed")).count() >= 2), calls::toString);
        KubeletRequest first = calls.get(0);
        assertEquals("default", first.namespace());
        assertEquals("web", first.pod());
        assertEquals(live.namespace + "/" + hostName("web", "dev"), first.hostPod());
        assertEquals("unknown", first.user(), "kube-apiserver calls a kubelet as itself and forwards no user");
    }

    @Test
    void aTenantCertificateReachesOnlyItsOwnTenantsManagedPods() throws Exception {
        Kube dev = tenant("dev");
        Kube ops = tenant("ops");
        runningPod(dev, "dev", "web");
        runningPod(ops, "ops", "api");
        live.requireHostServer().appendContainerLog(live.namespace, hostName("api", "ops"), "app", "ops secret");
        SSLContext devTls = tls(live.hostKube.require("Secret", live.namespace, "dev-kubelet-client"));

        HttpResponse<String> own = get(devTls, "/containerLogs/default/web/app");
        assertEquals(200, own.statusCode(), own.body());
        assertEquals(404, get(devTls, "/containerLogs/default/api/app").statusCode(),
                "ops's pod name asked with dev's certificate: dev has no such pod");
        assertEquals(404, get(devTls, "/containerLogs/default/" + hostName("api", "ops") + "/app").statusCode(),
                "a host name is no tenant pod name");
        // A foreign host pod at exactly the name dev's pod 'ghost' would map to: not managed, so not reachable.
        live.hostKube.create(Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"ghost-x-default-x-dev","namespace":"%s",
                 "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"dev"}},
                 "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                  "containers":[{"name":"app","image":"busybox","securityContext":{"allowPrivilegeEscalation":false,
                   "capabilities":{"drop":["ALL"]}}}]}}""".formatted(live.namespace)));
        HttpResponse<String> forged = get(devTls, "/containerLogs/default/ghost/app");
        assertEquals(404, forged.statusCode(), forged.body());
        assertEquals(404, get(devTls, "/exec/default/api/app").statusCode(), "exec is checked the same way");

        KubeletCa other = KubeletCa.generate("not-the-installation-ca", Clock.systemUTC());
        SSLContext wrongCa = other.context(other.issueTenantClient(live.key("dev"), uid("dev"), Duration.ofHours(1)));
        assertThrows(IOException.class, () -> get(wrongCa, "/containerLogs/default/web/app"),
                "a certificate of another CA fails the TLS handshake");
        SSLContext staleUid = ca.context(ca.issueTenantClient(live.key("dev"), "an-earlier-uid", Duration.ofHours(1)));
        HttpResponse<String> stale = get(staleUid, "/containerLogs/default/web/app");
        assertEquals(403, stale.statusCode(), "issued for a TenantCluster that no longer exists");
        assertTrue(stale.body().contains("no longer exists"), stale.body());

        HttpResponse<String> exec = get(devTls, "/exec/default/web/app?command=sh&input=1&output=1&tty=1");
        assertEquals(400, exec.statusCode(), "exec is an upgrade to SPDY/3.1, not a plain request");
        assertTrue(exec.body().contains("SPDY/3.1"), exec.body());
        // With exec turned off, an exec upgrade is refused before anything reaches the host; logs still work.
        try (KubeletServer noExec = plane.kubeletServer().serving(ca.issueServing(List.of("localhost"),
                Duration.ofDays(1))).bindAddress(InetAddress.getLoopbackAddress()).port(0).allowExec(false).start();
             javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) devTls.getSocketFactory()
                     .createSocket("localhost", noExec.port())) {
            socket.getOutputStream().write(("POST /exec/default/web/app?command=sh&output=1 HTTP/1.1\r\n"
                    + "Host: localhost\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                    + "X-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 403 "), answer);
            assertTrue(answer.contains("allow-exec=false"), answer);
        }

        HttpResponse<String> stats = get(devTls, "/stats/summary");
        assertEquals(501, stats.statusCode());
        // What metrics-server 0.6+ scrapes: refused the same way, with the reason, not a bare 404.
        HttpResponse<String> metrics = get(devTls, "/metrics/resource");
        assertEquals(501, metrics.statusCode());
        assertTrue(metrics.body().contains("cannot say which host node"), metrics.body());
        assertTrue(eventually(() -> calls.stream().anyMatch(c -> c.verb().equals("exec") && c.code() == 400)));
    }

    @Test
    void fiftyOpenStreamsOfTenTenantsAreBoundedAndReconciliationStillConverges() throws Exception {
        List<String> tenants = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String t = "t" + i;
            tenants.add(t);
            runningPod(tenant(t), t, "web");
        }
        List<InputStream> streams = new ArrayList<>();
        try {
            for (String t : tenants) {
                SSLContext tls = tls(live.hostKube.require("Secret", live.namespace, t + "-kubelet-client"));
                live.requireHostServer().appendContainerLog(live.namespace, hostName("web", t), "app", "hello " + t);
                // One client per tenant, as one tenant API server: each open stream is a connection of its own.
                HttpClient tenantApi = client(tls);
                for (int s = 0; s < 5; s++) {
                    HttpResponse<InputStream> r = tenantApi.send(request("/containerLogs/default/web/app"
                            + "?follow=true&tailLines=1"), HttpResponse.BodyHandlers.ofInputStream());
                    assertEquals(200, r.statusCode());
                    assertEquals("hello " + t, new BufferedReader(new InputStreamReader(r.body(),
                            StandardCharsets.UTF_8)).readLine());
                    streams.add(r.body());
                }
                assertEquals(429, get(tls, "/containerLogs/default/web/app").statusCode(),
                        "a sixth call of one tenant waits for one of its five to close");
            }
            assertEquals(50, kubelet.openStreams());

            Kube t0 = live.tenant("t0");
            t0.create(SyncIT.pod("default", "more", Map.of("app", "more")));
            long start = System.nanoTime();
            ConvergenceReport r = plane.converge(live.key("t0"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(r.decisions().stream().anyMatch(d -> d.action() == Action.CREATE && d.kind().equals("Pod")),
                    r.decisions()::toString);
            assertTrue(took.compareTo(Duration.ofSeconds(10)) < 0, "a pass does not wait for open streams: " + took);
        } finally {
            for (InputStream s : streams) {
                s.close();
            }
        }
        assertTrue(eventually(() -> kubelet.openStreams() == 0), () -> kubelet.openStreams() + " still open");
        assertEquals(200, get(tls(live.hostKube.require("Secret", live.namespace, "t0-kubelet-client")),
                "/containerLogs/default/web/app").statusCode(), "closed streams free their slots");
    }

    @Test
    void kubectlExecRunsInTheHostCopyWithStdinStdoutStderrAndTheExitCode() throws Exception {
        Kube dev = tenant("dev");
        runningPod(dev, "dev", "web");
        Path kubeconfig = live.tenantServer("dev").writeKubeconfig(work.resolve("dev"));

        Run hello = kubectl(kubeconfig, "exec", "web", "--", "echo", "hello", "from", "web");
        assertEquals(0, hello.code(), hello.err());
        assertEquals("hello from web\n", hello.out());

        // kubectl as it comes (WebSocket first): the in-process tenant API refuses the WebSocket, kubectl falls back
        // to SPDY, as it does against an API server older than 1.30.
        ProcessBuilder plain = new ProcessBuilder("kubectl", "--kubeconfig", kubeconfig.toString(), "exec", "web", "--",
                "echo", "fallback").redirectErrorStream(true);
        plain.environment().remove("KUBECTL_REMOTE_COMMAND_WEBSOCKETS");
        Process fallback = plain.start();
        String said = new String(fallback.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(fallback.waitFor(30, TimeUnit.SECONDS));
        assertEquals("fallback\n", said);

        Run failing = kubectl(kubeconfig, "exec", "web", "-c", "app", "--", "sh", "-c", "echo out; echo err >&2; exit 3");
        assertEquals(3, failing.code(), "the exit code comes back: " + failing.err());
        assertEquals("out\n", failing.out());
        assertTrue(failing.err().contains("err"), failing.err());

        Run cat = kubectlWithInput(kubeconfig, "line a\nline b\n", "exec", "-i", "web", "--", "cat");
        assertEquals(0, cat.code(), cat.err());
        assertEquals("line a\nline b\n", cat.out(), "stdin reaches the container and its end ends cat");

        Run attach = kubectlWithInput(kubeconfig, "typed\n", "attach", "-i", "web");
        assertEquals(0, attach.code(), attach.err());
        assertTrue(attach.out().contains("typed"), attach.out());

        // A terminal: script(1) gives kubectl a pseudo-terminal of 40 rows and 100 columns, whose size kubectl sends
        // on the resize stream; the container's stty reads it.
        ProcessBuilder tty = new ProcessBuilder("script", "-qec", "stty rows 40 cols 100; kubectl --kubeconfig "
                + kubeconfig + " exec -it web -- stty size", "/dev/null").redirectErrorStream(true);
        tty.environment().put("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false");
        Process p = tty.start();
        String terminal = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertTrue(terminal.contains("40 100"), () -> "the terminal size reaches the container: " + terminal);

        Run missing = kubectl(kubeconfig, "exec", "web", "--", "nosuchtool");
        assertEquals(127, missing.code(), missing.err());
        assertTrue(missing.err().contains("nosuchtool: not found"), missing.err());

        assertTrue(eventually(() -> calls.stream().filter(c -> c.verb().equals("exec")).count() >= 4), calls::toString);
        KubeletRequest exec = calls.stream().filter(c -> c.verb().equals("exec")).findFirst().orElseThrow();
        assertEquals("web", exec.pod());
        assertEquals("Exited", exec.reason(), exec.toString());
        assertTrue(calls.stream().anyMatch(c -> c.verb().equals("exec") && c.reason().equals("NonZeroExitCode")),
                calls::toString);

        // An exec is an auditable action: an Event on the TenantCluster, naming the Pod, its host copy and the outcome.
        assertTrue(plane.observer().flush(Duration.ofSeconds(10)));
        List<JsonObject> events = live.hostKube.call("GET", "/apis/events.k8s.io/v1/namespaces/" + live.namespace
                + "/events", Map.of(), null).body().getAsJsonArray("items").asList().stream()
                .map(e -> e.getAsJsonObject()).toList();
        JsonObject audit = events.stream().filter(e -> "Exec".equals(Json.string(e, "action"))
                && "NonZeroExitCode".equals(Json.string(e, "reason"))).findFirst()
                .orElseThrow(() -> new AssertionError("no Exec Event in " + events));
        assertEquals("Normal", Json.string(audit, "type"), "the exec was served; the command's exit code is its own");
        assertEquals("dev", Json.string(audit, "regarding", "name"));
        assertEquals(hostName("web", "dev"), Json.string(audit, "related", "name"));
        assertTrue(Json.string(audit, "note").contains("Exec into Pod default/web container app of tenant dev"),
                Json.string(audit, "note"));
        assertTrue(events.stream().noneMatch(e -> "ContainerLogs".equals(Json.string(e, "action"))),
                "logs are counted, not evented");
    }

    /**
     * {@code kubectl debug} inside a tenant: kubectl adds an ephemeral container through the tenant Pod's
     * subresource, the pass adds it to the host copy, the host's kubelet starts it, its status flows back (what kubectl
     * waits for), and {@code kubectl attach} reaches it through the kubelet endpoint.
     */
    @Test
    void kubectlDebugAddsAContainerThatRunsOnTheHostCopyAndCanBeAttached() throws Exception {
        Kube dev = tenant("dev");
        runningPod(dev, "dev", "web");
        Path kubeconfig = live.tenantServer("dev").writeKubeconfig(work.resolve("dev"));

        Run debug = kubectl(kubeconfig, "debug", "web", "--image=busybox:1.36", "--container=debugger",
                "--target=app", "--profile=restricted");
        assertEquals(0, debug.code(), debug.err());
        java.util.concurrent.atomic.AtomicReference<io.tenantplane.ConvergenceReport> last =
                new java.util.concurrent.atomic.AtomicReference<>();
        assertTrue(eventually(() -> {
            last.set(plane.converge(live.key("dev")));
            JsonObject pod = dev.require("Pod", "default", "web");
            com.google.gson.JsonArray st = Json.object(pod, "status") == null ? null
                    : pod.getAsJsonObject("status").getAsJsonArray("ephemeralContainerStatuses");
            return st != null && st.size() == 1 && Json.object(st.get(0).getAsJsonObject(), "state") != null
                    && st.get(0).getAsJsonObject().getAsJsonObject("state").has("running");
        }), () -> "the debug container runs: " + dev.require("Pod", "default", "web").get("status")
                + "; the last pass: " + last.get().outcomes());
        JsonObject host = live.hostKube.require("Pod", live.namespace, hostName("web", "dev"));
        assertEquals("debugger", Json.string(host.getAsJsonObject("spec").getAsJsonArray("ephemeralContainers")
                .get(0).getAsJsonObject(), "name"), "the host copy has it");

        Run attach = kubectlWithInput(kubeconfig, "typed\n", "attach", "-i", "web", "-c", "debugger");
        assertEquals(0, attach.code(), attach.err());
        assertTrue(attach.out().contains("typed"), attach.out());
        Run logs = kubectl(kubeconfig, "logs", "web", "-c", "debugger");
        assertTrue(logs.out().contains("simulated container debugger started"), logs.out() + logs.err());
    }

    @Test
    void kubectlPortForwardReachesAPortOfTheHostCopy() throws Exception {
        Kube dev = tenant("dev");
        runningPod(dev, "dev", "web");
        Path kubeconfig = live.tenantServer("dev").writeKubeconfig(work.resolve("dev"));
        try (ServerSocket echo = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread server = Thread.ofVirtual().start(() -> {
                while (!echo.isClosed()) {
                    try {
                        java.net.Socket s = echo.accept();
                        Thread.ofVirtual().start(() -> {
                            try (s) {
                                s.getInputStream().transferTo(s.getOutputStream());
                            } catch (IOException ignored) {
                                // the forwarded connection ended
                            }
                        });
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            int local;
            try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                local = free.getLocalPort();
            }
            ProcessBuilder pb = new ProcessBuilder("kubectl", "--kubeconfig", kubeconfig.toString(), "port-forward",
                    "pod/web", local + ":" + echo.getLocalPort()).redirectErrorStream(true);
            pb.environment().put("KUBECTL_PORT_FORWARD_WEBSOCKETS", "false");
            Process pf = pb.start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(pf.getInputStream(),
                        StandardCharsets.UTF_8));
                String first = out.readLine();
                assertTrue(first != null && first.startsWith("Forwarding from"), () -> "kubectl says: " + first);
                List<String> said = new CopyOnWriteArrayList<>();
                Thread.ofVirtual().start(() -> out.lines().forEach(said::add));
                for (String message : List.of("ping\n", "a second connection\n")) {
                    try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), local)) {
                        s.setSoTimeout(10_000);
                        s.getOutputStream().write(message.getBytes(StandardCharsets.UTF_8));
                        s.getOutputStream().flush();
                        byte[] back = s.getInputStream().readNBytes(message.length());
                        assertEquals(message, new String(back, StandardCharsets.UTF_8), () -> "the round trip; kubectl "
                                + "says " + said);
                    }
                }
            } finally {
                pf.destroy();
                pf.waitFor(10, TimeUnit.SECONDS);
                server.interrupt();
            }
        }
        assertTrue(eventually(() -> calls.stream().anyMatch(c -> c.verb().equals("portForward"))), calls::toString);
    }

    // ------------------------------------------------------------ helpers

    private String uid(String tenant) {
        return Json.string(live.hostKube.require("TenantCluster", live.namespace, tenant), "metadata", "uid");
    }

    /** The TLS a tenant API server gets from its {@code <tenant>-kubelet-client} Secret. */
    private static SSLContext tls(JsonObject secret) {
        JsonObject data = Json.object(secret, "data");
        KubeletCa.Credential own = KubeletCa.Credential.fromPem(decode(data, "tls.crt"), decode(data, "tls.key"));
        return KubeletCa.context(own, decode(data, "ca.crt"));
    }

    private static String decode(JsonObject data, String key) {
        return new String(Base64.getDecoder().decode(data.get(key).getAsString()), StandardCharsets.UTF_8);
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("https://localhost:" + kubelet.port() + path)).GET()
                .timeout(Duration.ofSeconds(20)).build();
    }

    private static HttpClient client(SSLContext tls) {
        return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private HttpResponse<String> get(SSLContext tls, String path) throws IOException, InterruptedException {
        return client(tls).send(request(path), HttpResponse.BodyHandlers.ofString());
    }

    private static String skip(BufferedReader in, int lines) throws IOException {
        for (int i = 0; i < lines; i++) {
            in.readLine();
        }
        return in.readLine();
    }

    private record Run(int code, String out, String err) {
    }

    private Run kubectl(Path kubeconfig, String... args) throws IOException, InterruptedException {
        return kubectlWithInput(kubeconfig, null, args);
    }

    /**
     * kubectl as a user runs it, speaking SPDY for exec, attach and port-forward (what kube-apiserver 1.30+ speaks
     * to a kubelet either way; the in-process tenant API passes SPDY through and does not translate WebSocket).
     */
    private Run kubectlWithInput(Path kubeconfig, String input, String... args) throws IOException,
            InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "kubectl", ".out");
        Path err = Files.createTempFile(work, "kubectl", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false");
        pb.environment().put("KUBECTL_PORT_FORWARD_WEBSOCKETS", "false");
        if (input != null) {
            Path in = Files.createTempFile(work, "kubectl", ".in");
            Files.writeString(in, input);
            pb.redirectInput(in.toFile());
        }
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl finishes: " + cmd);
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static boolean eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return condition.getAsBoolean();
    }
}
