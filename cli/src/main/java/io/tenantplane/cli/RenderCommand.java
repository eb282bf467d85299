package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.CustomResources;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "render",
        description = {
            "Prints the host manifests tenantplane writes for a tenant.",
            "",
            "For each TenantCluster: its isolation boundary (Namespace labels,",
            "NetworkPolicies, ResourceQuota, LimitRange, workload ServiceAccount) and",
            "its k3s control plane (StatefulSet, Services, kubeconfig Secret, RBAC),",
            "in the order they are applied. Each object carries the reason it exists",
            "in its tenantplane.io/reason annotation; YAML output repeats it as a",
            "comment. The TenantCluster's IsolationProfile must be among the inputs."},
        footer = {
            "",
            "Examples:",
            "  tenantplane render -f examples/yaml",
            "  tenantplane render -f tenantcluster.yaml -f isolationprofile.yaml \\",
            "      -f syncpolicy.yaml -o json",
            "",
            "Exit codes: 0 rendered, 2 bad input (invalid or missing resources)."})
final class RenderCommand implements Callable<Integer> {

    private final Main.Context ctx;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = {"-f", "--filename"}, paramLabel = "FILE_OR_DIR", required = true,
            description = "TenantCluster(s) with their IsolationProfile and SyncPolicy (files or directories; "
                    + "- reads stdin). Other objects are ignored. Repeatable.")
    List<String> files = new ArrayList<>();

    @Option(names = "--tenant", paramLabel = "TENANT",
            description = "Render only the TenantCluster of this name.")
    String tenant;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "yaml",
            description = "yaml (default: a multi-document stream kubectl apply -f accepts) or json (a v1 List).")
    String output;

    RenderCommand(Main.Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        Format format = Format.parse(output, Format.YAML, Format.JSON);
        Workspace ws = Workspace.read(files, List.of(), ctx.stdin());
        CustomResources crs = ws.customResources();
        List<TenantCluster> tcs = crs.tenantClusters().stream()
                .filter(tc -> tenant == null || tenant.equals(tc.tenant())).toList();
        if (tcs.isEmpty()) {
            throw new CliException(String.join(",", files), "-f", tenant == null
                    ? "holds no TenantCluster" : "holds no TenantCluster named '" + tenant + "'",
                    "pass the TenantCluster's manifest together with its IsolationProfile");
        }
        List<JsonObject> objects = new ArrayList<>();
        for (TenantCluster tc : tcs) {
            IsolationProfile ip = crs.isolationProfileFor(tc).orElseThrow(() -> new CliException(null,
                    "spec.isolationProfileRef.name", "TenantCluster " + tc.id() + " has no IsolationProfile among the "
                    + "inputs", "add its IsolationProfile's manifest with -f"));
            objects.addAll(Engine.plane().render(tc, ip));
        }
        Printing.print(spec, format == Format.JSON ? Manifests.toJson(objects) : yaml(objects));
        return Main.OK;
    }

    /** Multi-document YAML with the reason of each object as a comment above it. */
    private static String yaml(List<JsonObject> objects) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < objects.size(); i++) {
            JsonObject o = objects.get(i);
            b.append("---\n");
            String ns = Json.string(o, "metadata", "namespace");
            b.append("# ").append(Json.string(o, "kind")).append(' ').append(ns == null ? "" : ns + "/")
                    .append(Json.string(o, "metadata", "name"));
            String reason = Json.annotations(o).get(ReverseMapping.REASON);
            if (reason != null) {
                b.append(": ").append(CliException.oneLine(reason));
            }
            b.append('\n').append(Manifests.toYaml(o));
        }
        return b.toString();
    }
}
