package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** CustomResourceDefinition handling: defaults, validation, the status the server reports, and what it serves. */
final class Crds {
    private Crds() {
    }

    /** Fills in the defaults the API server sets on a CRD (singular, listKind, conversion). */
    static void defaults(JsonObject crd) {
        JsonObject spec = Json.child(crd, "spec");
        JsonObject names = Json.child(spec, "names");
        String kind = Json.str(names, "kind");
        if (kind != null) {
            if (Json.str(names, "singular") == null) {
                names.addProperty("singular", kind.toLowerCase(Locale.ROOT));
            }
            if (Json.str(names, "listKind") == null) {
                names.addProperty("listKind", kind + "List");
            }
        }
        if (!spec.has("conversion")) {
            spec.add("conversion", Json.object("strategy", "None"));
        }
    }

    /** Adds a cause for each way the CRD is invalid, including a schema that is not structural. */
    static void validate(JsonObject crd, JsonObject old, List<ApiError.Cause> causes) {
        JsonObject spec = Json.obj(crd, "spec");
        if (spec == null) {
            causes.add(ApiError.Cause.required("spec"));
            return;
        }
        String group = Json.str(spec, "group");
        JsonObject names = Json.obj(spec, "names");
        String plural = Json.str(names, "plural");
        String kind = Json.str(names, "kind");
        if (group == null || group.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.group"));
        } else if (!group.contains(".")) {
            causes.add(ApiError.Cause.invalid("spec.group", Validation.quote(group),
                    "should be a domain with at least one dot"));
        } else if (!Validation.isDns1123Subdomain(group)) {
            causes.add(ApiError.Cause.invalid("spec.group", Validation.quote(group), "must be a DNS subdomain"));
        }
        if (plural == null || plural.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.names.plural"));
        } else if (!Validation.isDns1123Label(plural)) {
            causes.add(ApiError.Cause.invalid("spec.names.plural", Validation.quote(plural),
                    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'"));
        }
        if (kind == null || kind.isEmpty()) {
            causes.add(ApiError.Cause.required("spec.names.kind"));
        }
        String name = Json.str(Json.obj(crd, "metadata"), "name");
        if (plural != null && group != null && !(plural + "." + group).equals(name)) {
            causes.add(ApiError.Cause.invalid("metadata.name", Validation.quote(String.valueOf(name)),
                    "must be spec.names.plural+\".\"+spec.group"));
        }
        String scope = Json.str(spec, "scope");
        if (!"Namespaced".equals(scope) && !"Cluster".equals(scope)) {
            causes.add(new ApiError.Cause("FieldValueNotSupported", "spec.scope", "Unsupported value: "
                    + Json.render(spec.get("scope")) + ": supported values: \"Cluster\", \"Namespaced\""));
        }
        JsonArray versions = Json.arr(spec, "versions");
        if (versions == null || versions.isEmpty()) {
            causes.add(new ApiError.Cause("FieldValueInvalid", "spec.versions",
                    "Invalid value: null: must have exactly one version marked as storage version"));
            return;
        }
        int storage = 0;
        for (int i = 0; i < versions.size(); i++) {
            String at = "spec.versions[" + i + "]";
            JsonObject v = versions.get(i).getAsJsonObject();
            String versionName = Json.str(v, "name");
            if (versionName == null || !Validation.isDns1123Label(versionName)) {
                causes.add(ApiError.Cause.invalid(at + ".name", Json.render(v.get("name")),
                        "must be a DNS-1035 label"));
            }
            storage += Json.bool(v, "storage") ? 1 : 0;
            JsonObject schema = Json.obj(Json.obj(v, "schema"), "openAPIV3Schema");
            if (schema == null) {
                causes.add(new ApiError.Cause("FieldValueRequired", at + ".schema.openAPIV3Schema",
                        "Required value: schemas are required"));
            } else {
                SchemaValidator.structural(schema, at + ".schema.openAPIV3Schema", causes);
                CelRules.compileAll(schema, at + ".schema.openAPIV3Schema", causes);
            }
        }
        if (storage != 1) {
            causes.add(ApiError.Cause.invalid("spec.versions", Json.render(versions),
                    "must have exactly one version marked as storage version"));
        }
        if (old != null) {
            JsonObject oldSpec = Json.obj(old, "spec");
            if (!Json.same(oldSpec.get("scope"), spec.get("scope"))) {
                causes.add(ApiError.Cause.invalid("spec.scope", Json.render(spec.get("scope")), "field is immutable"));
            }
            if (!Json.same(oldSpec.get("group"), spec.get("group"))) {
                causes.add(ApiError.Cause.invalid("spec.group", Json.render(spec.get("group")), "field is immutable"));
            }
        }
    }

    /** The status a real server settles on once the names are accepted: NamesAccepted and Established. */
    static JsonObject status(JsonObject crd, JsonObject oldStatus, String now) {
        JsonObject spec = Json.obj(crd, "spec");
        JsonObject status = new JsonObject();
        JsonArray conditions = new JsonArray();
        conditions.add(condition(oldStatus, "NamesAccepted", "NoConflicts", "no conflicts found", now));
        conditions.add(condition(oldStatus, "Established", "InitialNamesAccepted",
                "the initial names have been accepted", now));
        status.add("conditions", conditions);
        status.add("acceptedNames", Json.obj(spec, "names").deepCopy());
        List<String> stored = new ArrayList<>();
        JsonArray oldStored = Json.arr(oldStatus, "storedVersions");
        if (oldStored != null) {
            oldStored.forEach(v -> stored.add(v.getAsString()));
        }
        for (JsonElement v : Json.arr(spec, "versions")) {
            String name = Json.str(v.getAsJsonObject(), "name");
            if (Json.bool(v.getAsJsonObject(), "storage") && !stored.contains(name)) {
                stored.add(name);
            }
        }
        status.add("storedVersions", Json.strings(stored));
        return status;
    }

    private static JsonObject condition(JsonObject oldStatus, String type, String reason, String message, String now) {
        String since = now;
        JsonArray old = Json.arr(oldStatus, "conditions");
        if (old != null) {
            for (JsonElement c : old) {
                if (type.equals(Json.str(c.getAsJsonObject(), "type"))) {
                    since = Json.str(c.getAsJsonObject(), "lastTransitionTime");
                }
            }
        }
        return Json.object("type", type, "status", "True", "lastTransitionTime", since, "reason", reason,
                "message", message);
    }

    /** One served resource per served version of the CRD. */
    static List<ResourceType> types(JsonObject crd) {
        JsonObject spec = Json.obj(crd, "spec");
        JsonObject names = Json.obj(spec, "names");
        List<String> shortNames = strings(Json.arr(names, "shortNames"));
        List<String> categories = strings(Json.arr(names, "categories"));
        List<ResourceType> types = new ArrayList<>();
        for (JsonElement e : Json.arr(spec, "versions")) {
            JsonObject v = e.getAsJsonObject();
            if (v.has("served") && !Json.bool(v, "served")) {
                continue;
            }
            JsonObject subresources = Json.obj(v, "subresources");
            List<String> selectable = new ArrayList<>();
            JsonArray fields = Json.arr(v, "selectableFields");
            if (fields != null) {
                for (JsonElement f : fields) {
                    String path = Json.str(f.getAsJsonObject(), "jsonPath");
                    if (path != null) {
                        selectable.add(path.startsWith(".") ? path.substring(1) : path);
                    }
                }
            }
            types.add(new ResourceType(Json.str(spec, "group"), Json.str(v, "name"), Json.str(names, "plural"),
                    Json.str(names, "singular"), Json.str(names, "kind"), "Namespaced".equals(Json.str(spec, "scope")),
                    shortNames, categories, subresources != null && subresources.has("status"), true,
                    Json.obj(Json.obj(v, "schema"), "openAPIV3Schema"), Json.arr(v, "additionalPrinterColumns"),
                    selectable));
        }
        return types;
    }

    private static List<String> strings(JsonArray a) {
        List<String> list = new ArrayList<>();
        if (a != null) {
            a.forEach(x -> list.add(x.getAsString()));
        }
        return list;
    }
}
