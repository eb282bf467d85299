package io.tenantplane.cli;

import io.tenantplane.model.SyncPolicy;
import io.tenantplane.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "plan",
        description = {
            "Plans what tenantplane would do on the host, with its reasons.",
            "",
            "One decision per object: Create, Update, Unchanged, Delete, Skip,",
            "Conflict or Error, with a stable reason. Nothing is written anywhere.",
            "-f takes the TenantCluster, its IsolationProfile and SyncPolicy, and the",
            "tenant objects: any other kind, whose metadata.namespace is their",
            "namespace INSIDE the tenant (default when absent). Directories are read",
            "recursively. --host takes the objects now in the host namespace (e.g.",
            "from kubectl get -o yaml); they are passed apart because a host object",
            "cannot be told from a tenant object by its content. Without --host the",
            "host namespace is taken to be empty."},
        footer = {
            "",
            "Examples:",
            "  tenantplane plan -f examples/yaml",
            "  kubectl get pods,services,configmaps,secrets -n team-dev -o yaml > host.yaml",
            "  tenantplane plan -f examples/yaml --host host.yaml -o wide",
            "",
            "Exit codes: 0 no Conflict or Error, 1 some decision is a Conflict or",
            "Error (a CI gate), 2 bad input."})
final class PlanCommand implements Callable<Integer> {

    private final Main.Context ctx;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = {"-f", "--filename"}, paramLabel = "FILE_OR_DIR", required = true,
            description = "TenantCluster, IsolationProfile, SyncPolicy and tenant objects (files or directories; "
                    + "- reads stdin). Repeatable.")
    List<String> files = new ArrayList<>();

    @Option(names = "--host", paramLabel = "FILE_OR_DIR",
            description = "Objects currently in the host namespace (files or directories). Repeatable.")
    List<String> hostFiles = new ArrayList<>();

    @Option(names = "--tenant", paramLabel = "TENANT",
            description = "Which TenantCluster, when the input holds several; or the tenant's name when it holds none.")
    String tenant;

    @Option(names = "--tenant-namespace", paramLabel = "NAMESPACE",
            description = "The host namespace, when the input holds no TenantCluster.")
    String tenantNamespace;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "table (default), wide (table with the sentence), yaml or json.")
    String output;

    @Option(names = "--show-objects",
            description = "With yaml or json: include the desired host object of each decision.")
    boolean showObjects;

    PlanCommand(Main.Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        String o = output == null ? "" : output.trim().toLowerCase(java.util.Locale.ROOT);
        boolean wide = o.equals("wide");
        Format format = wide ? Format.TABLE : Format.parse(output, Format.TABLE, Format.YAML, Format.JSON);
        Workspace ws = Workspace.read(files, hostFiles, ctx.stdin());
        Workspace.Target target = ws.target(tenant, tenantNamespace);
        Result r = plan(target);
        r.notes().forEach(n -> spec.commandLine().getErr().println("tenantplane: note: " + n));
        spec.commandLine().getErr().flush();
        Printing.print(spec, render(r, format, wide, showObjects));
        return r.plan().hasProblems() ? Main.PLAN_PROBLEMS : Main.OK;
    }

    /** A plan with what it was made for, and notes for the reader (defaults that were applied). */
    record Result(Plan plan, Workspace.Target target, String policyName, List<String> notes) {
    }

    static Result plan(Workspace.Target target) {
        List<String> notes = new ArrayList<>();
        String policyName;
        if (target.policy() == null) {
            notes.add("no SyncPolicy given: using the default policy (Pod, Service, ConfigMap, Secret, "
                    + "PersistentVolumeClaim, Ingress, Endpoints)");
            policyName = "(default)";
        } else {
            SyncPolicy p = target.policy();
            policyName = (p.metadata() == null || p.metadata().namespace() == null ? "" : p.metadata().namespace() + "/")
                    + p.name();
        }
        if (target.isPrivate()) {
            notes.add("TenantCluster " + target.cluster().id() + " is in private mode: its workloads run on its own "
                    + "k3s agents and nothing is synced to the host, so every tenant object is skipped");
        }
        if (target.profile() == null) {
            notes.add("no IsolationProfile given: using the secure defaults (Pod Security restricted, "
                    + "ClusterIP Services only)");
        }
        return new Result(Engine.plane().plan(target.request()), target, policyName, notes);
    }

    static String render(Result r, Format format, boolean wide, boolean withObjects) {
        return switch (format) {
            case TABLE -> PlanOutput.table(r.plan(), wide) + "\n" + PlanOutput.summary(r.plan());
            case YAML -> Format.yaml(PlanOutput.tree(r.plan(), r.target().tenant(), r.target().hostNamespace(),
                    r.policyName(), withObjects));
            case JSON -> Format.json(PlanOutput.tree(r.plan(), r.target().tenant(), r.target().hostNamespace(),
                    r.policyName(), withObjects));
        };
    }
}
