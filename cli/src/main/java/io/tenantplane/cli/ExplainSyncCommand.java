package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.explain.Explanation;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "explain-sync",
        description = {
            "Explains where a tenant object lands on the host, and why.",
            "",
            "Prints the host namespace and name, the labels and annotations of the",
            "host copy, how the name was made, and the planner's decision with its",
            "reason. Without -f the object is hypothetical: a bare object of that",
            "kind, in a policy that syncs it. With -f the real object, TenantCluster,",
            "IsolationProfile and SyncPolicy are used (the default policy when there",
            "is none), so the answer may be a Skip or an Error with its reason;",
            "--host adds the current host objects (Conflict, Update, Unchanged)."},
        footer = {
            "",
            "Examples:",
            "  tenantplane explain-sync --tenant dev --tenant-namespace team-dev \\",
            "      --virtual-namespace default --kind Pod --name nginx",
            "  tenantplane explain-sync -f examples/yaml --kind Pod --name nginx \\",
            "      -o json",
            "",
            "Exit codes: 0 explained, 2 bad input."})
final class ExplainSyncCommand implements Callable<Integer> {

    private final Main.Context ctx;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--tenant", paramLabel = "TENANT",
            description = "The tenant: the TenantCluster's metadata.name. Taken from -f when it holds one.")
    String tenant;

    @Option(names = "--tenant-namespace", paramLabel = "NAMESPACE",
            description = "The tenant's host namespace (the TenantCluster's namespace in shared mode). "
                    + "Taken from -f when it holds a TenantCluster.")
    String tenantNamespace;

    @Option(names = "--virtual-namespace", paramLabel = "NAMESPACE",
            description = "The object's namespace inside the tenant. Default: default, or the object's own with -f.")
    String virtualNamespace;

    @Option(names = "--kind", paramLabel = "KIND",
            description = "The object's kind, e.g. Pod. Taken from -f when it holds a single tenant object.")
    String kind;

    @Option(names = "--name", paramLabel = "NAME",
            description = "The object's name inside the tenant. Taken from -f when it holds a single tenant object.")
    String name;

    @Option(names = {"-f", "--filename"}, paramLabel = "FILE_OR_DIR",
            description = "Tenant objects and the TenantCluster, IsolationProfile and SyncPolicy (files or "
                    + "directories; - reads stdin).")
    List<String> files = new ArrayList<>();

    @Option(names = "--host", paramLabel = "FILE_OR_DIR",
            description = "Current host objects (files or directories), e.g. from kubectl get -n team-dev -o yaml.")
    List<String> hostFiles = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "yaml",
            description = "yaml (default) or json.")
    String output;

    ExplainSyncCommand(Main.Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        Format format = Format.parse(output, Format.YAML, Format.JSON);
        Explanation e = files.isEmpty() && hostFiles.isEmpty() ? fromFlags() : fromFiles();
        JsonObject tree = Json.gson().toJsonTree(e.toMap()).getAsJsonObject();
        Printing.print(spec, format == Format.JSON ? Format.json(tree) : Format.yaml(tree));
        return Main.OK;
    }

    private Explanation fromFlags() {
        requireFlag(tenant, "--tenant", "the TenantCluster's metadata.name, e.g. --tenant dev");
        requireFlag(tenantNamespace, "--tenant-namespace", "the host namespace, e.g. --tenant-namespace team-dev");
        requireFlag(kind, "--kind", "the tenant object's kind, e.g. --kind Pod");
        requireFlag(name, "--name", "the tenant object's name, e.g. --name nginx");
        ResourceKind rk = Kinds.require(kind, "--kind");
        String vns = rk.namespaced() ? (virtualNamespace == null ? "default" : virtualNamespace) : null;
        Names.checkLabel(tenant, "--tenant");
        Names.checkLabel(tenantNamespace, "--tenant-namespace");
        if (vns != null) {
            Names.checkLabel(vns, "--virtual-namespace");
        }
        Names.checkSubdomain(name, "--name");
        return Engine.plane().explainSync(tenant, tenantNamespace, vns, rk.kind(), name);
    }

    private Explanation fromFiles() {
        Workspace ws = Workspace.read(files, hostFiles, ctx.stdin());
        Workspace.Target target = ws.target(tenant, tenantNamespace);
        String k;
        String n;
        String vns;
        if (kind == null && name == null) {
            Doc only = ws.singleTenantObject();
            k = only.kind();
            n = only.name();
            vns = Workspace.virtualNamespace(only);
        } else {
            requireFlag(kind, "--kind", "the tenant object's kind, e.g. --kind Pod");
            requireFlag(name, "--name", "the tenant object's name, e.g. --name nginx");
            ResourceKind rk = Kinds.resolve(kind).orElse(null);
            k = rk != null ? rk.kind() : ws.kindNamed(kind);
            boolean namespaced = rk == null || rk.namespaced();
            vns = namespaced ? (virtualNamespace == null ? "default" : virtualNamespace) : null;
            n = name;
        }
        if (vns != null) {
            Names.checkLabel(vns, "--virtual-namespace");
        }
        Names.checkSubdomain(n, "--name");
        return Engine.plane().explainSync(target.request(), vns, k, n);
    }

    private static void requireFlag(String value, String flag, String fix) {
        if (value == null || value.isBlank()) {
            throw new CliException(null, flag, "is required", "pass " + fix);
        }
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
