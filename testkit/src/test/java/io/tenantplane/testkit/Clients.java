package io.tenantplane.testkit;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/** Client-java plumbing shared by the tests. */
final class Clients {
    private Clients() {
    }

    /** A client for the server, built the way the other modules' tests build theirs. */
    static ApiClient client(KubeApiServer server) {
        ApiClient client;
        try {
            client = ClientBuilder.standard(false).setBasePath(server.url()).build();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        client.setHttpClient(client.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build());
        return client;
    }

    static V1Namespace namespace(String name) {
        return new V1Namespace().apiVersion("v1").kind("Namespace").metadata(new V1ObjectMeta().name(name));
    }

    static V1ConfigMap configMap(String ns, String name, Map<String, String> data) {
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(new V1ObjectMeta().namespace(ns).name(name)).data(data);
    }

    static void createNamespace(ApiClient client, String name) throws ApiException {
        new CoreV1Api(client).createNamespace(namespace(name)).execute();
    }

    /** A response read in full: the status code and the body. */
    record Raw(int code, String body) {
        com.google.gson.JsonObject json() {
            return com.google.gson.JsonParser.parseString(body).getAsJsonObject();
        }
    }

    /** Sends one request through the client's HTTP stack without any decoding; for what typed APIs cannot say. */
    static Raw raw(ApiClient client, String method, String pathAndQuery, String contentType, String body)
            throws java.io.IOException {
        okhttp3.Request.Builder request = new okhttp3.Request.Builder().url(client.getBasePath() + pathAndQuery);
        okhttp3.RequestBody requestBody = body == null ? null
                : okhttp3.RequestBody.create(body, okhttp3.MediaType.parse(contentType));
        request.method(method, requestBody);
        try (okhttp3.Response response = client.getHttpClient().newCall(request.build()).execute()) {
            return new Raw(response.code(), response.body() == null ? "" : response.body().string());
        }
    }

    /** Asserts that the call fails with this HTTP code and returns the exception for more checks. */
    static ApiException expectApiError(int code, Executable call) {
        ApiException e = assertThrows(ApiException.class, call);
        assertEquals(code, e.getCode(), () -> "unexpected code; body: " + e.getResponseBody());
        return e;
    }

    /** Waits (polling, bounded) until the condition holds. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }
}
