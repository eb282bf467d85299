package io.tenantplane.testkit;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A structural schema node as a CEL rule sees it: the type of {@code self}, as the API server declares it
 * ({@code SchemaDeclType} in {@code staging/src/k8s.io/apiserver/pkg/cel/common/schemas.go}; the sizes and limits in
 * {@code staging/src/k8s.io/apiserver/pkg/cel/types.go} and {@code limits.go}; field names escaped as
 * {@code Escape} in {@code staging/src/k8s.io/apiserver/pkg/cel/escaping.go} does):
 * <ul>
 *   <li>{@code x-kubernetes-int-or-string}: {@code dyn};</li>
 *   <li>at a resource root (the custom resource, or an {@code x-kubernetes-embedded-resource}): {@code apiVersion},
 *   {@code kind} and a {@code metadata} of {@code name} and {@code generateName} only, unless the schema declares
 *   all of them as such ({@code WithTypeAndObjectMeta});</li>
 *   <li>{@code array}: a list of its items' type, not exposed when its items are not;</li>
 *   <li>{@code object}: with {@code additionalProperties} a map of string to their type (not exposed when they are
 *   not); else an object whose fields are the properties that are exposed and whose names can be escaped; unknown
 *   fields kept by {@code x-kubernetes-preserve-unknown-fields} are not exposed;</li>
 *   <li>{@code string}: {@code bytes} for {@code format: byte}, {@code duration} for {@code duration}, {@code
 *   timestamp} for {@code date} and {@code date-time}, else {@code string}; {@code boolean}, {@code number} (double)
 *   and {@code integer} (int);</li>
 *   <li>a node without a type (only {@code x-kubernetes-preserve-unknown-fields}): not exposed, so a rule that
 *   names it does not compile ("undefined field") and a rule on it cannot be declared.</li>
 * </ul>
 * Each carries what the cost estimator needs: the most elements (characters of a string, items of a list or map) and
 * the least size serialized.
 */
final class CelDeclType {

    /** {@code apiservercel.DefaultMaxRequestSizeBytes}. */
    static final long MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
    static final long MIN_STRING_SIZE = 2;
    static final long MIN_BOOL_SIZE = 4;
    static final long MIN_NUMBER_SIZE = 1;
    static final long MIN_DURATION_SIZE_JSON = 3;
    static final long MAX_DURATION_SIZE_JSON = 32;
    static final long JSON_DATE_SIZE = 12;
    static final long MIN_DATETIME_SIZE_JSON = 21;
    static final long MAX_DATETIME_SIZE_JSON = 32;

    private static final Set<String> RESERVED = Set.of("true", "false", "null", "in", "as", "break", "const",
            "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return",
            "var", "void", "while");

    /** The CEL type. */
    final CelType type;
    /** The most characters (string, bytes), items (list) or entries (map); 0 for other types. */
    final long maxElements;
    /** The fewest bytes its JSON can take. */
    final long minSerializedSize;
    /** An object's exposed fields by (escaped) name; empty otherwise. */
    final Map<String, CelDeclType> fields;
    /** A list's items or a map's values; null otherwise. */
    final CelDeclType elem;
    /** A map's keys; null otherwise. */
    final CelDeclType key;

    private CelDeclType(CelType type, long maxElements, long minSerializedSize, Map<String, CelDeclType> fields,
                        CelDeclType elem, CelDeclType key) {
        this.type = type;
        this.maxElements = maxElements;
        this.minSerializedSize = minSerializedSize;
        this.fields = fields;
        this.elem = elem;
        this.key = key;
    }

    private static CelDeclType simple(CelType type, long maxElements, long minSize) {
        return new CelDeclType(type, maxElements, minSize, Map.of(), null, null);
    }

    /** The object types of one rule environment, by name, for the checker to find their fields. */
    static final class Registry implements CelTypeProvider {
        private final Map<String, CelType> types = new LinkedHashMap<>();

        @Override
        public ImmutableList<CelType> types() {
            return ImmutableList.copyOf(types.values());
        }

        @Override
        public Optional<CelType> findType(String name) {
            return Optional.ofNullable(types.get(name));
        }
    }

