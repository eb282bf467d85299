package io.tenantplane.kubelet;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;

/**
 * Exec, attach and port-forward into a tenant Pod: the tenant API server's SPDY/3.1 connection (the stream protocol a
 * kubelet speaks, {@code k8s.io/kubelet/pkg/cri/streaming}) relayed to the host copy of the Pod through the host API's
 * WebSocket subresources ({@code pods/exec}, {@code pods/attach}, {@code pods/portforward}; channel protocols
 * {@code v5.channel.k8s.io}/{@code v4.channel.k8s.io}).
 *
 * <p>Exec and attach, stream protocol {@code v4.channel.k8s.io} toward the tenant API: the caller opens an
 * {@code error} stream, and {@code stdin}, {@code stdout}, {@code stderr} and {@code resize} as its query asks
 * ({@code input}, {@code output}, {@code error}, {@code tty}); each is answered with SYN_REPLY. Once all have come
 * (30 s at most, the kubelet's stream creation timeout), the host is asked with the same command, container and
 * streams. stdin, stdout, stderr and resize messages are passed on as they come; the host's status (a
 * {@code metav1.Status}, with the exit code in its causes) is written to the error stream as it is, which is how the
 * exit code reaches the user. stdin's end is passed on with v5's close signal when the host speaks v5.
 *
 * <p>Port-forward, protocol {@code portforward.k8s.io}: the caller opens a {@code data} and an {@code error} stream
 * per connection, named by {@code requestid} and {@code port}; each connection becomes one host port-forward
 * WebSocket for that port, whose data and error channels (after the two bytes of port number each starts with) go to
 * the caller's data and error streams.
 */
final class StreamRelay {

    private static final System.Logger LOG = System.getLogger(StreamRelay.class.getName());
    static final String EXEC_PROTOCOL = "v4.channel.k8s.io";
    static final String PORT_FORWARD_PROTOCOL = "portforward.k8s.io";
    private static final Duration STREAM_CREATION_TIMEOUT = Duration.ofSeconds(30);
    private static final String[] AUTH = {"BearerToken"};

    /** What the relay reports when the connection ends. */
    record Result(int code, String reason, String message) {
    }

    private StreamRelay() {
    }

    /** The stream protocol to speak, from the caller's {@code X-Stream-Protocol-Version}; null when none fits. */
    static String negotiate(Exchange ex, String verb) {
        String offered = ex.header("X-Stream-Protocol-Version");
        String want = verb.equals("portForward") ? PORT_FORWARD_PROTOCOL : EXEC_PROTOCOL;
        if (offered == null) {
            return null;
        }
        for (String p : offered.split(",")) {
            if (p.strip().equals(want)) {
                return want;
            }
        }
        return null;
    }

    // ------------------------------------------------------------ exec and attach

