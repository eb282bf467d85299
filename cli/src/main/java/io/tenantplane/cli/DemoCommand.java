package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.explain.Explanation;
import io.tenantplane.json.Json;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane demo}: the main job on the embedded examples, with no files and no cluster. */
final class DemoCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("demo", new String[] {
            "Runs plan and explain-sync on the built-in examples, offline.",
            "",
            "Runs the main job on the examples built into this CLI (a copy of",
            "examples/yaml): a plan of every example workload of the example tenant,",
            "then explain-sync of its nginx Pod. --dir runs the same over a",
            "directory of your own (TenantCluster, profile, policy and workloads)."}, new String[] {
            "",
            "Examples:",
            "  tenantplane demo",
            "  tenantplane demo --dir examples/yaml",
            "",
            "Exit codes: 0 ok, 1 the plan holds a Conflict or Error, 2 bad input."});
        s.addOption(Specs.value("DIR", "A directory to run over instead of the embedded examples.", "--dir"));
        return s;
    }

    @Override
    public int run(Args a) {
        String dir = a.string("--dir");
        List<Doc> docs = dir == null ? Inputs.embeddedExamples() : Inputs.read(List.of(dir), a.stdin(), "--dir");
        String origin = dir == null ? "the examples embedded in this CLI (examples/yaml)" : dir;
        Workspace ws = Workspace.of(docs, List.of());
        Workspace.Target target = ws.target(null, null);
        PlanCommand.Result plan = PlanCommand.plan(target);

        StringBuilder b = new StringBuilder();
        b.append("# Plan: where tenant ").append(target.tenant()).append("'s objects land in host namespace ")
                .append(target.hostNamespace()).append("\n# from ").append(origin).append(", with no cluster\n\n");
        plan.notes().forEach(n -> b.append("note: ").append(n).append('\n'));
        b.append(PlanCommand.render(plan, Format.TABLE, false, false));

        Doc seed = seed(ws);
        if (seed != null) {
            String vns = Workspace.virtualNamespace(seed);
            Explanation e = Engine.plane().explainSync(target.request(), vns, seed.kind(), seed.name());
            JsonObject tree = Json.gson().toJsonTree(e.toMap()).getAsJsonObject();
            b.append("\n# Explain: ").append(seed.kind()).append(' ').append(vns == null ? "" : vns + "/")
                    .append(seed.name()).append(" of tenant ").append(target.tenant()).append("\n\n");
            b.append(Format.yaml(tree));
            b.append("\n# Same questions, one at a time:\n")
                    .append("#   tenantplane explain-sync --tenant ").append(target.tenant())
                    .append(" --tenant-namespace ").append(target.hostNamespace())
                    .append(vns == null ? "" : " --virtual-namespace " + vns)
                    .append(" --kind ").append(seed.kind()).append(" --name ").append(seed.name()).append('\n')
                    .append("#   tenantplane trace --kind ").append(seed.kind()).append(" --namespace ")
                    .append(target.hostNamespace()).append(" --name ").append(e.hostResource().name()).append('\n')
                    .append("#   tenantplane plan -f examples/yaml -o wide\n");
        }
        a.print(b.toString());
        return plan.plan().hasProblems() ? Main.PLAN_PROBLEMS : Main.OK;
    }

    /** The Pod to explain: the one named nginx, else the first Pod, else the first tenant object. */
    private static Doc seed(Workspace ws) {
        List<Doc> objects = ws.tenantObjects();
        return objects.stream().filter(d -> "Pod".equals(d.kind()) && "nginx".equals(d.name())).findFirst()
                .or(() -> objects.stream().filter(d -> "Pod".equals(d.kind())).min(Comparator.comparing(Doc::name)))
                .or(() -> objects.stream().findFirst())
                .orElse(null);
    }
}
