package io.tenantplane.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

@Command(name = "tenantplane", mixinStandardHelpOptions = true, versionProvider = RootCommand.Version.class,
        description = {
            "Explainable virtual-Kubernetes tenants: where every tenant object lands",
            "on the host, and why. Every command works offline, on manifests."},
        synopsisSubcommandLabel = "COMMAND",
        footer = {
            "",
            "Examples:",
            "  tenantplane demo",
            "  tenantplane plan -f examples/yaml",
            "  tenantplane explain-sync --tenant dev --tenant-namespace team-dev \\",
            "      --virtual-namespace default --kind Pod --name nginx",
            "",
            "Exit codes: 0 ok, 1 a plan holds a Conflict or Error, 2 bad input,",
            "3 internal error. Errors are one line on stderr; --debug adds the trace."})
final class RootCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Option(names = "--debug", scope = ScopeType.INHERIT,
            description = "On an error, also print the stack trace.")
    boolean debug;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The version, from a resource that the build fills in. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = RootCommand.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // the version line is informational; an unreadable resource prints "unknown"
            }
            return new String[] {"tenantplane " + p.getProperty("version", "unknown")};
        }
    }
}
