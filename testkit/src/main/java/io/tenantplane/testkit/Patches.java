package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch for built-in kinds. */
final class Patches {
    private Patches() {
    }

    // ---- RFC 7386 ----

    static JsonElement mergePatch(JsonElement target, JsonElement patch) {
        if (!patch.isJsonObject()) {
            return patch.deepCopy();
        }
        JsonObject result = target != null && target.isJsonObject() ? target.getAsJsonObject() : new JsonObject();
        for (Map.Entry<String, JsonElement> e : patch.getAsJsonObject().entrySet()) {
            if (e.getValue().isJsonNull()) {
                result.remove(e.getKey());
            } else {
                result.add(e.getKey(), mergePatch(result.get(e.getKey()), e.getValue()));
            }
        }
        return result;
    }

    // ---- RFC 6902 ----

    /** Applies the operations in order; a failed {@code test} or a missing path is a 422, as in the real server. */
    static JsonElement jsonPatch(JsonElement target, JsonElement ops) {
        if (!ops.isJsonArray()) {
            throw ApiError.badRequest("a JSON patch must be an array of operations");
        }
        JsonElement doc = target;
        for (JsonElement opElement : ops.getAsJsonArray()) {
            if (!opElement.isJsonObject()) {
                throw ApiError.badRequest("a JSON patch operation must be an object");
            }
            JsonObject op = opElement.getAsJsonObject();
            String kind = Json.str(op, "op");
            String path = Json.str(op, "path");
            if (kind == null || path == null) {
                throw ApiError.badRequest("a JSON patch operation needs \"op\" and \"path\": " + Json.text(op));
            }
            switch (kind) {
                case "add" -> doc = add(doc, path, value(op));
                case "remove" -> {
                    get(doc, path);
                    doc = remove(doc, path);
                }
                case "replace" -> {
                    // As the API server's json-patch (evanphx v4): replacing a missing key of an object adds it;
                    // client-java's updateStatus relies on this for objects that have no status yet.
                    if (exists(doc, path)) {
                        doc = remove(doc, path);
                    } else {
                        requireObjectParent(doc, path);
                    }
                    doc = add(doc, path, value(op));
                }
                case "move" -> {
                    String from = from(op);
                    JsonElement v = get(doc, from).deepCopy();
                    doc = remove(doc, from);
                    doc = add(doc, path, v);
                }
                case "copy" -> doc = add(doc, path, get(doc, from(op)).deepCopy());
                case "test" -> {
                    if (!Json.same(get(doc, path), value(op))) {
                        throw unprocessable("testing value " + path + " failed");
                    }
                }
                default -> throw ApiError.badRequest("unknown JSON patch operation \"" + kind + "\"");
            }
        }
        return doc;
    }

    private static JsonElement value(JsonObject op) {
        if (!op.has("value")) {
            throw ApiError.badRequest("JSON patch operation \"" + Json.str(op, "op") + "\" needs a \"value\"");
        }
        return op.get("value").deepCopy();
    }

    private static String from(JsonObject op) {
        String from = Json.str(op, "from");
        if (from == null) {
            throw ApiError.badRequest("JSON patch operation \"" + Json.str(op, "op") + "\" needs a \"from\"");
        }
        return from;
    }

    private static ApiError unprocessable(String message) {
        return new ApiError(422, "Invalid", message, null);
    }

