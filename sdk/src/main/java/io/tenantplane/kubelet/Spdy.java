package io.tenantplane.kubelet;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * SPDY/3.1 framing, as far as Kubernetes' stream protocols use it: what kube-apiserver speaks to a kubelet for exec,
 * attach and port-forward ({@code k8s.io/apimachinery/pkg/util/httpstream/spdy} over {@code moby/spdystream}), and
 * what kubectl speaks when it does not use WebSocket. The frames follow the SPDY/3 draft
 * (chromium.org/spdy/spdy-protocol/spdy-protocol-draft3): control frames SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS,
 * PING, GOAWAY, HEADERS and WINDOW_UPDATE, and data frames. Header blocks are zlib streams with the draft's dictionary,
 * one compression context per direction for the life of the connection, flushed after every block.
 *
 * <p>Flow control is not enforced: spdystream, the only peer Kubernetes has, neither sends WINDOW_UPDATE nor waits for
 * one, so this side reads WINDOW_UPDATE and SETTINGS and ignores them, as spdystream does.
 */
final class Spdy {

    /** The SPDY/3 header compression dictionary (draft 3, section 2.6.10.1), 1423 bytes. */
    static final byte[] DICTIONARY = Base64.getDecoder().decode(
            "AAAAB29wdGlvbnMAAAAEaGVhZAAAAARwb3N0AAAAA3B1dAAAAAZkZWxldGUAAAAFdHJhY2UAAAAGYWNjZXB0AAAADmFjY2VwdC1j" +
            "aGFyc2V0AAAAD2FjY2VwdC1lbmNvZGluZwAAAA9hY2NlcHQtbGFuZ3VhZ2UAAAANYWNjZXB0LXJhbmdlcwAAAANhZ2UAAAAFYWxs" +
            "b3cAAAANYXV0aG9yaXphdGlvbgAAAA1jYWNoZS1jb250cm9sAAAACmNvbm5lY3Rpb24AAAAMY29udGVudC1iYXNlAAAAEGNvbnRl" +
            "bnQtZW5jb2RpbmcAAAAQY29udGVudC1sYW5ndWFnZQAAAA5jb250ZW50LWxlbmd0aAAAABBjb250ZW50LWxvY2F0aW9uAAAAC2Nv" +
            "bnRlbnQtbWQ1AAAADWNvbnRlbnQtcmFuZ2UAAAAMY29udGVudC10eXBlAAAABGRhdGUAAAAEZXRhZwAAAAZleHBlY3QAAAAHZXhw" +
            "aXJlcwAAAARmcm9tAAAABGhvc3QAAAAIaWYtbWF0Y2gAAAARaWYtbW9kaWZpZWQtc2luY2UAAAANaWYtbm9uZS1tYXRjaAAAAAhp" +
            "Zi1yYW5nZQAAABNpZi11bm1vZGlmaWVkLXNpbmNlAAAADWxhc3QtbW9kaWZpZWQAAAAIbG9jYXRpb24AAAAMbWF4LWZvcndhcmRz" +
            "AAAABnByYWdtYQAAABJwcm94eS1hdXRoZW50aWNhdGUAAAATcHJveHktYXV0aG9yaXphdGlvbgAAAAVyYW5nZQAAAAdyZWZlcmVy" +
            "AAAAC3JldHJ5LWFmdGVyAAAABnNlcnZlcgAAAAJ0ZQAAAAd0cmFpbGVyAAAAEXRyYW5zZmVyLWVuY29kaW5nAAAAB3VwZ3JhZGUA" +
            "AAAKdXNlci1hZ2VudAAAAAR2YXJ5AAAAA3ZpYQAAAAd3YXJuaW5nAAAAEHd3dy1hdXRoZW50aWNhdGUAAAAGbWV0aG9kAAAAA2dl" +
            "dAAAAAZzdGF0dXMAAAAGMjAwIE9LAAAAB3ZlcnNpb24AAAAISFRUUC8xLjEAAAADdXJsAAAABnB1YmxpYwAAAApzZXQtY29va2ll" +
            "AAAACmtlZXAtYWxpdmUAAAAGb3JpZ2luMTAwMTAxMjAxMjAyMjA1MjA2MzAwMzAyMzAzMzA0MzA1MzA2MzA3NDAyNDA1NDA2NDA3" +
            "NDA4NDA5NDEwNDExNDEyNDEzNDE0NDE1NDE2NDE3NTAyNTA0NTA1MjAzIE5vbi1BdXRob3JpdGF0aXZlIEluZm9ybWF0aW9uMjA0" +
            "IE5vIENvbnRlbnQzMDEgTW92ZWQgUGVybWFuZW50bHk0MDAgQmFkIFJlcXVlc3Q0MDEgVW5hdXRob3JpemVkNDAzIEZvcmJpZGRl" +
            "bjQwNCBOb3QgRm91bmQ1MDAgSW50ZXJuYWwgU2VydmVyIEVycm9yNTAxIE5vdCBJbXBsZW1lbnRlZDUwMyBTZXJ2aWNlIFVuYXZh" +
            "aWxhYmxlSmFuIEZlYiBNYXIgQXByIE1heSBKdW4gSnVsIEF1ZyBTZXB0IE9jdCBOb3YgRGVjIDAwOjAwOjAwIE1vbiwgVHVlLCBX" +
            "ZWQsIFRodSwgRnJpLCBTYXQsIFN1biwgR01UY2h1bmtlZCx0ZXh0L2h0bWwsaW1hZ2UvcG5nLGltYWdlL2pwZyxpbWFnZS9naWYs" +
            "YXBwbGljYXRpb24veG1sLGFwcGxpY2F0aW9uL3hodG1sK3htbCx0ZXh0L3BsYWluLHRleHQvamF2YXNjcmlwdCxwdWJsaWNwcml2" +
            "YXRlbWF4LWFnZT1nemlwLGRlZmxhdGUsc2RjaGNoYXJzZXQ9dXRmLThjaGFyc2V0PWlzby04ODU5LTEsdXRmLSwqLGVucT0wLg==");

