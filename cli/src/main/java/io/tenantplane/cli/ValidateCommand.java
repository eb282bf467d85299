package io.tenantplane.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.TenantPlaneException;
import io.tenantplane.model.Problem;
import io.tenantplane.naming.HostNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "validate",
        description = {
            "Checks TenantCluster, IsolationProfile and SyncPolicy manifests.",
            "",
            "Each object on its own and all together: references resolve, tenant",
            "names are unique, tenants sharing a namespace agree on its isolation.",
            "Every problem is listed, one per line: file (object): field: problem;",
            "fix. Other objects in the input are checked for valid names only."},
        footer = {
            "",
            "Examples:",
            "  tenantplane validate -f examples/yaml",
            "  tenantplane validate -f tenantcluster.yaml -f isolationprofile.yaml \\",
            "      -f syncpolicy.yaml",
            "",
            "Exit codes: 0 valid, 2 problems found (or unreadable input)."})
final class ValidateCommand implements Callable<Integer> {

    private final Main.Context ctx;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = {"-f", "--filename"}, paramLabel = "FILE_OR_DIR", required = true,
            description = "Manifests to check (files or directories, read recursively; - reads stdin). Repeatable.")
    List<String> files = new ArrayList<>();

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text",
            description = "text (default: one problem per line), yaml or json.")
    String output;

    ValidateCommand(Main.Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        boolean text = "text".equalsIgnoreCase(output == null ? "" : output.trim());
        Format format = text ? null : Format.parse(output, Format.YAML, Format.JSON);
        List<Problem> problems = new ArrayList<>();
        List<Doc> docs = new ArrayList<>();
        for (String arg : files) {
            List<Path> paths = arg.equals("-") ? null : Inputs.expand(arg, "-f");
            if (paths == null) {
                readInto(List.of("-"), docs, problems);
            } else {
                for (Path p : paths) {
                    readInto(List.of(p.toString()), docs, problems);
                }
            }
        }
        int resources = 0;
        for (Doc d : docs) {
            if (d.isTenantPlaneResource()) {
                resources++;
            } else {
                checkName(d, problems);
            }
        }
        problems.addAll(Engine.plane().validate(docs.stream().map(Doc::loaded).toList()));
        print(text, format, problems, resources, docs.size() - resources);
        return problems.isEmpty() ? Main.OK : Main.BAD_INPUT;
    }

    private void readInto(List<String> paths, List<Doc> docs, List<Problem> problems) {
        try {
            docs.addAll(Inputs.read(paths, ctx.stdin(), "-f"));
        } catch (CliException e) {
            problems.add(new Problem(null, null, e.line()));
        } catch (TenantPlaneException e) {
            problems.add(new Problem(null, null, CliException.oneLine(e.getMessage())));
        }
    }

    private static void checkName(Doc d, List<Problem> problems) {
        String source = d.loaded().describe();
        if (!HostNames.isDns1123Subdomain(d.name())) {
            problems.add(new Problem(source, "metadata.name", "'" + d.name() + "' is not a valid name; use at most 253 "
                    + "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"));
        }
        String ns = d.namespace();
        if (ns != null && !HostNames.isDns1123Label(ns)) {
            problems.add(new Problem(source, "metadata.namespace", "'" + ns + "' is not a valid namespace; use at most "
                    + "63 lowercase letters, digits and '-', starting and ending with a letter or digit"));
        }
    }

    private void print(boolean text, Format format, List<Problem> problems, int resources, int others) {
        if (text) {
            StringBuilder b = new StringBuilder();
            problems.forEach(p -> b.append(CliException.oneLine(p.toString())).append('\n'));
            if (problems.isEmpty()) {
                b.append("valid: ").append(resources).append(" tenantplane resource").append(resources == 1 ? "" : "s")
                        .append(", ").append(others).append(" other object").append(others == 1 ? "" : "s").append('\n');
            } else {
                b.append(problems.size()).append(" problem").append(problems.size() == 1 ? "" : "s").append('\n');
            }
            Printing.print(spec, b.toString());
            return;
        }
        JsonObject r = new JsonObject();
        r.addProperty("valid", problems.isEmpty());
        r.addProperty("tenantplaneResources", resources);
        r.addProperty("otherObjects", others);
        JsonArray ps = new JsonArray();
        for (Problem p : problems) {
            JsonObject o = new JsonObject();
            if (p.source() != null) {
                o.addProperty("source", p.source());
            }
            if (p.field() != null) {
                o.addProperty("field", p.field());
            }
            o.addProperty("message", p.message());
            ps.add(o);
        }
        r.add("problems", ps);
        Printing.print(spec, format == Format.JSON ? Format.json(r) : Format.yaml(r));
    }
}
