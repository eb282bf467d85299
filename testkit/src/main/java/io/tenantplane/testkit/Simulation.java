package io.tenantplane.testkit;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link KubeApiServer} simulates of a cluster's other components, in the spirit of KWOK (Kubernetes
 * WithOut Kubelet, {@code kubernetes-sigs/kwok}): nodes with a kubelet each, a scheduler, the StatefulSet,
 * ReplicaSet and Deployment controllers and the garbage collector. Switch it on per server with
 * {@link KubeApiServer.Builder#simulate(Simulation)}.
 *
 * <p>The simulated kubelet moves a bound pod Pending → Running and Ready after {@link Builder#startDelay} (with
 * container statuses, a pod IP from {@code 10.244.0.0/16} and its node's host IP), confirms a graceful deletion
 * after {@link Builder#stopDelay} (at most the pod's grace period) by deleting it with grace 0, as a kubelet does.
 * Pods control their fate with annotations, as KWOK stages select pods:
 * {@value #FAIL_ANNOTATION}{@code : "<exit code>"} ends the pod Failed with that exit code, and
 * {@value #COMPLETE_ANNOTATION}{@code : "true"} ends it Succeeded (exit code 0).
 */
public final class Simulation {
    /** A pod with this annotation ends Failed; the value is the container exit code. */
    public static final String FAIL_ANNOTATION = "testkit.tenantplane.io/fail";
    /** A pod with this annotation set to {@code "true"} ends Succeeded. */
    public static final String COMPLETE_ANNOTATION = "testkit.tenantplane.io/complete";
    /** The label every simulated node carries ({@code type=kwok} in KWOK's own setup). */
    public static final String NODE_LABEL = "testkit.tenantplane.io/simulated";

    private final int nodes;
    private final Duration startDelay;
    private final Duration stopDelay;
    private final boolean controllers;

    private Simulation(Builder b) {
        this.nodes = b.nodes;
        this.startDelay = b.startDelay;
        this.stopDelay = b.stopDelay;
        this.controllers = b.controllers;
    }

    /** Two nodes, pods start and stop at once, controllers and garbage collector on. */
    public static Simulation defaults() {
        return builder().build();
    }

    /** A builder with the {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    int nodes() {
        return nodes;
    }

    Duration startDelay() {
        return startDelay;
    }

    Duration stopDelay() {
        return stopDelay;
    }

    boolean controllers() {
        return controllers;
    }

    /** Configures a {@link Simulation}; setters check their argument at once. */
    public static final class Builder {
        private int nodes = 2;
        private Duration startDelay = Duration.ZERO;
        private Duration stopDelay = Duration.ZERO;
        private boolean controllers = true;

        private Builder() {
        }

        /**
         * How many nodes to register ({@code sim-node-0}, ...). Default 2; 0 leaves pods unscheduled.
         *
         * @throws IllegalArgumentException if {@code count} is not within 0..100
         */
        public Builder nodes(int count) {
            if (count < 0 || count > 100) {
                throw new IllegalArgumentException("nodes must be within 0..100: " + count);
            }
            this.nodes = count;
            return this;
        }

        /**
         * How long a bound pod stays Pending before it runs. Default zero.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder startDelay(Duration delay) {
            this.startDelay = nonNegative(delay, "startDelay");
            return this;
        }

        /**
         * How long a kubelet takes to stop a deleted pod's containers (capped at the pod's grace period).
         * Default zero.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder stopDelay(Duration delay) {
            this.stopDelay = nonNegative(delay, "stopDelay");
            return this;
        }

        /**
         * Whether the StatefulSet, ReplicaSet and Deployment controllers and the garbage collector run. Default true.
         */
        public Builder controllers(boolean on) {
            this.controllers = on;
            return this;
        }

        /** The configuration. */
        public Simulation build() {
            return new Simulation(this);
        }

        private static Duration nonNegative(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative: " + d);
            }
            return d;
        }
    }
}
