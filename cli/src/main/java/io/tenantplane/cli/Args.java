package io.tenantplane.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.ParseResult;

/** What one command run gets: its parsed options, where to write, and stdin for {@code -f -}. */
final class Args {

    private final ParseResult parsed;
    private final PrintWriter out;
    private final PrintWriter err;
    private final InputStream stdin;

    Args(ParseResult parsed, PrintWriter out, PrintWriter err, InputStream stdin) {
        this.parsed = parsed;
        this.out = out;
        this.err = err;
        this.stdin = stdin;
    }

    /** The option's value, or null when it was not given. */
    String string(String option) {
        return parsed.matchedOptionValue(option, null);
    }

    /** The option's value, or {@code otherwise} when it was not given. */
    String string(String option, String otherwise) {
        return parsed.matchedOptionValue(option, otherwise);
    }

    /** Every value of a repeatable option, in order; empty when it was not given. */
    List<String> strings(String option) {
        List<String> v = parsed.matchedOptionValue(option, List.of());
        return List.copyOf(v);
    }

    boolean flag(String option) {
        return parsed.hasMatchedOption(option);
    }

    int integer(String option, int otherwise) {
        Integer v = parsed.matchedOptionValue(option, otherwise);
        return v;
    }

    InputStream stdin() {
        return stdin;
    }

    /** Standard output, for commands that write as they go. */
    PrintWriter out() {
        return out;
    }

    /** Writes the command's result to stdout. */
    void print(String text) {
        out.print(text);
        out.flush();
    }

    /** Writes a note for the reader to stderr, so that stdout stays machine-readable. */
    void note(String text) {
        err.println("tenantplane: note: " + text);
        err.flush();
    }
}
