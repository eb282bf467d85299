package io.tenantplane.testkit;

import com.google.gson.JsonObject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Fans out store changes to open watches and keeps a bounded history of them, so that a watch can resume from a
 * resourceVersion; a resourceVersion older than the history is answered with 410 as after an etcd compaction.
 * {@link #publish} and {@link #subscribe} are called with the store's lock held, which orders events by
 * resourceVersion and makes a subscription's initial state and its first live event consistent.
 */
final class WatchHub {
    /** One change, in the order of the global resourceVersion. */
    record Event(long resourceVersion, String type, String storageKey, String namespace, JsonObject object,
            JsonObject previous) {
    }

    /** What a watch stream writes next: an event type and its object, or the end of the stream. */
    record Item(String type, JsonObject object) {
        static final Item END = new Item("END", null);
    }

    /** Which objects a watch wants; labels and fields are evaluated on the object, before and after a change. */
    record Filter(String storageKey, String namespace, Predicate<JsonObject> labels, Predicate<JsonObject> fields) {
        boolean matches(JsonObject o) {
            return o != null && labels.test(Json.obj(Json.obj(o, "metadata"), "labels")) && fields.test(o);
        }
    }

    /** One open watch. Its queue is bounded: a watcher too slow to keep up is ended, as the real server does. */
    static final class Subscription {
        private static final int MAX_QUEUED = 10_000;
        final Filter filter;
        /** The resourceVersion the watch starts after; its initial objects reflect the state at this version. */
        final long startVersion;
        /** How many of the first queued items are the initial state (synthetic ADDED events). */
        final int initialCount;
        private final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
        private volatile boolean closed;

        Subscription(Filter filter, long startVersion, int initialCount) {
            this.filter = filter;
            this.startVersion = startVersion;
            this.initialCount = initialCount;
        }

        void offer(Item item) {
            if (closed) {
                return;
            }
            if (queue.size() >= MAX_QUEUED) {
                close();
                return;
            }
            queue.add(item);
        }

        /** The next item, or null when none arrived within the timeout. */
        Item poll(long timeoutMillis) throws InterruptedException {
            return queue.poll(Math.max(0, timeoutMillis), TimeUnit.MILLISECONDS);
        }

        boolean idle() {
            return queue.isEmpty();
        }

        void close() {
            if (!closed) {
                closed = true;
                queue.clear();
                queue.add(Item.END);
            }
        }
    }

    private final int capacity;
    private final ArrayDeque<Event> history = new ArrayDeque<>();
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();
    private long compactedThrough;
    private volatile long lastPublished;

    WatchHub(int capacity) {
        this.capacity = capacity;
    }

    void publish(Event event) {
        history.addLast(event);
        while (history.size() > capacity) {
            compactedThrough = history.removeFirst().resourceVersion();
        }
        for (Subscription s : subscriptions) {
            Item item = translate(event, s.filter);
            if (item != null) {
                s.offer(item);
            }
        }
        lastPublished = event.resourceVersion();
    }

    /**
     * Opens a watch from {@code fromResourceVersion}: queues {@code initial} objects as ADDED, then every kept event
     * after that version, then live events.
     *
     * @throws ApiError 410 when events after {@code fromResourceVersion} are no longer kept
     */
    Subscription subscribe(Filter filter, long fromResourceVersion, List<JsonObject> initial) {
        if (fromResourceVersion < compactedThrough) {
            throw ApiError.expired("too old resource version: " + fromResourceVersion + " (" + compactedThrough + ")");
        }
        Subscription s = new Subscription(filter, fromResourceVersion, initial.size());
        for (JsonObject o : initial) {
            s.offer(new Item("ADDED", o));
        }
        for (Event e : history) {
            if (e.resourceVersion() > fromResourceVersion) {
                Item item = translate(e, filter);
                if (item != null) {
                    s.offer(item);
                }
            }
        }
        subscriptions.add(s);
        return s;
    }

    void unsubscribe(Subscription s) {
        subscriptions.remove(s);
    }

    /** The resourceVersion through which every event has been queued to every subscription. */
    long lastPublished() {
        return lastPublished;
    }

    /** Ends every open watch on one resource, or on all resources when {@code storageKey} is null. */
    int closeAll(String storageKey) {
        List<Subscription> closing = new ArrayList<>();
        for (Subscription s : subscriptions) {
            if (storageKey == null || s.filter.storageKey().equals(storageKey)) {
                closing.add(s);
            }
        }
        closing.forEach(Subscription::close);
        subscriptions.removeAll(closing);
        return closing.size();
    }

    int open() {
        return subscriptions.size();
    }

    /** An object moving into or out of a filtered view is seen as ADDED or DELETED there, as with a real watch. */
    private static Item translate(Event e, Filter f) {
        if (!e.storageKey().equals(f.storageKey())) {
            return null;
        }
        if (f.namespace() != null && !f.namespace().equals(e.namespace())) {
            return null;
        }
        boolean now = f.matches(e.object());
        return switch (e.type()) {
            case "ADDED" -> now ? new Item("ADDED", e.object()) : null;
            case "DELETED" -> now ? new Item("DELETED", e.object()) : null;
            default -> {
                boolean before = f.matches(e.previous());
                if (before && now) {
                    yield new Item("MODIFIED", e.object());
                } else if (now) {
                    yield new Item("ADDED", e.object());
                } else if (before) {
                    yield new Item("DELETED", e.object());
                }
                yield null;
            }
        };
    }
}
