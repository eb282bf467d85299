package io.tenantplane.kubelet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The log relay's copy: every byte in order, bounded, flushed when nothing is at hand, failures of either side. */
class PipeTest {

    /** An input that hands out at most {@code step} bytes per read, as okhttp hands out one segment. */
    private static InputStream stepped(byte[] data, int step) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }

    @Test
    void everyByteArrivesInOrderAndIsCounted() throws IOException {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(data);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AtomicLong copied = new AtomicLong();
        AtomicInteger progress = new AtomicInteger();

        Pipe.copy(stepped(data, 8192), out, progress::incrementAndGet, copied, "test");

        assertArrayEquals(data, out.toByteArray());
        assertEquals(data.length, copied.get());
        assertTrue(progress.get() > 0);
    }

    @Test
    void whatIsAtHandIsFlushedWhileTheInputWaitsForMore() throws Exception {
        PipedOutputStream host = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(host, 1024);
        CountDownLatch flushed = new CountDownLatch(1);
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        OutputStream out = new OutputStream() {
            @Override
            public synchronized void write(int b) {
                seen.write(b);
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                seen.write(b, off, len);
            }

            @Override
            public void flush() {
                flushed.countDown();
            }
        };
        Thread copy = Thread.ofVirtual().start(() -> {
            try {
                Pipe.copy(in, out, () -> { }, new AtomicLong(), "test");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        host.write("a line\n".getBytes());
        host.flush();

        assertTrue(flushed.await(10, TimeUnit.SECONDS), "a followed log's line reaches the caller before the log ends");
        synchronized (out) {
            assertEquals("a line\n", seen.toString());
        }
        host.close();
        copy.join(10_000);
    }

    @Test
    void aSlowCallerHoldsTheReaderBackAfterABoundedNumberOfReads() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                return 'x';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                reads.incrementAndGet();
                int n = Math.min(len, 8192);
                java.util.Arrays.fill(b, off, off + n, (byte) 'x');
                return n;
            }
        };
        CountDownLatch release = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("caller went away");
            }
        };
        Thread copy = Thread.ofVirtual().start(() -> assertThrows(IOException.class,
                () -> Pipe.copy(endless, stuck, () -> { }, new AtomicLong(), "test")));
        int held = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (held != reads.get() && System.nanoTime() < deadline) {
            held = reads.get();
            Thread.sleep(200);
        }

        assertEquals(held, reads.get(), "the reader waits for the caller");
        assertTrue(held <= Pipe.HELD, "at most the queue's reads, the writer's batch and one in hand: " + held);
        release.countDown();
        copy.join(10_000);
        assertTrue(!copy.isAlive(), "the copy ends when the caller goes");
    }

    @Test
    void aFailedReadIsThrownAfterWhatWasReadIsWritten() {
        IOException broken = new IOException("host connection reset");
        InputStream failing = new InputStream() {
            private boolean once;

            @Override
            public int read() {
                return -1;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (once) {
                    throw broken;
                }
                once = true;
                b[off] = 'z';
                return 1;
            }
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AtomicLong copied = new AtomicLong();

        IOException thrown = assertThrows(IOException.class,
                () -> Pipe.copy(failing, out, () -> { }, copied, "test"));

        assertSame(broken, thrown);
        assertEquals("z", out.toString());
        assertEquals(1, copied.get(), "the copy says how far it came");
    }

    @Test
    void docsOperationsStatesTheBound() throws IOException {
        String operations = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "operations.md"))
                .replaceAll("\\s+", " ");
        assertTrue(operations.contains("after at most " + Pipe.HELD + " reads of at most " + Pipe.READ / 1024
                + " KiB"), "docs/operations.md states the bound of a log stream");
    }
}
