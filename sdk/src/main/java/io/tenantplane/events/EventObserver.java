package io.tenantplane.events;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.apply.Retries;
import io.tenantplane.json.Json;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.observe.KubeletRequest;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@link Observer} that records executed decisions as {@code events.k8s.io/v1} Events on the tenant's
 * TenantCluster, so {@code kubectl describe tenantcluster} and {@code kubectl events} show why tenantplane acted.
 *
 * <ul>
 *   <li>{@code regarding} is the TenantCluster, {@code related} the host object, {@code reason} and {@code note} come
 *       from the decision, {@code action} is the decision's action ({@code Create}, {@code Delete}, ...); failed
 *       writes, conflicts and errors are {@code Warning} Events.</li>
 *   <li>Decisions that changed nothing ({@code Unchanged}, {@code Skip}) make no Event: a pass over a converged tenant
 *       writes nothing, Events included.</li>
 *   <li>Repeats of one decision (same object, action and reason) share one Event with a deterministic name; they are
 *       counted in its {@code series}, written at most once per {@code seriesInterval} per Event.</li>
 *   <li>Similar decisions about different objects (same tenant, type, action and reason) get an Event each, up to
 *       {@code aggregateAfter} of them within {@code aggregationWindow} (defaults 10 and 10 minutes, as client-go's
 *       event correlator). Beyond that they are combined into one Event per tenant, type, action and reason: no
 *       {@code related} object, a note starting with {@code (combined from similar events)}, and a {@code series}
 *       that counts them. A first pass that creates 1,000 objects so records 11 Events, not 1,000; every decision
 *       stays in the decision ring and goes to the other observers one by one.</li>
 * </ul>
 *
 * <p>Nothing is written on the reporting thread: {@link #decision} records in memory and returns. One virtual thread
 * per observer writes the Events through an {@link Applier} (conflict-checked, retried) and ends when nothing is left
 * to write. At most {@code queueCapacity} Events wait to be written; a decision that would need one more is dropped,
 * counted in {@link #dropped()}, logged, and counted in a {@code Warning} Event with reason {@code EventsDropped} on
 * its TenantCluster. {@link #flush(Duration)} waits until everything reported so far is written, series counts
 * included; {@link #close()} stops taking decisions and flushes. Thread-safe.
 */
public final class EventObserver implements Observer, AutoCloseable {

    /** The reason of the Event that counts decisions dropped because too many Events waited to be written. */
    public static final String EVENTS_DROPPED = "EventsDropped";
    private static final ResourceKind TENANT_CLUSTERS = ResourceKind.wellKnown(TenantCluster.API_VERSION,
            TenantCluster.KIND).orElseThrow();
    /** The label every Event carries: the name of the tenant it is about (what {@code tenantplane decisions} selects). */
    public static final String TENANT_LABEL = ReverseMapping.TENANT;
    /** How the note of an Event that combines similar decisions starts (client-go's wording). */
    public static final String COMBINED = "(combined from similar events): ";

    private static final System.Logger LOG = System.getLogger(EventObserver.class.getName());
    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    private static final int NOTE_LIMIT = 1024;
    private static final int REMEMBERED = 4096;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    private static final long NOT_WAITING = Long.MIN_VALUE;

    private final Applier applier;
    private final Reader reader;
    private final Clock clock;
    private final String reportingController;
    private final String reportingInstance;
    private final long seriesIntervalNanos;
    private final int aggregateAfter;
    private final Duration aggregationWindow;
    private final int queueCapacity;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Events by name, written or waiting; guarded by {@link #lock}. Waiting ones are never evicted. */
    private final Map<Key, Recorded> entries = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Recorded> eldest) {
            return size() > REMEMBERED && !pending.contains(eldest.getValue());
        }
    };
    /** How many Events each kind of decision made in its current window; guarded by {@link #lock}. */
    private final Map<Similar, Window> windows = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Similar, Window> eldest) {
            return size() > REMEMBERED;
        }
    };
    /** Events with occurrences not yet written, in the order they became so; guarded by {@link #lock}. */
    private final LinkedHashSet<Recorded> pending = new LinkedHashSet<>();
    private final Map<TenantKey, String> uids = new LinkedHashMap<>();
    private int writing;
    private int flushing;
    /** When the waiting writer wakes up by itself (System.nanoTime), or {@link #NOT_WAITING}. */
    private long waitingUntil = NOT_WAITING;
    private boolean draining;
    private boolean closed;
    private long dropped;
    private long failed;
    private final int shards;

    private EventObserver(Builder b) {
        this.applier = Applier.builder().client(b.client).retries(b.retries).build();
        this.reader = new Reader(b.client, b.retries);
        this.clock = b.clock;
        this.reportingController = b.reportingController;
        this.reportingInstance = b.reportingInstance;
        this.seriesIntervalNanos = b.seriesInterval.toNanos();
        this.aggregateAfter = b.aggregateAfter;
        this.aggregationWindow = b.aggregationWindow;
        this.queueCapacity = b.queueCapacity;
        this.shards = b.shards;
    }

    /** A builder; {@link Builder#client(ApiClient)} (the host cluster) and {@link Builder#clock(Clock)} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Records the decision for writing and returns at once; see the class comment. */
    @Override
    public void decision(TenantKey tenant, Outcome outcome) {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(outcome, "outcome");
        Decision d = outcome.decision();
        boolean warning = switch (outcome) {
            case Outcome.Applied a -> false;
            case Outcome.Failed f -> true;
            case Outcome.NotWritten n -> n.decision().action() == Action.CONFLICT
                    || n.decision().action() == Action.ERROR;
        };
        if (outcome instanceof Outcome.NotWritten && !warning) {
            return;
        }
        Key own = new Key(tenant, identity(d));
        Instant now = clock.instant();
        long nanos = System.nanoTime();
        lock.lock();
        try {
            if (closed) {
                dropped++;
                return;
            }
            Recorded e = entries.get(own);
            if (e == null) {
                Similar similar = new Similar(tenant, warning, d.action().display(), d.reason());
                Window w = windows.get(similar);
                if (w == null || nanos - w.start > aggregationWindow.toNanos()) {
                    w = new Window(nanos);
                    windows.put(similar, w);
                }
                boolean alone = w.events < aggregateAfter;
                Key key = alone ? own : new Key(tenant, "combined|" + (warning ? "Warning" : "Normal") + "|"
                        + similar.action() + "|" + similar.reason());
                boolean recorded = occur(tenant, key, name -> alone
                        ? new Recorded(name, tenant, warning, d.action().display(), d.reason(),
                                truncate(note(d, outcome)), related(d), now)
                        : new Recorded(name, tenant, warning, d.action().display(), d.reason(),
                                truncate(combinedNote(similar, d, outcome)), null, now), now);
                if (recorded && alone) {
                    w.events++;
                }
                return;
            }
            occurred(e, now);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: one more occurrence of the Event of {@code key}, made by {@code make} (given its name) when it is
     * not recorded yet, unless the queue is full: then the decision is dropped and counted.
     *
     * @return false when it was dropped
     */
    private boolean occur(TenantKey tenant, Key key, java.util.function.Function<String, Recorded> make,
                          Instant now) {
        Recorded e = entries.get(key);
        if (e == null) {
            if (pending.size() >= queueCapacity) {
                drop(tenant, now);
                return false;
            }
            e = make.apply(named(tenant, key.identity()));
            entries.put(key, e);
        }
        occurred(e, now);
        return true;
    }

    /**
     * Records an exec, attach or port-forward into a tenant Pod as an Event on the TenantCluster (Normal when served,
     * Warning when refused); repeats of one call (same verb, pod, container and answer) are one Event's series; logs and
     * stats calls are not Events (they are counted by the observers that count).
     */
    @Override
    public void kubeletRequest(TenantKey tenant, KubeletRequest r) {
        Objects.requireNonNull(tenant, "tenant");
        if (!r.audited()) {
            return;
        }
        boolean warning = r.code() >= 400;
        String action = Character.toUpperCase(r.verb().charAt(0)) + r.verb().substring(1);
        String pod = r.namespace() + "/" + r.pod();
        Key own = new Key(tenant, "kubelet|" + action + "|" + pod + "|" + r.container() + "|" + r.reason());
        Related related = r.hostPod() != null && r.hostPod().contains("/")
                ? new Related("v1", "Pod", r.hostPod().substring(0, r.hostPod().indexOf('/')),
                        r.hostPod().substring(r.hostPod().indexOf('/') + 1))
                : null;
        String note = truncate(action + " into Pod " + pod + (r.container() == null ? "" : " container "
                + r.container()) + " of tenant " + tenant.name() + ", asked by " + r.user() + ": " + r.code() + " "
                + r.reason() + ": " + r.message());
        Instant now = clock.instant();
        lock.lock();
        try {
            if (closed) {
                dropped++;
                return;
            }
            occur(tenant, own, name -> new Recorded(name, tenant, warning, action, r.reason(), note, related, now), now);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every decision reported so far is written as an Event (or was given up after the write's retries),
     * series counts included, however recently they were last written.
     *
     * @return true when everything was written within {@code timeout}
     */
    @Override
    public boolean flush(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            flushing++;
            if (!pending.isEmpty()) {
                wake();
            }
            while (!pending.isEmpty() || writing > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            flushing--;
            lock.unlock();
        }
    }

    /**
     * Stops taking decisions (later ones are counted in {@link #dropped()}) and writes what is waiting, for at most
     * 10 seconds.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        if (!flush(CLOSE_TIMEOUT)) {
            LOG.log(System.Logger.Level.WARNING, "Events still waiting to be written after " + CLOSE_TIMEOUT
                    + " are lost");
        }
    }

    /** Decisions that got no Event of their own because too many Events waited to be written, or came after close. */
    public long dropped() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** Event writes given up after their retries (the API server refused them or could not be reached). */
    public long failedWrites() {
        lock.lock();
        try {
            return failed;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the writer thread runs (it ends when nothing is left to write). */
    boolean writerRunning() {
        lock.lock();
        try {
            return draining;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The Event's name: the TenantCluster's name and a hash of the object, action and reason, so repeats of one
     * decision find the same Event.
     */
    static String eventName(TenantKey tenant, Decision d) {
        return named(tenant, identity(d));
    }

    /** What makes two decisions repeats of one: object, action and reason. Hashed only when an Event is made. */
    private static String identity(Decision d) {
        String host = d.host() == null ? "" : d.host().namespace() + "/" + d.host().name();
        String source = d.source() == null ? "" : d.source().virtualNamespace() + "/" + d.source().name();
        return d.kind() + "|" + host + "|" + source + "|" + d.action().display() + "|" + d.reason();
    }

    private static String named(TenantKey tenant, String key) {
        String prefix = tenant.name().length() > 200 ? tenant.name().substring(0, 200) : tenant.name();
        return prefix + "." + sha256(key).substring(0, 16);
    }

    // ---------------------------------------------------------------- recording (under the lock)

    private void occurred(Recorded e, Instant now) {
        e.count++;
        e.lastObserved = now;
        if (!pending.add(e)) {
            return;
        }
        if (!draining) {
            wake();
        } else if (waitingUntil != NOT_WAITING
                && (e.server == null || e.lastWrite + seriesIntervalNanos - waitingUntil < 0)) {
            // Only when this Event is due before the writer would wake anyway: a repeat counted into a series that
            // was just written must not wake the writer once per decision.
            changed.signalAll();
        }
    }

    private void drop(TenantKey tenant, Instant now) {
        dropped++;
        Key key = new Key(tenant, "dropped");
        Recorded notice = entries.get(key);
        if (notice == null) {
            notice = new Recorded(named(tenant, key.identity()), tenant, true, "RecordEvents", EVENTS_DROPPED, truncate("Decisions of tenant "
                    + tenant.name() + " were not recorded as Events of their own: more than " + queueCapacity
                    + " Events were waiting to be written. series.count counts them; the decision ring "
                    + "(TenantPlane.decisions, tenantplane decisions) keeps the latest of each tenant."), null, now);
            entries.put(key, notice);
        }
        if (!pending.contains(notice)) {
            LOG.log(System.Logger.Level.WARNING, queueCapacity + " Events are waiting to be written; decisions of "
                    + tenant + " are counted in Event " + notice.name + " (" + EVENTS_DROPPED + ") instead");
        }
        occurred(notice, now);
    }

    /** Starts the writer when none runs; otherwise tells it there is more. */
    private void wake() {
        if (!draining) {
            draining = true;
            Thread.ofVirtual().name("tenantplane-events").start(this::drain);
        } else {
            changed.signalAll();
        }
    }

    // ---------------------------------------------------------------- writing (the writer thread)

    private void drain() {
        while (true) {
            Recorded e = null;
            Snapshot s;
            lock.lock();
            try {
                while (e == null) {
                    if (pending.isEmpty()) {
                        draining = false;
                        changed.signalAll();
                        return;
                    }
                    long now = System.nanoTime();
                    long wait = Long.MAX_VALUE;
                    for (Recorded p : pending) {
                        long since = now - p.lastWrite;
                        if (p.server == null || flushing > 0 || since >= seriesIntervalNanos) {
                            e = p;
                            break;
                        }
                        wait = Math.min(wait, seriesIntervalNanos - since);
                    }
                    if (e == null) {
                        waitingUntil = now + wait;
                        try {
                            changed.awaitNanos(wait);
                        } finally {
                            waitingUntil = NOT_WAITING;
                        }
                    }
                }
                pending.remove(e);
                writing++;
                s = new Snapshot(e.count, e.count - e.written, e.lastObserved, e.server);
            } catch (InterruptedException ie) {
                // awaitNanos holds the lock again when it throws; a later decision starts a new writer.
                draining = false;
                changed.signalAll();
                return;
            } finally {
                lock.unlock();
            }
            JsonObject written = null;
            try {
                written = write(e, s);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.WARNING, "Event " + e.name + " not written", ex);
            } finally {
                lock.lock();
                try {
                    writing--;
                    e.written = s.count();
                    if (written != null) {
                        e.server = written;
                        e.lastWrite = System.nanoTime();
                    } else {
                        e.server = null;
                        failed++;
                    }
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Writes the occurrences of {@code s}; returns the Event as written, or null when the write was given up. */
    private JsonObject write(Recorded e, Snapshot s) {
        Decision w = s.server() == null
                ? create(event(e, s.delta(), s.lastObserved()))
                : update(s.server(), seriesCount(s.server()) + s.delta(), s.lastObserved());
        Outcome result = applier.apply(w, (stale, current) -> current == null
                ? create(event(e, s.delta(), s.lastObserved()))
                : update(current, seriesCount(current) + s.delta(), s.lastObserved()));
        if (result instanceof Outcome.Applied a && a.result() != null) {
            return a.result();
        }
        LOG.log(System.Logger.Level.DEBUG, "event " + e.name + " not written: " + result);
        return null;
    }

    private JsonObject event(Recorded e, long count, Instant lastObserved) {
        JsonObject ev = new JsonObject();
        ev.addProperty("apiVersion", "events.k8s.io/v1");
        ev.addProperty("kind", "Event");
        JsonObject meta = Json.child(ev, "metadata");
        meta.addProperty("name", e.name);
        meta.addProperty("namespace", e.tenant.namespace());
        Json.child(meta, "labels").addProperty(TENANT_LABEL, e.tenant.name());
        if (shards > 0) {
            Json.child(meta, "labels").addProperty(Builder.SHARD_LABEL, Integer.toString(e.tenant.shard(shards)));
        }
        ev.addProperty("eventTime", MICRO_TIME.format(e.first));
        ev.addProperty("reportingController", reportingController);
        ev.addProperty("reportingInstance", reportingInstance);
        ev.addProperty("action", e.action);
        ev.addProperty("reason", e.reason);
        ev.addProperty("type", e.warning ? "Warning" : "Normal");
        ev.addProperty("note", e.note);
        JsonObject regarding = Json.child(ev, "regarding");
        regarding.addProperty("apiVersion", "tenantplane.io/v1alpha1");
        regarding.addProperty("kind", "TenantCluster");
        regarding.addProperty("namespace", e.tenant.namespace());
        regarding.addProperty("name", e.tenant.name());
        String uid = uidOf(e.tenant);
        if (uid != null) {
            regarding.addProperty("uid", uid);
        }
        if (e.related != null) {
            JsonObject related = Json.child(ev, "related");
            related.addProperty("apiVersion", e.related.apiVersion());
            related.addProperty("kind", e.related.kind());
            if (e.related.namespace() != null) {
                related.addProperty("namespace", e.related.namespace());
            }
            related.addProperty("name", e.related.name());
        }
        if (count >= 2) {
            ev.add("series", series(count, lastObserved));
        }
        return ev;
    }

    private static JsonObject series(long count, Instant lastObserved) {
        JsonObject series = new JsonObject();
        series.addProperty("count", Math.max(2, count));
        series.addProperty("lastObservedTime", MICRO_TIME.format(lastObserved));
        return series;
    }

    private static Related related(Decision d) {
        if (d.host() == null || d.host().name() == null) {
            return null;
        }
        return new Related(ResourceKind.wellKnown(null, d.kind()).map(ResourceKind::apiVersion).orElse("v1"),
                d.kind(), d.host().namespace(), d.host().name());
    }

    private static String note(Decision d, Outcome outcome) {
        return switch (outcome) {
            case Outcome.Failed f -> d.message() + " The write failed after " + f.attempts() + " attempt(s): "
                    + f.code() + " " + f.reason() + ": " + f.message();
            default -> d.message();
        };
    }

    private String combinedNote(Similar s, Decision d, Outcome outcome) {
        return COMBINED + "more than " + aggregateAfter + " " + s.action() + " decisions with reason " + s.reason()
                + " for tenant " + s.tenant().name() + " within " + humane(aggregationWindow)
                + "; series.count counts those combined here, and the decision ring (TenantPlane.decisions, "
                + "tenantplane decisions) lists them one by one. The first: " + note(d, outcome);
    }

    private static String humane(Duration d) {
        return d.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    private static Decision create(JsonObject event) {
        return Decision.create("Event", null, Decision.HostRef.of(event), Reasons.EVENT_RECORDED,
                "record a decision as an Event", event);
    }

    private static Decision update(JsonObject current, long count, Instant lastObserved) {
        JsonObject next = current.deepCopy();
        next.add("series", series(count, lastObserved));
        return Decision.update("Event", null, Decision.HostRef.of(current), Reasons.EVENT_REPEATED,
                "count a repeated decision in the Event's series", next, current);
    }

    private static long seriesCount(JsonObject event) {
        JsonObject series = Json.object(event, "series");
        if (series == null || !series.has("count")) {
            return 1;
        }
        return series.get("count").getAsLong();
    }

    private String uidOf(TenantKey tenant) {
        lock.lock();
        try {
            String cached = uids.get(tenant);
            if (cached != null) {
                return cached;
            }
        } finally {
            lock.unlock();
        }
        try {
            String uid = reader.get(TENANT_CLUSTERS, tenant.namespace(), tenant.name())
                    .map(json -> Json.string(json, "metadata", "uid")).orElse(null);
            if (uid != null) {
                lock.lock();
                try {
                    if (uids.size() > REMEMBERED) {
                        uids.clear();
                    }
                    uids.put(tenant, uid);
                } finally {
                    lock.unlock();
                }
            }
            return uid;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "TenantCluster " + tenant + " not readable; Event without uid", e);
            return null;
        }
    }

    /**
     * {@code note} cut to what the API server takes: at most {@value #NOTE_LIMIT} bytes of UTF-8 (it counts bytes,
     * {@code len} in Go), ending with {@code ...} when cut, and never inside a character.
     */
    static String truncate(String note) {
        if (note.getBytes(StandardCharsets.UTF_8).length <= NOTE_LIMIT) {
            return note;
        }
        int budget = NOTE_LIMIT - 3;
        StringBuilder out = new StringBuilder();
        int used = 0;
        for (int i = 0; i < note.length(); ) {
            int cp = note.codePointAt(i);
            int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (used + size > budget) {
                break;
            }
            out.appendCodePoint(cp);
            used += size;
            i += Character.charCount(cp);
        }
        return out.append("...").toString();
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /** An Event in memory: the tenant and what its decisions have in common. */
    private record Key(TenantKey tenant, String identity) {
    }

    /** Decisions that are combined once there are many: same tenant, type, action and reason. */
    private record Similar(TenantKey tenant, boolean warning, String action, String reason) {
    }

    /** How many Events one kind of decision made since {@code start} (System.nanoTime). */
    private static final class Window {
        final long start;
        int events;

        Window(long start) {
            this.start = start;
        }
    }

    /** The host object an Event is related to. */
    private record Related(String apiVersion, String kind, String namespace, String name) {
    }

    /** What one write of an Event carries, taken under the lock. */
    private record Snapshot(long count, long delta, Instant lastObserved, JsonObject server) {
    }

    /**
     * One Event: what it says (fixed once created, as events.k8s.io requires), how often it occurred, and how much of
     * that the API server has. Mutable fields are guarded by the observer's lock.
     */
    private static final class Recorded {
        final String name;
        final TenantKey tenant;
        final boolean warning;
        final String action;
        final String reason;
        final String note;
        final Related related;
        final Instant first;
        long count;
        long written;
        Instant lastObserved;
        JsonObject server;
        long lastWrite;

        Recorded(String name, TenantKey tenant, boolean warning, String action, String reason, String note,
              Related related, Instant first) {
            this.name = name;
            this.tenant = tenant;
            this.warning = warning;
            this.action = action;
            this.reason = reason;
            this.note = note;
            this.related = related;
            this.first = first;
            this.lastObserved = first;
        }
    }

    /** Configures an {@link EventObserver}. Not thread-safe; {@link #build()} copies the configuration. */
    public static final class Builder {
        /** Event writes are retried briefly by default: an Event that cannot be written is counted, not waited for. */
        private Retries retries = new Retries(3, Duration.ofMillis(50), Duration.ofMillis(500));
        private ApiClient client;
        private Clock clock;
        private String reportingController = "tenantplane.io/tenantplane";
        private String reportingInstance = "tenantplane";
        private Duration seriesInterval = Duration.ofMinutes(1);
        private int aggregateAfter = 10;
        private Duration aggregationWindow = Duration.ofMinutes(10);
        private int queueCapacity = 1024;
        private int shards;

        private Builder() {
        }

        /** The host cluster, where the TenantClusters and their Events live. Required. */
        public Builder client(ApiClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /** Stamps {@code eventTime} and {@code series.lastObservedTime}. Required. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** {@code reportingController} (default {@code tenantplane.io/tenantplane}). */
        public Builder reportingController(String reportingController) {
            this.reportingController = nonBlank(reportingController, "reportingController");
            return this;
        }

        /** {@code reportingInstance}, e.g. the pod name (default {@code tenantplane}). */
        public Builder reportingInstance(String reportingInstance) {
            this.reportingInstance = nonBlank(reportingInstance, "reportingInstance");
            return this;
        }

        /**
         * Labels every Event {@value #SHARD_LABEL} with its tenant's {@link TenantKey#shard shard} among
         * {@code count} (default 0: no label), so a sharded installation's decisions can be selected by shard.
         */
        public Builder shards(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("shards must not be negative, got " + count);
            }
            this.shards = count;
            return this;
        }

        /** The label naming an Event's shard. */
        public static final String SHARD_LABEL = "tenantplane.io/shard";

        /**
         * The least time between two writes of one Event's {@code series} (default 1 minute); repeats in between are
         * counted and written when the interval has passed, or at {@link EventObserver#flush}.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder seriesInterval(Duration seriesInterval) {
            Objects.requireNonNull(seriesInterval, "seriesInterval");
            if (seriesInterval.isNegative()) {
                throw new IllegalArgumentException("seriesInterval must not be negative, got " + seriesInterval);
            }
            this.seriesInterval = seriesInterval;
            return this;
        }

        /**
         * Similar decisions (same tenant, type, action and reason) about different objects get an Event each up to
         * {@code count} within {@code window}; further ones share one combined Event (defaults 10 and 10 minutes).
         *
         * @throws IllegalArgumentException when {@code count} is negative or {@code window} is not positive
         */
        public Builder aggregate(int count, Duration window) {
            Objects.requireNonNull(window, "window");
            if (count < 0) {
                throw new IllegalArgumentException("aggregate count must not be negative, got " + count);
            }
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("aggregate window must be positive, got " + window);
            }
            this.aggregateAfter = count;
            this.aggregationWindow = window;
            return this;
        }

        /**
         * How many Events may wait to be written (default 1024); a decision that needs one more is dropped and
         * counted (see {@link EventObserver#dropped()}).
         *
         * @throws IllegalArgumentException when less than 1
         */
        public Builder queueCapacity(int queueCapacity) {
            if (queueCapacity < 1) {
                throw new IllegalArgumentException("queueCapacity must be at least 1, got " + queueCapacity);
            }
            this.queueCapacity = queueCapacity;
            return this;
        }

        /** How a refused Event write is tried again (default 3 attempts, 50 ms doubled up to 500 ms). */
        public Builder retries(Retries retries) {
            this.retries = Objects.requireNonNull(retries, "retries");
            return this;
        }

        /** @throws IllegalStateException when the client or the clock is missing */
        public EventObserver build() {
            if (client == null) {
                throw new IllegalStateException("client is required: call client(ApiClient) before build()");
            }
            if (clock == null) {
                throw new IllegalStateException("clock is required: call clock(Clock) before build()");
            }
            return new EventObserver(this);
        }

        private static String nonBlank(String value, String name) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(name + " must not be blank, got '" + value + "'");
            }
            return value;
        }
    }
}
