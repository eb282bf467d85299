package io.tenantplane.migration;

import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The plan for moving one tenant to the mode its {@code spec.mode} asks for: ordered {@linkplain MigrationStep steps}
 * of decisions, what each workload sees, and, when the move cannot start, why. Made by the {@link MigrationPlanner}
 * with no cluster; the {@link MigrationRunner} executes the first step and plans again.
 *
 * @param namespace  the TenantCluster's namespace
 * @param tenant     the tenant's name
 * @param from       where the workloads are (the mode a reversed migration was heading to, when it was reversed)
 * @param to         where they are going: {@code spec.mode}
 * @param state      the state to record in {@code status.migration} while the first step runs; null when no
 *                   migration is needed
 * @param reversal   when {@code spec.mode} changed while a migration was under way: a {@code Skip} decision on the
 *                   TenantCluster that says so and from which step it turns around; otherwise null
 * @param rejection  why the migration does not start, or null; a rejected plan has no steps
 * @param steps      the steps still to run, from {@code state.step()} on
 * @param impacts    what each tenant workload sees
 */
public record MigrationPlan(String namespace, String tenant, Mode from, Mode to, MigrationState state,
                           Decision reversal, Rejection rejection, List<MigrationStep> steps,
                           List<WorkloadImpact> impacts) {

    public MigrationPlan {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(to, "to");
        steps = List.copyOf(steps);
        impacts = List.copyOf(impacts);
    }

    static MigrationPlan none(String namespace, String tenant, Mode mode) {
        return new MigrationPlan(namespace, tenant, mode, mode, null, null, null, List.of(), List.of());
    }

    /** True when a migration is under way or must start: {@code status.mode} differs from {@code spec.mode}. */
    public boolean needed() {
        return state != null;
    }

    /** True when the migration is refused; see {@link #rejection()}. */
    public boolean rejected() {
        return rejection != null;
    }

    /** Every decision of every step, in order. */
    public List<StepDecision> decisions() {
        return steps.stream().flatMap(s -> s.decisions().stream()).toList();
    }

    /** The decisions that delete something, on the host or in the tenant API. */
    public List<StepDecision> deletions() {
        return decisions().stream().filter(d -> d.decision().action() == Action.DELETE).toList();
    }

    /** The plan as text: steps with their decisions and waits, what is deleted, and what each workload sees. */
    public String render() {
        StringBuilder b = new StringBuilder();
        if (!needed()) {
            return "Tenant " + namespace + "/" + tenant + " runs in " + to.value() + " mode: no migration.\n";
        }
        b.append("Migration of tenant ").append(namespace).append('/').append(tenant).append(": ")
                .append(from.value()).append(" -> ").append(to.value());
        if (!steps.isEmpty()) {
            b.append(", from step ").append(steps.get(0).step().display());
        }
        b.append('\n');
        if (reversal != null) {
            b.append("  ").append(reversal.reason()).append(": ").append(reversal.message()).append('\n');
        }
        if (rejection != null) {
            b.append("  REJECTED ").append(rejection.reason()).append(" (").append(rejection.field()).append("): ")
                    .append(rejection.message()).append('\n');
            return b.toString();
        }
        int total = Step.values().length;
        for (MigrationStep s : steps) {
            b.append('\n').append("Step ").append(s.step().ordinal() + 1).append('/').append(total).append(' ')
                    .append(s.step().display()).append(": ").append(s.summary()).append('\n');
            for (Batch batch : s.batches()) {
                for (StepDecision d : batch.decisions()) {
                    b.append("  ").append(line(d)).append('\n');
                }
                for (Wait w : batch.waits()) {
                    b.append("  wait      ").append(w.what()).append('\n');
                }
            }
            if (s.batches().stream().allMatch(x -> x.decisions().isEmpty() && x.waits().isEmpty())) {
                b.append("  (nothing to do)\n");
            }
        }
        List<StepDecision> deleted = deletions();
        b.append('\n').append("Deleted by this migration (").append(deleted.size()).append("):\n");
        for (StepDecision d : deleted) {
            b.append("  ").append(where(d)).append('\n');
        }
        if (!impacts.isEmpty()) {
            b.append('\n').append("What each workload sees:\n");
            for (WorkloadImpact i : impacts) {
                b.append("  ").append(i.kind()).append(' ')
                        .append(i.virtualNamespace() == null ? "" : i.virtualNamespace() + "/").append(i.name())
                        .append(" [").append(i.downtime()).append("]: ").append(i.sees()).append('\n');
            }
        }
        return b.toString();
    }

    private static String line(StepDecision d) {
        Decision x = d.decision();
        return String.format(Locale.ROOT, "%-9s %-6s %-50s %-24s %s", x.action().display(),
                d.api().name().toLowerCase(Locale.ROOT), x.kind() + " " + ref(x), x.reason(), x.message());
    }

    private static String where(StepDecision d) {
        return d.api().name().toLowerCase(Locale.ROOT) + " " + d.decision().kind() + " " + ref(d.decision());
    }

    private static String ref(Decision x) {
        if (x.host() == null) {
            return "-";
        }
        return (x.host().namespace() == null ? "" : x.host().namespace() + "/") + x.host().name();
    }

    /** Every decision as {@code Action api Kind namespace/name Reason}, one line each: handy to compare runs. */
    public List<String> summary() {
        List<String> out = new ArrayList<>();
        for (StepDecision d : decisions()) {
            out.add(d.decision().action().display() + " " + where(d) + " " + d.decision().reason());
        }
        return List.copyOf(out);
    }
}
