package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.explain.TraceResult;
import io.tenantplane.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "trace",
        description = {
            "Finds the tenant object a host object was made from.",
            "",
            "From the name alone, only a plain name (name-x-namespace-x-tenant) can",
            "be read back, and ownership is not verified. With the host object (-f),",
            "its tenantplane.io labels and source annotations are read and verified:",
            "the name computed from them must be the object's name. Hashed names",
            "(long or ambiguous sources) always need -f."},
        footer = {
            "",
            "Examples:",
            "  tenantplane trace --kind Pod --namespace team-dev --name nginx-x-default-x-dev",
            "  kubectl get pod -n team-dev nginx-x-default-x-dev -o yaml \\",
            "      | tenantplane trace -f -",
            "",
            "Exit codes: 0 the source was found, 1 the object is not traceable to a tenant",
            "(reason NotManaged, NotFound or Unresolved), 2 bad input."})
final class TraceCommand implements Callable<Integer> {

    private final Main.Context ctx;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--kind", paramLabel = "KIND", description = "Kind of the host object, e.g. Pod.")
    String kind;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", description = "Host namespace of the object.")
    String namespace;

    @Option(names = "--name", paramLabel = "NAME", description = "Host name of the object.")
    String name;

    @Option(names = {"-f", "--filename"}, paramLabel = "FILE_OR_DIR",
            description = "Host objects as YAML or JSON (- reads stdin), e.g. from kubectl get -o yaml. "
                    + "With one object, --kind/--name may be left out.")
    List<String> files = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "yaml",
            description = "yaml (default) or json.")
    String output;

    TraceCommand(Main.Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        Format format = Format.parse(output, Format.YAML, Format.JSON);
        TraceResult result = files.isEmpty() ? fromName() : fromObjects();
        JsonObject tree = Json.gson().toJsonTree(result.toMap()).getAsJsonObject();
        Printing.print(spec, format == Format.JSON ? Format.json(tree) : Format.yaml(tree));
        return switch (result) {
            case TraceResult.Managed m -> Main.OK;
            case TraceResult.InferredFromName i -> Main.OK;
            case TraceResult.NotManaged n -> Main.PLAN_PROBLEMS;
            case TraceResult.NotFound n -> Main.PLAN_PROBLEMS;
            case TraceResult.Unresolved u -> Main.PLAN_PROBLEMS;
        };
    }

    private TraceResult fromName() {
        if (kind == null || name == null) {
            throw new CliException(null, kind == null ? "--kind" : "--name", "is required",
                    "pass --kind, --namespace and --name of the host object, or the object itself with -f");
        }
        ResourceKind rk = Kinds.require(kind, "--kind");
        if (rk.namespaced() && namespace == null) {
            throw new CliException(null, "--namespace", "is required for " + rk.kind(),
                    "pass the host namespace the object lives in, e.g. --namespace team-dev");
        }
        return Engine.plane().trace(rk.kind(), rk.namespaced() ? namespace : null, name, null);
    }

    private TraceResult fromObjects() {
        List<Doc> docs = Inputs.read(files, ctx.stdin(), "-f");
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
        if (rk.namespaced() && namespace == null) {
            throw new CliException(null, "--namespace", "is required for " + rk.kind(),
                    "pass the host namespace the object lives in, e.g. --namespace team-dev");
        }
        return Engine.plane().trace(rk.kind(), rk.namespaced() ? namespace : null, name,
                docs.stream().map(Doc::object).toList());
    }
}
