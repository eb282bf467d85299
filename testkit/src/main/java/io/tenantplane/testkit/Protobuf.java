package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

/**
 * Decodes the protobuf request bodies that kubectl's imperative generators send ({@code kubectl create namespace},
 * {@code create configmap}, {@code create secret}, {@code create serviceaccount}) into the JSON the store works on.
 * The Kubernetes envelope is the magic {@code k8s\0} and a {@code runtime.Unknown} whose {@code raw} holds the object;
 * fields are read by the numbers of {@code k8s.io/api/core/v1/generated.proto}. Other kinds, and fields this table
 * does not know, are refused with 415 rather than guessed.
 */
final class Protobuf {
    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private enum Type { STRING, BYTES, BOOL, INT, TIME, MESSAGE, STRING_MAP, BYTES_MAP, SKIP }

    private record Field(String name, Type type, String message, boolean repeated) {
        static Field of(String name, Type type) {
            return new Field(name, type, null, false);
        }

        static Field list(String name, Type type) {
            return new Field(name, type, null, true);
        }

        static Field message(String name, String message) {
            return new Field(name, Type.MESSAGE, message, false);
        }

        static Field messages(String name, String message) {
            return new Field(name, Type.MESSAGE, message, true);
        }
    }

    private static final Map<String, Map<Integer, Field>> MESSAGES = Map.of(
            "ObjectMeta", Map.ofEntries(
                    Map.entry(1, Field.of("name", Type.STRING)),
                    Map.entry(2, Field.of("generateName", Type.STRING)),
                    Map.entry(3, Field.of("namespace", Type.STRING)),
                    Map.entry(4, Field.of("selfLink", Type.STRING)),
                    Map.entry(5, Field.of("uid", Type.STRING)),
                    Map.entry(6, Field.of("resourceVersion", Type.STRING)),
                    Map.entry(7, Field.of("generation", Type.INT)),
                    Map.entry(8, Field.of("creationTimestamp", Type.TIME)),
                    Map.entry(9, Field.of("deletionTimestamp", Type.TIME)),
                    Map.entry(10, Field.of("deletionGracePeriodSeconds", Type.INT)),
                    Map.entry(11, Field.of("labels", Type.STRING_MAP)),
                    Map.entry(12, Field.of("annotations", Type.STRING_MAP)),
                    Map.entry(13, Field.messages("ownerReferences", "OwnerReference")),
                    Map.entry(14, Field.list("finalizers", Type.STRING)),
                    Map.entry(17, Field.of("managedFields", Type.SKIP))),
            "OwnerReference", Map.of(
                    1, Field.of("kind", Type.STRING),
                    3, Field.of("name", Type.STRING),
                    4, Field.of("uid", Type.STRING),
                    5, Field.of("apiVersion", Type.STRING),
                    6, Field.of("controller", Type.BOOL),
                    7, Field.of("blockOwnerDeletion", Type.BOOL)),
            "Namespace", Map.of(
                    1, Field.message("metadata", "ObjectMeta"),
                    2, Field.message("spec", "NamespaceSpec"),
                    3, Field.message("status", "NamespaceStatus")),
            "NamespaceSpec", Map.of(1, Field.list("finalizers", Type.STRING)),
            "NamespaceStatus", Map.of(1, Field.of("phase", Type.STRING)),
            "ConfigMap", Map.of(
                    1, Field.message("metadata", "ObjectMeta"),
                    2, Field.of("data", Type.STRING_MAP),
                    3, Field.of("binaryData", Type.BYTES_MAP),
                    4, Field.of("immutable", Type.BOOL)),
            "Secret", Map.of(
                    1, Field.message("metadata", "ObjectMeta"),
                    2, Field.of("data", Type.BYTES_MAP),
                    3, Field.of("type", Type.STRING),
                    4, Field.of("stringData", Type.STRING_MAP),
                    5, Field.of("immutable", Type.BOOL)),
            "ServiceAccount", Map.of(
                    1, Field.message("metadata", "ObjectMeta"),
                    2, Field.messages("secrets", "ObjectReference"),
                    3, Field.messages("imagePullSecrets", "LocalObjectReference"),
                    4, Field.of("automountServiceAccountToken", Type.BOOL)),
            "ObjectReference", Map.of(
                    1, Field.of("kind", Type.STRING),
                    2, Field.of("namespace", Type.STRING),
                    3, Field.of("name", Type.STRING),
                    4, Field.of("uid", Type.STRING),
                    5, Field.of("apiVersion", Type.STRING),
                    6, Field.of("resourceVersion", Type.STRING),
                    7, Field.of("fieldPath", Type.STRING)),
            "LocalObjectReference", Map.of(1, Field.of("name", Type.STRING)));

    private Protobuf() {
    }

    static boolean isProtobuf(String contentType) {
        return contentType != null && contentType.startsWith("application/vnd.kubernetes.protobuf");
    }

