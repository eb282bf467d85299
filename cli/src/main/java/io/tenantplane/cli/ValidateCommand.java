package io.tenantplane.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.errors.TenantPlaneException;
import io.tenantplane.model.Problem;
import io.tenantplane.naming.HostNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tenantplane validate}: every problem with the tenantplane resources, at once. */
final class ValidateCommand implements Subcommand {

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("validate", new String[] {
            "Checks TenantCluster, IsolationProfile and SyncPolicy manifests.",
            "",
            "Each object on its own and all together: references resolve, tenant",
            "names are unique, tenants sharing a namespace agree on its isolation.",
            "Every problem is listed, one per line: file (object): field: problem;",
            "fix. Other objects in the input are checked for valid names only."}, new String[] {
            "",
            "Examples:",
            "  tenantplane validate -f examples/yaml",
            "  tenantplane validate -f tenantcluster.yaml -f isolationprofile.yaml \\",
            "      -f syncpolicy.yaml",
            "",
            "Exit codes: 0 valid, 2 problems found (or unreadable input)."});
        s.addOption(Specs.requiredValues("FILE_OR_DIR", "Manifests to check (files or directories, read recursively; "
                + "- reads stdin). Repeatable.", "-f", "--filename"));
        s.addOption(Specs.value("FORMAT", "text (default: one problem per line), yaml or json.", "-o", "--output"));
        return s;
    }

    @Override
    public int run(Args a) {
        String output = a.string("-o", "text");
        boolean text = "text".equalsIgnoreCase(output.trim());
        Format format = text ? null : Format.parse(output, List.of("text", "yaml", "json"), Format.YAML, Format.JSON);
        List<Problem> problems = new ArrayList<>();
        List<Doc> docs = new ArrayList<>();
        for (String arg : a.strings("-f")) {
            if (arg.equals("-")) {
                readInto(List.of("-"), a, docs, problems);
            } else {
                for (Path p : Inputs.expand(arg, "-f")) {
                    readInto(List.of(p.toString()), a, docs, problems);
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
        a.print(text ? text(problems, resources, docs.size() - resources)
                : structured(format, problems, resources, docs.size() - resources));
        return problems.isEmpty() ? Main.OK : Main.BAD_INPUT;
    }

    private static void readInto(List<String> paths, Args a, List<Doc> docs, List<Problem> problems) {
        try {
            docs.addAll(Inputs.read(paths, a.stdin(), "-f"));
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

    private static String text(List<Problem> problems, int resources, int others) {
        StringBuilder b = new StringBuilder();
        problems.forEach(p -> b.append(CliException.oneLine(p.toString())).append('\n'));
        if (problems.isEmpty()) {
            b.append("valid: ").append(resources).append(" tenantplane resource").append(resources == 1 ? "" : "s")
                    .append(", ").append(others).append(" other object").append(others == 1 ? "" : "s").append('\n');
        } else {
            b.append(problems.size()).append(" problem").append(problems.size() == 1 ? "" : "s").append('\n');
        }
        return b.toString();
    }

    private static String structured(Format format, List<Problem> problems, int resources, int others) {
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
        return format == Format.JSON ? Format.json(r) : Format.yaml(r);
    }
}