    private static List<String> pointer(String path) {
        if (path.isEmpty()) {
            return List.of();
        }
        if (!path.startsWith("/")) {
            throw ApiError.badRequest("JSON pointer must start with '/': \"" + path + "\"");
        }
        List<String> parts = new ArrayList<>();
        for (String raw : path.substring(1).split("/", -1)) {
            parts.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return parts;
    }

    private static JsonElement get(JsonElement doc, String path) {
        JsonElement current = doc;
        for (String part : pointer(path)) {
            current = step(current, part, path);
        }
        return current;
    }

    private static JsonElement step(JsonElement current, String part, String path) {
        if (current != null && current.isJsonObject() && current.getAsJsonObject().has(part)) {
            return current.getAsJsonObject().get(part);
        }
        if (current != null && current.isJsonArray()) {
            int i = index(part, current.getAsJsonArray().size() - 1, path);
            return current.getAsJsonArray().get(i);
        }
        throw unprocessable("the path \"" + path + "\" does not exist");
    }

    private static int index(String part, int max, String path) {
        try {
            int i = Integer.parseInt(part);
            if (i < 0 || i > max) {
                throw unprocessable("index " + i + " is out of range in \"" + path + "\"");
            }
            return i;
        } catch (NumberFormatException e) {
            throw unprocessable("\"" + part + "\" is not an array index in \"" + path + "\"");
        }
    }

    private static boolean exists(JsonElement doc, String path) {
        try {
            get(doc, path);
            return true;
        } catch (ApiError e) {
            return false;
        }
    }

    private static void requireObjectParent(JsonElement doc, String path) {
        List<String> parts = pointer(path);
        if (parts.isEmpty()) {
            return;
        }
        JsonElement parent = doc;
        for (String part : parts.subList(0, parts.size() - 1)) {
            parent = step(parent, part, path);
        }
        if (!parent.isJsonObject()) {
            throw unprocessable("replace operation does not apply: doc is missing key: " + path);
        }
    }

    private static JsonElement add(JsonElement doc, String path, JsonElement value) {
        List<String> parts = pointer(path);
        if (parts.isEmpty()) {
            return value;
        }
        JsonElement parent = doc;
        for (String part : parts.subList(0, parts.size() - 1)) {
            parent = step(parent, part, path);
        }
        String last = parts.get(parts.size() - 1);
        if (parent.isJsonObject()) {
            parent.getAsJsonObject().add(last, value);
        } else if (parent.isJsonArray()) {
            JsonArray a = parent.getAsJsonArray();
            if (last.equals("-")) {
                a.add(value);
            } else {
                int i = index(last, a.size(), path);
                List<JsonElement> items = new ArrayList<>(a.asList());
                items.add(i, value);
                replaceAll(a, items);
            }
        } else {
            throw unprocessable("the path \"" + path + "\" does not exist");
        }
        return doc;
    }

    private static JsonElement remove(JsonElement doc, String path) {
        List<String> parts = pointer(path);
        if (parts.isEmpty()) {
            return JsonNull.INSTANCE;
        }
        JsonElement parent = doc;
        for (String part : parts.subList(0, parts.size() - 1)) {
            parent = step(parent, part, path);
        }
        String last = parts.get(parts.size() - 1);
        if (parent.isJsonObject() && parent.getAsJsonObject().has(last)) {
            parent.getAsJsonObject().remove(last);
        } else if (parent.isJsonArray()) {
            parent.getAsJsonArray().remove(index(last, parent.getAsJsonArray().size() - 1, path));
        } else {
            throw unprocessable("the path \"" + path + "\" does not exist");
        }
        return doc;
    }

    private static void replaceAll(JsonArray a, List<JsonElement> items) {
        while (!a.isEmpty()) {
            a.remove(a.size() - 1);
        }
        items.forEach(a::add);
    }

    // ---- strategic merge patch ----

    /**
     * Applies a strategic merge patch as {@code k8s.io/apimachinery/pkg/util/strategicpatch} does for the fields our
     * built-in kinds use: lists with a well-known {@code patchMergeKey} merge by that key, {@code metadata.finalizers}
     * merges as a set, other lists replace; the directives {@code $patch}, {@code $retainKeys},
     * {@code $setElementOrder/} and {@code $deleteFromPrimitiveList/} are honoured.
     */
    static JsonObject strategicMergePatch(JsonObject original, JsonObject patch, ResourceType type) {
        JsonObject result = smpObject(original, patch, "", type);
        return result == null ? new JsonObject() : result;
    }

    private static JsonObject smpObject(JsonObject original, JsonObject patch, String path, ResourceType type) {
        String directive = Json.str(patch, "$patch");
        if ("replace".equals(directive)) {
            return stripDirectives(patch.deepCopy()).getAsJsonObject();
        }
        if ("delete".equals(directive)) {
            return null;
        }
        JsonObject result = original == null ? new JsonObject() : original;
        for (Map.Entry<String, JsonElement> e : patch.entrySet()) {
            String key = e.getKey();
            JsonElement value = e.getValue();
            if (key.startsWith("$")) {
                continue;
            }
            String childPath = path.isEmpty() ? key : path + "." + key;
            if (value.isJsonNull()) {
                result.remove(key);
            } else if (value.isJsonObject()) {
                JsonElement current = result.get(key);
                JsonObject merged = smpObject(current != null && current.isJsonObject() ? current.getAsJsonObject()
                        : null, value.getAsJsonObject(), childPath, type);
                if (merged == null) {
                    result.remove(key);
                } else {
                    result.add(key, merged);
                }
            } else if (value.isJsonArray()) {
                JsonArray current = Json.arr(result, key);
                result.add(key, smpList(current, value.getAsJsonArray(), childPath, type));
            } else {
                result.add(key, value.deepCopy());
            }
        }
        for (Map.Entry<String, JsonElement> e : patch.entrySet()) {
            String key = e.getKey();
            if (key.startsWith("$deleteFromPrimitiveList/") && e.getValue().isJsonArray()) {
                JsonArray list = Json.arr(result, key.substring("$deleteFromPrimitiveList/".length()));
                if (list != null) {
                    for (JsonElement doomed : e.getValue().getAsJsonArray()) {
                        list.asList().removeIf(item -> Json.same(item, doomed));
                    }
                }
            } else if (key.startsWith("$setElementOrder/") && e.getValue().isJsonArray()) {
                String field = key.substring("$setElementOrder/".length());
                JsonArray list = Json.arr(result, field);
                if (list != null) {
                    reorder(list, e.getValue().getAsJsonArray(), mergeKey(path.isEmpty() ? field : path + "." + field,
                            type, list));
                }
            }
        }
        JsonArray retain = Json.arr(patch, "$retainKeys");
        if (retain != null) {
            Set<String> keep = new HashSet<>();
            retain.forEach(k -> keep.add(k.getAsString()));
            result.entrySet().removeIf(en -> !keep.contains(en.getKey()));
        }
        return result;
    }

    private static JsonArray smpList(JsonArray original, JsonArray patch, String path, ResourceType type) {
        String key = mergeKey(path, type, patch);
        boolean replace = false;
        for (JsonElement item : patch) {
            if (item.isJsonObject() && "replace".equals(Json.str(item.getAsJsonObject(), "$patch"))) {
                replace = true;
            }
        }
        if (replace || original == null || (key == null && !isPrimitiveSet(path))) {
            JsonArray copy = new JsonArray();
            for (JsonElement item : patch) {
                if (item.isJsonObject() && item.getAsJsonObject().has("$patch")) {
                    continue;
                }
                copy.add(stripDirectives(item.deepCopy()));
            }
            return copy;
        }
        JsonArray result = original;
        for (JsonElement item : patch) {
            if (key != null && item.isJsonObject()) {
                JsonObject p = item.getAsJsonObject();
                JsonElement id = p.get(key);
                int at = -1;
                for (int i = 0; i < result.size(); i++) {
                    JsonElement existing = result.get(i);
                    if (existing.isJsonObject() && Json.same(existing.getAsJsonObject().get(key), id)) {
                        at = i;
                        break;
                    }
                }
                if ("delete".equals(Json.str(p, "$patch"))) {
                    if (at >= 0) {
                        result.remove(at);
                    }
                } else if (at >= 0) {
                    result.set(at, smpObject(result.get(at).getAsJsonObject(), p, path, type));
                } else {
                    result.add(stripDirectives(p.deepCopy()));
                }
            } else if (!result.asList().stream().anyMatch(x -> Json.same(x, item))) {
                result.add(item.deepCopy());
            }
        }
        return result;
    }

    private static boolean isPrimitiveSet(String path) {
        return path.equals("metadata.finalizers");
    }

    /** The {@code patchMergeKey} of the list at {@code path}, or null when the list is replaced whole. */
    static String mergeKey(String path, ResourceType type, JsonArray sample) {
        String field = path.substring(path.lastIndexOf('.') + 1);
        return switch (field) {
            case "containers", "initContainers", "ephemeralContainers", "volumes", "env", "imagePullSecrets",
                    "resourceClaims", "schedulingGates" -> "name";
            case "volumeMounts" -> "mountPath";
            case "volumeDevices" -> "devicePath";
            case "hostAliases" -> "ip";
            case "ownerReferences" -> path.equals("metadata.ownerReferences") ? "uid" : null;
            case "topologySpreadConstraints" -> "topologyKey";
            case "conditions" -> path.startsWith("status.") ? "type" : null;
            case "addresses" -> type.is("", "nodes") && path.equals("status.addresses") ? "type" : null;
            case "ports" -> path.endsWith("ontainers.ports") ? "containerPort"
                    : type.is("", "services") && path.equals("spec.ports") ? "port" : null;
            default -> null;
        };
    }

    private static void reorder(JsonArray list, JsonArray order, String key) {
        List<JsonElement> ordered = new ArrayList<>();
        List<JsonElement> rest = new ArrayList<>(list.asList());
        for (JsonElement wanted : order) {
            Iterator<JsonElement> it = rest.iterator();
            while (it.hasNext()) {
                JsonElement item = it.next();
                JsonElement id = key != null && item.isJsonObject() ? item.getAsJsonObject().get(key) : item;
                JsonElement wantedId = key != null && wanted.isJsonObject() ? wanted.getAsJsonObject().get(key) : wanted;
                if (Json.same(id, wantedId)) {
                    ordered.add(item);
                    it.remove();
                    break;
                }
            }
        }
        ordered.addAll(rest);
        replaceAll(list, ordered);
    }

    /** Removes {@code $}-directives that a patch may carry into newly added values. */
    static JsonElement stripDirectives(JsonElement e) {
        if (e instanceof JsonObject o) {
            o.entrySet().removeIf(en -> en.getKey().startsWith("$"));
            for (Map.Entry<String, JsonElement> en : o.entrySet()) {
                stripDirectives(en.getValue());
            }
        } else if (e instanceof JsonArray a) {
            a.asList().removeIf(item -> item.isJsonObject() && item.getAsJsonObject().has("$patch"));
            for (JsonElement item : a) {
                stripDirectives(item);
            }
        }
        return e;
    }
}