    /**
     * The type of {@code schema}'s values, or null when the API server does not expose them to rules.
     *
     * @param name         the type name an object gets (nested objects get {@code name.field}, list items
     *                     {@code name.@idx}, map values {@code name.@elem}, as {@code DeclType.MaybeAssignTypeName})
     * @param resourceRoot the root of a custom resource or of an embedded resource
     */
    static CelDeclType of(JsonObject schema, boolean resourceRoot, String name, Registry registry) {
        if (schema == null) {
            return null;
        }
        if (Json.bool(schema, "x-kubernetes-int-or-string")) {
            Long maxLength = number(schema, "maxLength");
            return simple(SimpleType.DYN, maxLength != null ? Math.max(0, maxLength) * 4 : MAX_REQUEST_SIZE_BYTES - 2,
                    1);
        }
        JsonObject s = resourceRoot ? withTypeAndObjectMeta(schema) : schema;
        String type = Json.str(s, "type");
        if (type == null) {
            return null;
        }
        switch (type) {
            case "array" -> {
                JsonObject items = Json.obj(s, "items");
                if (items == null) {
                    return null;
                }
                CelDeclType item = of(items, Json.bool(items, "x-kubernetes-embedded-resource"), name + ".@idx",
                        registry);
                if (item == null) {
                    return null;
                }
                Long maxItems = number(s, "maxItems");
                long max = maxItems != null ? Math.max(0, maxItems) : (MAX_REQUEST_SIZE_BYTES - 2)
                        / (item.minSerializedSize + 1);
                return new CelDeclType(ListType.create(item.type), max, 2, Map.of(), item, null);
            }
            case "object" -> {
                JsonElement additional = s.get("additionalProperties");
                if (additional != null && additional.isJsonObject()) {
                    JsonObject props = additional.getAsJsonObject();
                    CelDeclType value = of(props, Json.bool(props, "x-kubernetes-embedded-resource"),
                            name + ".@elem", registry);
                    if (value == null) {
                        return null;
                    }
                    Long maxProperties = number(s, "maxProperties");
                    long max = maxProperties != null ? Math.max(0, maxProperties) : (MAX_REQUEST_SIZE_BYTES - 2)
                            / (value.minSerializedSize + 6);
                    CelDeclType key = simple(SimpleType.STRING, MAX_REQUEST_SIZE_BYTES - 2, MIN_STRING_SIZE);
                    return new CelDeclType(MapType.create(SimpleType.STRING, value.type), max, 2, Map.of(), value,
                            key);
                }
                Set<String> required = strings(Json.arr(s, "required"));
                Map<String, CelDeclType> fields = new LinkedHashMap<>();
                long minSize = 2;
                JsonObject properties = Json.obj(s, "properties");
                if (properties != null) {
                    for (var e : properties.entrySet()) {
                        if (!e.getValue().isJsonObject()) {
                            continue;
                        }
                        JsonObject prop = e.getValue().getAsJsonObject();
                        CelDeclType field = of(prop, Json.bool(prop, "x-kubernetes-embedded-resource"),
                                name + "." + e.getKey(), registry);
                        if (field == null) {
                            continue;
                        }
                        escape(e.getKey()).ifPresent(escaped -> fields.put(escaped, field));
                        if (required.contains(e.getKey()) && !prop.has("default")) {
                            minSize += e.getKey().length() + field.minSerializedSize + 4;
                        }
                    }
                }
                Map<String, CelType> fieldTypes = new LinkedHashMap<>();
                fields.forEach((k, v) -> fieldTypes.put(k, v.type));
                StructType struct = StructType.create(name, ImmutableSet.copyOf(fieldTypes.keySet()),
                        f -> Optional.ofNullable(fieldTypes.get(f)));
                registry.types.put(name, struct);
                return new CelDeclType(struct, 0, minSize, Map.copyOf(fields), null, null);
            }
            case "string" -> {
                String format = Json.str(s, "format");
                Long maxLength = number(s, "maxLength");
                if ("byte".equals(format)) {
                    return simple(SimpleType.BYTES, maxLength != null ? Math.max(0, maxLength)
                            : MAX_REQUEST_SIZE_BYTES - 2, MIN_STRING_SIZE);
                }
                if ("duration".equals(format)) {
                    return simple(SimpleType.DURATION, MAX_DURATION_SIZE_JSON, MIN_DURATION_SIZE_JSON);
                }
                if ("date".equals(format)) {
                    return simple(SimpleType.TIMESTAMP, JSON_DATE_SIZE, JSON_DATE_SIZE);
                }
                if ("date-time".equals(format)) {
                    return simple(SimpleType.TIMESTAMP, MAX_DATETIME_SIZE_JSON, MIN_DATETIME_SIZE_JSON);
                }
                long max;
                JsonArray enumValues = Json.arr(s, "enum");
                if (maxLength != null) {
                    max = Math.max(0, maxLength) * 4;
                } else if (enumValues != null && !enumValues.isEmpty()) {
                    max = 0;
                    for (JsonElement v : enumValues) {
                        if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isString()) {
                            max = Math.max(max, v.getAsString().getBytes(java.nio.charset.StandardCharsets.UTF_8)
                                    .length);
                        }
                    }
                } else {
                    max = MAX_REQUEST_SIZE_BYTES - 2;
                }
                return simple(SimpleType.STRING, max, MIN_STRING_SIZE);
            }
            case "boolean" -> {
                return simple(SimpleType.BOOL, 0, MIN_BOOL_SIZE);
            }
            case "number" -> {
                return simple(SimpleType.DOUBLE, 0, MIN_NUMBER_SIZE);
            }
            case "integer" -> {
                return simple(SimpleType.INT, 0, MIN_NUMBER_SIZE);
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * {@code schema} with {@code apiVersion} and {@code kind} strings and a {@code metadata} of only {@code name} and
     * {@code generateName}, unless it already declares all of them as strings ({@code WithTypeAndObjectMeta}).
     */
    static JsonObject withTypeAndObjectMeta(JsonObject schema) {
        JsonObject properties = Json.obj(schema, "properties");
        JsonObject metadata = properties == null ? null : Json.obj(properties, "metadata");
        JsonObject metaProps = metadata == null ? null : Json.obj(metadata, "properties");
        if (properties != null && isType(Json.obj(properties, "kind"), "string")
                && isType(Json.obj(properties, "apiVersion"), "string") && isType(metadata, "object")
                && metaProps != null && isType(Json.obj(metaProps, "name"), "string")
                && isType(Json.obj(metaProps, "generateName"), "string")) {
            return schema;
        }
        JsonObject out = schema.deepCopy();
        JsonObject props = properties == null ? new JsonObject() : properties.deepCopy();
        props.add("kind", string());
        props.add("apiVersion", string());
        JsonObject meta = new JsonObject();
        meta.addProperty("type", "object");
        JsonObject mp = new JsonObject();
        mp.add("name", string());
        mp.add("generateName", string());
        meta.add("properties", mp);
        props.add("metadata", meta);
        out.add("properties", props);
        return out;
    }

    private static JsonObject string() {
        JsonObject o = new JsonObject();
        o.addProperty("type", "string");
        return o;
    }

    private static boolean isType(JsonObject s, String type) {
        return s != null && type.equals(Json.str(s, "type"));
    }

    /**
     * A property name as a CEL identifier ({@code Escape}): a reserved word as {@code __word__}; {@code __},
     * {@code .}, {@code -} and {@code /} as {@code __underscores__}, {@code __dot__}, {@code __dash__} and
     * {@code __slash__}; empty when the name starts with a digit or has any other character (such a property is not
     * exposed).
     */
    static Optional<String> escape(String ident) {
        if (ident.isEmpty() || (ident.charAt(0) >= '0' && ident.charAt(0) <= '9')) {
            return Optional.empty();
        }
        if (RESERVED.contains(ident)) {
            return Optional.of("__" + ident + "__");
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < ident.length(); i++) {
            char c = ident.charAt(i);
            if (c == '_' && i + 1 < ident.length() && ident.charAt(i + 1) == '_') {
                out.append("__underscores__");
                i++;
            } else if (c == '.') {
                out.append("__dot__");
            } else if (c == '-') {
                out.append("__dash__");
            } else if (c == '/') {
                out.append("__slash__");
            } else if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
                out.append(c);
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(out.toString());
    }

    private static Long number(JsonObject s, String field) {
        JsonElement v = s.get(field);
        return v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isNumber() ? v.getAsLong() : null;
    }

    private static Set<String> strings(JsonArray a) {
        Set<String> out = new java.util.HashSet<>();
        for (int i = 0; a != null && i < a.size(); i++) {
            if (a.get(i).isJsonPrimitive()) {
                out.add(a.get(i).getAsString());
            }
        }
        return out;
    }
}
