package io.tenantplane.kubelet;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Copies a stream to another with the reading on its own virtual thread, so that reading the host's answer and
 * writing (encrypting) it to the caller overlap instead of taking turns. The two sides meet in a bounded queue: a
 * caller that reads slowly holds the reader back (at most {@link #CHUNKS} reads wait in the queue, one more than
 * that in the writer's hand and one in the reader's: {@link #HELD} reads of at most 16 KiB, the most a stream holds), and the
 * writer flushes when nothing more is at hand (a followed log waiting for lines), not after every read.
 */
final class Pipe {

    /** Reads that may wait in the queue for the writer (okhttp hands out 8 KiB or less per read). */
    static final int CHUNKS = 8;
    /** The most reads a stream holds at once: the queue's, a batch in the writer's hand, one in the reader's. */
    static final int HELD = 2 * CHUNKS + 2;
    /** The largest read, the largest TLS record. */
    static final int READ = 16 * 1024;
    private static final byte[] END = new byte[0];

    private Pipe() {
    }

    /**
     * Copies {@code in} to {@code out} until {@code in} ends, calling {@code progress} whenever bytes move and counting
     * the bytes written in {@code copied} (so a copy that fails says how far it came). When writing fails the copy
     * stops at once (the caller closes {@code in}, which ends the reader); when reading fails what was read is written
     * and the read's exception thrown.
     *
     * @throws IOException from either side
     */
    static void copy(InputStream in, OutputStream out, Runnable progress, AtomicLong copied, String name)
            throws IOException {
        BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(CHUNKS);
        AtomicReference<IOException> readFailed = new AtomicReference<>();
        AtomicBoolean writerGone = new AtomicBoolean();
        Thread.ofVirtual().name(name).start(() -> {
            byte[] buf = new byte[READ];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (n > 0) {
                        progress.run();
                        if (!put(queue, Arrays.copyOf(buf, n), writerGone)) {
                            return;
                        }
                    }
                }
            } catch (IOException e) {
                readFailed.set(e);
            }
            put(queue, END, writerGone);
        });
        List<byte[]> ready = new ArrayList<>(CHUNKS);
        try {
            while (true) {
                byte[] first = queue.take();
                ready.add(first);
                queue.drainTo(ready, CHUNKS);
                boolean ended = false;
                for (byte[] chunk : ready) {
                    if (chunk == END) {
                        ended = true;
                        break;
                    }
                    out.write(chunk);
                    copied.addAndGet(chunk.length);
                }
                ready.clear();
                progress.run();
                if (ended) {
                    if (readFailed.get() != null) {
                        out.flush();
                        throw readFailed.get();
                    }
                    return;
                }
                if (queue.isEmpty()) {
                    out.flush();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while copying", e);
        } finally {
            writerGone.set(true);
            queue.clear();
        }
    }

    /** Offers {@code chunk} until it is taken into the queue; false when the writer has gone. */
    private static boolean put(BlockingQueue<byte[]> queue, byte[] chunk, AtomicBoolean writerGone) {
        try {
            while (!writerGone.get()) {
                if (queue.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
