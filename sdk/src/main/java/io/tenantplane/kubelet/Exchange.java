package io.tenantplane.kubelet;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 request on a TLS connection of the kubelet endpoint, and its answer. A connection is kept for the
 * caller's next request (as Go's transport, kube-apiserver's, reuses it) after an answer of known length or a chunked
 * one; a followed log is delimited by closing the connection (RFC 9112 §6.3), and a connection upgraded to a stream
 * protocol is handed over as it is. Owning the socket is what
 * lets the endpoint see a caller leave while the host sends nothing ({@link #onClientGone}), and upgrade a
 * connection, neither of which the JDK's HTTP server allows.
 */
final class Exchange implements Closeable {

    private static final int MAX_HEAD = 16 * 1024;
    private static final Map<Integer, String> PHRASES = Map.ofEntries(Map.entry(101, "Switching Protocols"),
            Map.entry(200, "OK"), Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"),
            Map.entry(403, "Forbidden"), Map.entry(404, "Not Found"), Map.entry(405, "Method Not Allowed"),
            Map.entry(429, "Too Many Requests"), Map.entry(500, "Internal Server Error"),
            Map.entry(501, "Not Implemented"), Map.entry(502, "Bad Gateway"), Map.entry(503, "Service Unavailable"));

    final SSLSocket socket;
    final String method;
    final String path;
    final String rawQuery;
    private final Map<String, String> headers;
    final InputStream in;
    final OutputStream out;
    private boolean answered;
    private boolean keepAlive;

    private Exchange(SSLSocket socket, String method, String path, String rawQuery, Map<String, String> headers,
                     InputStream in, OutputStream out, boolean http11) {
        this.keepAlive = http11 && method.equals("GET") && !"close".equalsIgnoreCase(headers.get("connection"))
                && !headers.containsKey("upgrade") && !headers.containsKey("transfer-encoding")
                && (headers.get("content-length") == null || headers.get("content-length").equals("0"));
        this.socket = socket;
        this.method = method;
        this.path = path;
        this.rawQuery = rawQuery;
        this.headers = headers;
        this.in = in;
        this.out = out;
    }

    /**
     * Reads the next request head from the connection's {@code in}; null when the caller sent none (closed, or not
     * HTTP).
     */
    static Exchange read(SSLSocket socket, InputStream in, OutputStream out) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            if (head.size() > MAX_HEAD) {
                throw new IOException("request head larger than " + MAX_HEAD + " bytes");
            }
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3))
                    ? state + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] requestLine = lines[0].split(" ");
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = lines[i].substring(colon + 1).trim();
                headers.merge(name, value, (a, b) -> a + ", " + b);
            }
        }
        String target = requestLine[1];
        int q = target.indexOf('?');
        return new Exchange(socket, requestLine[0], q < 0 ? target : target.substring(0, q),
                q < 0 ? "" : target.substring(q + 1), headers, in, out, requestLine[2].equals("HTTP/1.1"));
    }

    /** A request header (case-insensitive), or null. */
    String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The query parameters, each with its first value, and every value of each. */
    Map<String, List<String>> query() {
        Map<String, List<String>> q = new LinkedHashMap<>();
        if (rawQuery.isEmpty()) {
            return q;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            q.computeIfAbsent(k, x -> new java.util.ArrayList<>()).add(v);
        }
        return q;
    }

    /** The first value of each query parameter. */
    Map<String, String> firstQuery() {
        Map<String, String> q = new HashMap<>();
        query().forEach((k, v) -> q.put(k, v.get(0)));
        return q;
    }

    /** The client's certificate, when it presented one. */
    Optional<X509Certificate> peer() {
        try {
            Certificate[] chain = socket.getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate c ? Optional.of(c) : Optional.empty();
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
    }

    /** Answers with a plain-text body, as a kubelet answers errors. */
    void text(int code, String message) throws IOException {
        byte[] body = (message + "\n").getBytes(StandardCharsets.UTF_8);
        head(code, Map.of("Content-Type", "text/plain; charset=utf-8", "Content-Length",
                String.valueOf(body.length)));
        out.write(body);
        out.flush();
    }

    /** Starts a body of unknown length, delimited by closing the connection. */
    OutputStream stream(String contentType) throws IOException {
        keepAlive = false;
        head(200, Map.of("Content-Type", contentType));
        return out;
    }

    /**
     * Starts a body of unknown length that ends before the connection does: chunked when the connection is kept,
     * else delimited by closing it. Closing the returned stream ends the body, not the connection.
     */
    OutputStream body(String contentType) throws IOException {
        if (!keepAlive) {
            return stream(contentType);
        }
        head(200, Map.of("Content-Type", contentType, "Transfer-Encoding", "chunked"));
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (len > 0) {
                    out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(b, off, len);
                    out.write('\r');
                    out.write('\n');
                }
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
        };
    }

    /** Whether the connection serves another request after this one. */
    boolean keepAlive() {
        return keepAlive;
    }

    /** This answer ends the connection. */
    void closeAfter() {
        keepAlive = false;
    }

    /** Writes the status line and headers (and {@code Connection: close} unless upgrading). */
    void head(int code, Map<String, String> fields) throws IOException {
        if (answered) {
            throw new IllegalStateException("already answered");
        }
        answered = true;
        StringBuilder b = new StringBuilder("HTTP/1.1 ").append(code).append(' ')
                .append(PHRASES.getOrDefault(code, "Status")).append("\r\n");
        fields.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        if (code != 101 && !keepAlive) {
            b.append("Connection: close\r\n");
        }
        b.append("\r\n");
        out.write(b.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }


    /**
     * Runs {@code gone} once the caller closes its side (or the connection breaks), watching on a virtual thread: for
     * a request without a body, as a log stream is, anything read after the head means the caller went away.
     */
    void onClientGone(Runnable gone) {
        keepAlive = false;
        Thread.ofVirtual().name("tenantplane-kubelet-watch").start(() -> {
            try {
                socket.setSoTimeout(0);
                while (in.read() >= 0) {
                    // a caller that sends more on a GET is ignored until it closes
                }
            } catch (SocketTimeoutException e) {
                return;
            } catch (IOException e) {
                // broken: gone as well
            }
            gone.run();
        });
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing left to tell the caller
        }
    }
}
