package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.explain.Explanation;
import io.tenantplane.json.Json;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo",
        description = {
            "Plans and explains the built-in examples: no files, no cluster needed.",
            "",
            "Runs the main job on the examples built into this CLI (a copy of",
            "examples/yaml): a plan of every example workload of the example tenant,",
            "then explain-sync of its nginx Pod. --dir runs the same over a",
            "directory of your own (TenantCluster, profile, policy and workloads)."},
        footer = {
            "",
            "Examples:",
            "  tenantplane demo",
            "  tenantplane demo --dir examples/yaml",
            "",
            "Exit codes: 0 ok, 1 the plan holds a Conflict or Error, 2 bad input."})
final class DemoCommand implements Callable<Integer> {

    private final Main.Context ctx;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "A directory to run over instead of the embedded examples.")
    String dir;

    DemoCommand(Main.Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        List<Doc> docs = dir == null ? Inputs.embeddedExamples() : Inputs.read(List.of(dir), ctx.stdin(), "--dir");
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
        Printing.print(spec, b.toString());
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