    /** The object in a protobuf request body for a resource of type {@code t}. */
    static JsonObject decode(byte[] body, ResourceType t) {
        if (!t.group().isEmpty() || !MESSAGES.containsKey(t.kind())) {
            throw unsupported("protobuf bodies are understood for v1 Namespace, ConfigMap, Secret and ServiceAccount "
                    + "only; send " + t.kind() + " as JSON (e.g. write it as YAML and use kubectl apply -f)");
        }
        if (body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
            throw ApiError.badRequest("a protobuf body must start with the k8s envelope");
        }
        Reader unknown = new Reader(Arrays.copyOfRange(body, MAGIC.length, body.length));
        String apiVersion = null;
        String kind = null;
        byte[] raw = null;
        while (unknown.more()) {
            int tag = unknown.varintAsInt();
            int number = tag >>> 3;
            if (number == 1) {
                Reader typeMeta = new Reader(unknown.bytes());
                while (typeMeta.more()) {
                    int t2 = typeMeta.varintAsInt();
                    String value = new String(typeMeta.bytes(), StandardCharsets.UTF_8);
                    if (t2 >>> 3 == 1) {
                        apiVersion = value;
                    } else if (t2 >>> 3 == 2) {
                        kind = value;
                    }
                }
            } else if (number == 2) {
                raw = unknown.bytes();
            } else {
                unknown.skip(tag & 7);
            }
        }
        if (raw == null || (kind != null && !kind.equals(t.kind()))) {
            throw ApiError.badRequest("the protobuf body does not hold a " + t.kind());
        }
        JsonObject o = message(new Reader(raw), t.kind());
        JsonObject typed = Json.object("apiVersion", apiVersion == null ? t.apiVersion() : apiVersion, "kind",
                t.kind());
        o.entrySet().forEach(e -> typed.add(e.getKey(), e.getValue()));
        return typed;
    }

    private static JsonObject message(Reader in, String name) {
        Map<Integer, Field> fields = MESSAGES.get(name);
        JsonObject o = new JsonObject();
        while (in.more()) {
            int tag = in.varintAsInt();
            int number = tag >>> 3;
            Field f = fields.get(number);
            if (f == null) {
                throw unsupported("field " + number + " of " + name + " is not understood by this test server; send "
                        + "the object as JSON");
            }
            JsonElement value = switch (f.type()) {
                case STRING -> Json.toElement(new String(in.bytes(), StandardCharsets.UTF_8));
                case BYTES -> Json.toElement(Base64.getEncoder().encodeToString(in.bytes()));
                case BOOL -> Json.toElement(in.varint() != 0);
                case INT -> Json.toElement(in.varint());
                case TIME -> Json.toElement(time(new Reader(in.bytes())));
                case MESSAGE -> message(new Reader(in.bytes()), f.message());
                case STRING_MAP, BYTES_MAP -> {
                    mapEntry(new Reader(in.bytes()), Json.child(o, f.name()), f.type() == Type.BYTES_MAP);
                    yield null;
                }
                case SKIP -> {
                    in.skip(tag & 7);
                    yield null;
                }
            };
            if (value == null) {
                continue;
            }
            if (f.repeated()) {
                JsonArray list = Json.arr(o, f.name());
                if (list == null) {
                    list = new JsonArray();
                    o.add(f.name(), list);
                }
                list.add(value);
            } else {
                o.add(f.name(), value);
            }
        }
        return o;
    }

    private static void mapEntry(Reader in, JsonObject map, boolean bytes) {
        String key = "";
        String value = "";
        while (in.more()) {
            int tag = in.varintAsInt();
            byte[] b = in.bytes();
            if (tag >>> 3 == 1) {
                key = new String(b, StandardCharsets.UTF_8);
            } else if (tag >>> 3 == 2) {
                value = bytes ? Base64.getEncoder().encodeToString(b) : new String(b, StandardCharsets.UTF_8);
            }
        }
        map.addProperty(key, value);
    }

    private static String time(Reader in) {
        long seconds = 0;
        long nanos = 0;
        while (in.more()) {
            int tag = in.varintAsInt();
            if (tag >>> 3 == 1) {
                seconds = in.varint();
            } else if (tag >>> 3 == 2) {
                nanos = in.varint();
            } else {
                in.skip(tag & 7);
            }
        }
        return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochSecond(seconds, nanos));
    }

    private static ApiError unsupported(String why) {
        return new ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                + "accepted media types include: application/json (" + why + ")", null);
    }

    /** Reads protobuf wire format. */
    private static final class Reader {
        private final byte[] buf;
        private int pos;

        Reader(byte[] buf) {
            this.buf = buf;
        }

        boolean more() {
            return pos < buf.length;
        }

        long varint() {
            long result = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= buf.length) {
                    throw ApiError.badRequest("truncated protobuf varint");
                }
                byte b = buf[pos++];
                result |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return result;
                }
            }
            throw ApiError.badRequest("malformed protobuf varint");
        }

        int varintAsInt() {
            return (int) varint();
        }

        byte[] bytes() {
            int length = varintAsInt();
            if (length < 0 || pos + length > buf.length) {
                throw ApiError.badRequest("truncated protobuf field");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(length);
            out.write(buf, pos, length);
            pos += length;
            return out.toByteArray();
        }

        void skip(int wireType) {
            switch (wireType) {
                case 0 -> varint();
                case 1 -> pos += 8;
                case 2 -> bytes();
                case 5 -> pos += 4;
                default -> throw ApiError.badRequest("unsupported protobuf wire type " + wireType);
            }
        }
    }
}
