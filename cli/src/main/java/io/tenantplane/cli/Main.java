package io.tenantplane.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
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
        int code = commandLine(out, err, System.in).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** The configured command line, writing to {@code out}/{@code err} and reading {@code -f -} from {@code in}. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, InputStream in) {
        Context ctx = new Context(in);
        CommandLine cl = new CommandLine(new RootCommand());
        cl.addSubcommand(new ValidateCommand(ctx));
        cl.addSubcommand(new RenderCommand(ctx));
        cl.addSubcommand(new PlanCommand(ctx));
        cl.addSubcommand(new ExplainSyncCommand(ctx));
        cl.addSubcommand(new TraceCommand(ctx));
        cl.addSubcommand(new DemoCommand(ctx));
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler(Main::onException);
        cl.setParameterExceptionHandler(Main::onBadUsage);
        return cl;
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
