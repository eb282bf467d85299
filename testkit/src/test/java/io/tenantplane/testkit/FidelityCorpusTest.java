package io.tenantplane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The fidelity corpus ({@code src/test/resources/fidelity/corpus.yaml}): requests with the response a real API
 * server gives, each citing the upstream code it follows, run against a fresh in-process server.
 */
class FidelityCorpusTest {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z]+|(\\d+) x)}");
    private static final Pattern WARNING = Pattern.compile("299 - \"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @org.junit.jupiter.api.Test
    void docsTestingNamesTheSizeOfTheCorpus() throws java.io.IOException {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "testing.md"))
                .replaceAll("\\s+", " ");
        assertTrue(doc.contains("corpus.yaml` (" + corpus().size() + " requests,"),
                "docs/testing.md gives the corpus as (" + corpus().size() + " requests, ...)");
    }

    static List<JsonObject> corpus() {
        try (InputStream in = FidelityCorpusTest.class.getResourceAsStream("/fidelity/corpus.yaml")) {
            Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            List<JsonObject> out = new ArrayList<>();
            Json.GSON.toJsonTree(tree).getAsJsonArray().forEach(e -> out.add(e.getAsJsonObject()));
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Stream<Named<JsonObject>> entries() {
        return corpus().stream().map(c -> Named.of(Json.str(c, "name"), c));
    }

    @Test
    void theCorpusHoldsAtLeastFortyRequestsEachWithItsUpstreamSource() {
        List<JsonObject> corpus = corpus();
        assertTrue(corpus.size() >= 40, "corpus entries: " + corpus.size());
        for (JsonObject c : corpus) {
            String upstream = Json.str(c, "upstream");
            assertNotNull(upstream, Json.str(c, "name"));
            assertTrue(upstream.matches("(staging/src/k8s\\.io|pkg/|plugin/).*\\.go.*"),
                    "upstream must name a kubernetes/kubernetes Go file: " + upstream);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void theServerAnswersAsARealApiServer(JsonObject entry) throws Exception {
        try (KubeApiServer server = KubeApiServer.builder().build().start()) {
            Map<String, String> vars = new HashMap<>();
            JsonArray given = Json.arr(entry, "given");
            if (given != null) {
                for (JsonElement g : given) {
                    JsonObject step = g.getAsJsonObject();
                    Response r = send(server, step, vars);
                    if (r.code() / 100 != 2) {
                        fail("given " + Json.str(step, "method") + " " + Json.str(step, "path") + " answered "
                                + r.code() + ": " + r.body());
                    }
                    JsonObject capture = Json.obj(step, "capture");
                    if (capture != null) {
                        for (String name : capture.keySet()) {
                            vars.put(name, at(r.json(), capture.get(name).getAsString()).getAsString());
                        }
                    }
                }
            }
            check(server, Json.obj(entry, "request"), Json.obj(entry, "expect"), vars);
            JsonObject then = Json.obj(entry, "then");
            if (then != null) {
                check(server, Json.obj(then, "request"), Json.obj(then, "expect"), vars);
            }
        }
    }

    private static void check(KubeApiServer server, JsonObject request, JsonObject expect, Map<String, String> vars)
            throws Exception {
        Response r = send(server, request, vars);
        String where = Json.str(request, "method") + " " + Json.str(request, "path") + " → "
                + (r.body().length() > 400 ? r.body().substring(0, 400) + "…" : r.body());
        assertEquals(expect.get("code").getAsInt(), r.code(), where);
        boolean json = r.body().isEmpty() || r.body().startsWith("{");
        JsonObject body = json ? r.json() : new JsonObject();
        if (expect.has("reason")) {
            JsonElement want = expect.get("reason");
            assertEquals(want.isJsonNull() ? null : want.getAsString(), Json.str(body, "reason"), where);
        }
        if (expect.has("message")) {
            // A plain-text answer (the aggregator's proxy errors, http.Error) is its message as it stands.
            String message = json ? Json.str(body, "message") : r.body();
            assertTrue(message != null && message.contains(Json.str(expect, "message")),
                    "message \"" + message + "\" lacks \"" + Json.str(expect, "message") + "\"");
        }
        if (expect.has("fields")) {
            List<String> want = new ArrayList<>();
            Json.arr(expect, "fields").forEach(f -> want.add(f.getAsString()));
            List<String> got = new ArrayList<>();
            JsonArray causes = Json.arr(Json.obj(body, "details"), "causes");
            if (causes != null) {
                causes.forEach(c -> got.add(Json.str(c.getAsJsonObject(), "field")));
            }
            assertEquals(want, got, where);
        }
        if (expect.has("warning")) {
            JsonElement want = expect.get("warning");
            if (want.isJsonNull()) {
                assertTrue(r.warnings().isEmpty(), "no Warning header expected: " + r.warnings());
            } else {
                assertTrue(r.warnings().stream().anyMatch(w -> w.contains(want.getAsString())),
                        "a Warning header with \"" + want.getAsString() + "\" expected: " + r.warnings());
            }
        }
        JsonObject values = Json.obj(expect, "body");
        if (values != null) {
            for (String path : values.keySet()) {
                JsonElement want = values.get(path);
                JsonElement got = at(body, path);
                if (want.isJsonNull()) {
                    assertTrue(got == null || got.isJsonNull(), path + " should be absent: " + where);
                } else if ("present".equals(want.getAsString())) {
                    assertTrue(got != null && !got.isJsonNull(), path + " should be present: " + where);
                } else if (want.getAsString().startsWith("in ")) {
                    assertTrue(got != null && inCidr(got.getAsString(), want.getAsString().substring(3)),
                            path + " = " + got + " should be " + want.getAsString());
                } else {
                    assertNotNull(got, path + " missing: " + where);
                    assertEquals(want.getAsString(), got.getAsString(), path + ": " + where);
                }
            }
        }
    }

    private record Response(int code, String body, List<String> warnings) {
        JsonObject json() {
            return body.isEmpty() ? new JsonObject() : Json.parseObject(body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static Response send(KubeApiServer server, JsonObject step, Map<String, String> vars) throws Exception {
        String method = Json.str(step, "method");
        String path = substitute(Json.str(step, "path"), vars);
        byte[] payload;
        if (step.has("rawBytes")) {
            int size = step.get("rawBytes").getAsInt();
            String head = "{\"metadata\":{\"name\":\"huge\"},\"data\":{\"k\":\"";
            String tail = "\"}}";
            payload = (head + "x".repeat(size - head.length() - tail.length()) + tail)
                    .getBytes(StandardCharsets.UTF_8);
        } else if (step.has("raw")) {
            payload = Json.str(step, "raw").getBytes(StandardCharsets.UTF_8);
        } else if (step.has("body")) {
            payload = substitute(Json.text(step.get("body")), vars).getBytes(StandardCharsets.UTF_8);
        } else {
            payload = new byte[0];
        }
        String contentType = step.has("contentType") ? Json.str(step, "contentType") : "application/json";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Accept", "application/json");
        if (payload.length > 0) {
            b.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofByteArray(payload));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        List<String> warnings = new ArrayList<>();
        for (String header : response.headers().allValues("Warning")) {
            // RFC 7234 warn-text, a quoted string: 299 - "text with \" escaped"
            Matcher m = WARNING.matcher(header);
            assertTrue(m.matches(), "a Warning header of the form 299 - \"text\": " + header);
            warnings.add(m.group(1).replaceAll("\\\\(.)", "$1"));
        }
        return new Response(response.statusCode(), response.body(), warnings);
    }

    private static String substitute(String text, Map<String, String> vars) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = m.group(2) != null ? "x".repeat(Integer.parseInt(m.group(2))) : vars.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("no captured value ${" + m.group(1) + "}");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The value at a dotted path with {@code [i]} indices; {@code \.} is a dot inside a key. */
    private static JsonElement at(JsonObject root, String path) {
        JsonElement cur = root;
        for (String part : path.split("(?<!\\\\)\\.")) {
            String key = part.replace("\\.", ".");
            Integer index = null;
            Matcher m = Pattern.compile("^(.*)\\[(\\d+)]$").matcher(key);
            if (m.matches()) {
                key = m.group(1);
                index = Integer.parseInt(m.group(2));
            }
            if (cur == null || !cur.isJsonObject()) {
                return null;
            }
            cur = cur.getAsJsonObject().get(key);
            if (index != null) {
                if (cur == null || !cur.isJsonArray() || cur.getAsJsonArray().size() <= index) {
                    return null;
                }
                cur = cur.getAsJsonArray().get(index);
            }
        }
        return cur;
    }

    private static boolean inCidr(String ip, String cidr) {
        String[] parts = cidr.split("/");
        long a = ServiceIps.parse(ip);
        long base = ServiceIps.parse(parts[0]);
        long mask = (0xffffffffL << (32 - Integer.parseInt(parts[1]))) & 0xffffffffL;
        return a >= 0 && (a & mask) == base;
    }
}