    static Result execOrAttach(Exchange ex, Stream tracker, String verb, String container, String hostNs,
                               String hostPod, ApiClient host, OkHttpClient http) throws IOException {
        Map<String, List<String>> q = ex.query();
        boolean stdin = flag(q, "input");
        boolean stdout = flag(q, "output");
        boolean stderr = flag(q, "error");
        boolean tty = flag(q, "tty");
        List<String> command = q.getOrDefault("command", List.of());
        if (verb.equals("exec") && command.isEmpty()) {
            ex.text(400, "you must specify at least one command for the container");
            return new Result(400, "NoCommand", "exec without a command");
        }
        ex.head(101, Map.of("Connection", "Upgrade", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version",
                EXEC_PROTOCOL));
        Spdy.Writer out = new Spdy.Writer(ex.out);
        Spdy.Reader in = new Spdy.Reader(ex.in);
        Map<String, Integer> streams = new ConcurrentHashMap<>();
        List<String> expected = new ArrayList<>(List.of("error"));
        if (stdin) {
            expected.add("stdin");
        }
        if (stdout) {
            expected.add("stdout");
        }
        if (stderr && !tty) {
            expected.add("stderr");
        }
        if (tty) {
            expected.add("resize");
        }
        CountDownLatch ready = new CountDownLatch(expected.size());
        CompletableFuture<WebSocket> upstream = new CompletableFuture<>();
        CompletableFuture<Result> done = new CompletableFuture<>();
        Map<Integer, String> types = new ConcurrentHashMap<>();
        // The host's stream protocol, once its WebSocket is open (stdin's end can be passed on only with v5).
        CompletableFuture<String> hostProtocol = new CompletableFuture<>();
        // The host's last status message: set by the listener, read when the stream ends.
        String[] lastStatus = new String[1];
        Thread reader = Thread.ofVirtual().name("tenantplane-kubelet-spdy").start(() -> {
            try {
                relay(in, out, tracker, new Frames() {
                    @Override
                    public void stream(Spdy.Control syn) {
                        String type = syn.headers().getOrDefault("streamtype", "");
                        types.put(syn.stream(), type);
                        if (streams.putIfAbsent(type, syn.stream()) == null && expected.contains(type)) {
                            ready.countDown();
                        }
                    }

                    @Override
                    public boolean reset(Spdy.Control c) {
                        return c.type() != Spdy.GOAWAY && !"error".equals(types.get(c.stream()));
                    }

                    @Override
                    public void data(Spdy.Data d) throws Exception {
                        String type = types.getOrDefault(d.stream(), "");
                        WebSocket ws = upstream.getNow(null);
                        if (ws == null) {
                            ws = upstream.get(STREAM_CREATION_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
                        }
                        if (d.bytes().length > 0 && (type.equals("stdin") || type.equals("resize"))) {
                            ws.send(channel(type.equals("stdin") ? 0 : 4, d.bytes()));
                        }
                        if (d.fin() && type.equals("stdin")
                                && hostProtocol.get(STREAM_CREATION_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                                .startsWith("v5.")) {
                            ws.send(ByteString.of((byte) 255, (byte) 0));
                        }
                    }
                });
                // The caller ended the connection, or reset its error stream or sent GOAWAY.
                done.complete(new Result(101, "CallerClosed", "the caller closed the connection"));
            } catch (Exception e) {
                done.complete(new Result(101, "CallerGone", "the caller's connection ended: " + e.getMessage()));
            }
        });
        try {
            if (!ready.await(STREAM_CREATION_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                return new Result(101, "StreamsMissing", "the caller did not open the streams " + expected
                        + " within " + STREAM_CREATION_TIMEOUT.toSeconds() + "s; it opened " + streams.keySet());
            }
            Map<String, List<String>> params = new LinkedHashMap<>();
            params.put("container", List.of(container));
            if (verb.equals("exec")) {
                params.put("command", command);
            }
            params.put("stdin", List.of(String.valueOf(stdin)));
            params.put("stdout", List.of(String.valueOf(stdout)));
            params.put("stderr", List.of(String.valueOf(stderr && !tty)));
            params.put("tty", List.of(String.valueOf(tty)));
            String path = "/api/v1/namespaces/" + hostNs + "/pods/" + hostPod + "/" + verb;
            WebSocket ws = connect(host, http, path, params, "v5.channel.k8s.io,v4.channel.k8s.io",
                    new WebSocketListener() {
                        @Override
                        public void onOpen(WebSocket webSocket, Response response) {
                            String p = response.header("Sec-WebSocket-Protocol");
                            hostProtocol.complete(p == null ? "" : p);
                        }

                        @Override
                        public void onMessage(WebSocket webSocket, ByteString bytes) {
                            tracker.progress();
                            if (bytes.size() == 0) {
                                return;
                            }
                            int channel = bytes.getByte(0) & 0xFF;
                            String type = switch (channel) {
                                case 1 -> "stdout";
                                case 2 -> "stderr";
                                case 3 -> "error";
                                default -> null;
                            };
                            Integer id = type == null ? null : streams.get(type);
                            if (id == null || bytes.size() == 1) {
                                return;
                            }
                            byte[] data = bytes.substring(1).toByteArray();
                            try {
                                out.data(id, data, 0, data.length, false);
                            } catch (IOException e) {
                                done.complete(new Result(101, "CallerGone", "writing to the caller failed: "
                                        + e.getMessage()));
                            }
                            if (type.equals("error")) {
                                lastStatus[0] = new String(data, StandardCharsets.UTF_8);
                            }
                        }

                        @Override
                        public void onClosing(WebSocket webSocket, int code, String reason) {
                            webSocket.close(1000, null);
                            done.complete(result(lastStatus[0]));
                        }

                        @Override
                        public void onClosed(WebSocket webSocket, int code, String reason) {
                            done.complete(result(lastStatus[0]));
                        }

                        @Override
                        public void onFailure(WebSocket webSocket, Throwable t, Response response) {
                            hostProtocol.complete("");
                            String why = response != null ? "the host API answered " + response.code() + ": "
                                    + body(response) : t.toString();
                            if (lastStatus[0] == null) {
                                writeFailure(out, streams.get("error"), verb + " failed on the host: " + why);
                            }
                            done.complete(lastStatus[0] != null ? result(lastStatus[0])
                                    : new Result(101, "HostRefused", why));
                        }
                    });
            upstream.complete(ws);
            tracker.onClose(() -> ws.cancel());
            Result r = done.join();
            ws.cancel();
            // End every stream the caller waits on, then the connection.
            for (String type : List.of("stdout", "stderr", "error")) {
                Integer id = streams.get(type);
                if (id != null) {
                    try {
                        out.data(id, new byte[0], 0, 0, true);
                    } catch (IOException ignored) {
                        // the caller is gone
                    }
                }
            }
            try {
                out.goAway(0);
            } catch (IOException ignored) {
                // the caller is gone
            }
            return r;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(101, "Interrupted", "the endpoint is shutting down");
        } finally {
            reader.interrupt();
        }
    }

    private static Result result(String status) {
        if (status == null) {
            return new Result(101, "Ended", "the host closed the stream without a status");
        }
        try {
            JsonObject s = JsonParser.parseString(status).getAsJsonObject();
            String st = s.has("status") ? s.get("status").getAsString() : "";
            if (st.equals("Success")) {
                return new Result(101, "Exited", "exit code 0");
            }
            String reason = s.has("reason") ? s.get("reason").getAsString() : "Failure";
            String message = s.has("message") ? s.get("message").getAsString() : status;
            return new Result(101, reason, message);
        } catch (RuntimeException e) {
            return new Result(101, "Ended", status);
        }
    }

    private static void writeFailure(Spdy.Writer out, Integer errorStream, String message) {
        if (errorStream == null) {
            return;
        }
        JsonObject s = new JsonObject();
        s.add("metadata", new JsonObject());
        s.addProperty("status", "Failure");
        s.addProperty("message", message);
        s.addProperty("reason", "InternalError");
        s.addProperty("code", 500);
        byte[] b = s.toString().getBytes(StandardCharsets.UTF_8);
        try {
            out.data(errorStream, b, 0, b.length, false);
        } catch (IOException ignored) {
            // the caller is gone
        }
    }

    // ------------------------------------------------------------ the caller's frames

    /** What a relay does with the caller's SPDY frames; {@link #relay} answers PINGs and SYN_STREAMs itself. */
    private interface Frames {
        /** A stream the caller opened (already answered with SYN_REPLY). */
        void stream(Spdy.Control syn) throws Exception;

        /** A RST_STREAM or GOAWAY: false ends the relay. */
        boolean reset(Spdy.Control c) throws Exception;

        /** Bytes (and maybe the end) of one of the caller's streams. */
        void data(Spdy.Data d) throws Exception;
    }

    /**
     * Reads the caller's frames until its connection ends (true) or {@code frames} ends the relay (false). Every frame
     * counts as progress of the stream; SETTINGS, WINDOW_UPDATE and HEADERS need nothing (no flow control, see
     * {@link Spdy}).
     */
    private static boolean relay(Spdy.Reader in, Spdy.Writer out, Stream tracker, Frames frames) throws Exception {
        Spdy.Frame f;
        while ((f = in.read()) != null) {
            tracker.progress();
            if (f instanceof Spdy.Control c) {
                switch (c.type()) {
                    case Spdy.SYN_STREAM -> {
                        out.synReply(c.stream(), Map.of(), false);
                        frames.stream(c);
                    }
                    case Spdy.PING -> out.ping(c.value());
                    case Spdy.RST_STREAM, Spdy.GOAWAY -> {
                        if (!frames.reset(c)) {
                            return false;
                        }
                    }
                    default -> {
                        // nothing to do
                    }
                }
            } else if (f instanceof Spdy.Data d) {
                frames.data(d);
            }
        }
        return true;
    }

    /** A WebSocket message of the Kubernetes stream protocols: the channel byte, then the bytes. */
    private static ByteString channel(int channel, byte[] bytes) {
        byte[] msg = new byte[bytes.length + 1];
        msg[0] = (byte) channel;
        System.arraycopy(bytes, 0, msg, 1, bytes.length);
        return ByteString.of(msg);
    }

    // ------------------------------------------------------------ port-forward

    static Result portForward(Exchange ex, Stream tracker, String hostNs, String hostPod, ApiClient host,
                              OkHttpClient http) throws IOException {
        ex.head(101, Map.of("Connection", "Upgrade", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version",
                PORT_FORWARD_PROTOCOL));
        Spdy.Writer out = new Spdy.Writer(ex.out);
        Spdy.Reader in = new Spdy.Reader(ex.in);
        Map<Integer, String[]> streamInfo = new HashMap<>();  // stream id -> {type, requestid, port}
        Map<String, Forward> forwards = new HashMap<>();
        int[] connections = {0};
        try {
            relay(in, out, tracker, new Frames() {
                @Override
                public void stream(Spdy.Control syn) {
                    String type = syn.headers().getOrDefault("streamtype", "");
                    String request = syn.headers().getOrDefault("requestid", "");
                    String port = syn.headers().getOrDefault("port", "");
                    streamInfo.put(syn.stream(), new String[] {type, request, port});
                    Forward fw = forwards.computeIfAbsent(request, r -> new Forward());
                    if (type.equals("error")) {
                        fw.errorStream = syn.stream();
                    } else if (type.equals("data")) {
                        fw.dataStream = syn.stream();
                    }
                    if (fw.dataStream != 0 && fw.errorStream != 0 && fw.ws == null) {
                        connections[0]++;
                        fw.ws = openForward(host, http, hostNs, hostPod, port, fw, out, tracker);
                    }
                }

                @Override
                public boolean reset(Spdy.Control c) {
                    if (c.type() == Spdy.GOAWAY) {
                        return false;
                    }
                    String[] info = streamInfo.get(c.stream());
                    Forward fw = info == null ? null : forwards.get(info[1]);
                    if (fw != null && fw.ws != null) {
                        fw.ending = true;
                        fw.ws.close(1000, null);
                    }
                    return true;
                }

                @Override
                public void data(Spdy.Data d) {
                    String[] info = streamInfo.get(d.stream());
                    Forward fw = info == null ? null : forwards.get(info[1]);
                    if (fw == null || fw.ws == null || !"data".equals(info[0])) {
                        return;
                    }
                    if (d.bytes().length > 0) {
                        fw.ws.send(channel(0, d.bytes()));
                    }
                    if (d.fin()) {
                        fw.ending = true;
                        fw.ws.close(1000, null);
                    }
                }
            });
            return new Result(101, "Forwarded", connections[0] + " connection(s) forwarded");
        } catch (Exception e) {
            return new Result(101, "CallerGone", "the caller's connection ended after " + connections[0]
                    + " connection(s): " + e.getMessage());
        } finally {
            for (Forward fw : forwards.values()) {
                if (fw.ws != null) {
                    fw.ws.cancel();
                }
            }
        }
    }

    /** One forwarded connection: the caller's data and error streams and the host WebSocket for its port. */
    private static final class Forward {
        int dataStream;
        int errorStream;
        WebSocket ws;
        final boolean[] prefixed = new boolean[2];
        /** Set once the caller ended the connection: the host side closing after that is no error. */
        volatile boolean ending;
    }

    private static WebSocket openForward(ApiClient host, OkHttpClient http, String hostNs, String hostPod,
                                         String port, Forward fw, Spdy.Writer out, Stream tracker) {
        String path = "/api/v1/namespaces/" + hostNs + "/pods/" + hostPod + "/portforward";
        return connect(host, http, path, Map.of("ports", List.of(port)), "v4.channel.k8s.io",
                new WebSocketListener() {
                    @Override
                    public void onMessage(WebSocket webSocket, ByteString bytes) {
                        tracker.progress();
                        if (bytes.size() == 0) {
                            return;
                        }
                        int channel = bytes.getByte(0) & 0xFF;
                        if (channel > 1) {
                            return;
                        }
                        byte[] data = bytes.substring(1).toByteArray();
                        int skip = 0;
                        if (!fw.prefixed[channel]) {
                            // Each channel starts with the port number, two bytes, little-endian.
                            fw.prefixed[channel] = true;
                            skip = Math.min(2, data.length);
                        }
                        if (data.length > skip) {
                            try {
                                out.data(channel == 0 ? fw.dataStream : fw.errorStream, data, skip,
                                        data.length - skip, false);
                            } catch (IOException e) {
                                webSocket.cancel();
                            }
                        }
                    }

                    @Override
                    public void onClosing(WebSocket webSocket, int code, String reason) {
                        webSocket.close(1000, null);
                        end();
                    }

                    @Override
                    public void onFailure(WebSocket webSocket, Throwable t, Response response) {
                        if (fw.ending) {
                            end();
                            return;
                        }
                        String why = response != null ? "the host API answered " + response.code() + ": "
                                + body(response) : t.toString();
                        byte[] b = ("port-forward to port " + port + " failed on the host: " + why)
                                .getBytes(StandardCharsets.UTF_8);
                        try {
                            out.data(fw.errorStream, b, 0, b.length, false);
                        } catch (IOException ignored) {
                            // the caller is gone
                        }
                        end();
                    }

                    private void end() {
                        try {
                            out.data(fw.dataStream, new byte[0], 0, 0, true);
                            out.data(fw.errorStream, new byte[0], 0, 0, true);
                        } catch (IOException ignored) {
                            // the caller is gone
                        }
                    }
                });
    }

    // ------------------------------------------------------------ helpers

    private static WebSocket connect(ApiClient host, OkHttpClient http, String path,
                                     Map<String, List<String>> params, String protocols, WebSocketListener listener) {
        List<Pair> pairs = new ArrayList<>();
        params.forEach((k, vs) -> vs.forEach(v -> pairs.add(new Pair(k, v))));
        Map<String, String> headers = new HashMap<>();
        headers.put("Sec-WebSocket-Protocol", protocols);
        Request request;
        try {
            request = host.buildRequest(null, path, "GET", pairs, List.of(), null, headers, new HashMap<>(),
                    new HashMap<>(), AUTH, null);
        } catch (ApiException e) {
            throw new IllegalStateException("cannot build the host request: " + e.getMessage(), e);
        }
        return http.newWebSocket(request, listener);
    }

    private static String body(Response response) {
        try {
            String b = response.body() == null ? "" : response.body().string();
            try {
                JsonObject s = JsonParser.parseString(b).getAsJsonObject();
                return s.has("message") ? s.get("message").getAsString() : b;
            } catch (RuntimeException e) {
                return b.strip();
            }
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean flag(Map<String, List<String>> q, String key) {
        List<String> v = q.get(key);
        if (v == null || v.isEmpty()) {
            return false;
        }
        String s = v.get(0).toLowerCase(Locale.ROOT);
        return s.equals("1") || s.equals("true");
    }
}
