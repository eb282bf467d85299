package io.tenantplane.transform;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import io.tenantplane.naming.ReverseMapping;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
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
 * object after an upgrade. It is written in one pass without copying the object, straight into the digest.
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
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
        Out out = new Out(sha, null);
        writeObject(host, out, Level.ROOT);
        out.flush();
        return HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    /** The canonical JSON of {@code e} in UTF-8: the bytes {@link #sourceHash} digests (for a root object). */
    static byte[] utf8(JsonElement e) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Out out = new Out(null, bytes);
        write(e, out, Level.OTHER);
        out.flush();
        return bytes.toByteArray();
    }

    /**
     * The canonical text in UTF-8, as {@code String.getBytes(UTF_8)} encodes it (an unpaired surrogate becomes
     * {@code ?}), written in small chunks to a digest (or, for tests, to a byte stream): no text of the whole object
     * is ever held.
     */
    private static final class Out {
        private final byte[] buf = new byte[512];
        private int n;
        private final MessageDigest digest;
        private final ByteArrayOutputStream bytes;
        /** Arrays for sorting the entries of objects, one per nesting level in use, reused from object to object. */
        private final ArrayDeque<Map.Entry<String, JsonElement>[]> spare = new ArrayDeque<>();

        Out(MessageDigest digest, ByteArrayOutputStream bytes) {
            this.digest = digest;
            this.bytes = bytes;
        }

        /** An array of at least {@code size} entries, to give back with {@link #release} once written. */
        @SuppressWarnings("unchecked")
        Map.Entry<String, JsonElement>[] entries(int size) {
            Map.Entry<String, JsonElement>[] a = spare.pollLast();
            return a != null && a.length >= size ? a : new Map.Entry[Math.max(size, 8)];
        }

        void release(Map.Entry<String, JsonElement>[] a, int used) {
            Arrays.fill(a, 0, used, null);
            spare.addLast(a);
        }

        void put(int b) {
            if (n == buf.length) {
                flush();
            }
            buf[n++] = (byte) b;
        }

        /** Text known to be ASCII (numbers, literals, escapes). */
        void ascii(String s) {
            ascii(s, 0, s.length());
        }

        /** {@code s[from, to)}, every char of which is ASCII. */
        @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) copies ASCII in bulk, without allocating
        void ascii(String s, int from, int to) {
            while (from < to) {
                if (n == buf.length) {
                    flush();
                }
                int k = Math.min(buf.length - n, to - from);
                s.getBytes(from, from + k, buf, n);
                n += k;
                from += k;
            }
        }

        void flush() {
            if (digest != null) {
                digest.update(buf, 0, n);
            } else {
                bytes.write(buf, 0, n);
            }
            n = 0;
        }
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

    private static void write(JsonElement e, Out out, Level level) {
        if (e == null || e.isJsonNull()) {
            out.ascii("null");
        } else if (e instanceof JsonObject o) {
            writeObject(o, out, level);
        } else if (e instanceof JsonArray a) {
            out.put('[');
            for (int i = 0, n = a.size(); i < n; i++) {
                if (i > 0) {
                    out.put(',');
                }
                write(a.get(i), out, Level.OTHER);
            }
            out.put(']');
        } else {
            JsonPrimitive p = (JsonPrimitive) e;
            if (p.isNumber()) {
                number(p.getAsNumber(), p, out);
            } else if (p.isBoolean()) {
                out.ascii(p.getAsBoolean() ? "true" : "false");
            } else {
                string(p.getAsString(), out);
            }
        }
    }

    private static void writeObject(JsonObject o, Out out, Level level) {
        Set<Map.Entry<String, JsonElement>> entries = o.entrySet();
        Map.Entry<String, JsonElement>[] sorted = out.entries(entries.size());
        int n = 0;
        boolean annotations = level == Level.ANNOTATIONS;
        for (Map.Entry<String, JsonElement> en : entries) {
            String k = en.getKey();
            if (!(annotations && (k.equals(ReverseMapping.REASON) || k.equals(ReverseMapping.SOURCE_HASH)))) {
                sorted[n++] = en;
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
        out.put('{');
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.put(',');
            }
            String key = sorted[i].getKey();
            string(key, out);
            out.put(':');
            write(sorted[i].getValue(), out, level == Level.OTHER ? Level.OTHER : level.child(key));
        }
        out.release(sorted, n);
        out.put('}');
    }

    /**
     * A number as {@code new BigDecimal(text).stripTrailingZeros().toPlainString()}, which is the integer itself for
     * integral Java types and for plain integer text without leading zeros.
     */
    private static void number(Number n, JsonPrimitive p, Out out) {
        if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
            out.ascii(Long.toString(n.longValue()));
            return;
        }
        if (n instanceof BigInteger b) {
            out.ascii(b.toString());
            return;
        }
        if (!(n instanceof Double || n instanceof Float || n instanceof java.math.BigDecimal)) {
            String text = n.toString();
            if (isCanonicalInteger(text)) {
                out.ascii(text);
                return;
            }
        }
        out.ascii(p.getAsBigDecimal().stripTrailingZeros().toPlainString());
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

    /** A JSON string as gson's {@code JsonWriter} writes it with HTML escaping off, in UTF-8. */
    private static void string(String s, Out out) {
        out.put('"');
        int len = s.length();
        int plain = 0;
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                continue;
            }
            out.ascii(s, plain, i);
            plain = i + 1;
            if (c < 0x80) {
                out.put('\\');
                switch (c) {
                    case '"' -> out.put('"');
                    case '\\' -> out.put('\\');
                    case '\t' -> out.put('t');
                    case '\b' -> out.put('b');
                    case '\n' -> out.put('n');
                    case '\r' -> out.put('r');
                    case '\f' -> out.put('f');
                    default -> {
                        out.ascii("u00");
                        out.put(HEX[c >> 4]);
                        out.put(HEX[c & 0xf]);
                    }
                }
            } else if (c < 0x800) {
                out.put(0xc0 | (c >> 6));
                out.put(0x80 | (c & 0x3f));
            } else if (c == '\u2028' || c == '\u2029') {
                out.ascii(c == '\u2028' ? "\\u2028" : "\\u2029");
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    plain = i + 1;
                    out.put(0xf0 | (cp >> 18));
                    out.put(0x80 | ((cp >> 12) & 0x3f));
                    out.put(0x80 | ((cp >> 6) & 0x3f));
                    out.put(0x80 | (cp & 0x3f));
                } else {
                    out.put('?');
                }
            } else {
                out.put(0xe0 | (c >> 12));
                out.put(0x80 | ((c >> 6) & 0x3f));
                out.put(0x80 | (c & 0x3f));
            }
        }
        out.ascii(s, plain, len);
        out.put('"');
    }
}
