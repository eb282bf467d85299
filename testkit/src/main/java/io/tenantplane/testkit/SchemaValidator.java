package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * CRD {@code openAPIV3Schema} handling: the structural-schema checks a CRD must pass, and for custom resources the
 * pruning of unknown fields, defaulting and validation the API server applies on every write.
 */
final class SchemaValidator {
    private static final String PRESERVE = "x-kubernetes-preserve-unknown-fields";
    private static final String INT_OR_STRING = "x-kubernetes-int-or-string";
    private static final String EMBEDDED = "x-kubernetes-embedded-resource";
    private static final Set<String> TYPES = Set.of("object", "array", "string", "integer", "number", "boolean");
    private static final Set<String> UNSUPPORTED = Set.of("$ref", "$schema", "definitions", "dependencies", "id",
            "patternProperties", "additionalItems");
    private static final Set<String> NOT_IN_JUNCTORS = Set.of("type", "default", "additionalProperties", "nullable",
            "description", PRESERVE, EMBEDDED, INT_OR_STRING);

    private SchemaValidator() {
    }

    // ---- structural checks on a CRD schema ----

    /** Adds a cause for each way {@code schema} is not a structural schema, as the CRD validation does. */
    static void structural(JsonObject schema, String path, List<ApiError.Cause> causes) {
        structural(schema, path, true, false, causes);
        completeness(schema, schema, path, path, causes);
    }

