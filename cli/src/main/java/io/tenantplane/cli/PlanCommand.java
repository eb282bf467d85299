package io.tenantplane.cli;

import io.tenantplane.migration.MigrationPlan;
import io.tenantplane.migration.MigrationSnapshot;
import io.tenantplane.migration.MigrationState;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
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
            "host namespace is taken to be empty.",
            "",
            "When the TenantCluster's status.mode differs from its spec.mode (or",
            "status.migration is set), the plan is the migration to spec.mode: its",
            "steps with their decisions and waits, what is deleted and what each",
            "workload sees; the IsolationProfile is then required. --host takes the",
            "objects of both host namespaces (the TenantCluster's and the tenant's",
            "own); objects without a namespace are taken to be in status.hostNamespace."},
            new String[] {
            "",
            "Examples:",
            "  tenantplane plan -f examples/yaml",
            "  kubectl get pods,services,configmaps,secrets -n team-dev -o yaml > host.yaml",
            "  tenantplane plan -f examples/yaml --host host.yaml -o wide",
            "  tenantplane plan -f tenantcluster-moving.yaml -f examples/yaml/isolationprofile.yaml",
            "",
            "Exit codes: 0 no Conflict or Error, 1 some decision is a Conflict or",
            "Error, or the migration is rejected (a CI gate), 2 bad input."});
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
        s.addOption(Engine.allowKindOption());
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
        if (target.migrating()) {
            MigrationPlan mp = migrationPlan(target, a::note);
            a.print(switch (format) {
                case TABLE -> MigrationOutput.text(mp);
                case YAML -> Format.yaml(MigrationOutput.tree(mp));
                case JSON -> Format.json(MigrationOutput.tree(mp));
            });
            return MigrationOutput.hasProblems(mp) ? Main.PLAN_PROBLEMS : Main.OK;
        }
        Result r = plan(target, a.strings("--allow-kind"));
        r.notes().forEach(a::note);
        a.print(render(r, format, wide, a.flag("--show-objects")));
        return r.plan().hasProblems() ? Main.PLAN_PROBLEMS : Main.OK;
    }

    /** A plan with what it was made for, and notes for the reader (defaults that were applied). */
    record Result(Plan plan, Workspace.Target target, String policyName, List<String> notes) {
    }

    static Result plan(Workspace.Target target) {
        return plan(target, List.of());
    }

    static Result plan(Workspace.Target target, List<String> allowedKinds) {
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
        return new Result(Engine.plane(allowedKinds).plan(target.request()), target, policyName, notes);
    }

    /** The migration to the target's spec.mode, from what the input says is in the tenant and on the host. */
    static MigrationPlan migrationPlan(Workspace.Target target, java.util.function.Consumer<String> notes) {
        TenantCluster tc = target.cluster();
        if (target.profile() == null || target.policy() == null) {
            // Validation makes the TenantCluster's references resolve; this guards the planner's inputs anyway.
            throw new CliException(null, "-f", "holds no " + (target.profile() == null ? "IsolationProfile"
                    : "SyncPolicy") + " for TenantCluster " + tc.id() + ", and its migration depends on it",
                    "add the manifests the TenantCluster references with -f");
        }
        TenantCluster.Status s = tc.status();
        notes.accept("TenantCluster " + tc.id() + " runs in " + (s.mode() == null ? "-" : s.mode().value())
                + " mode and its spec asks for " + tc.mode().value() + ": this is the migration plan");
        if (target.hostObjects().isEmpty()) {
            notes.accept("no --host objects: the plan assumes an empty target and lists no deletions in the old place");
        }
        MigrationState state = MigrationState.fromTenantCluster(tc.toJson()).orElse(null);
        return Engine.plane().planMigration(new MigrationSnapshot(tc, state, target.profile(), target.policy(),
                target.tenantObjects(), target.hostObjects()));
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
