package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A minimal OpenAPI v3 ({@code /openapi/v3} and {@code /openapi/v3/api/v1}, {@code /openapi/v3/apis/G/V}).
 *
 * <p>kubectl 1.32 decides from it whether the server validates fields itself ({@code fieldValidation}); each
 * document lists the resources' PATCH operations with their {@code x-kubernetes-group-version-kind} and the
 * {@code fieldValidation} parameter, so kubectl sends {@code fieldValidation=Strict} and leaves validation to the
 * server instead of downloading {@code /openapi/v2}. Component schemas are not published: {@code kubectl explain}
 * and OpenAPI-driven strategic merge are unavailable, and kubectl falls back to its compiled-in patch strategies.
 * {@code /openapi/v2} is not served.
 */
final class OpenApi {
    private final Registry registry;

    OpenApi(Registry registry) {
        this.registry = registry;
    }

    /** The document at {@code path}, or null when there is none. */
    JsonElement serve(String path) {
        if (path.equals("/openapi/v3")) {
            JsonObject paths = new JsonObject();
            for (var e : registry.groupVersions().entrySet()) {
                for (String version : e.getValue()) {
                    String gv = e.getKey().isEmpty() ? "api/" + version : "apis/" + e.getKey() + "/" + version;
                    JsonObject doc = document(e.getKey(), version);
                    paths.add(gv, Json.object("serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + hash(doc)));
                }
            }
            return Json.object("paths", paths);
        }
        if (!path.startsWith("/openapi/v3/")) {
            return null;
        }
        String[] parts = path.substring("/openapi/v3/".length()).split("/");
        if (parts.length == 2 && parts[0].equals("api")) {
            return nonEmpty(document("", parts[1]));
        }
        if (parts.length == 3 && parts[0].equals("apis")) {
            return nonEmpty(document(parts[1], parts[2]));
        }
        return null;
    }

    private static JsonElement nonEmpty(JsonObject doc) {
        return doc.getAsJsonObject("paths").isEmpty() ? null : doc;
    }

    private JsonObject document(String group, String version) {
        JsonObject paths = new JsonObject();
        List<ResourceType> types = registry.inGroupVersion(group, version);
        for (ResourceType t : types) {
            String prefix = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
            String item = prefix + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural() + "/{name}";
            JsonObject gvk = Json.object("group", group, "version", version, "kind", t.kind());
            JsonArray parameters = new JsonArray();
            for (String p : List.of("dryRun", "fieldManager", "fieldValidation", "force")) {
                parameters.add(Json.object("name", p, "in", "query", "schema", Json.object("type", "string")));
            }
            JsonObject patch = Json.object("operationId", "patch" + t.kind(), "parameters", parameters,
                    "responses", Json.object("200", Json.object("description", "OK")),
                    "x-kubernetes-action", "patch", "x-kubernetes-group-version-kind", gvk);
            paths.add(item, Json.object("patch", patch));
        }
        return Json.object("openapi", "3.0.0", "info", Json.object("title", "Kubernetes", "version",
                "v" + Discovery.MAJOR + "." + Discovery.MINOR + ".0"), "paths", paths,
                "components", Json.object("schemas", new JsonObject()));
    }

    private static String hash(JsonObject doc) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-512").digest(Json.text(doc).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).toUpperCase(java.util.Locale.ROOT);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
