package io.tenantplane.cli;

import picocli.CommandLine.Model.CommandSpec;

/** Writes a command's result to its standard output. */
final class Printing {

    private Printing() {
    }

    static void print(CommandSpec spec, String text) {
        var out = spec.commandLine().getOut();
        out.print(text);
        out.flush();
    }
}
