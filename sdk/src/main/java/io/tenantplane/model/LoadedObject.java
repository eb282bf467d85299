package io.tenantplane.model;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One Kubernetes object read from a manifest file.
 *
 * @param file          the file it came from (or the name given to in-memory content)
 * @param documentIndex the 0-based index of the YAML document in the file (0 for JSON); items of a {@code List}
 *                      share their document's index
 * @param object        the object as a gson tree, exactly as written
 */
public record LoadedObject(Path file, int documentIndex, JsonObject object) {

    public LoadedObject {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(object, "object");
    }

    /** {@code apiVersion}, or null. */
    public String apiVersion() {
        return Json.string(object, "apiVersion");
    }

    /** {@code kind}, or null. */
    public String kind() {
        return Json.string(object, "kind");
    }

    /** {@code metadata.name}, or null. */
    public String name() {
        return Json.string(object, "metadata", "name");
    }

    /** {@code metadata.namespace}, or null. */
    public String namespace() {
        return Json.string(object, "metadata", "namespace");
    }

    /**
     * Where the object came from, for messages: {@code file (Kind namespace/name)}, with the document number when it
     * is not the first, e.g. {@code all.yaml (document 3, SyncPolicy team-dev/default)}.
     */
    public String describe() {
        String id = (kind() == null ? "object" : kind()) + " "
                + (namespace() == null ? "" : namespace() + "/") + (name() == null ? "<no name>" : name());
        return file + " (" + (documentIndex > 0 ? "document " + (documentIndex + 1) + ", " : "") + id + ")";
    }
}
