package io.tenantplane.service;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A minimal OTLP/HTTP trace receiver on loopback, and the standard OpenTelemetry settings that point the service at
 * it, set before the CDI container starts (declare it before {@code @HelidonTest}).
 */
final class OtlpCollectorExtension implements BeforeAllCallback, AfterAllCallback {

    /** One export request as received. */
    record Export(String path, String contentType, byte[] body) {
        boolean mentions(String text) {
            return new String(body, StandardCharsets.ISO_8859_1)
                    .contains(new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
        }
    }

    static final List<Export> EXPORTS = new CopyOnWriteArrayList<>();
    private static HttpServer server;
    private static Map<String, String> properties;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        EXPORTS.clear();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            EXPORTS.add(new Export(exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"), body));
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        properties = Map.of(
                "otel.traces.exporter", "otlp",
                "otel.exporter.otlp.protocol", "http/protobuf",
                "otel.exporter.otlp.endpoint", "http://127.0.0.1:" + server.getAddress().getPort(),
                "otel.bsp.schedule.delay", "100");
        properties.forEach(System::setProperty);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        properties.keySet().forEach(System::clearProperty);
        server.stop(0);
    }
}
