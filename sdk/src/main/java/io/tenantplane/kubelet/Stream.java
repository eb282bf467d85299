package io.tenantplane.kubelet;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** One open call of the kubelet endpoint: closed by the idle watchdog, by the caller leaving, or on shutdown. */
final class Stream {
    private final Exchange exchange;
    private final List<Runnable> onClose = new CopyOnWriteArrayList<>();
    volatile long last = System.nanoTime();
    volatile boolean idled;

    Stream(Exchange exchange) {
        this.exchange = exchange;
    }

    /** Something moved: the idle clock starts again. */
    void progress() {
        last = System.nanoTime();
    }

    /** Runs {@code action} when the call is closed (e.g. cancels the host side). */
    void onClose(Runnable action) {
        onClose.add(action);
    }

    void close() {
        for (Runnable r : onClose) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // closing anyway
            }
        }
        exchange.close();
    }
}
