package io.tenantplane.sync;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseList;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Preconditions;
import io.tenantplane.observe.TenantKey;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * Shards tenants across the replicas of one installation with {@code coordination.k8s.io/v1} Leases, and no other
 * coordinator.
 *
 * <p>A tenant belongs to shard {@link TenantKey#shard a stable hash of namespace/name mod count}; each shard is the
 * Lease {@code <name>-shard-<i>}. Each replica also renews a member Lease {@code <name>-member-<identity>}; the
 * replicas whose member Lease changed within its duration are the live ones, and each takes free or expired shards up
 * to its fair share {@code ceil(count / live)}, in an order of preference of its own (rendezvous hashing, so shards
 * move as little as membership changes allow), and releases its least-preferred extras when a replica joins.
 *
 * <p>Why two replicas never write for one shard at once (the argument of client-go's leader election, per shard): a
 * replica {@link #owns owns} a shard only until {@code renewDeadline} after it <em>sent</em> its last successful
 * renewal, and takes a shard held by another only after seeing the same resourceVersion for that Lease's full
 * {@code leaseDurationSeconds} on its own monotonic clock, with a write that fails if anything changed the Lease in
 * between. {@code renewDeadline < leaseDuration}, so the old holder has stopped before the new one starts. A shard is
 * handed over only after {@link Listener#released} returned true (its work drained), and the released Lease is
 * written with no holder, so another replica takes it at its next round.
 *
 * <p>Traffic: one LIST of the installation's Leases per round, a renewal per held shard at most every half
 * {@code renewDeadline}, and a member renewal per round.
 *
 * <p>One daemon thread runs the rounds; {@link Listener#acquired} runs on it and must return quickly, while
 * {@link Listener#released} runs on a virtual thread per shard and may wait for the shard's work to stop.
 */
public final class ShardLeases implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ShardLeases.class.getName());
    /** Label on every Lease of one installation, valued with its {@code name}. */
    public static final String LABEL = "tenantplane.io/shard-set";
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    /** A member Lease unchanged for this many of its durations belongs to a replica that is gone; it is deleted. */
    private static final int STALE_MEMBER_DURATIONS = 4;

    /** What the shard Leases tell their owner. */
    public interface Listener {
        /** This replica now owns {@code shard}: start its work (e.g. {@link Syncer#adopt}). Called on the round thread. */
        default void acquired(int shard) {
        }

        /**
         * This replica no longer owns {@code shard} ({@link #owns} already answers false for its tenants): stop its
         * work (e.g. {@link Syncer#release}) and return true once no write for it can be sent any more. Returning
         * false keeps the Lease held (and renewed) and asks again at the next round. Called on a virtual thread.
         *
         * @param lost true when the Lease was lost (not renewed in time, or taken) rather than handed over
         */
        default boolean released(int shard, boolean lost) throws InterruptedException {
            return true;
        }

        /** A round ended; the API answered as expected. */
        default void apiAnswered() {
        }

        /** A round ended with a failed API call: HTTP status, or 0 when no answer came. */
        default void apiFailed(int code, String detail) {
        }
    }

    /** What this replica knows of one shard. */
    public enum State {
        /** Not held here. */
        FREE,
        /** Held here and renewed: this replica writes for its tenants. */
        HELD,
        /** Held here while its work drains before the Lease is handed over or given up. */
        DRAINING,
        /** Drained; the Lease is released at the next round. */
        DRAINED
    }

    /**
     * One shard as this replica saw it at its last round.
     *
     * @param shard  the shard's index
     * @param lease  the Lease's name
     * @param holder the holder the Lease names, or null
     * @param state  this replica's state for it
     * @param owned  whether this replica may write for its tenants now
     */
    public record ShardView(int shard, String lease, String holder, State state, boolean owned) {
    }

    /**
     * This replica's view of the shards.
     *
     * @param identity  this replica's identity
     * @param members   the identities of the live replicas, sorted
     * @param fairShare how many shards each replica takes at most
     * @param shards    every shard, by index
     */
    public record View(String identity, List<String> members, int fairShare, List<ShardView> shards) {
        /** How many shards this replica owns. */
        public int owned() {
            return (int) shards.stream().filter(ShardView::owned).count();
        }
    }

    /** How one installation's shards are leased. Start from {@link #builder()}. */
    public static final class Builder {
        private CoordinationV1Api api;
        private String namespace;
        private String name;
        private String identity;
        private int count = 32;
        private Duration leaseDuration = Duration.ofSeconds(15);
        private Duration renewDeadline = Duration.ofSeconds(10);
        private Duration retryPeriod = Duration.ofSeconds(2);
        private Clock clock = Clock.systemUTC();
        private LongSupplier nanoTime = System::nanoTime;
        private Listener listener = new Listener() {
        };

        private Builder() {
        }

        /** The API the Leases are read and written through (its client's timeouts bound each call). */
        public Builder api(CoordinationV1Api api) {
            this.api = api;
            return this;
        }

        /** The namespace of the Leases (the service's own). */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** The installation's name: Leases are {@code <name>-shard-<i>} and {@code <name>-member-<identity>}. */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** This replica's identity, unique among live replicas (e.g. the pod name). */
        public Builder identity(String identity) {
            this.identity = identity;
            return this;
        }

        /** The number of shards, fixed per installation (default 32). */
        public Builder count(int count) {
            this.count = count;
            return this;
        }

        /** The Leases' timing, as client-go's leader election: {@code retryPeriod < renewDeadline < duration}. */
        public Builder timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
            this.leaseDuration = leaseDuration;
            this.renewDeadline = renewDeadline;
            this.retryPeriod = retryPeriod;
            return this;
        }

        /** The wall clock written into the Leases (informational only). */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** The monotonic clock every decision is timed by (default {@link System#nanoTime()}). */
        public Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = nanoTime;
            return this;
        }

        /** Who is told of acquired and released shards. */
        public Builder listener(Listener listener) {
            this.listener = listener;
            return this;
        }

        /** The shard Leases, not started. */
        public ShardLeases build() {
            return new ShardLeases(this);
        }
    }

    /** A builder; api, namespace, name and identity are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Per shard; fields written by the round thread (state also by a drain), read by any thread. */
    private static final class Shard {
        volatile State state = State.FREE;
        volatile long lastRenewSentNanos;
        volatile boolean lost;
        boolean drainRunning; // guarded by this
        volatile String holder;
        // Round thread only.
        String observedResourceVersion;
        long observedAtNanos;
        V1Lease current;
    }

    /** A member Lease as last seen. */
    private record Member(String resourceVersion, long sinceNanos, long durationNanos, String holder) {
    }

    private final CoordinationV1Api api;
    private final String namespace;
    private final String name;
    private final String identity;
    private final String memberLease;
    private final int count;
    private final Duration leaseDuration;
    private final Duration renewDeadline;
    private final Duration retryPeriod;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final Listener listener;
    private final Shard[] shards;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private final Map<String, Member> members = new HashMap<>();
    private volatile List<String> liveMembers = List.of();
    private volatile int fairShare;
    private volatile boolean closed;

    private ShardLeases(Builder b) {
        this.api = Objects.requireNonNull(b.api, "api");
        this.namespace = Objects.requireNonNull(b.namespace, "namespace");
        this.name = Objects.requireNonNull(b.name, "name");
        this.identity = Objects.requireNonNull(b.identity, "identity");
        if (b.count < 1 || b.count > 1024) {
            throw new IllegalArgumentException("count must be between 1 and 1024 shards, was " + b.count);
        }
        this.count = b.count;
        this.leaseDuration = b.leaseDuration;
        this.renewDeadline = b.renewDeadline;
        this.retryPeriod = b.retryPeriod;
        if (retryPeriod.compareTo(renewDeadline) >= 0 || renewDeadline.compareTo(leaseDuration) >= 0
                || leaseDuration.toSeconds() < 1 || leaseDuration.toNanos() % 1_000_000_000L != 0) {
            throw new IllegalArgumentException("Lease timing must be retryPeriod < renewDeadline < leaseDuration, the"
                    + " duration in whole seconds; was " + retryPeriod + ", " + renewDeadline + ", " + leaseDuration);
        }
        this.clock = Objects.requireNonNull(b.clock, "clock");
        this.nanoTime = Objects.requireNonNull(b.nanoTime, "nanoTime");
        this.listener = Objects.requireNonNull(b.listener, "listener");
        String member = name + "-member-" + identity;
        this.memberLease = DNS_SUBDOMAIN.matcher(member).matches() && member.length() <= 253 ? member
                : name + "-member-" + Long.toHexString(fnv(identity));
        this.shards = IntStream.range(0, count).mapToObj(i -> new Shard()).toArray(Shard[]::new);
        this.fairShare = count;
        this.thread = Thread.ofPlatform().daemon().name("tenantplane-shard-leases").unstarted(this::run);
    }

    /** The shard of {@code tenant} among {@code count}: {@link TenantKey#shard}, stable across releases. */
    public static int shardOf(TenantKey tenant, int count) {
        return tenant.shard(count);
    }

    /** The shard of {@code tenant} in this installation. */
    public int shardOf(TenantKey tenant) {
        return shardOf(tenant, count);
    }

    /** The number of shards. */
    public int count() {
        return count;
    }

    /** This replica's identity. */
    public String identity() {
        return identity;
    }

    /** The name of shard {@code i}'s Lease. */
    public String leaseName(int shard) {
        return name + "-shard-" + shard;
    }

    /**
     * True while this replica holds {@code tenant}'s shard within its renew deadline; turns false by itself once the
     * deadline passes without a renewal. Cheap: the Syncer asks it before and after every pass.
     */
    public boolean owns(TenantKey tenant) {
        return owned(shards[shardOf(tenant)]);
    }

    /** True while this replica holds {@code shard} within its renew deadline. */
    public boolean ownsShard(int shard) {
        return owned(shards[shard]);
    }

    private boolean owned(Shard s) {
        return s.state == State.HELD && nanoTime.getAsLong() - s.lastRenewSentNanos < renewDeadline.toNanos();
    }

    /** This replica's view at its last round. */
    public View view() {
        List<ShardView> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Shard s = shards[i];
            list.add(new ShardView(i, leaseName(i), s.holder, s.state, owned(s)));
        }
        return new View(identity, liveMembers, fairShare, List.copyOf(list));
    }

    /** Starts the rounds in the background. */
    public ShardLeases start() {
        thread.start();
        return this;
    }

    /**
     * Stops: drains every held shard through the listener, releases its Lease so another replica takes it at its
     * next round, and deletes this replica's member Lease.
     */
    @Override
    public void close() {
        if (!stopLoop()) {
            return;
        }
        for (int i = 0; i < count; i++) {
            Shard s = shards[i];
            if (s.state == State.HELD) {
                s.lost = false;
                s.state = State.DRAINING;
            }
        }
        try {
            for (int i = 0; i < count; i++) {
                if (shards[i].state == State.DRAINING) {
                    awaitDrain(i);
                    spawnDrain(i);
                    awaitDrain(i);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int i = 0; i < count; i++) {
            if (shards[i].state == State.DRAINED) {
                try {
                    release(i);
                } catch (ApiException e) {
                    LOG.log(System.Logger.Level.WARNING, "Could not release Lease " + leaseName(i) + ": "
                            + describe(e) + "; it expires on its own");
                }
            }
        }
        try {
            api.deleteNamespacedLease(memberLease, namespace).execute();
        } catch (ApiException e) {
            LOG.log(System.Logger.Level.DEBUG, "Could not delete member Lease " + memberLease + ": " + describe(e));
        }
    }

    /** Stops without draining or releasing anything, as a killed process would: the Leases expire on their own. */
    public void abandon() {
        if (stopLoop()) {
            for (Shard s : shards) {
                s.state = State.FREE;
            }
        }
    }

    private boolean stopLoop() {
        if (closed) {
            return false;
        }
        closed = true;
        stop.countDown();
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(renewDeadline.multipliedBy(3).toMillis() + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return true;
    }

    private void run() {
        while (!closed) {
            round();
            try {
                if (stop.await(retryPeriod.toMillis(), TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One round: read the Leases, renew, hand over extras, take a fair share. Package-private for tests. */
    void round() {
        try {
            roundOrThrow();
            listener.apiAnswered();
        } catch (ApiException e) {
            LOG.log(System.Logger.Level.DEBUG, "Shard Lease round failed: " + describe(e));
            listener.apiFailed(e.getCode(), describe(e));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Shard Lease round failed unexpectedly", e);
            listener.apiFailed(0, e.toString());
        }
        // Whatever the round did, a held shard past its renew deadline is lost: its work stops now.
        for (int i = 0; i < count; i++) {
            Shard s = shards[i];
            if (s.state == State.HELD && !owned(s) && !closed) {
                int shard = i;
                LOG.log(System.Logger.Level.WARNING, () -> "Lease " + leaseName(shard) + " not renewed within "
                        + renewDeadline + "; stopping its work");
                startDrain(shard, true);
            }
        }
    }

    private void roundOrThrow() throws ApiException {
        V1LeaseList list = api.listNamespacedLease(namespace).labelSelector(LABEL + "=" + name).execute();
        long now = nanoTime.getAsLong();
        Map<String, V1Lease> byName = new HashMap<>();
        for (V1Lease l : list.getItems()) {
            byName.put(l.getMetadata().getName(), l);
        }
        renewMember(byName.get(memberLease));
        int live = countMembers(byName, now);
        int fair = (count + live - 1) / live;
        fairShare = fair;

        // Observe every shard; notice shards taken by another replica.
        for (int i = 0; i < count; i++) {
            Shard s = shards[i];
            V1Lease l = byName.get(leaseName(i));
            s.current = l;
            String rv = l == null ? null : l.getMetadata().getResourceVersion();
            if (!Objects.equals(rv, s.observedResourceVersion)) {
                s.observedResourceVersion = rv;
                s.observedAtNanos = now;
            }
            s.holder = l == null || l.getSpec() == null ? null : blankToNull(l.getSpec().getHolderIdentity());
            if ((s.state == State.HELD || s.state == State.DRAINING) && !identity.equals(s.holder)) {
                int shard = i;
                LOG.log(System.Logger.Level.WARNING, () -> "Lease " + leaseName(shard) + " is held by " + s.holder
                        + "; stopping its work");
                if (s.state == State.HELD) {
                    startDrain(i, true);
                }
            }
        }

        // Hand over drained shards; renew the ones still held or draining (and ask again for unfinished drains).
        for (int i = 0; i < count; i++) {
            Shard s = shards[i];
            if (s.state == State.DRAINING) {
                spawnDrain(i);
            }
            if (s.state == State.DRAINED) {
                if (identity.equals(s.holder)) {
                    release(i);
                }
                s.state = State.FREE;
            } else if ((s.state == State.HELD || s.state == State.DRAINING) && identity.equals(s.holder)
                    && now - s.lastRenewSentNanos >= renewDeadline.toNanos() / 2) {
                tryWrite(i, false);
            }
        }

        // Release the least-preferred extras beyond the fair share.
        List<Integer> held = IntStream.range(0, count).filter(i -> shards[i].state == State.HELD).boxed()
                .sorted(Comparator.comparingLong(this::preference)).toList();
        for (int k = 0; k < held.size() - fair; k++) {
            int shard = held.get(k);
            LOG.log(System.Logger.Level.INFO, () -> "Handing over shard " + shard + " (" + live
                    + " live replicas, fair share " + fair + ")");
            startDrain(shard, false);
        }

        // Take free or expired shards, most preferred first, up to the fair share.
        int holding = (int) IntStream.range(0, count).filter(i -> shards[i].state != State.FREE).count();
        List<Integer> free = IntStream.range(0, count).filter(i -> shards[i].state == State.FREE && takeable(i, now))
                .boxed().sorted(Comparator.comparingLong((Integer i) -> preference(i)).reversed()).toList();
        for (int shard : free) {
            if (holding >= fair || closed) {
                break;
            }
            try {
                if (tryWrite(shard, true)) {
                    holding++;
                }
            } catch (ApiException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
                // Another replica was faster; the next round reads again.
            }
        }
    }

    /** Whether a shard held by nobody here may be taken: no Lease, no holder, or unchanged for its duration. */
    private boolean takeable(int i, long now) {
        Shard s = shards[i];
        V1Lease l = s.current;
        if (l == null || s.holder == null) {
            return true;
        }
        Integer seconds = l.getSpec().getLeaseDurationSeconds();
        long heldFor = seconds == null || seconds < 1 ? leaseDuration.toNanos() : TimeUnit.SECONDS.toNanos(seconds);
        return now - s.observedAtNanos >= heldFor;
    }

    /** Counts the live members, this replica always among them; deletes member Leases long unchanged. */
    private int countMembers(Map<String, V1Lease> byName, long now) {
        String prefix = name + "-member-";
        List<String> live = new ArrayList<>();
        live.add(identity);
        Map<String, Member> seen = new HashMap<>();
        for (V1Lease l : byName.values()) {
            String n = l.getMetadata().getName();
            if (!n.startsWith(prefix) || n.equals(memberLease)) {
                continue;
            }
            String rv = l.getMetadata().getResourceVersion();
            String holder = l.getSpec() == null ? null : blankToNull(l.getSpec().getHolderIdentity());
            Integer seconds = l.getSpec() == null ? null : l.getSpec().getLeaseDurationSeconds();
            long duration = seconds == null || seconds < 1 ? leaseDuration.toNanos() : TimeUnit.SECONDS.toNanos(seconds);
            Member before = members.get(n);
            Member m = before != null && Objects.equals(before.resourceVersion(), rv) ? before
                    : new Member(rv, now, duration, holder);
            seen.put(n, m);
            if (holder != null && now - m.sinceNanos() < m.durationNanos()) {
                live.add(holder);
            } else if (now - m.sinceNanos() >= STALE_MEMBER_DURATIONS * m.durationNanos()) {
                try {
                    api.deleteNamespacedLease(n, namespace)
                            .body(new V1DeleteOptions().preconditions(new V1Preconditions().resourceVersion(rv)))
                            .execute();
                } catch (ApiException e) {
                    // Renewed or deleted meanwhile; the next round sees which.
                }
            }
        }
        members.clear();
        members.putAll(seen);
        live.sort(null);
        liveMembers = List.copyOf(live);
        return live.size();
    }

    private void renewMember(V1Lease current) throws ApiException {
        OffsetDateTime now = wallClock();
        if (current == null) {
            api.createNamespacedLease(namespace, lease(memberLease, null, now, now, 0)).execute();
        } else {
            api.replaceNamespacedLease(memberLease, namespace,
                    lease(memberLease, current.getMetadata(), acquireTime(current, now), now, 0)).execute();
        }
    }

    /**
     * Writes shard {@code i}'s Lease with this replica as holder: a renewal, or (acquire) a take-over. A take-over
     * counts only if its write returned within the renew deadline.
     */
    private boolean tryWrite(int i, boolean acquire) throws ApiException {
        Shard s = shards[i];
        V1Lease current = s.current;
        OffsetDateTime now = wallClock();
        long sent = nanoTime.getAsLong();
        V1Lease written;
        try {
            if (current == null) {
                written = api.createNamespacedLease(namespace, lease(leaseName(i), null, now, now, 0)).execute();
            } else {
                V1LeaseSpec spec = current.getSpec() == null ? new V1LeaseSpec() : current.getSpec();
                boolean ours = identity.equals(blankToNull(spec.getHolderIdentity()));
                int transitions = spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions();
                written = api.replaceNamespacedLease(leaseName(i), namespace, lease(leaseName(i),
                        current.getMetadata(), ours ? acquireTime(current, now) : now, now,
                        ours ? transitions : transitions + 1)).execute();
            }
        } catch (ApiException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT && !acquire) {
                // Changed since this round read it: the next round reads who holds it now.
                return false;
            }
            throw e;
        }
        s.current = written;
        s.observedResourceVersion = written.getMetadata().getResourceVersion();
        s.observedAtNanos = nanoTime.getAsLong();
        s.holder = identity;
        if (nanoTime.getAsLong() - sent >= renewDeadline.toNanos()) {
            // Too slow to count: the write may have landed after another replica could have taken the Lease.
            return false;
        }
        s.lastRenewSentNanos = sent;
        if (acquire && !closed) {
            s.state = State.HELD;
            LOG.log(System.Logger.Level.INFO, () -> "Acquired shard " + i + " (Lease " + leaseName(i) + ")");
            listener.acquired(i);
        }
        return true;
    }

    /** Writes shard {@code i}'s Lease without holder and with a one-second duration: others take it at once. */
    private void release(int i) throws ApiException {
        Shard s = shards[i];
        V1Lease current = s.current;
        if (current == null) {
            return;
        }
        OffsetDateTime now = wallClock();
        V1LeaseSpec spec = current.getSpec() == null ? new V1LeaseSpec() : current.getSpec();
        V1Lease body = new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease")
                .metadata(current.getMetadata())
                .spec(new V1LeaseSpec().leaseDurationSeconds(1).acquireTime(now).renewTime(now)
                        .leaseTransitions(spec.getLeaseTransitions()));
        try {
            s.current = api.replaceNamespacedLease(leaseName(i), namespace, body).execute();
            s.holder = null;
            LOG.log(System.Logger.Level.INFO, () -> "Released shard " + i + " (Lease " + leaseName(i) + ")");
        } catch (ApiException e) {
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
            // Changed since read (taken after expiry): nothing of ours to release.
        }
    }

    private void startDrain(int shard, boolean lost) {
        Shard s = shards[shard];
        s.state = State.DRAINING;
        s.lost = lost;
        spawnDrain(shard);
    }

    private void spawnDrain(int shard) {
        Shard s = shards[shard];
        synchronized (s) {
            if (s.drainRunning) {
                return;
            }
            s.drainRunning = true;
        }
        Thread.ofVirtual().name("tenantplane-shard-drain-" + shard).start(() -> drain(shard));
    }

    /** Asks the listener once; a drain that did not finish is asked again at the next round. */
    private void drain(int shard) {
        Shard s = shards[shard];
        try {
            if (s.state == State.DRAINING && listener.released(shard, s.lost) && s.state == State.DRAINING) {
                s.state = State.DRAINED;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Draining shard " + shard + " failed", e);
        } finally {
            synchronized (s) {
                s.drainRunning = false;
                s.notifyAll();
            }
        }
    }

    /** Waits until no drain of any shard runs (drains run on their own threads; a round only starts them). */
    void awaitDrains() throws InterruptedException {
        for (int i = 0; i < shards.length; i++) {
            awaitDrain(i);
        }
    }

    /** Waits until no drain of {@code shard} runs. */
    private void awaitDrain(int shard) throws InterruptedException {
        Shard s = shards[shard];
        synchronized (s) {
            while (s.drainRunning) {
                s.wait();
            }
        }
    }

    /** This replica's preference for a shard: rendezvous (highest random weight) hashing of identity and shard. */
    private long preference(int shard) {
        return fnv(identity + "#" + shard);
    }

    private V1Lease lease(String leaseName, V1ObjectMeta meta, OffsetDateTime acquired, OffsetDateTime renewed,
                          int transitions) {
        V1ObjectMeta m = meta != null ? meta : new V1ObjectMeta().name(leaseName).namespace(namespace);
        m.putLabelsItem(LABEL, name);
        return new V1Lease().apiVersion("coordination.k8s.io/v1").kind("Lease").metadata(m)
                .spec(new V1LeaseSpec().holderIdentity(identity)
                        .leaseDurationSeconds(Math.toIntExact(leaseDuration.toSeconds()))
                        .acquireTime(acquired).renewTime(renewed).leaseTransitions(transitions));
    }

    private static OffsetDateTime acquireTime(V1Lease current, OffsetDateTime fallback) {
        return current.getSpec() != null && current.getSpec().getAcquireTime() != null
                ? current.getSpec().getAcquireTime() : fallback;
    }

    private OffsetDateTime wallClock() {
        return OffsetDateTime.ofInstant(clock.instant().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    private static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    private static String describe(ApiException e) {
        if (e.getCode() != 0) {
            return "HTTP " + e.getCode() + " from the host API";
        }
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return "no answer from the host API: " + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage().lines().findFirst().orElse(""));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
