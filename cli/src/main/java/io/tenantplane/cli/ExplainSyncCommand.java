package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.explain.Explanation;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane explain-sync}: where a tenant object lands on the host, and why. */
final class ExplainSyncCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("explain-sync", new String[] {
            "Explains where a tenant object lands on the host, and why.",
            "",
            "Prints the host namespace and name, the labels and annotations of the",
            "host copy, how the name was made, and the planner's decision with its",
            "reason. Without -f the object is hypothetical: a bare object of that",
            "kind, in a policy that syncs it. With -f the real object, TenantCluster,",
            "IsolationProfile and SyncPolicy are used (the default policy when there",
            "is none), so the answer may be a Skip or an Error with its reason;",
            "--host adds the current host objects (Conflict, Update, Unchanged)."}, new String[] {
            "",
            "Examples:",
            "  tenantplane explain-sync --tenant dev --tenant-namespace team-dev \\",
            "      --virtual-namespace default --kind Pod --name nginx",
            "  tenantplane explain-sync -f examples/yaml --kind Pod --name nginx \\",
            "      -o json",
            "",
            "Exit codes: 0 explained (whatever the decision), 2 bad input."});
        s.addOption(Specs.value("TENANT", "The tenant: the TenantCluster's metadata.name. Taken from -f when it holds "
                + "one.", "--tenant"));
        s.addOption(Specs.value("NAMESPACE", "The tenant's host namespace (the TenantCluster's namespace in shared "
                + "mode). Taken from -f when it holds a TenantCluster.", "--tenant-namespace"));
        s.addOption(Specs.value("NAMESPACE", "The object's namespace inside the tenant. Default: default.",
                "--virtual-namespace"));
        s.addOption(Specs.value("KIND", "The object's kind, e.g. Pod. Taken from -f when it holds a single tenant "
                + "object.", "--kind"));
        s.addOption(Specs.value("NAME", "The object's name inside the tenant. Taken from -f when it holds a single "
                + "tenant object.", "--name"));
        s.addOption(Specs.values("FILE_OR_DIR", "Tenant objects and the TenantCluster, IsolationProfile and SyncPolicy "
                + "(files or directories; - reads stdin). Repeatable.", "-f", "--filename"));
        s.addOption(Specs.values("FILE_OR_DIR", "Current host objects (files or directories), e.g. from kubectl get "
                + "-n team-dev -o yaml. Repeatable.", "--host"));
        s.addOption(Engine.allowKindOption());
        s.addOption(Specs.value("FORMAT", "yaml (default) or json.", "-o", "--output"));
        return s;
    }

    @Override
    public int run(Args a) {
        Format format = Format.parse(a.string("-o", "yaml"), Format.YAML, Format.JSON);
        List<String> files = a.strings("-f");
        List<String> hostFiles = a.strings("--host");
        Explanation e = files.isEmpty() && hostFiles.isEmpty() ? fromFlags(a) : fromFiles(a, files, hostFiles);
        JsonObject tree = Json.gson().toJsonTree(e.toMap()).getAsJsonObject();
        a.print(format == Format.JSON ? Format.json(tree) : Format.yaml(tree));
        return Main.OK;
    }

    private static Explanation fromFlags(Args a) {
        String tenant = requireFlag(a, "--tenant", "the TenantCluster's metadata.name, e.g. --tenant dev");
        String hostNs = requireFlag(a, "--tenant-namespace", "the host namespace, e.g. --tenant-namespace team-dev");
        String kind = requireFlag(a, "--kind", "the tenant object's kind, e.g. --kind Pod");
        String name = requireFlag(a, "--name", "the tenant object's name, e.g. --name nginx");
        ResourceKind rk = Kinds.require(kind, "--kind");
        String vns = rk.namespaced() ? a.string("--virtual-namespace", "default") : null;
        Names.checkLabel(tenant, "--tenant");
        Names.checkLabel(hostNs, "--tenant-namespace");
        if (vns != null) {
            Names.checkLabel(vns, "--virtual-namespace");
        }
        Names.checkSubdomain(name, "--name");
        return Engine.plane().explainSync(tenant, hostNs, vns, rk.kind(), name);
    }

    private static Explanation fromFiles(Args a, List<String> files, List<String> hostFiles) {
        Workspace ws = Workspace.read(files, hostFiles, a.stdin());
        Workspace.Target target = ws.target(a.string("--tenant"), a.string("--tenant-namespace"));
        String k;
        String n;
        String vns;
        if (a.string("--kind") == null && a.string("--name") == null) {
            Doc only = ws.singleTenantObject();
            k = only.kind();
            n = only.name();
            vns = Workspace.virtualNamespace(only);
        } else {
            String kind = requireFlag(a, "--kind", "the tenant object's kind, e.g. --kind Pod");
            n = requireFlag(a, "--name", "the tenant object's name, e.g. --name nginx");
            ResourceKind rk = Kinds.resolve(kind).orElse(null);
            k = rk != null ? rk.kind() : ws.kindNamed(kind);
            boolean namespaced = rk == null || rk.namespaced();
            vns = namespaced ? a.string("--virtual-namespace", "default") : null;
        }
        if (vns != null) {
            Names.checkLabel(vns, "--virtual-namespace");
        }
        Names.checkSubdomain(n, "--name");
        return Engine.plane(a.strings("--allow-kind")).explainSync(target.request(), vns, k, n);
    }

    private static String requireFlag(Args a, String flag, String fix) {
        String value = a.string(flag);
        if (value == null || value.isBlank()) {
            throw new CliException(null, flag, "is required", "pass " + fix);
        }
        return value;
    }

    /** Name checks with the CLI's one-line messages. */
    static final class Names {
        private Names() {
        }

        static void checkLabel(String v, String flag) {
            if (!HostNames.isDns1123Label(v)) {
                throw new CliException(null, flag, "'" + v + "' is not a valid name (a DNS-1123 label)",
                        "use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit");
            }
        }

        static void checkSubdomain(String v, String flag) {
            if (!HostNames.isDns1123Subdomain(v)) {
                throw new CliException(null, flag, "'" + v + "' is not a valid name (a DNS-1123 subdomain)",
                        "use lowercase letters, digits, '-' and '.', starting and ending with a letter or digit");
            }
        }
    }
}