    static final int SYN_STREAM = 1;
    static final int SYN_REPLY = 2;
    static final int RST_STREAM = 3;
    static final int SETTINGS = 4;
    static final int PING = 6;
    static final int GOAWAY = 7;
    static final int HEADERS = 8;
    static final int WINDOW_UPDATE = 9;
    static final int FLAG_FIN = 0x01;
    /** RST_STREAM status: the stream is refused. */
    static final int REFUSED_STREAM = 3;
    /** RST_STREAM status: the sender cancels the stream. */
    static final int CANCEL = 5;
    /** A data frame never carries more than this (spdystream writes at most 32 KiB at once as well). */
    static final int MAX_DATA = 32 * 1024;

    private Spdy() {
    }

    /** One frame as read. */
    sealed interface Frame permits Control, Data {
    }

    /**
     * A control frame. {@code stream} is the stream id where the type has one (0 otherwise); {@code headers} the
     * decoded header block of SYN_STREAM, SYN_REPLY and HEADERS (lower-case names, values joined by NUL); {@code value}
     * the RST_STREAM or GOAWAY status, the PING id or the WINDOW_UPDATE delta.
     */
    record Control(int type, int flags, int stream, Map<String, String> headers, long value) implements Frame {
        boolean fin() {
            return (flags & FLAG_FIN) != 0;
        }
    }

    /** A data frame. */
    record Data(int stream, int flags, byte[] bytes) implements Frame {
        boolean fin() {
            return (flags & FLAG_FIN) != 0;
        }
    }

    /** Reads frames; one per connection direction, not thread-safe. */
    static final class Reader {
        private final DataInputStream in;
        private final Inflater inflater = new Inflater();

        Reader(InputStream in) {
            this.in = new DataInputStream(in);
        }

        /** The next frame; null at the end of the connection. */
        Frame read() throws IOException {
            int first;
            try {
                first = in.readInt();
            } catch (EOFException e) {
                return null;
            }
            int flagsAndLength = in.readInt();
            int flags = flagsAndLength >>> 24;
            int length = flagsAndLength & 0xFFFFFF;
            byte[] payload = new byte[length];
            in.readFully(payload);
            if (first >= 0) {
                return new Data(first & 0x7FFFFFFF, flags, payload);
            }
            int version = (first >>> 16) & 0x7FFF;
            int type = first & 0xFFFF;
            if (version != 3) {
                throw new IOException("SPDY version " + version + " is not spoken here (only 3)");
            }
            ByteBuffer b = ByteBuffer.wrap(payload);
            return switch (type) {
                case SYN_STREAM -> {
                    int id = b.getInt() & 0x7FFFFFFF;
                    b.getInt();  // associated-to stream
                    b.getShort();  // priority and slot
                    yield new Control(type, flags, id, headers(payload, b.position()), 0);
                }
                case SYN_REPLY, HEADERS -> {
                    int id = b.getInt() & 0x7FFFFFFF;
                    yield new Control(type, flags, id, headers(payload, b.position()), 0);
                }
                case RST_STREAM -> new Control(type, flags, b.getInt() & 0x7FFFFFFF, Map.of(),
                        b.getInt() & 0xFFFFFFFFL);
                case PING -> new Control(type, flags, 0, Map.of(), b.getInt() & 0xFFFFFFFFL);
                case GOAWAY -> new Control(type, flags, b.getInt() & 0x7FFFFFFF, Map.of(),
                        b.remaining() >= 4 ? b.getInt() & 0xFFFFFFFFL : 0);
                case WINDOW_UPDATE -> new Control(type, flags, b.getInt() & 0x7FFFFFFF, Map.of(),
                        b.getInt() & 0x7FFFFFFFL);
                default -> new Control(type, flags, 0, Map.of(), 0);
            };
        }

