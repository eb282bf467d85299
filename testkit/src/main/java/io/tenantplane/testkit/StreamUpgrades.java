package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The streaming subresources {@code pods/exec}, {@code pods/attach} and {@code pods/portforward}, which upgrade the
 * HTTP connection: what the JDK's HTTP server cannot do, so {@link KubeApiServer} (built with
 * {@link KubeApiServer.Builder#streams()}) fronts it with a plain socket that hands an upgrade request to this class and
 * passes every other connection through unchanged. An upgrade is recognised on the first request of a connection, as
 * clients make it (kubectl, client-go and OkHttp open a new connection for an upgrade); a later request on a kept-alive
 * connection is not looked at.
 *
 * <p><b>Pods on simulated nodes</b> answer as a kubelet behind kube-apiserver does over WebSocket (the channel protocols
 * {@code v5.channel.k8s.io} and {@code v4.channel.k8s.io} of {@code k8s.io/apimachinery/pkg/util/remotecommand} and
 * the kubelet's {@code cri/streaming/portforward/websocket.go}). The container is a small simulated shell:
 * {@code echo ARGS}, {@code cat} (stdin to stdout until stdin ends), {@code stty size} (the last resize),
 * {@code sh -c "CMD; CMD"} with {@code echo ...}, {@code echo ... >&2} and {@code exit N}; anything else exits 127 with
 * "not found" on stderr. Attach runs {@code cat}. The status on the error channel is the {@code metav1.Status}
 * kube-apiserver writes (with {@code NonZeroExitCode} and the exit code in its causes). Port-forward connects to
 * {@code 127.0.0.1:<port>}, so a test points it at a loopback server of its own.
 *
 * <p><b>Pods on other nodes</b> (a tenant's node mirrors) are passed on as kube-apiserver's upgrade-aware proxy passes an
 * SPDY upgrade to a kubelet: the kubelet is found as for {@code pods/log} ({@link PodLogs}), called over TLS with the
 * server's kubelet client credential at {@code /exec|attach/<ns>/<pod>/<container>} (query {@code command},
 * {@code input}, {@code output}, {@code error}, {@code tty}, as {@code pkg/registry/core/pod/strategy.go}
 * {@code streamParams} builds it) or {@code /portForward/<ns>/<pod>}, and once it answers 101 the two connections are
 * joined byte for byte. A WebSocket request for such a pod is refused: kube-apiserver translates it to SPDY
 * ({@code StreamTranslatorProxy}), which this server does not do; kubectl falls back to SPDY (or is told to with
 * {@code KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false} and {@code KUBECTL_PORT_FORWARD_WEBSOCKETS=false}).
 */
final class StreamUpgrades {

    private static final Pattern PATH = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/(exec|attach|portforward)");
    private static final String WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final Store store;
    private final Registry registry;
    private final SSLContext kubeletClient;
    /** Whether this server's simulator runs the kubelet of a node (by name). */
    private final java.util.function.Predicate<String> simulated;

    StreamUpgrades(Store store, Registry registry, SSLContext kubeletClient,
                   java.util.function.Predicate<String> simulated) {
        this.store = store;
        this.registry = registry;
        this.kubeletClient = kubeletClient;
        this.simulated = simulated;
    }

    /** Whether this request is one of the upgrades this class serves. */
    static boolean handles(String path, Map<String, String> headers) {
        return headers.containsKey("upgrade") && PATH.matcher(path).matches();
    }

    /** Serves one upgrade request whose head was read; the socket is closed when it returns. */
    void serve(Socket socket, InputStream in, String method, String path, String rawQuery,
               Map<String, List<String>> headers) throws IOException {
        OutputStream out = socket.getOutputStream();
        Matcher m = PATH.matcher(path);
        if (!m.matches()) {
            status(out, ApiError.pathNotFound());
            return;
        }
        String namespace = m.group(1);
        String name = m.group(2);
        String sub = m.group(3);
        Map<String, List<String>> query = Router.queryValues(rawQuery);
        JsonObject pod;
        try {
            pod = store.get(registry.find("", "v1", "pods"), namespace, name);
        } catch (ApiError e) {
            status(out, e);
            return;
        }
        JsonObject spec = Json.obj(pod, "spec");
        String container = null;
        if (!sub.equals("portforward")) {
            try {
                container = PodLogs.container(spec, name, first(query, "container"));
            } catch (ApiError e) {
                status(out, e);
                return;
            }
            String phase = Json.str(Json.obj(pod, "status"), "phase");
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
                status(out, ApiError.badRequest("cannot " + sub + " into a container in a completed pod; current "
                        + "phase is " + phase));
                return;
            }
        }
        String nodeName = Json.str(spec, "nodeName");
        if (nodeName == null || nodeName.isEmpty()) {
            status(out, ApiError.badRequest("pod " + name + " does not have a host assigned"));
            return;
        }
        JsonObject node = store.get(registry.find("", "v1", "nodes"), null, nodeName);
        String upgrade = header(headers, "upgrade").toLowerCase(Locale.ROOT);
        if (simulated.test(nodeName)) {
            JsonObject state = container == null ? null : Json.obj(PodLogs.containerStatus(pod, container), "state");
            if (container != null && (state == null || Json.obj(state, "running") == null)) {
                // The kubelet finds no running container (pkg/kubelet/cri/streaming: the runtime's "container not
                // found"), which kube-apiserver passes on as the upgrade's failure.
                status(out, ApiError.internal("container not found (\"" + container + "\")"));
                return;
            }
            if (!upgrade.equals("websocket")) {
                status(out, ApiError.badRequest("this simulated kubelet speaks WebSocket only (asked for "
                        + upgrade + ")"));
                return;
            }
            WebSocket ws = WebSocket.accept(in, out, headers, sub.equals("portforward")
                    ? List.of("v4.channel.k8s.io") : List.of("v5.channel.k8s.io", "v4.channel.k8s.io"));
            if (ws == null) {
                return;
            }
            if (sub.equals("portforward")) {
                portForward(ws, query);
            } else {
                run(ws, sub.equals("attach") ? List.of("cat") : query.getOrDefault("command", List.of()));
            }
            return;
        }
        if (!upgrade.startsWith("spdy/")) {
            status(out, ApiError.badRequest("this server passes SPDY upgrades on to a pod's kubelet and does not "
                    + "translate " + upgrade + " (kube-apiserver's StreamTranslatorProxy); use SPDY"));
            return;
        }
        proxy(socket, in, out, node, namespace, name, sub, container, query, headers);
    }

    // ---- kube-apiserver's upgrade-aware proxy to a kubelet ----

    private void proxy(Socket client, InputStream in, OutputStream out, JsonObject node, String namespace, String pod,
                       String sub, String container, Map<String, List<String>> query,
                       Map<String, List<String>> headers) throws IOException {
        if (kubeletClient == null) {
            status(out, ApiError.internal("this testkit server has no kubelet client credential "
                    + "(KubeApiServer.Builder.kubeletClient)"));
            return;
        }
        PodLogs.KubeletAddress at;
        try {
            at = PodLogs.KubeletAddress.of(node);
        } catch (ApiError e) {
            status(out, e);
            return;
        }
        String address = at.host();
        int port = at.port();
        StringBuilder target = new StringBuilder();
        if (sub.equals("portforward")) {
            target.append("/portForward/").append(namespace).append('/').append(pod);
        } else {
            target.append('/').append(sub).append('/').append(namespace).append('/').append(pod).append('/')
                    .append(container);
            List<String> params = new ArrayList<>();
            for (String c : query.getOrDefault("command", List.of())) {
                params.add("command=" + URLEncoder.encode(c, StandardCharsets.UTF_8));
            }
            Map<String, String> flags = Map.of("stdin", "input", "stdout", "output", "stderr", "error", "tty", "tty");
            for (String api : List.of("stdin", "stdout", "stderr", "tty")) {
                String v = first(query, api);
                if ("true".equals(v) || "1".equals(v)) {
                    params.add(flags.get(api) + "=1");
                }
            }
            if (!params.isEmpty()) {
                target.append('?').append(String.join("&", params));
            }
        }
        SSLSocket kubelet;
        try {
            kubelet = (SSLSocket) kubeletClient.getSocketFactory().createSocket(address, port);
            SSLParameters p = kubelet.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            kubelet.setSSLParameters(p);
            kubelet.startHandshake();
        } catch (IOException e) {
            status(out, ApiError.internal("error dialing backend: " + e));
            return;
        }
        try (kubelet) {
            StringBuilder head = new StringBuilder("POST ").append(target).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(address).append(':').append(port).append("\r\n")
                    .append("Connection: Upgrade\r\n")
                    .append("Upgrade: ").append(header(headers, "upgrade")).append("\r\n")
                    .append("Content-Length: 0\r\n");
            for (String v : headers.getOrDefault("x-stream-protocol-version", List.of())) {
                head.append("X-Stream-Protocol-Version: ").append(v).append("\r\n");
            }
            head.append("\r\n");
            OutputStream kout = kubelet.getOutputStream();
            kout.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            kout.flush();
            InputStream kin = kubelet.getInputStream();
            Thread up = Thread.ofVirtual().start(() -> pipe(in, kout, kubelet));
            pipe(kin, out, client);
            up.interrupt();
        }
    }

    /** Copies until the end of {@code from}, then closes {@code to}'s side. */
    private static void pipe(InputStream from, OutputStream to, Socket closeAfter) {
        byte[] buf = new byte[16 * 1024];
        try {
            int n;
            while ((n = from.read(buf)) > 0) {
                to.write(buf, 0, n);
                to.flush();
            }
        } catch (IOException ignored) {
            // one side went away
        } finally {
            try {
                closeAfter.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    // ---- the simulated container ----

    private void run(WebSocket ws, List<String> command) throws IOException {
        int[] size = {0, 0};
        List<String> cmd = new ArrayList<>(command);
        if (cmd.size() >= 3 && (cmd.get(0).equals("sh") || cmd.get(0).equals("/bin/sh")) && cmd.get(1).equals("-c")) {
            int code = 0;
            for (String part : cmd.get(2).split(";")) {
                String p = part.strip();
                if (p.isEmpty()) {
                    continue;
                }
                if (p.startsWith("exit ")) {
                    code = Integer.parseInt(p.substring(5).strip());
                    break;
                }
                code = simple(ws, List.of(p.split("\\s+")), size);
            }
            finish(ws, code);
            return;
        }
        if (cmd.isEmpty()) {
            finish(ws, 0);
            return;
        }
        finish(ws, simple(ws, cmd, size));
    }

    /** One simulated command; its exit code. */
    private static int simple(WebSocket ws, List<String> cmd, int[] size) throws IOException {
        String program = cmd.get(0);
        switch (program) {
            case "echo" -> {
                List<String> args = new ArrayList<>(cmd.subList(1, cmd.size()));
                boolean toErr = !args.isEmpty() && args.get(args.size() - 1).equals(">&2");
                if (toErr) {
                    args.remove(args.size() - 1);
                }
                ws.send(toErr ? 2 : 1, (String.join(" ", args) + "\n").getBytes(StandardCharsets.UTF_8));
                return 0;
            }
            case "cat" -> {
                WebSocket.Message msg;
                while ((msg = ws.read()) != null) {
                    if (msg.channel() == 0) {
                        ws.send(1, msg.data());
                    } else if (msg.channel() == 4) {
                        resize(msg.data(), size);
                    } else if (msg.channel() == 255) {
                        break;
                    }
                }
                return 0;
            }
            case "stty" -> {
                // A terminal's size arrives on the resize channel before the command reads it.
                long deadline = System.nanoTime() + 2_000_000_000L;
                while (size[0] == 0 && System.nanoTime() < deadline) {
                    WebSocket.Message msg = ws.readWithin(100);
                    if (msg != null && msg.channel() == 4) {
                        resize(msg.data(), size);
                    }
                }
                ws.send(1, (size[1] + " " + size[0] + "\r\n").getBytes(StandardCharsets.UTF_8));
                return 0;
            }
            default -> {
                ws.send(2, ("sh: " + program + ": not found\n").getBytes(StandardCharsets.UTF_8));
                return 127;
            }
        }
    }

    private static void resize(byte[] json, int[] size) {
        for (String line : new String(json, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonObject o = Json.parseObject(line.getBytes(StandardCharsets.UTF_8));
            size[0] = o.has("Width") ? o.get("Width").getAsInt() : size[0];
            size[1] = o.has("Height") ? o.get("Height").getAsInt() : size[1];
        }
    }

    /** The status kube-apiserver writes on the error channel, then the close. */
    private static void finish(WebSocket ws, int code) throws IOException {
        JsonObject status = code == 0 ? Json.object("metadata", new JsonObject(), "status", "Success")
                : Json.object("metadata", new JsonObject(), "status", "Failure", "message",
                        "command terminated with non-zero exit code: error executing command [...], exit code "
                                + code, "reason", "NonZeroExitCode", "details", Json.object("causes",
                                Json.array(Json.object("reason", "ExitCode", "message", String.valueOf(code)))));
        ws.send(3, status.toString().getBytes(StandardCharsets.UTF_8));
        ws.close();
    }

    private static void portForward(WebSocket ws, Map<String, List<String>> query) throws IOException {
        List<Integer> ports = new ArrayList<>();
        for (String v : query.getOrDefault("ports", List.of())) {
            for (String p : v.split(",")) {
                ports.add(Integer.parseInt(p.strip()));
            }
        }
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < ports.size(); i++) {
            int port = ports.get(i);
            byte[] prefix = {(byte) (port & 0xFF), (byte) ((port >> 8) & 0xFF)};
            ws.send(2 * i, prefix);
            ws.send(2 * i + 1, prefix);
            Socket s;
            try {
                s = new Socket(InetAddress.getLoopbackAddress(), port);
            } catch (IOException e) {
                ws.send(2 * i + 1, ("error forwarding port " + port + " to pod: dial tcp 127.0.0.1:" + port + ": "
                        + "connect: connection refused").getBytes(StandardCharsets.UTF_8));
                sockets.add(null);
                continue;
            }
            sockets.add(s);
            int channel = 2 * i;
            Thread.ofVirtual().start(() -> {
                byte[] buf = new byte[16 * 1024];
                try {
                    int n;
                    InputStream sin = s.getInputStream();
                    while ((n = sin.read(buf)) > 0) {
                        ws.send(channel, java.util.Arrays.copyOf(buf, n));
                    }
                } catch (IOException ignored) {
                    // closed
                }
                try {
                    ws.close();
                } catch (IOException ignored) {
                    // closed
                }
            });
        }
        try {
            WebSocket.Message msg;
            while ((msg = ws.read()) != null) {
                int i = msg.channel() / 2;
                if (msg.channel() % 2 == 0 && i < sockets.size() && sockets.get(i) != null) {
                    sockets.get(i).getOutputStream().write(msg.data());
                    sockets.get(i).getOutputStream().flush();
                }
            }
        } finally {
            for (Socket s : sockets) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    // ---- helpers ----

    private static void status(OutputStream out, ApiError e) throws IOException {
        byte[] body = e.toStatus().toString().getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + e.code + " Error\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static String header(Map<String, List<String>> headers, String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? "" : v.get(0);
    }

    private static String first(Map<String, List<String>> q, String key) {
        List<String> v = q.get(key);
        return v == null || v.isEmpty() ? null : v.get(0);
    }


    /** The server side of one WebSocket (RFC 6455) with Kubernetes' channel framing: a channel byte per message. */
    static final class WebSocket {
        record Message(int channel, byte[] data) {
        }

        private final DataInputStream in;
        private final OutputStream out;
        private final java.util.concurrent.BlockingQueue<Message> pending =
                new java.util.concurrent.LinkedBlockingQueue<>();
        private volatile boolean closed;
        private final Thread reader;

        private WebSocket(InputStream in, OutputStream out) {
            this.in = new DataInputStream(in);
            this.out = out;
            this.reader = Thread.ofVirtual().start(this::readLoop);
        }

        /** Completes the handshake with the first of the client's protocols this side speaks; null if none. */
        static WebSocket accept(InputStream in, OutputStream out, Map<String, List<String>> headers,
                                List<String> supported) throws IOException {
            String key = header(headers, "sec-websocket-key");
            String chosen = null;
            for (String offered : String.join(",", headers.getOrDefault("sec-websocket-protocol", List.of()))
                    .split(",")) {
                if (chosen == null && supported.contains(offered.strip())) {
                    chosen = offered.strip();
                }
            }
            if (key.isEmpty() || chosen == null) {
                status(out, ApiError.badRequest("WebSocket upgrade needs Sec-WebSocket-Key and one of the "
                        + "protocols " + supported));
                return null;
            }
            String accept;
            try {
                accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                        .digest((key + WS_GUID).getBytes(StandardCharsets.ISO_8859_1)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept + "\r\nSec-WebSocket-Protocol: " + chosen + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return new WebSocket(in, out);
        }

        private void readLoop() {
            try {
                ByteArrayOutputStream fragments = new ByteArrayOutputStream();
                while (true) {
                    int b0 = in.readUnsignedByte();
                    int b1 = in.readUnsignedByte();
                    int opcode = b0 & 0x0F;
                    long len = b1 & 0x7F;
                    if (len == 126) {
                        len = in.readUnsignedShort();
                    } else if (len == 127) {
                        len = in.readLong();
                    }
                    byte[] mask = new byte[4];
                    if ((b1 & 0x80) != 0) {
                        in.readFully(mask);
                    }
                    byte[] payload = new byte[(int) len];
                    in.readFully(payload);
                    for (int i = 0; i < payload.length; i++) {
                        payload[i] ^= mask[i % 4];
                    }
                    if (opcode == 0x8) {
                        // RFC 6455 5.5.1: answer a close with a close.
                        close();
                        break;
                    }
                    if (opcode == 0x9) {
                        frame(0xA, payload);
                        continue;
                    }
                    if (opcode == 0xA) {
                        continue;
                    }
                    fragments.write(payload);
                    if ((b0 & 0x80) != 0) {
                        byte[] msg = fragments.toByteArray();
                        fragments.reset();
                        if (msg.length > 0) {
                            pending.add(new Message(msg[0] & 0xFF, java.util.Arrays.copyOfRange(msg, 1, msg.length)));
                        }
                    }
                }
            } catch (IOException ignored) {
                // the client went away
            }
            closed = true;
            pending.add(new Message(-1, new byte[0]));
        }

        /** The next message; null once the client closed. */
        Message read() {
            try {
                Message m = pending.take();
                if (m.channel() < 0) {
                    pending.add(m);
                    return null;
                }
                return m;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        /** The next message within {@code millis}; null if none came (or the client closed). */
        Message readWithin(long millis) {
            try {
                Message m = pending.poll(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (m != null && m.channel() < 0) {
                    pending.add(m);
                    return null;
                }
                return m;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        synchronized void send(int channel, byte[] data) throws IOException {
            byte[] msg = new byte[data.length + 1];
            msg[0] = (byte) channel;
            System.arraycopy(data, 0, msg, 1, data.length);
            frame(0x2, msg);
        }

        private synchronized void frame(int opcode, byte[] payload) throws IOException {
            ByteArrayOutputStream f = new ByteArrayOutputStream();
            f.write(0x80 | opcode);
            if (payload.length < 126) {
                f.write(payload.length);
            } else if (payload.length < 65536) {
                f.write(126);
                f.write(payload.length >> 8);
                f.write(payload.length);
            } else {
                f.write(127);
                for (int i = 7; i >= 0; i--) {
                    f.write((int) ((long) payload.length >> (8 * i)));
                }
            }
            f.write(payload);
            out.write(f.toByteArray());
            out.flush();
        }

        synchronized void close() throws IOException {
            if (!closed) {
                frame(0x8, new byte[] {0x03, (byte) 0xE8});
                closed = true;
            }
        }
    }
}
