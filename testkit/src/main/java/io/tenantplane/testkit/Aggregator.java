package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The API aggregation layer: requests under {@code /apis/<group>/<version>} of an {@code APIService} with a
 * {@code spec.service} are proxied to that service, as kube-apiserver's aggregator does
 * ({@code staging/src/k8s.io/kube-aggregator/pkg/apiserver/handler_proxy.go}):
 * <ul>
 *   <li>where: the Service is resolved as {@code --enable-aggregator-routing=false} resolves it
 *       ({@code apiserver/pkg/util/proxy/proxy.go} {@code ResolveCluster}): an {@code ExternalName} Service to
 *       {@code <externalName>:<spec.service.port>}. A Service with a cluster IP would be dialled at that IP, which no
 *       test network routes: answered 503 with that said;</li>
 *   <li>TLS: the server name {@code <service>.<namespace>.svc}, verified against {@code spec.caBundle} (unless
 *       {@code insecureSkipTLSVerify}), and this server's proxy client certificate
 *       ({@link KubeApiServer.Builder#proxyClient}, kube-apiserver's {@code --proxy-client-cert-file}) when it has
 *       one;</li>
 *   <li>who: the caller's identity in {@code X-Remote-User} and {@code X-Remote-Group}
 *       ({@code transport.NewAuthProxyRoundTripper}), any such header the caller sent removed first, and its
 *       {@code Authorization} header not passed on. This server authenticates no one: every caller is what a k3s
 *       admin kubeconfig is, user {@code system:admin} in group {@code system:masters} (and
 *       {@code system:authenticated});</li>
 *   <li>a backend that cannot be reached answers 503 ("service unavailable"), as the proxy's error responder
 *       does.</li>
 * </ul>
 * The availability controller is not modelled: an APIService's status stays as written.
 */
final class Aggregator {
    static final String USER = "system:admin";
    static final List<String> GROUPS = List.of("system:masters", "system:authenticated");

    private final Store store;
    private final Registry registry;
    private final javax.net.ssl.KeyManager[] proxyClient;

    Aggregator(Store store, Registry registry, javax.net.ssl.KeyManager[] proxyClient) {
        this.store = store;
        this.registry = registry;
        this.proxyClient = proxyClient;
    }

    /** The APIService with a service that serves {@code group/version}, or null. */
    JsonObject remote(String group, String version) {
        ResourceType t = registry.find("apiregistration.k8s.io", "v1", "apiservices");
        if (t == null) {
            return null;
        }
        try {
            JsonObject s = store.get(t, null, version + "." + group);
            return Json.obj(Json.obj(s, "spec"), "service") == null ? null : s;
        } catch (ApiError e) {
            return null;
        }
    }

    /** Group to versions of every APIService with a service, for discovery. */
    Map<String, List<String>> groupVersions() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        ResourceType t = registry.find("apiregistration.k8s.io", "v1", "apiservices");
        if (t == null) {
            return out;
        }
        for (JsonObject s : store.list(t, null, null, null, 0, null).items()) {
            JsonObject spec = Json.obj(s, "spec");
            if (Json.obj(spec, "service") != null && Json.str(spec, "group") != null) {
                out.computeIfAbsent(Json.str(spec, "group"), g -> new ArrayList<>()).add(Json.str(spec, "version"));
            }
        }
        return out;
    }

    /** Proxies {@code ex} to the service of {@code apiService}; the status code sent. */
    int proxy(HttpExchange ex, JsonObject apiService) throws IOException {
        JsonObject spec = Json.obj(apiService, "spec");
        JsonObject ref = Json.obj(spec, "service");
        String ns = Json.str(ref, "namespace");
        String name = Json.str(ref, "name");
        int port = ref.has("port") ? ref.get("port").getAsInt() : 443;
        JsonObject service;
        try {
            service = store.get(registry.find("", "v1", "services"), ns, name);
        } catch (ApiError e) {
            return unavailable(ex, "service unavailable");
        }
        JsonObject serviceSpec = Json.obj(service, "spec");
        if (!"ExternalName".equals(Json.str(serviceSpec, "type"))) {
            return unavailable(ex, "service unavailable: the testkit cannot route to Service " + ns + "/" + name
                    + "'s cluster IP; an ExternalName Service is routed");
        }
        String host = Json.str(serviceSpec, "externalName");
        String serverName = name + "." + ns + ".svc";
        byte[] body = ex.getRequestBody().readAllBytes();
        Response response;
        try {
            response = call(host, port, serverName, spec, ex, body);
        } catch (IOException | java.security.GeneralSecurityException e) {
            return unavailable(ex, "service unavailable");
        }
        if (response.contentType != null) {
            ex.getResponseHeaders().set("Content-Type", response.contentType);
        }
        ex.sendResponseHeaders(response.code, response.body.length == 0 ? -1 : response.body.length);
        if (response.body.length > 0) {
            ex.getResponseBody().write(response.body);
        }
        return response.code;
    }

    private static int unavailable(HttpExchange ex, String message) throws IOException {
        byte[] text = (message + "\n").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        ex.sendResponseHeaders(503, text.length);
        ex.getResponseBody().write(text);
        return 503;
    }

    private record Response(int code, String contentType, byte[] body) {
    }

    private Response call(String host, int port, String serverName, JsonObject spec, HttpExchange ex, byte[] body)
            throws IOException, java.security.GeneralSecurityException {
        SSLContext tls = context(spec);
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress(host, port), 5_000);
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, serverName, port, true)) {
            SSLParameters params = socket.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName(serverName)));
            if (!Json.bool(spec, "insecureSkipTLSVerify")) {
                params.setEndpointIdentificationAlgorithm("HTTPS");
            }
            socket.setSSLParameters(params);
            socket.setSoTimeout(30_000);
            socket.startHandshake();
            StringBuilder head = new StringBuilder();
            String target = ex.getRequestURI().getRawPath()
                    + (ex.getRequestURI().getRawQuery() == null ? "" : "?" + ex.getRequestURI().getRawQuery());
            head.append(ex.getRequestMethod()).append(' ').append(target).append(" HTTP/1.1\r\n");
            head.append("Host: ").append(host).append(':').append(port).append("\r\n");
            for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
                String key = h.getKey().toLowerCase(Locale.ROOT);
                if (key.equals("authorization") || key.equals("host") || key.equals("connection")
                        || key.equals("content-length") || key.startsWith("x-remote-")
                        || key.startsWith("impersonate-")) {
                    continue;
                }
                for (String v : h.getValue()) {
                    head.append(h.getKey()).append(": ").append(v).append("\r\n");
                }
            }
            head.append("X-Remote-User: ").append(USER).append("\r\n");
            for (String g : GROUPS) {
                head.append("X-Remote-Group: ").append(g).append("\r\n");
            }
            head.append("Content-Length: ").append(body.length).append("\r\n");
            head.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return read(socket.getInputStream());
        }
    }

    private SSLContext context(JsonObject spec) throws IOException, java.security.GeneralSecurityException {
        javax.net.ssl.TrustManager[] trust;
        if (Json.bool(spec, "insecureSkipTLSVerify")) {
            trust = new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }};
        } else {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            String bundle = Json.str(spec, "caBundle");
            if (bundle != null) {
                int i = 0;
                for (var c : CertificateFactory.getInstance("X.509").generateCertificates(
                        new java.io.ByteArrayInputStream(Base64.getDecoder().decode(bundle)))) {
                    store.setCertificateEntry("ca" + i++, c);
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            trust = tmf.getTrustManagers();
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(proxyClient, trust, null);
        return ctx;
    }

    /** Reads one HTTP/1.1 response: its status, content type and body (by length, chunked, or to the end). */
    static Response read(InputStream raw) throws IOException {
        InputStream in = new java.io.BufferedInputStream(raw);
        String status = line(in);
        if (status == null || !status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + status);
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        String contentType = null;
        long length = -1;
        boolean chunked = false;
        for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(colon + 1).trim();
            switch (key) {
                case "content-type" -> contentType = value;
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                default -> {
                }
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (String size = line(in); size != null; size = line(in)) {
                int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                if (n == 0) {
                    break;
                }
                body.write(in.readNBytes(n));
                line(in);
            }
        } else if (length >= 0) {
            body.write(in.readNBytes((int) length));
        } else {
            in.transferTo(body);
        }
        return new Response(code, contentType, body.toByteArray());
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return c == -1 && b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
}
