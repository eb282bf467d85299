package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.explain.TraceResult;
import io.tenantplane.json.Json;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane trace}: the tenant source of a host object. */
final class TraceCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("trace", new String[] {
            "Finds the tenant object a host object was made from.",
            "",
            "From the name alone, only a plain name (name-x-namespace-x-tenant) can",
            "be read back, and ownership is not verified. With the host object (-f),",
            "its tenantplane.io labels and source annotations are read and verified:",
            "the name computed from them must be the object's name. Hashed names",
            "(long or ambiguous sources) always need -f."}, new String[] {
            "",
            "Examples:",
            "  tenantplane trace --kind Pod --namespace team-dev --name nginx-x-default-x-dev",
            "  kubectl get pod -n team-dev nginx-x-default-x-dev -o yaml \\",
            "      | tenantplane trace -f -",
            "",
            "Exit codes: 0 the source was found, 1 the object is not traceable to a tenant",
            "(reason NotManaged, NotFound or Unresolved), 2 bad input."});
        s.addOption(Specs.value("KIND", "Kind of the host object, e.g. Pod.", "--kind"));
        s.addOption(Specs.value("NAMESPACE", "Host namespace of the object.", "-n", "--namespace"));
        s.addOption(Specs.value("NAME", "Host name of the object.", "--name"));
        s.addOption(Specs.values("FILE_OR_DIR", "Host objects as YAML or JSON (- reads stdin), e.g. from kubectl get "
                + "-o yaml. With one object, --kind/--name may be left out.", "-f", "--filename"));
        s.addOption(Specs.value("FORMAT", "yaml (default) or json.", "-o", "--output"));
        return s;
    }

    @Override
    public int run(Args a) {
        Format format = Format.parse(a.string("-o", "yaml"), Format.YAML, Format.JSON);
        List<String> files = a.strings("-f");
        TraceResult result = files.isEmpty() ? fromName(a) : fromObjects(a, files);
        JsonObject tree = Json.gson().toJsonTree(result.toMap()).getAsJsonObject();
        a.print(format == Format.JSON ? Format.json(tree) : Format.yaml(tree));
        return switch (result) {
            case TraceResult.Managed m -> Main.OK;
            case TraceResult.InferredFromName i -> Main.OK;
            case TraceResult.NotManaged n -> Main.PLAN_PROBLEMS;
            case TraceResult.NotFound n -> Main.PLAN_PROBLEMS;
            case TraceResult.Unresolved u -> Main.PLAN_PROBLEMS;
        };
    }

    private static TraceResult fromName(Args a) {
        String kind = a.string("--kind");
        String name = a.string("--name");
        if (kind == null || name == null) {
            throw new CliException(null, kind == null ? "--kind" : "--name", "is required",
                    "pass --kind, --namespace and --name of the host object, or the object itself with -f");
        }
        ResourceKind rk = Kinds.require(kind, "--kind");
        String namespace = requireNamespace(a, rk);
        return Engine.plane().trace(rk.kind(), namespace, name, null);
    }

    private static TraceResult fromObjects(Args a, List<String> files) {
        List<Doc> docs = Inputs.read(files, a.stdin(), "-f");
        String kind = a.string("--kind");
        String name = a.string("--name");
        if (kind == null && name == null) {
            if (docs.size() != 1) {
                throw new CliException(String.join(",", files), "-f", "holds " + docs.size() + " objects",
                        "pass --kind, --namespace and --name to pick one, or a single host object");
            }
            return Engine.plane().trace(docs.get(0).object());
        }
        if (kind == null || name == null) {
            throw new CliException(null, kind == null ? "--kind" : "--name", "is required with --"
                    + (kind == null ? "name" : "kind"), "pass both to pick one of the host objects");
        }
        ResourceKind rk = Kinds.require(kind, "--kind");
        return Engine.plane().trace(rk.kind(), requireNamespace(a, rk), name, docs.stream().map(Doc::object).toList());
    }

    /** The host namespace for a namespaced kind (required), null for a cluster-scoped one. */
    private static String requireNamespace(Args a, ResourceKind rk) {
        String namespace = a.string("--namespace");
        if (rk.namespaced() && namespace == null) {
            throw new CliException(null, "--namespace", "is required for " + rk.kind(),
                    "pass the host namespace the object lives in, e.g. --namespace team-dev");
        }
        return rk.namespaced() ? namespace : null;
    }
}
