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
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane render}: the host manifests of a tenant's isolation boundary and control plane. */
final class RenderCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("render", new String[] {
            "Prints the host manifests tenantplane writes for a tenant.",
            "",
            "For each TenantCluster: its isolation boundary (Namespace labels,",
            "NetworkPolicies, ResourceQuota, LimitRange, workload ServiceAccount) and",
            "its k3s control plane (StatefulSet, Services, kubeconfig Secret, RBAC),",
            "in the order they are applied. Each object carries the reason it exists",
            "in its tenantplane.io/reason annotation; YAML output repeats it as a",
            "comment. The TenantCluster's IsolationProfile must be among the inputs."}, new String[] {
            "",
            "Examples:",
            "  tenantplane render -f examples/yaml",
            "  tenantplane render -f tenantcluster.yaml -f isolationprofile.yaml \\",
            "      -f syncpolicy.yaml -o json",
            "  kubectl get service kubernetes -n default -o yaml > host.yaml",
            "  tenantplane render -f examples/yaml --host host.yaml",
            "",
            "Exit codes: 0 rendered, 2 bad input (invalid or missing resources)."});
        s.addOption(Specs.requiredValues("FILE_OR_DIR", "TenantCluster(s) with their IsolationProfile and SyncPolicy "
                + "(files or directories; - reads stdin). Other objects are ignored. Repeatable.", "-f", "--filename"));
        s.addOption(Specs.values("FILE_OR_DIR", "Objects of the host (files or directories). With the Service "
                + "kubernetes of namespace default among them, a TenantCluster that names no Service range is rendered "
                + "with one that holds the host's, as provisioning renders it there. Repeatable.", "--host"));
        s.addOption(Specs.value("TENANT", "Render only the TenantCluster of this name.", "--tenant"));
        s.addOption(Specs.value("FORMAT", "yaml (default: a multi-document stream kubectl apply -f accepts) or json "
                + "(a v1 List).", "-o", "--output"));
        return s;
    }

    @Override
    public int run(Args a) {
        Format format = Format.parse(a.string("-o", "yaml"), Format.YAML, Format.JSON);
        List<String> files = a.strings("-f");
        String tenant = a.string("--tenant");
        Workspace ws = Workspace.read(files, a.strings("--host"), a.stdin());
        List<JsonObject> host = ws.hostObjectsAsGiven();
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
            objects.addAll(Engine.plane().render(tc, ip, host));
        }
        a.print(format == Format.JSON ? Manifests.toJson(objects) : yaml(objects));
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