    private static void structural(JsonObject s, String path, boolean root, boolean inJunctor,
            List<ApiError.Cause> causes) {
        for (String key : s.keySet()) {
            if (UNSUPPORTED.contains(key)) {
                causes.add(ApiError.Cause.forbidden(path + "." + key, key + " is not supported"));
            }
        }
        if (Json.bool(s, "uniqueItems")) {
            causes.add(ApiError.Cause.forbidden(path + ".uniqueItems",
                    "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
        }
        JsonElement additional = s.get("additionalProperties");
        if (additional != null && additional.isJsonPrimitive() && !additional.getAsBoolean()) {
            causes.add(ApiError.Cause.forbidden(path + ".additionalProperties",
                    "additionalProperties cannot be set to false"));
        }
        if (s.has("properties") && additional != null && !additional.isJsonNull()) {
            causes.add(ApiError.Cause.forbidden(path + ".additionalProperties",
                    "additionalProperties and properties are mutual exclusive"));
        }
        String type = Json.str(s, "type");
        boolean intOrString = Json.bool(s, INT_OR_STRING);
        boolean embedded = Json.bool(s, EMBEDDED);
        if (root && additional != null && !inJunctor) {
            causes.add(ApiError.Cause.forbidden(path + ".additionalProperties", "must not be used at the root"));
        }
        if (intOrString && Json.bool(s, PRESERVE)) {
            causes.add(ApiError.Cause.invalid(path + "." + PRESERVE, "true",
                    "must be false if x-kubernetes-int-or-string is true"));
        }
        if (intOrString && embedded) {
            causes.add(ApiError.Cause.invalid(path + "." + EMBEDDED, "true",
                    "must be false if x-kubernetes-int-or-string is true"));
        }
        if (!inJunctor && embedded) {
            if (type == null) {
                causes.add(new ApiError.Cause("FieldValueRequired", path + ".type",
                        "Required value: must be object if x-kubernetes-embedded-resource is true"));
            } else if (!type.equals("object")) {
                causes.add(ApiError.Cause.invalid(path + ".type", Validation.quote(type),
                        "must be object if x-kubernetes-embedded-resource is true"));
            }
            if (!Json.bool(s, PRESERVE) && (Json.obj(s, "properties") == null || Json.obj(s, "properties").isEmpty())) {
                causes.add(new ApiError.Cause("FieldValueRequired", path + ".properties", "Required value: must not "
                        + "be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
            }
        }
        if ((root || embedded) && !inJunctor) {
            JsonObject props = Json.obj(s, "properties");
            for (String typed : List.of("kind", "apiVersion")) {
                JsonObject p = props == null ? null : Json.obj(props, typed);
                if (p != null && !"string".equals(Json.str(p, "type"))) {
                    causes.add(ApiError.Cause.invalid(path + ".properties[" + typed + "].type",
                            Validation.quote(String.valueOf(Json.str(p, "type"))), "must be string"));
                }
            }
        }
        if (inJunctor && Json.obj(s, "properties") != null && Json.obj(s, "properties").has("metadata")) {
            causes.add(ApiError.Cause.forbidden(path + ".properties[metadata]",
                    "must not be specified in a nested context"));
        }
        if (inJunctor) {
            for (String key : NOT_IN_JUNCTORS) {
                if (s.has(key)) {
                    causes.add(ApiError.Cause.forbidden(path + "." + key,
                            "must be empty to be structural"));
                }
            }
        } else {
            if (type == null && !intOrString && !Json.bool(s, PRESERVE)) {
                causes.add(new ApiError.Cause("FieldValueRequired", path + ".type", "Required value: "
                        + (root ? "must not be empty at the root" : "must not be empty for specified object fields")));
            } else if (type != null && !TYPES.contains(type)) {
                causes.add(new ApiError.Cause("FieldValueNotSupported", path + ".type", "Unsupported value: "
                        + Validation.quote(type) + ": supported values: \"array\", \"boolean\", \"integer\", "
                        + "\"number\", \"object\", \"string\""));
            }
            if (root && type != null && !type.equals("object")) {
                causes.add(ApiError.Cause.invalid(path + ".type", Validation.quote(type), "must be object at the root"));
            }
            if (intOrString && type != null) {
                causes.add(ApiError.Cause.invalid(path + ".type", Validation.quote(type),
                        "must be empty if x-kubernetes-int-or-string is true"));
            }
            if ("array".equals(type) && !s.has("items")) {
                causes.add(new ApiError.Cause("FieldValueRequired", path + ".items", "Required value: "
                        + "must be specified"));
            }
        }
        if (s.has("pattern")) {
            try {
                Pattern.compile(Json.str(s, "pattern"));
            } catch (PatternSyntaxException | NullPointerException e) {
                causes.add(ApiError.Cause.invalid(path + ".pattern", Json.render(s.get("pattern")),
                        "must be a valid regular expression"));
            }
        }
        JsonObject properties = Json.obj(s, "properties");
        if (properties != null) {
            for (Map.Entry<String, JsonElement> e : properties.entrySet()) {
                String childPath = path + ".properties[" + e.getKey() + "]";
                if (!e.getValue().isJsonObject()) {
                    causes.add(ApiError.Cause.invalid(childPath, Json.render(e.getValue()), "must be a schema"));
                } else if (root && e.getKey().equals("metadata") && !inJunctor) {
                    metadataSchema(e.getValue().getAsJsonObject(), childPath, causes);
                } else {
                    structural(e.getValue().getAsJsonObject(), childPath, false, inJunctor, causes);
                }
            }
        }
        if (additional != null && additional.isJsonObject()) {
            structural(additional.getAsJsonObject(), path + ".additionalProperties", false, inJunctor, causes);
        }
        JsonElement items = s.get("items");
        if (items != null) {
            if (items.isJsonObject()) {
                structural(items.getAsJsonObject(), path + ".items", false, inJunctor, causes);
            } else {
                causes.add(ApiError.Cause.forbidden(path + ".items", "items must be a schema object and not an array"));
            }
        }
        for (String junctor : List.of("allOf", "anyOf", "oneOf")) {
            JsonArray list = Json.arr(s, junctor);
            if (list == null) {
                continue;
            }
            for (int i = 0; i < list.size(); i++) {
                if (!list.get(i).isJsonObject()) {
                    continue;
                }
                JsonObject branch = list.get(i).getAsJsonObject();
                if (intOrString && isIntOrStringBranch(branch)) {
                    continue;
                }
                structural(branch, path + "." + junctor + "[" + i + "]", false, true, causes);
            }
        }
        JsonObject not = Json.obj(s, "not");
        if (not != null) {
            structural(not, path + ".not", false, true, causes);
        }
    }

    /**
     * {@code validateStructuralCompleteness} ({@code pkg/apiserver/schema/complete.go}): every field and array a
     * junctor ({@code allOf}, {@code anyOf}, {@code oneOf}, {@code not}) of the root names must also be specified
     * outside of it, as a CRD's options set it ({@code AllowValidationPropertiesWithAdditionalProperties} false).
     * Upstream starts from the root's value validation only, and so does this.
     */
    private static void completeness(JsonObject v, JsonObject s, String sPath, String vPath,
                                     List<ApiError.Cause> causes) {
        JsonObject not = Json.obj(v, "not");
        if (not != null) {
            nestedCompleteness(not, s, sPath, vPath + ".not", causes);
        }
        for (String junctor : List.of("allOf", "anyOf", "oneOf")) {
            JsonArray list = Json.arr(v, junctor);
            for (int i = 0; list != null && i < list.size(); i++) {
                if (list.get(i).isJsonObject()) {
                    nestedCompleteness(list.get(i).getAsJsonObject(), s, sPath, vPath + "." + junctor + "[" + i + "]",
                            causes);
                }
            }
        }
    }

    private static void nestedCompleteness(JsonObject v, JsonObject s, String sPath, String vPath,
                                           List<ApiError.Cause> causes) {
        if (v == null) {
            return;
        }
        if (s == null) {
            causes.add(new ApiError.Cause("FieldValueRequired", sPath, "Required value: because it is defined in "
                    + vPath));
            return;
        }
        completeness(v, s, sPath, vPath, causes);
        nestedCompleteness(Json.obj(v, "items"), Json.obj(s, "items"), sPath + ".items", vPath + ".items", causes);
        JsonObject props = Json.obj(v, "properties");
        JsonObject structuralProps = Json.obj(s, "properties");
        if (props != null) {
            for (String k : new java.util.TreeSet<>(props.keySet())) {
                // A property missing from the structural schema is reported by the null case above.
                nestedCompleteness(Json.obj(props, k), structuralProps == null ? null : Json.obj(structuralProps, k),
                        sPath + ".properties[" + k + "]", vPath + ".properties[" + k + "]", causes);
            }
        }
    }

    private static boolean isIntOrStringBranch(JsonObject branch) {
        String t = Json.str(branch, "type");
        return branch.size() == 1 && ("integer".equals(t) || "string".equals(t));
    }

    /**
     * The root {@code metadata} rule of {@code validateStructuralMetadataInvariants} (apiextensions-apiserver
     * {@code pkg/apiserver/schema/validation.go}): {@code type} must be {@code object}; {@code properties} may name
     * exactly {@code name}, {@code generateName} or both; {@code default} is dropped. Anything else left over
     * (a {@code description}, {@code title}, {@code nullable}, other properties, validations) is Forbidden.
     */
    private static void metadataSchema(JsonObject s, String path, List<ApiError.Cause> causes) {
        if (!"object".equals(Json.str(s, "type"))) {
            causes.add(ApiError.Cause.invalid(path + ".type", s.has("type") ? Json.render(s.get("type")) : "\"\"",
                    "must be object"));
        }
        boolean onlyNames = true;
        for (String key : s.keySet()) {
            if (key.equals("type") || key.equals("default")) {
                continue;
            }
            if (key.equals("properties")) {
                JsonObject props = Json.obj(s, "properties");
                Set<String> names = props == null ? Set.of() : props.keySet();
                boolean exact = names.equals(Set.of("name", "generateName"))
                        || names.equals(Set.of("name")) || names.equals(Set.of("generateName"));
                if (!exact) {
                    onlyNames = false;
                }
                continue;
            }
            onlyNames = false;
        }
        if (!onlyNames) {
            causes.add(ApiError.Cause.forbidden(path, "must not specify anything other than name and generateName, "
                    + "but metadata is implicitly specified"));
        }
    }

    // ---- pruning and defaulting of custom resources ----

    /**
     * Drops fields the schema does not declare (recording their paths in {@code unknown}), drops nulls of fields that
     * are not nullable, and fills in {@code default}s; {@code apiVersion}, {@code kind} and {@code metadata} at the
     * root are left alone.
     */
    static void pruneAndDefault(JsonObject object, JsonObject schema, List<String> unknown) {
        pruneObject(object, schema, "", true, unknown);
    }

    private static void prune(JsonElement value, JsonObject schema, String path, List<String> unknown) {
        if (schema == null || value == null) {
            return;
        }
        if (value.isJsonObject()) {
            pruneObject(value.getAsJsonObject(), schema, path, false, unknown);
        } else if (value.isJsonArray()) {
            JsonObject items = Json.obj(schema, "items");
            JsonArray array = value.getAsJsonArray();
            for (int i = 0; i < array.size(); i++) {
                prune(array.get(i), items, path + "[" + i + "]", unknown);
            }
        }
    }

    private static void pruneObject(JsonObject o, JsonObject schema, String path, boolean root, List<String> unknown) {
        if (Json.bool(schema, INT_OR_STRING)) {
            return;
        }
        JsonObject properties = Json.obj(schema, "properties");
        JsonElement additional = schema.get("additionalProperties");
        boolean preserve = Json.bool(schema, PRESERVE);
        boolean embedded = Json.bool(schema, EMBEDDED);
        for (String key : new ArrayList<>(o.keySet())) {
            JsonElement v = o.get(key);
            if ((root || embedded) && (key.equals("apiVersion") || key.equals("kind") || key.equals("metadata"))) {
                continue;
            }
            String childPath = path.isEmpty() ? key : path + "." + key;
            JsonObject child = properties != null ? Json.obj(properties, key) : null;
            if (child == null && additional != null && additional.isJsonObject()) {
                child = additional.getAsJsonObject();
            }
            if (child == null) {
                boolean allowed = preserve || (additional != null && additional.isJsonPrimitive()
                        && additional.getAsBoolean());
                if (!allowed) {
                    unknown.add(childPath);
                    o.remove(key);
                }
                continue;
            }
            if (v.isJsonNull()) {
                if (!Json.bool(child, "nullable")) {
                    o.remove(key);
                }
                continue;
            }
            prune(v, child, childPath, unknown);
        }
        if (properties != null) {
            for (Map.Entry<String, JsonElement> e : properties.entrySet()) {
                if (!o.has(e.getKey()) && e.getValue().isJsonObject() && e.getValue().getAsJsonObject().has("default")) {
                    JsonElement value = e.getValue().getAsJsonObject().get("default").deepCopy();
                    o.add(e.getKey(), value);
                    prune(value, e.getValue().getAsJsonObject(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(),
                            new ArrayList<>());
                }
            }
        }
    }

    // ---- validation of custom resources ----

    /** Validates a (pruned) custom resource against its schema, adding a cause per violation. */
    static void validate(JsonObject object, JsonObject schema, List<ApiError.Cause> causes) {
        validate(object, schema, "", true, causes);
    }

    private static void validate(JsonElement v, JsonObject s, String path, boolean root, List<ApiError.Cause> causes) {
        if (v == null || v.isJsonNull()) {
            if (!Json.bool(s, "nullable") && !path.isEmpty() && s.has("type")) {
                causes.add(new ApiError.Cause("FieldValueTypeInvalid", path, "Invalid value: \"null\": " + path
                        + " in body must be of type " + Json.str(s, "type") + ": \"null\""));
            }
            return;
        }
        String actual = typeOf(v);
        if (Json.bool(s, INT_OR_STRING)) {
            if (!actual.equals("integer") && !actual.equals("string")) {
                causes.add(new ApiError.Cause("FieldValueTypeInvalid", path, "Invalid value: \"" + actual + "\": "
                        + path + " in body must be of type integer,string: \"" + actual + "\""));
                return;
            }
        } else {
            String type = Json.str(s, "type");
            if (type != null && !type.equals(actual) && !(type.equals("number") && actual.equals("integer"))) {
                causes.add(new ApiError.Cause("FieldValueTypeInvalid", path, "Invalid value: \"" + actual + "\": "
                        + path + " in body must be of type " + type + ": \"" + actual + "\""));
                return;
            }
        }
        JsonArray enumValues = Json.arr(s, "enum");
        if (enumValues != null && enumValues.asList().stream().noneMatch(e -> Json.same(e, v))) {
            causes.add(new ApiError.Cause("FieldValueNotSupported", path, "Unsupported value: " + Json.render(v)
                    + ": supported values: " + enumValues.asList().stream().map(Json::render)
                            .collect(Collectors.joining(", "))));
        }
        if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isString()) {
            validateString(v.getAsString(), s, path, causes);
        } else if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber()) {
            validateNumber(new BigDecimal(v.getAsString()), v, s, path, causes);
        } else if (v.isJsonArray()) {
            validateArray(v.getAsJsonArray(), s, path, causes);
        } else if (v.isJsonObject()) {
            validateObject(v.getAsJsonObject(), s, path, root, causes);
        }
        validateJunctors(v, s, path, causes);
    }

    private static void validateString(String value, JsonObject s, String path, List<ApiError.Cause> causes) {
        String pattern = Json.str(s, "pattern");
        if (pattern != null && !Pattern.compile(pattern).matcher(value).find()) {
            causes.add(ApiError.Cause.invalid(path, Validation.quote(value), path + " in body should match '" + pattern
                    + "'"));
        }
        int length = value.codePointCount(0, value.length());
        Long max = longAt(s, "maxLength");
        if (max != null && length > max) {
            causes.add(new ApiError.Cause("FieldValueTooLong", path, "Too long: may not be more than " + max
                    + " bytes"));
        }
        Long min = longAt(s, "minLength");
        if (min != null && length < min) {
            causes.add(ApiError.Cause.invalid(path, Validation.quote(value), path + " in body should be at least "
                    + min + " chars long"));
        }
    }

    private static void validateNumber(BigDecimal n, JsonElement raw, JsonObject s, String path,
            List<ApiError.Cause> causes) {
        BigDecimal min = decimalAt(s, "minimum");
        if (min != null) {
            boolean exclusive = Json.bool(s, "exclusiveMinimum");
            if (exclusive ? n.compareTo(min) <= 0 : n.compareTo(min) < 0) {
                causes.add(ApiError.Cause.invalid(path, Json.render(raw), path + " in body should be greater than "
                        + (exclusive ? "" : "or equal to ") + min.toPlainString()));
            }
        }
        BigDecimal max = decimalAt(s, "maximum");
        if (max != null) {
            boolean exclusive = Json.bool(s, "exclusiveMaximum");
            if (exclusive ? n.compareTo(max) >= 0 : n.compareTo(max) > 0) {
                causes.add(ApiError.Cause.invalid(path, Json.render(raw), path + " in body should be less than "
                        + (exclusive ? "" : "or equal to ") + max.toPlainString()));
            }
        }
        BigDecimal multipleOf = decimalAt(s, "multipleOf");
        if (multipleOf != null && multipleOf.signum() != 0 && n.remainder(multipleOf).signum() != 0) {
            causes.add(ApiError.Cause.invalid(path, Json.render(raw), path + " in body should be a multiple of "
                    + multipleOf.toPlainString()));
        }
        String format = Json.str(s, "format");
        if ("int32".equals(format) && (n.compareTo(BigDecimal.valueOf(Integer.MIN_VALUE)) < 0
                || n.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0)) {
            causes.add(ApiError.Cause.invalid(path, Json.render(raw), path + " in body must be of type int32"));
        }
    }

    private static void validateArray(JsonArray a, JsonObject s, String path, List<ApiError.Cause> causes) {
        Long max = longAt(s, "maxItems");
        if (max != null && a.size() > max) {
            causes.add(new ApiError.Cause("FieldValueTooMany", path, "Too many: " + a.size() + ": must have at most "
                    + max + " items"));
        }
        Long min = longAt(s, "minItems");
        if (min != null && a.size() < min) {
            causes.add(ApiError.Cause.invalid(path, Json.render(a), path + " in body should have at least " + min
                    + " items"));
        }
        JsonObject items = Json.obj(s, "items");
        if (items != null) {
            for (int i = 0; i < a.size(); i++) {
                validate(a.get(i), items, path + "[" + i + "]", false, causes);
            }
        }
        String listType = Json.str(s, "x-kubernetes-list-type");
        if ("set".equals(listType) || "map".equals(listType)) {
            JsonArray keys = Json.arr(s, "x-kubernetes-list-map-keys");
            List<JsonElement> seen = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                JsonElement item = a.get(i);
                JsonElement id = item;
                if ("map".equals(listType) && keys != null && item.isJsonObject()) {
                    JsonObject k = new JsonObject();
                    for (JsonElement key : keys) {
                        JsonElement kv = item.getAsJsonObject().get(key.getAsString());
                        k.add(key.getAsString(), kv == null ? com.google.gson.JsonNull.INSTANCE : kv);
                    }
                    id = k;
                }
                final JsonElement identity = id;
                if (seen.stream().anyMatch(x -> Json.same(x, identity))) {
                    causes.add(new ApiError.Cause("FieldValueDuplicate", path + "[" + i + "]", "Duplicate value: "
                            + Json.render(identity)));
                }
                seen.add(identity);
            }
        }
    }

    private static void validateObject(JsonObject o, JsonObject s, String path, boolean root,
            List<ApiError.Cause> causes) {
        JsonArray required = Json.arr(s, "required");
        if (required != null) {
            for (JsonElement r : required) {
                String key = r.getAsString();
                if (!o.has(key)) {
                    causes.add(ApiError.Cause.required(path.isEmpty() ? key : path + "." + key));
                }
            }
        }
        Long maxProps = longAt(s, "maxProperties");
        if (maxProps != null && o.size() > maxProps) {
            causes.add(new ApiError.Cause("FieldValueTooMany", path, "Too many: " + o.size() + ": must have at most "
                    + maxProps + " items"));
        }
        Long minProps = longAt(s, "minProperties");
        if (minProps != null && o.size() < minProps) {
            causes.add(ApiError.Cause.invalid(path, Json.render(o), path + " in body should have at least " + minProps
                    + " properties"));
        }
        JsonObject properties = Json.obj(s, "properties");
        JsonElement additional = s.get("additionalProperties");
        for (Map.Entry<String, JsonElement> e : o.entrySet()) {
            String key = e.getKey();
            String childPath = path.isEmpty() ? key : path + "." + key;
            if (root && (key.equals("apiVersion") || key.equals("kind"))) {
                continue;
            }
            if (root && key.equals("metadata")) {
                validateMetadataName(e.getValue(), properties == null ? null : Json.obj(properties, "metadata"),
                        causes);
                continue;
            }
            JsonObject child = properties == null ? null : Json.obj(properties, key);
            if (child == null && additional != null && additional.isJsonObject()) {
                child = additional.getAsJsonObject();
                childPath = path + "[" + key + "]";
            }
            if (child != null) {
                validate(e.getValue(), child, childPath, false, causes);
            }
        }
    }

    private static void validateMetadataName(JsonElement metadata, JsonObject metadataSchema,
            List<ApiError.Cause> causes) {
        JsonObject nameSchema = Json.obj(Json.obj(metadataSchema, "properties"), "name");
        if (nameSchema != null && metadata.isJsonObject() && metadata.getAsJsonObject().has("name")) {
            validate(metadata.getAsJsonObject().get("name"), nameSchema, "metadata.name", false, causes);
        }
    }

    private static void validateJunctors(JsonElement v, JsonObject s, String path, List<ApiError.Cause> causes) {
        JsonArray allOf = Json.arr(s, "allOf");
        if (allOf != null) {
            for (JsonElement branch : allOf) {
                if (branch.isJsonObject()) {
                    validate(v, branch.getAsJsonObject(), path, false, causes);
                }
            }
        }
        JsonArray anyOf = Json.arr(s, "anyOf");
        if (anyOf != null && !Json.bool(s, INT_OR_STRING)) {
            List<List<ApiError.Cause>> failures = new ArrayList<>();
            boolean any = false;
            for (JsonElement branch : anyOf) {
                List<ApiError.Cause> branchCauses = new ArrayList<>();
                validate(v, branch.getAsJsonObject(), path, false, branchCauses);
                any |= branchCauses.isEmpty();
                failures.add(branchCauses);
            }
            if (!any) {
                causes.add(ApiError.Cause.invalid(path, Json.render(v), "must validate at least one schema (anyOf)"));
                failures.forEach(causes::addAll);
            }
        }
        JsonArray oneOf = Json.arr(s, "oneOf");
        if (oneOf != null) {
            int passing = 0;
            for (JsonElement branch : oneOf) {
                List<ApiError.Cause> branchCauses = new ArrayList<>();
                validate(v, branch.getAsJsonObject(), path, false, branchCauses);
                passing += branchCauses.isEmpty() ? 1 : 0;
            }
            if (passing != 1) {
                causes.add(ApiError.Cause.invalid(path, Json.render(v), "must validate one and only one schema (oneOf)"
                        + (passing == 0 ? "" : ". Found " + passing + " valid alternatives")));
            }
        }
        JsonObject not = Json.obj(s, "not");
        if (not != null) {
            List<ApiError.Cause> branchCauses = new ArrayList<>();
            validate(v, not, path, false, branchCauses);
            if (branchCauses.isEmpty()) {
                causes.add(ApiError.Cause.invalid(path, Json.render(v), "must not validate the schema (not)"));
            }
        }
    }

    private static String typeOf(JsonElement v) {
        if (v.isJsonObject()) {
            return "object";
        }
        if (v.isJsonArray()) {
            return "array";
        }
        JsonPrimitive p = v.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return "boolean";
        }
        if (p.isString()) {
            return "string";
        }
        BigDecimal n = new BigDecimal(p.getAsString());
        return n.signum() == 0 || n.stripTrailingZeros().scale() <= 0 ? "integer" : "number";
    }

    private static Long longAt(JsonObject s, String key) {
        JsonElement e = s.get(key);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? e.getAsLong() : null;
    }

    private static BigDecimal decimalAt(JsonObject s, String key) {
        JsonElement e = s.get(key);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? new BigDecimal(e.getAsString())
                : null;
    }
}
