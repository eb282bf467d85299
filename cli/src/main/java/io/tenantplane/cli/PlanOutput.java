package io.tenantplane.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/** How a plan is printed: a table (optionally wide, with the sentence), or YAML/JSON with every field. */
final class PlanOutput {

    private PlanOutput() {
    }

    static String table(Plan plan, boolean wide) {
        Table t = wide ? new Table("ACTION", "KIND", "SOURCE", "HOST", "REASON", "MESSAGE")
                : new Table("ACTION", "KIND", "SOURCE", "HOST", "REASON");
        for (Decision d : plan.decisions()) {
            String src = d.source() == null ? null : join(d.source().virtualNamespace(), d.source().name());
            String host = d.host() == null ? null : join(d.host().namespace(), d.host().name());
            if (wide) {
                t.row(d.action().display(), d.kind(), src, host, d.reason(), d.message());
            } else {
                t.row(d.action().display(), d.kind(), src, host, d.reason());
            }
        }
        return t.render();
    }

    /** {@code 7 decisions: 6 Create, 1 Skip}; problems get their own sentence so that CI logs say why they failed. */
    static String summary(Plan plan) {
        Map<Action, Long> counts = counts(plan);
        String list = counts.entrySet().stream().map(e -> e.getValue() + " " + e.getKey().display())
                .collect(Collectors.joining(", "));
        int n = plan.decisions().size();
        String s = n + " decision" + (n == 1 ? "" : "s") + (n == 0 ? "" : ": " + list) + ".";
        if (plan.hasProblems()) {
            s += " The plan has problems (Conflict or Error): exit code 1.";
        }
        return s + "\n";
    }

    static JsonObject tree(Plan plan, String tenant, String hostNamespace, String policy, boolean withObjects) {
        JsonObject r = new JsonObject();
        r.addProperty("tenant", tenant);
        r.addProperty("hostNamespace", hostNamespace);
        if (policy != null) {
            r.addProperty("syncPolicy", policy);
        }
        JsonObject summary = new JsonObject();
        counts(plan).forEach((a, c) -> summary.addProperty(a.display(), c));
        r.add("summary", summary);
        r.addProperty("hasProblems", plan.hasProblems());
        JsonArray ds = new JsonArray();
        plan.decisions().forEach(d -> ds.add(decision(d, withObjects)));
        r.add("decisions", ds);
        return r;
    }

    static JsonObject decision(Decision d, boolean withObjects) {
        JsonObject o = new JsonObject();
        o.addProperty("action", d.action().display());
        o.addProperty("kind", d.kind());
        if (d.source() != null) {
            JsonObject s = new JsonObject();
            s.addProperty("tenant", d.source().tenant());
            if (d.source().virtualNamespace() != null) {
                s.addProperty("virtualNamespace", d.source().virtualNamespace());
            }
            s.addProperty("name", d.source().name());
            if (d.source().uid() != null) {
                s.addProperty("uid", d.source().uid());
            }
            o.add("source", s);
        }
        if (d.host() != null) {
            JsonObject h = new JsonObject();
            if (d.host().namespace() != null) {
                h.addProperty("namespace", d.host().namespace());
            }
            h.addProperty("name", d.host().name());
            o.add("host", h);
        }
        o.addProperty("reason", d.reason());
        o.addProperty("message", d.message());
        if (withObjects && d.desired() != null) {
            o.add("desired", d.desired());
        }
        return o;
    }

    private static Map<Action, Long> counts(Plan plan) {
        Map<Action, Long> m = new EnumMap<>(Action.class);
        plan.decisions().forEach(d -> m.merge(d.action(), 1L, Long::sum));
        return m;
    }

    private static String join(String ns, String name) {
        return ns == null ? name : ns + "/" + name;
    }
}
