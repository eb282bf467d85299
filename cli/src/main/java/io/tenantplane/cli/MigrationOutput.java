package io.tenantplane.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.migration.Batch;
import io.tenantplane.migration.MigrationPlan;
import io.tenantplane.migration.MigrationStep;
import io.tenantplane.migration.StepDecision;
import io.tenantplane.migration.Wait;
import io.tenantplane.migration.WorkloadImpact;
import io.tenantplane.plan.Action;
import java.util.List;
import java.util.Locale;

/** How a migration plan is printed: the planner's own text, or YAML/JSON with every step, decision and impact. */
final class MigrationOutput {

    private MigrationOutput() {
    }

    /** True when the plan is refused or a step holds a Conflict or Error: exit code 1, as for a sync plan. */
    static boolean hasProblems(MigrationPlan plan) {
        return plan.rejected() || plan.decisions().stream().anyMatch(d -> d.decision().action() == Action.CONFLICT
                || d.decision().action() == Action.ERROR);
    }

    static String text(MigrationPlan plan) {
        String out = plan.render();
        if (hasProblems(plan)) {
            out += "\n" + (plan.rejected() ? "The migration is rejected" : "The migration plan has problems (Conflict "
                    + "or Error)") + ": exit code 1.\n";
        }
        return out;
    }

    static JsonObject tree(MigrationPlan plan) {
        JsonObject r = new JsonObject();
        r.addProperty("tenant", plan.tenant());
        r.addProperty("namespace", plan.namespace());
        r.addProperty("from", plan.from() == null ? null : plan.from().value());
        r.addProperty("to", plan.to().value());
        r.addProperty("needed", plan.needed());
        r.addProperty("rejected", plan.rejected());
        r.addProperty("hasProblems", hasProblems(plan));
        if (plan.state() != null) {
            r.add("state", plan.state().toJson());
        }
        if (plan.reversal() != null) {
            JsonObject rev = new JsonObject();
            rev.addProperty("reason", plan.reversal().reason());
            rev.addProperty("message", plan.reversal().message());
            r.add("reversal", rev);
        }
        if (plan.rejection() != null) {
            JsonObject rej = new JsonObject();
            rej.addProperty("reason", plan.rejection().reason());
            rej.addProperty("field", plan.rejection().field());
            rej.addProperty("message", plan.rejection().message());
            r.add("rejection", rej);
        }
        JsonArray steps = new JsonArray();
        for (MigrationStep s : plan.steps()) {
            JsonObject step = new JsonObject();
            step.addProperty("step", s.step().display());
            step.addProperty("summary", s.summary());
            JsonArray decisions = new JsonArray();
            JsonArray waits = new JsonArray();
            for (Batch b : s.batches()) {
                b.decisions().forEach(d -> decisions.add(decision(d)));
                b.waits().forEach(w -> waits.add(wait(w)));
            }
            step.add("decisions", decisions);
            step.add("waits", waits);
            steps.add(step);
        }
        r.add("steps", steps);
        r.add("deletions", decisions(plan.deletions()));
        JsonArray impacts = new JsonArray();
        for (WorkloadImpact i : plan.impacts()) {
            JsonObject o = new JsonObject();
            o.addProperty("kind", i.kind());
            if (i.virtualNamespace() != null) {
                o.addProperty("virtualNamespace", i.virtualNamespace());
            }
            o.addProperty("name", i.name());
            o.addProperty("downtime", i.downtime());
            o.addProperty("sees", i.sees());
            impacts.add(o);
        }
        r.add("impacts", impacts);
        return r;
    }

    private static JsonArray decisions(List<StepDecision> ds) {
        JsonArray a = new JsonArray();
        ds.forEach(d -> a.add(decision(d)));
        return a;
    }

    private static JsonObject decision(StepDecision d) {
        JsonObject o = PlanOutput.decision(d.decision(), false);
        o.addProperty("api", d.api().name().toLowerCase(Locale.ROOT));
        return o;
    }

    private static JsonObject wait(Wait w) {
        JsonObject o = new JsonObject();
        o.addProperty("what", w.what());
        o.addProperty("satisfied", w.satisfied());
        JsonArray pending = new JsonArray();
        w.pending().forEach(pending::add);
        o.add("pending", pending);
        return o;
    }
}
