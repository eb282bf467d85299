package io.tenantplane.transform;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.naming.ReverseMapping;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * Canonical JSON (sorted keys, normalised numbers) and the source hash built on it.
 *
 * <p>The text is exactly what the first implementation wrote (keys sorted by {@link String#compareTo}, strings
 * escaped as gson writes them without HTML escaping, numbers as {@code BigDecimal.stripTrailingZeros().toPlainString()}),
 * because every host object carries a hash of it: a different text for the same object would rewrite every host
 * object after an upgrade. It is written in one pass without copying the object.
 */
final class Canonical {

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final Comparator<Map.Entry<String, JsonElement>> BY_KEY = Map.Entry.comparingByKey();

    private Canonical() {
    }

    /**
     * The value of {@link ReverseMapping#SOURCE_HASH} for a desired host object: the canonical JSON of the object
     * without {@link ReverseMapping#REASON} and {@link ReverseMapping#SOURCE_HASH} in {@code metadata.annotations}.
     */
    static String sourceHash(JsonObject host) {
        StringBuilder sb = new StringBuilder(1024);
        writeObject(host, sb, Level.ROOT);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    static String json(JsonElement e) {
        StringBuilder sb = new StringBuilder();
        write(e, sb, Level.OTHER);
        return sb.toString();
    }

    /** Where a value sits, as far as leaving out the two annotations is concerned. */
    private enum Level {
        ROOT, METADATA, ANNOTATIONS, OTHER;

        Level child(String key) {
            return switch (this) {
                case ROOT -> key.equals("metadata") ? METADATA : OTHER;
                case METADATA -> key.equals("annotations") ? ANNOTATIONS : OTHER;
                default -> OTHER;
            };
        }
    }

    private static void write(JsonElement e, StringBuilder sb, Level level) {
        if (e == null || e.isJsonNull()) {
            sb.append("null");
        } else if (e instanceof JsonObject o) {
            writeObject(o, sb, level);
        } else if (e instanceof JsonArray a) {
            sb.append('[');
            for (int i = 0, n = a.size(); i < n; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(a.get(i), sb, Level.OTHER);
            }
            sb.append(']');
        } else {
            JsonPrimitive p = (JsonPrimitive) e;
            if (p.isNumber()) {
                number(p.getAsNumber(), p, sb);
            } else if (p.isBoolean()) {
                sb.append(p.getAsBoolean());
            } else {
                string(p.getAsString(), sb);
            }
        }
    }

    private static void writeObject(JsonObject o, StringBuilder sb, Level level) {
        Set<Map.Entry<String, JsonElement>> entries = o.entrySet();
        @SuppressWarnings("unchecked")
        Map.Entry<String, JsonElement>[] sorted = entries.toArray(new Map.Entry[0]);
        int n = sorted.length;
        if (level == Level.ANNOTATIONS) {
            n = 0;
            for (Map.Entry<String, JsonElement> en : sorted) {
                String k = en.getKey();
                if (!k.equals(ReverseMapping.REASON) && !k.equals(ReverseMapping.SOURCE_HASH)) {
                    sorted[n++] = en;
                }
            }
        }
        if (n > 16) {
            Arrays.sort(sorted, 0, n, BY_KEY);
        } else {
            // Most objects have a handful of keys: an insertion sort beats the general sort's set-up.
            for (int i = 1; i < n; i++) {
                Map.Entry<String, JsonElement> e = sorted[i];
                String k = e.getKey();
                int j = i - 1;
                while (j >= 0 && sorted[j].getKey().compareTo(k) > 0) {
                    sorted[j + 1] = sorted[j];
                    j--;
                }
                sorted[j + 1] = e;
            }
        }
        sb.append('{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(',');
            }
            String key = sorted[i].getKey();
            string(key, sb);
            sb.append(':');
            write(sorted[i].getValue(), sb, level == Level.OTHER ? Level.OTHER : level.child(key));
        }
        sb.append('}');
    }

    /**
     * A number as {@code new BigDecimal(text).stripTrailingZeros().toPlainString()}, which is the integer itself for
     * integral Java types and for plain integer text without leading zeros.
     */
    private static void number(Number n, JsonPrimitive p, StringBuilder sb) {
        if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
            sb.append(n.longValue());
            return;
        }
        if (n instanceof BigInteger b) {
            sb.append(b);
            return;
        }
        if (!(n instanceof Double || n instanceof Float || n instanceof java.math.BigDecimal)) {
            String text = n.toString();
            if (isCanonicalInteger(text)) {
                sb.append(text);
                return;
            }
        }
        sb.append(p.getAsBigDecimal().stripTrailingZeros().toPlainString());
    }

    /** {@code 0}, or an optional {@code -} and digits not starting with {@code 0}. */
    private static boolean isCanonicalInteger(String s) {
        int len = s.length();
        int start = len > 0 && s.charAt(0) == '-' ? 1 : 0;
        if (start == len) {
            return false;
        }
        if (s.charAt(start) == '0') {
            return len == 1;
        }
        for (int i = start; i < len; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** A JSON string as gson's {@code JsonWriter} writes it with HTML escaping off. */
    private static void string(String s, StringBuilder sb) {
        sb.append('"');
        int last = 0;
        int len = s.length();
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            String replacement;
            if (c < 0x20) {
                replacement = switch (c) {
                    case '\t' -> "\\t";
                    case '\b' -> "\\b";
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\f' -> "\\f";
                    default -> null;
                };
                if (replacement == null) {
                    sb.append(s, last, i).append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    last = i + 1;
                    continue;
                }
            } else if (c == '"') {
                replacement = "\\\"";
            } else if (c == '\\') {
                replacement = "\\\\";
            } else if (c == '\u2028') {
                replacement = "\\u2028";
            } else if (c == '\u2029') {
                replacement = "\\u2029";
            } else {
                continue;
            }
            sb.append(s, last, i).append(replacement);
            last = i + 1;
        }
        if (last == 0) {
            sb.append(s);
        } else {
            sb.append(s, last, len);
        }
        sb.append('"');
    }
}
