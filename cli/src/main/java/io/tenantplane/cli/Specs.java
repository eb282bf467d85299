package io.tenantplane.cli;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** Builders for the picocli models of the commands. */
final class Specs {

    private Specs() {
    }

    /** A command with {@code -h/--help} and {@code --debug}. */
    static CommandSpec command(String name, String[] description, String[] footer) {
        CommandSpec s = CommandSpec.create().name(name);
        s.usageMessage().description(description).footer(footer);
        s.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help and exit.").build());
        s.addOption(debug());
        return s;
    }

    static OptionSpec debug() {
        return OptionSpec.builder("--debug").type(boolean.class)
                .description("On an error, also print the stack trace.").build();
    }

    /** An option with one value. */
    static OptionSpec value(String label, String description, String... names) {
        return OptionSpec.builder(names).type(String.class).paramLabel(label).description(description).build();
    }

    /** A required option with one value. */
    static OptionSpec requiredValue(String label, String description, String... names) {
        return OptionSpec.builder(names).type(String.class).paramLabel(label).required(true)
                .description(description).build();
    }

    /** A repeatable option. */
    static OptionSpec values(String label, String description, String... names) {
        return OptionSpec.builder(names).type(List.class).auxiliaryTypes(String.class).paramLabel(label)
                .description(description).build();
    }

    /** A repeatable option that must be given at least once. */
    static OptionSpec requiredValues(String label, String description, String... names) {
        return OptionSpec.builder(names).type(List.class).auxiliaryTypes(String.class).paramLabel(label)
                .required(true).description(description).build();
    }

    static OptionSpec intValue(String label, String description, String... names) {
        return OptionSpec.builder(names).type(int.class).paramLabel(label).description(description).build();
    }

    static OptionSpec flag(String description, String... names) {
        return OptionSpec.builder(names).type(boolean.class).description(description).build();
    }
}
