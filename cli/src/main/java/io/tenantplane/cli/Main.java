package io.tenantplane.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;
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
     * When {@code args} name a command, only that command is registered: picocli builds each command's model by
     * reflection, and a cold start should pay for one command, not all of them.
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, InputStream in, String... args) {
        Context ctx = new Context(in);
        Map<String, Function<Context, Object>> commands = new LinkedHashMap<>();
        commands.put("validate", ValidateCommand::new);
        commands.put("render", RenderCommand::new);
        commands.put("plan", PlanCommand::new);
        commands.put("explain-sync", ExplainSyncCommand::new);
        commands.put("trace", TraceCommand::new);
        commands.put("demo", DemoCommand::new);
        commands.put("decisions", DecisionsCommand::new);
        String first = firstCommandWord(args);
        CommandLine cl = new CommandLine(new RootCommand());
        if (first != null && commands.containsKey(first)) {
            cl.addSubcommand(commands.get(first).apply(ctx));
        } else {
            commands.values().forEach(c -> cl.addSubcommand(c.apply(ctx)));
        }
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler(Main::onException);
        cl.setParameterExceptionHandler(Main::onBadUsage);
        return cl;
    }

    private static String firstCommandWord(String[] args) {
        for (String a : args) {
            if (!a.startsWith("-")) {
                return a;
            }
        }
        return null;
    }

    /** What commands share beyond picocli's own state. */
    record Context(InputStream stdin) {
    }

    private static int onException(Exception ex, CommandLine cl, ParseResult parsed) {
        PrintWriter err = cl.getErr();
        boolean debug = debug(parsed);
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
        cl.getErr().println("tenantplane: " + CliException.oneLine(ex.getMessage()) + "; see '" + cmd + " --help'");
        cl.getErr().flush();
        return BAD_INPUT;
    }

    private static boolean debug(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }
}