        private Map<String, String> headers(byte[] payload, int offset) throws IOException {
            inflater.setInput(payload, offset, payload.length - offset);
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            try {
                while (true) {
                    int n = inflater.inflate(buf);
                    if (n == 0) {
                        if (inflater.needsDictionary()) {
                            inflater.setDictionary(DICTIONARY);
                            continue;
                        }
                        if (inflater.needsInput() || inflater.finished()) {
                            break;
                        }
                    }
                    raw.write(buf, 0, n);
                    if (raw.size() > 1 << 20) {
                        throw new IOException("SPDY header block larger than 1 MiB");
                    }
                }
            } catch (DataFormatException e) {
                throw new IOException("SPDY header block cannot be decompressed: " + e.getMessage(), e);
            }
            ByteBuffer b = ByteBuffer.wrap(raw.toByteArray());
            int count = b.getInt();
            Map<String, String> out = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = string(b);
                String value = string(b);
                out.put(name.toLowerCase(Locale.ROOT), value);
            }
            return out;
        }

        private static String string(ByteBuffer b) {
            byte[] s = new byte[b.getInt()];
            b.get(s);
            return new String(s, StandardCharsets.UTF_8);
        }
    }

    /** Writes frames; thread-safe (one frame at a time). */
    static final class Writer {
        private final OutputStream out;
        private final Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);

        Writer(OutputStream out) {
            this.out = out;
            deflater.setDictionary(DICTIONARY);
        }

        synchronized void synStream(int stream, Map<String, String> headers, boolean fin) throws IOException {
            byte[] block = block(headers);
            ByteBuffer b = ByteBuffer.allocate(10 + block.length);
            b.putInt(stream & 0x7FFFFFFF).putInt(0).putShort((short) 0).put(block);
            control(SYN_STREAM, fin ? FLAG_FIN : 0, b.array());
        }

        synchronized void synReply(int stream, Map<String, String> headers, boolean fin) throws IOException {
            byte[] block = block(headers);
            ByteBuffer b = ByteBuffer.allocate(4 + block.length);
            b.putInt(stream & 0x7FFFFFFF).put(block);
            control(SYN_REPLY, fin ? FLAG_FIN : 0, b.array());
        }

        synchronized void rst(int stream, int status) throws IOException {
            control(RST_STREAM, 0, ByteBuffer.allocate(8).putInt(stream & 0x7FFFFFFF).putInt(status).array());
        }

        synchronized void ping(long id) throws IOException {
            control(PING, 0, ByteBuffer.allocate(4).putInt((int) id).array());
        }

        synchronized void goAway(int lastGoodStream) throws IOException {
            control(GOAWAY, 0, ByteBuffer.allocate(8).putInt(lastGoodStream & 0x7FFFFFFF).putInt(0).array());
        }

        /** Data on {@code stream}, split into frames of at most {@link #MAX_DATA}; {@code fin} on the last. */
        synchronized void data(int stream, byte[] bytes, int offset, int length, boolean fin) throws IOException {
            int at = offset;
            int left = length;
            do {
                int n = Math.min(left, MAX_DATA);
                boolean last = left - n == 0;
                ByteBuffer h = ByteBuffer.allocate(8);
                h.putInt(stream & 0x7FFFFFFF).putInt(((last && fin ? FLAG_FIN : 0) << 24) | n);
                out.write(h.array());
                out.write(bytes, at, n);
                at += n;
                left -= n;
            } while (left > 0);
            out.flush();
        }

        private void control(int type, int flags, byte[] payload) throws IOException {
            ByteBuffer h = ByteBuffer.allocate(8);
            h.putInt(0x80000000 | (3 << 16) | type).putInt((flags << 24) | payload.length);
            out.write(h.array());
            out.write(payload);
            out.flush();
        }

        private byte[] block(Map<String, String> headers) {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            ByteBuffer count = ByteBuffer.allocate(4).putInt(headers.size());
            raw.writeBytes(count.array());
            headers.forEach((k, v) -> {
                byte[] name = k.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
                byte[] value = v.getBytes(StandardCharsets.UTF_8);
                raw.writeBytes(ByteBuffer.allocate(4).putInt(name.length).array());
                raw.writeBytes(name);
                raw.writeBytes(ByteBuffer.allocate(4).putInt(value.length).array());
                raw.writeBytes(value);
            });
            deflater.setInput(raw.toByteArray());
            ByteArrayOutputStream compressed = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            int n;
            do {
                n = deflater.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH);
                compressed.write(buf, 0, n);
            } while (n == buf.length);
            return compressed.toByteArray();
        }
    }
}
