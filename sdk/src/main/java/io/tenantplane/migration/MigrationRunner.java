package io.tenantplane.migration;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.tenantplane.apply.Applier;
import io.tenantplane.apply.Reader;
import io.tenantplane.apply.Retries;
import io.tenantplane.apply.internal.Execution;
import io.tenantplane.apply.internal.TokenRequests;
import io.tenantplane.apply.internal.TokenSecrets;
import io.tenantplane.errors.ReadFailedException;
import io.tenantplane.json.Json;
import io.tenantplane.model.Conditions;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Reasons;
import io.tenantplane.plan.internal.TenantStatus;
import io.tenantplane.plan.internal.TenantTokens;
import io.tenantplane.transform.Transformer;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Executes a tenant's migration against the host and the tenant API, one step at a time, through the
 * {@link Applier}: the only component here that writes. Each {@link #resume} pass reads the TenantCluster (with its
 * {@code status.migration}), the host namespaces and the tenant API, plans with the {@link MigrationPlanner}, and
 * executes the first step's first batch that still has writes, then reads and plans again; it returns when the step
 * must wait for something outside tenantplane (Pods becoming Ready, agents joining), when a write fails, or when the
 * migration is done. Before a step writes anything its name is recorded in {@code status.migration}, so a pass that
 * dies half way (a crash, API errors) is resumed by the next one at the same step, and writes only what is missing.
 *
 * <p>Status: while moving, {@code status.phase} is {@code Migrating} and the {@code Migrating} condition is True with
 * the step as reason and the progress as message ({@code Ready} is False, reason {@code Migrating}); when done,
 * {@code Migrating} is False ({@code MigrationComplete}), {@code Ready} True, {@code status.migration} removed. A
 * rejected migration sets {@code Migrating} False with the rejection's reason and writes nothing else.
 *
 * <p>The tenant API is written only to reschedule Pods into or out of private mode (deleting a Pod its controller
 * recreates) and to (un)cordon or delete tenantplane's own Nodes there; the tenant control plane and its datastore
 * are never recreated. Thread-safe; run at most one pass per tenant at a time (the service's work queue does).
 */
public final class MigrationRunner {

    private final ApiClient host;
    private final MigrationPlanner planner;
    private final Observer observer;
    private final Clock clock;
    private final Retries retries;
    private final int maxRounds;
    private final Applier hostApplier;
    private final Reader hostReads;
    /** The read step: one consistent read of a tenant. */
    private final MigrationReader reader;
    private final Function<TenantCluster, String> tenantCa;
    private final UnaryOperator<TenantCluster> onHost;

    private MigrationRunner(Builder b) {
        this.host = b.hostClient;
        this.planner = b.planner;
        this.observer = b.observer;
        this.clock = b.clock;
        this.retries = b.retries;
        this.maxRounds = b.maxRounds;
        this.hostApplier = applier(host);
        this.hostReads = hostApplier.reader();
        this.tenantCa = b.tenantCa;
        this.onHost = b.onHost;
        this.reader = new MigrationReader(hostReads, retries, onHost);
    }

    /** A builder; {@link Builder#hostClient(ApiClient)} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The plan the next pass would follow, read live but written nowhere: what {@code tenantplane plan} shows for a
     * tenant whose {@code status.mode} differs from {@code spec.mode}.
     *
     * @throws ReadFailedException when the host or the tenant API refuses a read
     */
    public MigrationPlan plan(TenantKey tenant, ApiClient tenantClient) {
        return load(tenant, tenantClient).plan();
    }

    /**
     * Reads the live snapshot for {@code tenant} (the same one {@link #resume} plans from), e.g. to save it and plan
     * offline later.
     *
     * @throws ReadFailedException when the host or the tenant API refuses a read
     */
    public MigrationSnapshot snapshot(TenantKey tenant, ApiClient tenantClient) {
        return load(tenant, tenantClient).snapshot;
    }

    /**
     * Moves the tenant on as far as it can go now. Safe to call at any time and repeatedly: a tenant that is where its
     * spec wants it gives {@link MigrationProgress.NotNeeded} and no write.
     *
     * @param tenant       the TenantCluster's namespace and name
     * @param tenantClient a client of the tenant's own API
     */
    public MigrationProgress resume(TenantKey tenant, ApiClient tenantClient) {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(tenantClient, "tenantClient");
        return Execution.scoped(tenant, observer, observer::migrationStarted, exec -> resume(exec, tenantClient));
    }

    /** One migration pass, every decision reported through {@code exec}. */
    private MigrationProgress resume(Execution exec, ApiClient tenantClient) {
        TenantKey tenant = exec.tenant();
        Applier tenantApplier = applier(tenantClient);
        Set<String> announced = new LinkedHashSet<>();
        Step current = null;
        for (int round = 0; round < maxRounds; round++) {
            Loaded l;
            try {
                l = load(tenant, tenantClient);
            } catch (ReadFailedException e) {
                return new MigrationProgress.Failed(current, "ReadFailed", e.getMessage(), exec.outcomes());
            }
            MigrationPlan plan = l.plan();
            if (!plan.needed()) {
                return new MigrationProgress.NotNeeded(exec.outcomes());
            }
            if (plan.rejected()) {
                Rejection r = plan.rejection();
                writeStatus(exec, l, status -> TenantStatus.with(status,
                        TenantStatus.migrationRejected(r.reason(), r.field(), r.message(), generation(l)), clock));
                return new MigrationProgress.Rejected(r, exec.outcomes());
            }
            if (plan.reversal() != null && announced.add(plan.reversal().reason())) {
                exec.report(new Outcome.NotWritten(plan.reversal()));
            }
            MigrationStep step = plan.steps().get(0);
            current = step.step();
            MigrationState state = plan.state().startedAt() == null
                    ? plan.state().startedAt(Conditions.timestamp(clock.instant())) : plan.state();
            String progress = "step " + (step.step().ordinal() + 1) + " of " + Step.values().length + " ("
                    + plan.from().value() + " -> " + plan.to().value() + "): " + step.summary();
            if (!record(exec, l, state, step.step().display(), progress)) {
                return new MigrationProgress.Failed(current, "WriteFailed", "the TenantCluster's status could not be "
                        + "written; the step does not start before it is recorded", exec.outcomes());
            }
            boolean wrote = false;
            for (Batch batch : step.batches()) {
                Optional<StepDecision> conflict = batch.decisions().stream()
                        .filter(d -> d.decision().action() == Action.CONFLICT).findFirst();
                if (conflict.isPresent()) {
                    Decision c = conflict.get().decision();
                    record(exec, l, state, step.step().display(), progress + "; blocked: " + c.message());
                    exec.report(new Outcome.NotWritten(c));
                    return new MigrationProgress.Failed(current, "Conflict", c.message(), exec.outcomes());
                }
                List<StepDecision> writes = batch.writes();
                if (!writes.isEmpty()) {
                    for (StepDecision d : writes) {
                        Outcome o = exec.report(execute(l, d, tenantApplier, tenantClient));
                        if (o instanceof Outcome.Failed f) {
                            String why = f.decision().action().display() + " " + f.decision().kind() + " "
                                    + (f.decision().host() == null ? "" : f.decision().host().name()) + " failed ("
                                    + f.code() + " " + f.reason() + "): " + f.message();
                            record(exec, reload(l, tenant, tenantClient), state, step.step().display(),
                                    progress + "; " + why + "; retrying on the next pass");
                            return new MigrationProgress.Failed(current, "WriteFailed", why, exec.outcomes());
                        }
                    }
                    wrote = true;
                    break;
                }
                if (!batch.ready()) {
                    List<String> pending = batch.waits().stream().filter(w -> !w.satisfied())
                            .map(w -> w.what() + " (pending: " + String.join(", ", w.pending()) + ")").toList();
                    record(exec, l, state, step.step().display(),
                            progress + "; waiting until " + String.join("; ", pending));
                    return new MigrationProgress.Waiting(current, batch.waits(), exec.outcomes());
                }
            }
            if (wrote) {
                continue;
            }
            Optional<Step> next = step.step().next();
            if (next.isEmpty()) {
                Loaded fresh = reload(l, tenant, tenantClient);
                boolean ok = writeStatus(exec, fresh, status -> TenantStatus.migrationCompleted(status,
                        plan.tenant(), plan.from(), plan.to(), generation(fresh), clock));
                if (!ok) {
                    return new MigrationProgress.Failed(current, "WriteFailed", "the final status could not be "
                            + "written", exec.outcomes());
                }
                return new MigrationProgress.Completed(plan, exec.outcomes());
            }
            Loaded fresh = reload(l, tenant, tenantClient);
            Step nextStep = next.get();
            if (!record(exec, fresh, state.at(nextStep), nextStep.display(), "step " + (nextStep.ordinal() + 1)
                    + " of " + Step.values().length + " (" + plan.from().value() + " -> " + plan.to().value()
                    + ") starts")) {
                return new MigrationProgress.Failed(current, "WriteFailed", "the TenantCluster's status could not be "
                        + "written", exec.outcomes());
            }
        }
        return new MigrationProgress.Failed(current, "TooManyRounds", "the pass stopped after " + maxRounds
                + " rounds of writes; the next pass goes on", exec.outcomes());
    }

    // ---- execution ---------------------------------------------------------------------------------------------

    private Outcome execute(Loaded l, StepDecision d, Applier tenantApplier, ApiClient tenantClient) {
        return switch (d.api()) {
            case HOST -> isTokenIssue(d.decision()) ? writeTokenSecret(l, d.decision(), tenantClient)
                    : hostApplier.apply(d.decision(), Applier.Replanner.NONE);
            case TENANT -> tenantApplier.apply(d.decision(), Applier.Replanner.NONE);
            case STATUS -> {
                // Where the planner placed the tenant, read typed from its decision; the write is made over the
                // status as it is then (re-read on a conflict), and switches only those two fields.
                TenantCluster.Status placed = Json.gson().fromJson(Json.object(d.decision().desired(), "status"),
                        TenantCluster.Status.class);
                yield writeStatus(l, d.decision().reason(), d.decision().message(),
                        status -> TenantStatus.placed(status, placed.mode(), placed.hostNamespace()));
            }
        };
    }

    private static boolean isTokenIssue(Decision d) {
        return d.kind().equals("Secret") && (d.reason().equals(TenantTokens.ISSUED)
                || d.reason().equals(TenantTokens.REFRESHED));
    }

    /**
     * Writes a copied Pod's token Secret as a pass does: its tokens minted by the tenant API for the tenant Pod's
     * ServiceAccount, bound to that Pod, with the tenant API's CA and the virtual namespace.
     */
    private Outcome writeTokenSecret(Loaded l, Decision d, ApiClient tenantClient) {
        JsonObject pod = null;
        for (JsonObject o : l.snapshot.tenantObjects()) {
            if ("Pod".equals(Json.string(o, "kind")) && d.source() != null
                    && d.source().virtualNamespace().equals(Json.string(o, "metadata", "namespace"))
                    && d.source().name().equals(Json.string(o, "metadata", "name"))) {
                pod = o;
            }
        }
        if (pod == null) {
            return new Outcome.Failed(d, 404, "TokenRequestFailed", "tenant Pod " + d.source() + " is gone; its "
                    + "copy is not made", 1);
        }
        TenantTokens.Issue issue = new TenantTokens.Issue(d, pod,
                Transformer.tenantServiceAccount(Json.object(pod, "spec")), TenantTokens.audiences(pod));
        return TokenSecrets.write(issue, new TokenRequests(tenantClient), tenantCa.apply(l.cluster), clock.instant(),
                hostApplier);
    }

    /** Records the state and the Migrating condition; false when the status write failed. */
    private boolean record(Execution exec, Loaded l, MigrationState state, String reason, String message) {
        return writeStatus(exec, l, status -> TenantStatus.migrationRecorded(status, state.toStatus(),
                l.cluster.tenant(), reason, message, generation(l), clock));
    }

    /**
     * Writes the status {@code next} makes of the current one through the applier's one status writer (re-read and
     * made again on a conflict), reports the write as a decision, and follows it in {@code l.json}.
     */
    private boolean writeStatus(Execution exec, Loaded l, UnaryOperator<TenantCluster.Status> next) {
        Outcome o = exec.statusWritten(writeStatus(l, Reasons.MIGRATION_PROGRESS,
                "status of the migration of tenant " + l.cluster.tenant(), next));
        return !(o instanceof Outcome.Failed);
    }

    /**
     * Writes the status {@code next} makes of the current one, typed, through the applier's one status writer, and
     * follows it in {@code l.json}; the caller reports the outcome.
     */
    private Outcome writeStatus(Loaded l, String reason, String message, UnaryOperator<TenantCluster.Status> next) {
        Outcome o = hostApplier.writeStatus(l.cluster.namespace(), l.cluster.tenant(), l.json, reason, message, next);
        if (o instanceof Outcome.Applied a && a.result() != null) {
            l.json = a.result();
        }
        return o;
    }

    private static Long generation(Loaded l) {
        return l.cluster.metadata() == null ? null : l.cluster.metadata().generation();
    }

    private Applier applier(ApiClient client) {
        return Applier.builder().client(client).observer(observer).retries(retries).build();
    }

    // ---- reading -----------------------------------------------------------------------------------------------

    /** One consistent read of a tenant. {@code json} follows the TenantCluster as this pass writes its status. */
    private final class Loaded {
        JsonObject json;
        final TenantCluster cluster;
        final MigrationSnapshot snapshot;

        Loaded(JsonObject json, TenantCluster cluster, MigrationSnapshot snapshot) {
            this.json = json;
            this.cluster = cluster;
            this.snapshot = snapshot;
        }

        MigrationPlan plan() {
            return planner.plan(snapshot);
        }
    }

    private Loaded reload(Loaded l, TenantKey tenant, ApiClient tenantClient) {
        try {
            return load(tenant, tenantClient);
        } catch (ReadFailedException e) {
            return l;
        }
    }

    private Loaded load(TenantKey key, ApiClient tenantClient) {
        MigrationReader.Read r = reader.read(key, tenantClient);
        return new Loaded(r.json(), r.cluster(), r.snapshot());
    }

    /** Configures a {@link MigrationRunner}. Not thread-safe; {@link #build()} copies the configuration. */
    public static final class Builder {
        private ApiClient hostClient;
        private MigrationPlanner planner;
        private Observer observer = Observer.NOOP;
        private Clock clock = Clock.systemUTC();
        private Retries retries = Retries.DEFAULT;
        private int maxRounds = 50;
        private Function<TenantCluster, String> tenantCa = tc -> "";
        private UnaryOperator<TenantCluster> onHost = UnaryOperator.identity();

        private Builder() {
        }

        /** The host cluster. Required. */
        public Builder hostClient(ApiClient hostClient) {
            this.hostClient = Objects.requireNonNull(hostClient, "hostClient");
            return this;
        }

        /**
         * Where the tenant API's CA certificate (PEM) comes from, for the token Secrets of Pods copied into another
         * namespace (their {@code ca.crt}); without it they carry an empty one.
         */
        public Builder tenantCa(Function<TenantCluster, String> tenantCa) {
            this.tenantCa = Objects.requireNonNull(tenantCa, "tenantCa");
            return this;
        }

        /**
         * The TenantCluster as it is rendered on this host (e.g. with the host's Service range when it names none),
         * applied to each TenantCluster read, so that the migration renders what provisioning renders; default: as
         * read.
         */
        public Builder onHost(UnaryOperator<TenantCluster> onHost) {
            this.onHost = Objects.requireNonNull(onHost, "onHost");
            return this;
        }

        /** The planner; by default one with the default renderers. */
        public Builder planner(MigrationPlanner planner) {
            this.planner = Objects.requireNonNull(planner, "planner");
            return this;
        }

        /** Receives every executed decision (and the API errors the applier meets). */
        public Builder observer(Observer observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** The clock for {@code startedAt} and condition times (default UTC system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Attempts per write and the backoff between them, as {@link Applier.Builder#maxAttempts} and
         * {@link Applier.Builder#backoff} (defaults 5, 100 ms, 2 s).
         *
         * @throws IllegalArgumentException when {@code maxAttempts} is less than 1 or the backoffs are inconsistent
         */
        public Builder retries(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
            return retries(new Retries(maxAttempts, initialBackoff, maxBackoff));
        }

        /** Attempts per write and the backoff between them (default {@link Retries#DEFAULT}). */
        public Builder retries(Retries retries) {
            this.retries = Objects.requireNonNull(retries, "retries");
            return this;
        }

        /**
         * How many read-plan-write rounds one pass may make before it returns (default 50); a pass also returns as
         * soon as it must wait.
         *
         * @throws IllegalArgumentException when {@code rounds} is less than 1
         */
        public Builder maxRoundsPerPass(int rounds) {
            if (rounds < 1) {
                throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
            }
            this.maxRounds = rounds;
            return this;
        }

        /**
         * @throws IllegalStateException when no host client was set
         */
        public MigrationRunner build() {
            if (hostClient == null) {
                throw new IllegalStateException("hostClient is required: call hostClient(ApiClient) before build()");
            }
            if (planner == null) {
                planner = new MigrationPlanner();
            }
            return new MigrationRunner(this);
        }
    }
}
