package io.tenantplane.kubelet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.Adler32;
import org.junit.jupiter.api.Test;

/**
 * SPDY/3.1 framing as written and read back. Interoperability with Go's spdystream is what KubeletEndpointIT shows
 * with kubectl; this pins the frame layout and the shared header compression context.
 */
class SpdyTest {

    @Test
    void theDictionaryIsDraftThreesAsZlibIdentifiesIt() {
        assertEquals(1423, Spdy.DICTIONARY.length);
        Adler32 a = new Adler32();
        a.update(Spdy.DICTIONARY);
        // The DICTID a zlib stream names (RFC 1950): kubectl accepts blocks compressed with it (KubeletEndpointIT).
        assertEquals(0xe3c6a7c2L, a.getValue());
    }

    @Test
    void controlAndDataFramesReadBackAsWrittenAcrossOneCompressionContext() throws Exception {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        Spdy.Writer w = new Spdy.Writer(wire);
        Map<String, String> first = new LinkedHashMap<>();
        first.put("streamType", "error");
        w.synStream(1, first, false);
        w.synStream(3, Map.of("streamtype", "stdin"), false);
        w.synReply(3, Map.of(), false);
        byte[] big = new byte[Spdy.MAX_DATA + 10];
        big[0] = 7;
        big[big.length - 1] = 9;
        w.data(3, big, 0, big.length, true);
        w.ping(2);
        w.rst(5, Spdy.CANCEL);
        w.goAway(3);

        Spdy.Reader r = new Spdy.Reader(new ByteArrayInputStream(wire.toByteArray()));
        Spdy.Control syn1 = (Spdy.Control) r.read();
        assertEquals(Spdy.SYN_STREAM, syn1.type());
        assertEquals(1, syn1.stream());
        assertEquals(Map.of("streamtype", "error"), syn1.headers(), "names are lower case on the wire");
        Spdy.Control syn3 = (Spdy.Control) r.read();
        assertEquals(Map.of("streamtype", "stdin"), syn3.headers(), "the second block uses the same context");
        Spdy.Control reply = (Spdy.Control) r.read();
        assertEquals(Spdy.SYN_REPLY, reply.type());
        assertEquals(3, reply.stream());
        Spdy.Data part1 = (Spdy.Data) r.read();
        Spdy.Data part2 = (Spdy.Data) r.read();
        assertEquals(Spdy.MAX_DATA, part1.bytes().length, "data is split into frames of at most 32 KiB");
        assertTrue(!part1.fin() && part2.fin(), "FIN on the last frame only");
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        joined.write(part1.bytes());
        joined.write(part2.bytes());
        assertArrayEquals(big, joined.toByteArray());
        Spdy.Control ping = (Spdy.Control) r.read();
        assertEquals(Spdy.PING, ping.type());
        assertEquals(2, ping.value());
        Spdy.Control rst = (Spdy.Control) r.read();
        assertEquals(5, rst.stream());
        assertEquals(Spdy.CANCEL, rst.value());
        Spdy.Control away = (Spdy.Control) r.read();
        assertEquals(Spdy.GOAWAY, away.type());
        assertEquals(3, away.stream());
        assertNull(r.read(), "the end of the connection");
    }
}
