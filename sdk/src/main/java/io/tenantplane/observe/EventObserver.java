package io.tenantplane.observe;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Outcome;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
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
import java.util.Map;
import java.util.Objects;

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
 * </ul>
 *
 * <p>Events are written through an {@link Applier}, conflict-checked like every other write. Calls are synchronous
 * on the reporting thread (one request per new Event); thread-safe.
 */
public final class EventObserver implements Observer {

    private static final System.Logger LOG = System.getLogger(EventObserver.class.getName());
    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    private static final int NOTE_LIMIT = 1024;
    private static final int REMEMBERED = 4096;

    private final Applier applier;
    private final CustomObjectsApi customObjects;
    private final Clock clock;
    private final String reportingController;
    private final String reportingInstance;
    private final Duration seriesInterval;
    private final Map<String, Known> known = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
            return size() > REMEMBERED;
        }
    };
    private final Map<TenantKey, String> uids = new LinkedHashMap<>();

    private EventObserver(Builder b) {
        this.applier = Applier.builder().client(b.client).maxAttempts(3)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(500)).build();
        this.customObjects = new CustomObjectsApi(b.client);
        this.clock = b.clock;
        this.reportingController = b.reportingController;
        this.reportingInstance = b.reportingInstance;
        this.seriesInterval = b.seriesInterval;
    }

    /** A builder; {@link Builder#client(ApiClient)} (the host cluster) and {@link Builder#clock(Clock)} are required. */
    public static Builder builder() {
        return new Builder();
    }

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
        String name = eventName(tenant, d);
        Instant now = clock.instant();
        Decision write;
        synchronized (known) {
            Known k = known.get(name);
            if (k != null && Duration.between(k.lastWrite(), now).compareTo(seriesInterval) < 0) {
                known.put(name, new Known(k.event(), k.count() + 1, k.lastWrite()));
                return;
            }
            write = k == null
                    ? create(event(tenant, name, d, outcome, warning, now))
                    : update(k.event(), k.count() + 1, now);
        }
        Outcome result = applier.apply(write, (stale, current) ->
                current == null ? create(event(tenant, name, d, outcome, warning, now))
                        : update(current, seriesCount(current) + 1, now));
        synchronized (known) {
            if (result instanceof Outcome.Applied a && a.result() != null) {
                long count = seriesCount(a.result());
                known.put(name, new Known(a.result(), count, now));
            } else {
                known.remove(name);
                LOG.log(System.Logger.Level.DEBUG, "event " + name + " not written: " + result);
            }
        }
    }

    /**
     * The Event's name: the TenantCluster's name and a hash of the object, action and reason, so repeats of one
     * decision find the same Event.
     */
    static String eventName(TenantKey tenant, Decision d) {
        String host = d.host() == null ? "" : d.host().namespace() + "/" + d.host().name();
        String source = d.source() == null ? "" : d.source().virtualNamespace() + "/" + d.source().name();
        String key = d.kind() + "|" + host + "|" + source + "|" + d.action().display() + "|" + d.reason();
        String prefix = tenant.name().length() > 200 ? tenant.name().substring(0, 200) : tenant.name();
        return prefix + "." + sha256(key).substring(0, 16);
    }

    private JsonObject event(TenantKey tenant, String name, Decision d, Outcome outcome, boolean warning, Instant now) {
        JsonObject e = new JsonObject();
        e.addProperty("apiVersion", "events.k8s.io/v1");
        e.addProperty("kind", "Event");
        JsonObject meta = Json.child(e, "metadata");
        meta.addProperty("name", name);
        meta.addProperty("namespace", tenant.namespace());
        Json.child(meta, "labels").addProperty("tenantplane.io/tenant", tenant.name());
        e.addProperty("eventTime", MICRO_TIME.format(now));
        e.addProperty("reportingController", reportingController);
        e.addProperty("reportingInstance", reportingInstance);
        e.addProperty("action", d.action().display());
        e.addProperty("reason", d.reason());
        e.addProperty("type", warning ? "Warning" : "Normal");
        e.addProperty("note", truncate(note(d, outcome)));
        JsonObject regarding = Json.child(e, "regarding");
        regarding.addProperty("apiVersion", "tenantplane.io/v1alpha1");
        regarding.addProperty("kind", "TenantCluster");
        regarding.addProperty("namespace", tenant.namespace());
        regarding.addProperty("name", tenant.name());
        String uid = uidOf(tenant);
        if (uid != null) {
            regarding.addProperty("uid", uid);
        }
        if (d.host() != null && d.host().name() != null) {
            JsonObject related = Json.child(e, "related");
            related.addProperty("apiVersion", ResourceKind.wellKnown(null, d.kind())
                    .map(ResourceKind::apiVersion).orElse("v1"));
            related.addProperty("kind", d.kind());
            if (d.host().namespace() != null) {
                related.addProperty("namespace", d.host().namespace());
            }
            related.addProperty("name", d.host().name());
        }
        return e;
    }

    private static String note(Decision d, Outcome outcome) {
        return switch (outcome) {
            case Outcome.Failed f -> d.message() + " The write failed after " + f.attempts() + " attempt(s): "
                    + f.code() + " " + f.reason() + ": " + f.message();
            default -> d.message();
        };
    }

    private static Decision create(JsonObject event) {
        return new Decision(Action.CREATE, "Event", null,
                new Decision.HostRef(Json.string(event, "metadata", "namespace"),
                        Json.string(event, "metadata", "name")),
                "EventRecorded", "record a decision as an Event", event, null);
    }

    private Decision update(JsonObject current, long count, Instant now) {
        JsonObject next = current.deepCopy();
        JsonObject series = new JsonObject();
        series.addProperty("count", Math.max(2, count));
        series.addProperty("lastObservedTime", MICRO_TIME.format(now));
        next.add("series", series);
        return new Decision(Action.UPDATE, "Event", null,
                new Decision.HostRef(Json.string(current, "metadata", "namespace"),
                        Json.string(current, "metadata", "name")),
                "EventRepeated", "count a repeated decision in the Event's series", next, current);
    }

    private static long seriesCount(JsonObject event) {
        JsonObject series = Json.object(event, "series");
        if (series == null || !series.has("count")) {
            return 1;
        }
        return series.get("count").getAsLong();
    }

    private String uidOf(TenantKey tenant) {
        synchronized (uids) {
            String cached = uids.get(tenant);
            if (cached != null) {
                return cached;
            }
        }
        try {
            Object tc = customObjects.getNamespacedCustomObject("tenantplane.io", "v1alpha1", tenant.namespace(),
                    "tenantclusters", tenant.name()).execute();
            JsonObject json = Json.gson().toJsonTree(tc).getAsJsonObject();
            String uid = Json.string(json, "metadata", "uid");
            if (uid != null) {
                synchronized (uids) {
                    if (uids.size() > REMEMBERED) {
                        uids.clear();
                    }
                    uids.put(tenant, uid);
                }
            }
            return uid;
        } catch (ApiException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "TenantCluster " + tenant + " not readable; Event without uid", e);
            return null;
        }
    }

    private static String truncate(String note) {
        if (note.length() <= NOTE_LIMIT) {
            return note;
        }
        return note.substring(0, NOTE_LIMIT - 3) + "...";
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    private record Known(JsonObject event, long count, Instant lastWrite) {
    }

    /** Configures an {@link EventObserver}. Not thread-safe; {@link #build()} copies the configuration. */
    public static final class Builder {
        private ApiClient client;
        private Clock clock;
        private String reportingController = "tenantplane.io/tenantplane";
        private String reportingInstance = "tenantplane";
        private Duration seriesInterval = Duration.ofMinutes(1);

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
         * The least time between two writes of one Event's {@code series} (default 1 minute); repeats in between are
         * counted and written with the next update.
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
