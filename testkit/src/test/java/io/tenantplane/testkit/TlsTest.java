package io.tenantplane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API over TLS ({@code Builder.tls}), as a real kube-apiserver serves it, beside the plain listener. */
class TlsTest {

    /** A serving key and certificate for 127.0.0.1, made by the JDK's keytool. */
    private static KeyStore keyStore(Path dir) throws Exception {
        Path file = dir.resolve("serving.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "serving", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=testkit", "-ext", "SAN=ip:127.0.0.1", "-validity", "1", "-storetype", "PKCS12", "-keystore",
                file.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, "changeit".toCharArray());
        }
        return ks;
    }

    @Test
    void theApiIsServedOverTlsAsWellAsPlain(@TempDir Path dir) throws Exception {
        KeyStore ks = keyStore(dir);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext serving = SSLContext.getInstance("TLS");
        serving.init(kmf.getKeyManagers(), null, null);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);
        try (KubeApiServer server = KubeApiServer.builder().namespaces("default").tls(serving).build().start()) {
            assertTrue(server.httpsUrl().startsWith("https://127.0.0.1:"), server.httpsUrl());
            HttpResponse<String> overTls = HttpClient.newBuilder().sslContext(client).build().send(HttpRequest
                    .newBuilder(URI.create(server.httpsUrl() + "/api/v1/namespaces/default")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, overTls.statusCode(), overTls.body());
            assertTrue(overTls.body().contains("\"name\":\"default\""), overTls.body());
            HttpResponse<String> plain = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    server.url() + "/api/v1/namespaces/default")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, plain.statusCode());
        }
    }

    @Test
    void tlsIsRefusedWithStreamsAndWithoutIt() throws Exception {
        SSLContext any = SSLContext.getDefault();
        IllegalStateException both = assertThrows(IllegalStateException.class,
                () -> KubeApiServer.builder().tls(any).streams().build());
        assertTrue(both.getMessage().contains("streams"), both.getMessage());
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            assertThrows(IllegalStateException.class, server::httpsUrl);
        }
    }
}
