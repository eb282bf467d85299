package io.tenantplane.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The {@code tenantplane} command line. Exit codes: {@code 0} success, {@code 1} a plan holds a {@code Conflict} or
 * {@code Error} decision (a CI gate), {@code 2} bad input or usage (one line on stderr), {@code 3} an internal error.
 */
public final class Main {

    static final int OK = 0;
    static final int PLAN_PROBLEMS = 1;
    static final int BAD_INPUT = 2;
    static final int INTERNAL_ERROR = 3;

    /** The commands, in the order help lists them. */
    static final List<String> COMMANDS = List.of("validate", "render", "plan", "explain-sync", "trace", "demo",
            "decisions", "sandbox");

    private Main() {
    }

    /**
     * Runs the command line and exits the JVM with its exit code.
     *
     * @param args the command and its options, e.g. {@code plan -f examples/yaml}
     */
    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code = commandLine(out, err, System.in, args).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * The configured command line, writing to {@code out}/{@code err} and reading {@code -f -} from {@code in}.
     * When {@code args} name a command, only that command is built: a cold start pays for one command's classes.
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, InputStream in, String... args) {
        String first = firstCommandWord(args);
        Map<String, Subcommand> commands = new LinkedHashMap<>();
        for (String name : COMMANDS) {
            if (first == null || !COMMANDS.contains(first) || first.equals(name)) {
                commands.put(name, create(name));
            }
        }
        CommandSpec root = rootSpec();
        commands.forEach((name, c) -> root.addSubcommand(name, c.spec()));
        CommandLine cl = new CommandLine(root);
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler(Main::onBadUsage);
        cl.setExecutionStrategy(parsed -> execute(parsed, cl, commands, in));
        return cl;
    }

    /** One command object; a switch rather than a table of constructor references, so only that class loads. */
    private static Subcommand create(String name) {
        return switch (name) {
            case "validate" -> new ValidateCommand();
            case "render" -> new RenderCommand();
            case "plan" -> new PlanCommand();
            case "explain-sync" -> new ExplainSyncCommand();
            case "trace" -> new TraceCommand();
            case "demo" -> new DemoCommand();
            case "decisions" -> new DecisionsCommand();
            case "sandbox" -> new SandboxCommand();
            default -> throw new IllegalArgumentException("no command " + name);
        };
    }

    private static CommandSpec rootSpec() {
        CommandSpec s = CommandSpec.create().name("tenantplane");
        s.usageMessage()
                .description(
                        "Explainable virtual-Kubernetes tenants: where every tenant object lands",
                        "on the host, and why. Every command works offline, on manifests.")
                .synopsisSubcommandLabel("COMMAND")
                .footer(
                        "",
                        "Examples:",
                        "  tenantplane demo",
                        "  tenantplane plan -f examples/yaml",
                        "  tenantplane explain-sync --tenant dev --tenant-namespace team-dev \\",
                        "      --virtual-namespace default --kind Pod --name nginx",
                        "",
                        "Exit codes: 0 ok, 1 a plan holds a Conflict or Error, 2 bad input,",
                        "3 internal error. Errors are one line on stderr; --debug adds the trace.");
        s.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help and exit.").build());
        s.addOption(OptionSpec.builder("-V", "--version").versionHelp(true)
                .description("Print the version and exit.").build());
        s.addOption(Specs.debug());
        return s;
    }

    private static int execute(ParseResult parsed, CommandLine cl, Map<String, Subcommand> commands, InputStream in) {
        PrintWriter out = cl.getOut();
        PrintWriter err = cl.getErr();
        if (parsed.isVersionHelpRequested()) {
            out.println("tenantplane " + version());
            out.flush();
            return OK;
        }
        Integer help = CommandLine.executeHelpRequest(parsed);
        if (help != null) {
            return help;
        }
        if (!parsed.hasSubcommand()) {
            cl.usage(out);
            out.flush();
            return OK;
        }
        ParseResult sub = parsed.subcommand();
        boolean debug = parsed.hasMatchedOption("--debug") || sub.hasMatchedOption("--debug");
        try {
            return commands.get(sub.commandSpec().name()).run(new Args(sub, out, err, in));
        } catch (RuntimeException e) {
            return onException(e, err, debug);
        }
    }

    private static int onException(Exception ex, PrintWriter err, boolean debug) {
        if (debug) {
            ex.printStackTrace(err);
        }
        String line = ErrorLines.line(ex);
        if (line != null) {
            err.println("tenantplane: " + line);
            err.flush();
            return BAD_INPUT;
        }
        err.println("tenantplane: internal error: " + CliException.oneLine(String.valueOf(ex))
                + (debug ? "" : "; rerun with --debug for the stack trace and report it"));
        err.flush();
        return INTERNAL_ERROR;
    }

    private static int onBadUsage(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        String cmd = cl.getCommandSpec().qualifiedName();
        String hint = "";
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            hint = "; did you mean " + String.join(" or ", u.getSuggestions()) + "?";
        }
        cl.getErr().println("tenantplane: " + CliException.oneLine(ex.getMessage()) + hint + "; see '" + cmd
                + " --help'");
        cl.getErr().flush();
        return BAD_INPUT;
    }

    private static String firstCommandWord(String[] args) {
        for (String a : args) {
            if (!a.startsWith("-")) {
                return a;
            }
        }
        return null;
    }

    /** The version, from a resource the build fills in. */
    static String version() {
        Properties p = new Properties();
        try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // the version line is informational; an unreadable resource prints "unknown"
        }
        return p.getProperty("version", "unknown");
    }
}
