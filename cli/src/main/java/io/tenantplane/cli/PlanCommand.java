package io.tenantplane.cli;

import io.tenantplane.model.SyncPolicy;
import io.tenantplane.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane plan}: the decisions of a sync pass, offline; a CI gate. */
final class PlanCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("plan", new String[] {
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
            "host namespace is taken to be empty."}, new String[] {
            "",
            "Examples:",
            "  tenantplane plan -f examples/yaml",
            "  kubectl get pods,services,configmaps,secrets -n team-dev -o yaml > host.yaml",
            "  tenantplane plan -f examples/yaml --host host.yaml -o wide",
            "",
            "Exit codes: 0 no Conflict or Error, 1 some decision is a Conflict or",
            "Error (a CI gate), 2 bad input."});
        s.addOption(Specs.requiredValues("FILE_OR_DIR", "TenantCluster, IsolationProfile, SyncPolicy and tenant "
                + "objects (files or directories; - reads stdin). Repeatable.", "-f", "--filename"));
        s.addOption(Specs.values("FILE_OR_DIR", "Objects currently in the host namespace (files or directories). "
                + "Repeatable.", "--host"));
        s.addOption(Specs.value("TENANT", "Which TenantCluster, when the input holds several; or the tenant's name "
                + "when it holds none.", "--tenant"));
        s.addOption(Specs.value("NAMESPACE", "The host namespace, when the input holds no TenantCluster.",
                "--tenant-namespace"));
        s.addOption(Specs.value("FORMAT", "table (default), wide (table with the sentence), yaml or json.",
                "-o", "--output"));
        s.addOption(Specs.flag("With yaml or json: include the desired host object of each decision.",
                "--show-objects"));
        return s;
    }

    @Override
    public int run(Args a) {
        String output = a.string("-o", "table");
        boolean wide = output.trim().equalsIgnoreCase("wide");
        Format format = wide ? Format.TABLE
                : Format.parse(output, List.of("table", "wide", "yaml", "json"), Format.TABLE, Format.YAML, Format.JSON);
        Workspace ws = Workspace.read(a.strings("-f"), a.strings("--host"), a.stdin());
        Workspace.Target target = ws.target(a.string("--tenant"), a.string("--tenant-namespace"));
        Result r = plan(target);
        r.notes().forEach(a::note);
        a.print(render(r, format, wide, a.flag("--show-objects")));
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
