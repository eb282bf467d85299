package io.tenantplane.service;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * Everything the service reads from MicroProfile Config, validated once at start-up.
 *
 * <p>Build it with {@link #from(Config)}. Every key has a default (see {@code META-INF/microprofile-config.properties});
 * a bad value fails with one {@link InvalidSettingsException} that lists every bad key.
 *
 * @param watchNamespaces   host namespaces watched for TenantClusters; empty means all namespaces
 * @param resyncInterval    how often every tenant is reconciled even without a change
 * @param concurrency       how many tenants are reconciled at the same time
 * @param lease             the shard Leases and their timings
 * @param decisionRingSize  how many recent decisions are kept per tenant
 * @param writeConcurrency  host writes one tenant's pass keeps in flight
 * @param hostQps           client-side limit on the passes' host requests per second, shared fairly by tenants
 * @param hostBurst         requests that may go at once before {@code hostQps} applies
 * @param auth              how REST callers are authenticated and authorised
 * @param bearerTokenFile   with {@link Auth#TOKEN_FILE}, the file whose content REST callers present as bearer token
 * @param hostUrl           when present, the host API server URL (otherwise in-cluster or kubeconfig discovery)
 * @param kubelet           tenantplane's kubelet endpoint for the node mirrors
 * @param allowedKinds      the custom kinds ({@code Kind.group}) SyncPolicies may sync; empty: built-in kinds only
 */
public record ServiceSettings(
        List<String> watchNamespaces,
        Duration resyncInterval,
        int concurrency,
        Lease lease,
        int decisionRingSize,
        int writeConcurrency,
        int hostQps,
        int hostBurst,
        Auth auth,
        Optional<Path> bearerTokenFile,
        Optional<URI> hostUrl,
        Kubelet kubelet,
        List<String> allowedKinds) {

    /**
     * The custom kinds SyncPolicies may send to the host or mirror from it, comma-separated {@code Kind.group}
     * (e.g. {@code Certificate.cert-manager.io}); empty: built-in kinds only. Grant the controller RBAC for each.
     */
    public static final String SYNC_ALLOWED_KINDS = "tenantplane.sync.allowed-kinds";

    /** Whether tenantplane serves the kubelet API of node mirrors ({@code kubectl logs} in tenants): true or false. */
    public static final String KUBELET_ENABLED = "tenantplane.kubelet.enabled";
    /** The name tenant API servers dial, in the endpoint's serving certificate; default the Service's DNS name. */
    public static final String KUBELET_HOST = "tenantplane.kubelet.host";
    /** The port the endpoint listens on (and the node mirrors name). */
    public static final String KUBELET_PORT = "tenantplane.kubelet.port";
    /** The Secret (in the service's namespace) holding the kubelet CA; created on first start when missing. */
    public static final String KUBELET_CA_SECRET = "tenantplane.kubelet.ca-secret";
    /** Kubelet calls (streams) one tenant may have open at once. */
    public static final String KUBELET_MAX_STREAMS_PER_TENANT = "tenantplane.kubelet.max-streams-per-tenant";
    /** Kubelet calls open at once in all, per replica. */
    public static final String KUBELET_MAX_STREAMS = "tenantplane.kubelet.max-streams";
    /** How long a kubelet call may move no byte before it is closed. */
    public static final String KUBELET_IDLE_TIMEOUT = "tenantplane.kubelet.idle-timeout";
    /** Whether exec, attach and port-forward into tenant Pods are served (logs always are). */
    public static final String KUBELET_ALLOW_EXEC = "tenantplane.kubelet.allow-exec";

    /**
     * tenantplane's kubelet endpoint.
     *
     * @param enabled              whether it runs (and node mirrors point at it)
     * @param host                 the name tenant API servers dial
     * @param port                 its port
     * @param caSecret             the Secret holding its CA, in {@code namespace}
     * @param namespace            the service's namespace
     * @param maxStreamsPerTenant  calls one tenant may have open
     * @param maxStreams           calls open in all
     * @param idleTimeout          how long a call may move no byte
     * @param allowExec            whether exec, attach and port-forward are served
     */
    public record Kubelet(boolean enabled, String host, int port, String caSecret, String namespace,
                          int maxStreamsPerTenant, int maxStreams, Duration idleTimeout, boolean allowExec) {
    }

    /** Comma-separated host namespaces to watch; empty watches all. */
    public static final String WATCH_NAMESPACES = "tenantplane.watch.namespaces";
    /** ISO-8601 duration between full resyncs. */
    public static final String RESYNC_INTERVAL = "tenantplane.resync.interval";
    /** Tenants reconciled in parallel, 1..64. */
    public static final String CONCURRENCY = "tenantplane.concurrency";
    /** Name of the installation's Leases: {@code <name>-shard-<i>} and {@code <name>-member-<identity>}. */
    public static final String LEASE_NAME = "tenantplane.lease.name";
    /** The number of shards tenants are spread over; fixed per installation. */
    public static final String SHARDS = "tenantplane.shards";
    /** Namespace of the shard Leases (the service's own namespace). */
    public static final String LEASE_NAMESPACE = "tenantplane.lease.namespace";
    /** This replica's identity in the Lease; empty picks a random one. */
    public static final String LEASE_IDENTITY = "tenantplane.lease.identity";
    /** How long a Lease holds after its last renewal. */
    public static final String LEASE_DURATION = "tenantplane.lease.duration";
    /** How long a replica keeps writing for a shard without a successful renewal of its Lease. */
    public static final String LEASE_RENEW_DEADLINE = "tenantplane.lease.renew-deadline";
    /** Time between two attempts to acquire or renew the Lease. */
    public static final String LEASE_RETRY_PERIOD = "tenantplane.lease.retry-period";
    /** Decisions kept per tenant for the REST API. */
    public static final String DECISIONS_RING_SIZE = "tenantplane.decisions.ring-size";
    /** Host writes one tenant's pass keeps in flight, 1..64. */
    public static final String WRITE_CONCURRENCY = "tenantplane.write.concurrency";
    /** Client-side limit on the host requests of convergence passes, per second. */
    public static final String HOST_QPS = "tenantplane.host.qps";
    /** Host requests that may go at once before the per-second limit applies. */
    public static final String HOST_BURST = "tenantplane.host.burst";
    /** How REST callers are checked: {@code kubernetes} (default), {@code token-file} or {@code none}. */
    public static final String AUTH_MODE = "tenantplane.auth.mode";
    /** With {@code tenantplane.auth.mode=token-file}, the file holding the bearer token REST callers present. */
    public static final String AUTH_BEARER_TOKEN_FILE = "tenantplane.auth.bearer-token-file";
    /** Host API server URL; unset means in-cluster configuration, else KUBECONFIG or ~/.kube/config. */
    public static final String HOST_URL = "tenantplane.host.url";

    static final int MAX_CONCURRENCY = 64;
    static final int MAX_RING_SIZE = 100_000;
    static final int MAX_SHARDS = 1024;
    static final Duration MIN_RESYNC = Duration.ofSeconds(1);

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /** How the REST API checks its callers. Health and metrics are never behind it. */
    public enum Auth {
        /**
         * The caller's bearer token is checked with a TokenReview and each request with a SubjectAccessReview on the
         * host, as kube-rbac-proxy does: the default.
         */
        KUBERNETES("kubernetes"),
        /** One shared bearer token read from a file; whoever holds it may read everything. */
        TOKEN_FILE("token-file"),
        /** No check at all: for a service reachable only from a trusted place (e.g. a port-forward). */
        NONE("none");

        private final String value;

        Auth(String value) {
            this.value = value;
        }

        /** The value as written in the configuration. */
        public String value() {
            return value;
        }
    }

    /**
     * The shard Leases.
     *
     * @param name          the installation's name, prefix of its Lease names
     * @param namespace     Lease namespace
     * @param identity      this replica's holder identity
     * @param shards        the number of shards, fixed per installation
     * @param duration      how long a Lease holds after a renewal (whole seconds)
     * @param renewDeadline how long a replica keeps writing for a shard without renewing; shorter than
     *                      {@code duration}
     * @param retryPeriod   time between attempts; shorter than {@code renewDeadline}
     */
    public record Lease(String name, String namespace, String identity, int shards, Duration duration,
                        Duration renewDeadline, Duration retryPeriod) {

        /** Checks the timing invariants the shard Leases rely on. */
        public Lease {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(identity, "identity");
            if (shards < 1 || shards > MAX_SHARDS) {
                throw new IllegalArgumentException("shards " + shards + " outside 1.." + MAX_SHARDS);
            }
            if (retryPeriod.isNegative() || retryPeriod.isZero()
                    || renewDeadline.compareTo(retryPeriod) <= 0 || duration.compareTo(renewDeadline) <= 0) {
                throw new IllegalArgumentException("need duration (" + duration + ") > renewDeadline ("
                        + renewDeadline + ") > retryPeriod (" + retryPeriod + ") > 0");
            }
        }
    }

    /** Copies the list and checks the values once more (the parsers below give the friendly messages). */
    public ServiceSettings {
        watchNamespaces = List.copyOf(watchNamespaces);
        Objects.requireNonNull(resyncInterval, "resyncInterval");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(bearerTokenFile, "bearerTokenFile");
        if ((auth == Auth.TOKEN_FILE) != bearerTokenFile.isPresent()) {
            throw new IllegalArgumentException("a bearer token file goes with auth mode token-file, and only with it");
        }
        Objects.requireNonNull(hostUrl, "hostUrl");
        if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("concurrency " + concurrency + " outside 1.." + MAX_CONCURRENCY);
        }
        if (writeConcurrency < 1 || writeConcurrency > MAX_CONCURRENCY) {
            throw new IllegalArgumentException("writeConcurrency " + writeConcurrency + " outside 1.."
                    + MAX_CONCURRENCY);
        }
        if (hostQps < 1 || hostBurst < 1) {
            throw new IllegalArgumentException("hostQps and hostBurst must be at least 1");
        }
        if (decisionRingSize < 1 || decisionRingSize > MAX_RING_SIZE) {
            throw new IllegalArgumentException("decisionRingSize " + decisionRingSize + " outside 1.." + MAX_RING_SIZE);
        }
    }

    /** True when every namespace is watched. */
    public boolean watchesAllNamespaces() {
        return watchNamespaces.isEmpty();
    }

    /**
     * Reads and validates the settings from MicroProfile Config.
     *
     * @throws InvalidSettingsException naming every bad key, its value and the fix
     */
    public static ServiceSettings from(Config config) {
        return from(key -> config.getOptionalValue(key, String.class),
                () -> "tenantplane-" + UUID.randomUUID().toString().substring(0, 8));
    }

    static ServiceSettings from(Function<String, Optional<String>> lookup, Supplier<String> randomIdentity) {
        var p = new Parser(lookup);
        List<String> namespaces = p.namespaces(WATCH_NAMESPACES);
        Duration resync = p.duration(RESYNC_INTERVAL, "PT5M", MIN_RESYNC, "PT5M");
        int concurrency = p.integer(CONCURRENCY, "4", 1, MAX_CONCURRENCY, "4");
        String leaseName = p.name(LEASE_NAME, "tenantplane-service", DNS_SUBDOMAIN, 180,
                "a DNS subdomain name", "tenantplane-service");
        int shards = p.integer(SHARDS, "32", 1, MAX_SHARDS, "32");
        String leaseNamespace = p.name(LEASE_NAMESPACE, "tenantplane-system", DNS_LABEL, 63,
                "a DNS label (a namespace name)", "tenantplane-system, or set POD_NAMESPACE from the downward API");
        String identity = p.identity(LEASE_IDENTITY).orElseGet(randomIdentity);
        int problemsBeforeLease = p.problems.size();
        Duration leaseDuration = p.wholeSeconds(LEASE_DURATION, "PT15S", "PT15S");
        Duration renewDeadline = p.duration(LEASE_RENEW_DEADLINE, "PT10S", Duration.ofMillis(1), "PT10S");
        Duration retryPeriod = p.duration(LEASE_RETRY_PERIOD, "PT2S", Duration.ofMillis(1), "PT2S");
        if (p.problems.size() == problemsBeforeLease) {
            p.leaseOrder(leaseDuration, renewDeadline, retryPeriod);
        }
        int ring = p.integer(DECISIONS_RING_SIZE, "500", 1, MAX_RING_SIZE, "500");
        int writers = p.integer(WRITE_CONCURRENCY, "4", 1, MAX_CONCURRENCY, "4");
        int qps = p.integer(HOST_QPS, "100", 1, 100_000, "100");
        int burst = p.integer(HOST_BURST, "200", 1, 100_000, "200");
        Optional<Path> tokenFile = p.tokenFile(AUTH_BEARER_TOKEN_FILE);
        Auth auth = p.auth(AUTH_MODE, p.raw(AUTH_BEARER_TOKEN_FILE).isPresent());
        Optional<URI> hostUrl = p.url(HOST_URL);
        boolean kubeletOn = p.bool(KUBELET_ENABLED, "true");
        String kubeletHost = p.name(KUBELET_HOST, "tenantplane-kubelet." + leaseNamespace + ".svc", DNS_SUBDOMAIN,
                253, "a DNS name tenant control plane pods resolve", "tenantplane-kubelet." + leaseNamespace + ".svc");
        int kubeletPort = p.integer(KUBELET_PORT, "10250", 1, 65535, "10250");
        String caSecret = p.name(KUBELET_CA_SECRET, "tenantplane-kubelet-ca", DNS_SUBDOMAIN, 253,
                "a Secret name", "tenantplane-kubelet-ca");
        int perTenant = p.integer(KUBELET_MAX_STREAMS_PER_TENANT, "10", 1, 10_000, "10");
        int streams = p.integer(KUBELET_MAX_STREAMS, "200", 1, 100_000, "200");
        Duration idle = p.duration(KUBELET_IDLE_TIMEOUT, "PT4H", Duration.ofSeconds(1), "PT4H");
        boolean allowExec = p.bool(KUBELET_ALLOW_EXEC, "true");
        List<String> allowedKinds = p.kinds(SYNC_ALLOWED_KINDS);
        p.throwIfInvalid();
        return new ServiceSettings(namespaces, resync, concurrency,
                new Lease(leaseName, leaseNamespace, identity, shards, leaseDuration, renewDeadline, retryPeriod),
                ring, writers, qps, burst, auth, tokenFile, hostUrl, new Kubelet(kubeletOn, kubeletHost, kubeletPort,
                        caSecret, leaseNamespace, perTenant, streams, idle, allowExec), allowedKinds);
    }

    /** Collects problems instead of stopping at the first, so one start-up reports them all. */
    private static final java.util.regex.Pattern KIND = java.util.regex.Pattern.compile("[A-Z][A-Za-z0-9]*");

    private static final class Parser {
        private final Function<String, Optional<String>> lookup;
        private final List<String> problems = new ArrayList<>();

        Parser(Function<String, Optional<String>> lookup) {
            this.lookup = lookup;
        }

        private Optional<String> raw(String key) {
            return lookup.apply(key).map(String::strip).filter(s -> !s.isEmpty());
        }

        private void problem(String key, String value, String rule, String fix) {
            problems.add(key + " = '" + value + "': " + rule + "; fix: " + fix);
        }

        List<String> kinds(String key) {
            Optional<String> value = raw(key);
            if (value.isEmpty()) {
                return List.of();
            }
            var result = new java.util.TreeSet<String>();
            for (String part : value.get().split(",")) {
                String k = part.strip();
                if (k.isEmpty()) {
                    continue;
                }
                int dot = k.indexOf('.');
                if (dot < 1 || !KIND.matcher(k.substring(0, dot)).matches()
                        || !DNS_SUBDOMAIN.matcher(k.substring(dot + 1)).matches()) {
                    problem(key, value.get(), "'" + k + "' is not Kind.group", "a comma-separated list such as "
                            + "Certificate.cert-manager.io,ServiceMonitor.monitoring.coreos.com, or empty for built-in "
                            + "kinds only");
                    return List.of();
                }
                result.add(k);
            }
            return List.copyOf(result);
        }

        List<String> namespaces(String key) {
            Optional<String> value = raw(key);
            if (value.isEmpty()) {
                return List.of();
            }
            var result = new LinkedHashSet<String>();
            for (String part : value.get().split(",")) {
                String ns = part.strip();
                if (ns.isEmpty()) {
                    continue;
                }
                if (ns.length() > 63 || !DNS_LABEL.matcher(ns).matches()) {
                    problem(key, value.get(), "'" + ns + "' is not a namespace name (lowercase DNS label,"
                            + " at most 63 characters)", "a comma-separated list such as team-a,team-b, or empty"
                            + " for all namespaces");
                    return List.of();
                }
                result.add(ns);
            }
            return List.copyOf(result);
        }

        Duration duration(String key, String fallback, Duration min, String example) {
            String value = raw(key).orElse(fallback);
            try {
                Duration d = Duration.parse(value);
                if (d.compareTo(min) < 0) {
                    problem(key, value, "must be at least " + min, "an ISO-8601 duration such as " + example);
                    return Duration.parse(fallback);
                }
                return d;
            } catch (DateTimeParseException e) {
                problem(key, value, "not an ISO-8601 duration", "write it like " + example
                        + " (PT30S = 30 seconds, PT5M = 5 minutes)");
                return Duration.parse(fallback);
            }
        }

        Duration wholeSeconds(String key, String fallback, String example) {
            int before = problems.size();
            Duration d = duration(key, fallback, Duration.ofSeconds(1), example);
            if (problems.size() == before && d.getNano() != 0) {
                problem(key, raw(key).orElse(fallback), "a Lease holds whole seconds", "round it to whole"
                        + " seconds, e.g. " + example);
                return Duration.ofSeconds(d.getSeconds());
            }
            return d;
        }

        int integer(String key, String fallback, int min, int max, String example) {
            String value = raw(key).orElse(fallback);
            try {
                int n = Integer.parseInt(value);
                if (n < min || n > max) {
                    problem(key, value, "must be a whole number from " + min + " to " + max, "set it to e.g. "
                            + example);
                    return Integer.parseInt(fallback);
                }
                return n;
            } catch (NumberFormatException e) {
                problem(key, value, "not a whole number", "a whole number from " + min + " to " + max + ", e.g. "
                        + example);
                return Integer.parseInt(fallback);
            }
        }

        String name(String key, String fallback, Pattern pattern, int maxLength, String what, String example) {
            String value = raw(key).orElse(fallback);
            if (value.length() > maxLength || !pattern.matcher(value).matches()) {
                problem(key, value, "must be " + what + " (lowercase letters, digits and '-', at most "
                        + maxLength + " characters)", "e.g. " + example);
                return fallback;
            }
            return value;
        }

        boolean bool(String key, String fallback) {
            String value = raw(key).orElse(fallback);
            if (!value.equals("true") && !value.equals("false")) {
                problem(key, value, "must be true or false", "true, or false to turn the feature off");
                return Boolean.parseBoolean(fallback);
            }
            return Boolean.parseBoolean(value);
        }

        Optional<String> identity(String key) {
            Optional<String> value = raw(key);
            if (value.isPresent() && (value.get().length() > 253 || value.get().chars().anyMatch(Character::isISOControl))) {
                problem(key, value.get(), "must be at most 253 printable characters", "leave it unset to use the"
                        + " pod name (HOSTNAME) or a random id");
                return Optional.empty();
            }
            return value;
        }

        void leaseOrder(Duration duration, Duration renewDeadline, Duration retryPeriod) {
            if (renewDeadline.compareTo(duration) >= 0) {
                problem(LEASE_RENEW_DEADLINE, renewDeadline.toString(), "must be shorter than "
                        + LEASE_DURATION + " (" + duration + "), or two replicas could both write for one shard",
                        "e.g. duration PT15S with renew-deadline PT10S");
            }
            if (retryPeriod.compareTo(renewDeadline) >= 0) {
                problem(LEASE_RETRY_PERIOD, retryPeriod.toString(), "must be shorter than "
                        + LEASE_RENEW_DEADLINE + " (" + renewDeadline + "), or a replica could not renew its shards in time",
                        "e.g. renew-deadline PT10S with retry-period PT2S");
            }
        }

        Optional<Path> tokenFile(String key) {
            Optional<String> value = raw(key);
            if (value.isEmpty()) {
                return Optional.empty();
            }
            try {
                Path path = Path.of(value.get());
                if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
                    problem(key, value.get(), "no readable file there", "mount the token Secret at that path,"
                            + " or leave the key unset to serve REST without a bearer check");
                    return Optional.empty();
                }
                if (Files.readString(path).isBlank()) {
                    problem(key, value.get(), "the file is empty", "put the token in the Secret the file comes"
                            + " from");
                    return Optional.empty();
                }
                return Optional.of(path);
            } catch (InvalidPathException | IOException e) {
                problem(key, value.get(), "cannot be read (" + e.getMessage() + ")", "point it at a readable file");
                return Optional.empty();
            }
        }

        /** The mode; unset means {@code token-file} when a token file is named (as before modes existed), else
         * {@code kubernetes}. A token file with another mode, or token-file without one, is a problem. */
        Auth auth(String key, boolean fileNamed) {
            Optional<String> value = raw(key);
            if (value.isEmpty()) {
                return fileNamed ? Auth.TOKEN_FILE : Auth.KUBERNETES;
            }
            for (Auth a : Auth.values()) {
                if (a.value().equals(value.get())) {
                    if (a == Auth.TOKEN_FILE && !fileNamed) {
                        problem(key, value.get(), "needs " + AUTH_BEARER_TOKEN_FILE, "set "
                                + AUTH_BEARER_TOKEN_FILE + " to the mounted token file, or use kubernetes");
                    } else if (a != Auth.TOKEN_FILE && fileNamed) {
                        problem(key, value.get(), AUTH_BEARER_TOKEN_FILE + " is set too, and only token-file"
                                + " uses it", "unset " + AUTH_BEARER_TOKEN_FILE + ", or set the mode to token-file");
                    }
                    return a;
                }
            }
            problem(key, value.get(), "not a mode", "kubernetes (TokenReview and SubjectAccessReview, the default),"
                    + " token-file or none");
            return Auth.KUBERNETES;
        }

        Optional<URI> url(String key) {
            Optional<String> value = raw(key);
            if (value.isEmpty()) {
                return Optional.empty();
            }
            try {
                URI uri = new URI(value.get());
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    problem(key, value.get(), "must be an absolute http(s) URL", "e.g. https://127.0.0.1:6443,"
                            + " or leave it unset to use in-cluster configuration or KUBECONFIG");
                    return Optional.empty();
                }
                return Optional.of(uri);
            } catch (URISyntaxException e) {
                problem(key, value.get(), "not a URL (" + e.getReason() + ")", "e.g. https://127.0.0.1:6443");
                return Optional.empty();
            }
        }

        void throwIfInvalid() {
            if (!problems.isEmpty()) {
                throw new InvalidSettingsException(problems);
            }
        }
    }
}
