package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HelpTest {

    static List<String> commands() {
        return List.of("validate", "render", "plan", "explain-sync", "trace", "demo", "decisions");
    }

    @ParameterizedTest
    @MethodSource("commands")
    void everyCommandsHelpShowsAnExampleOfThatCommand(String command) {
        Cli.Result r = Cli.run(command, "--help");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("Usage: tenantplane " + command), r::toString);
        assertTrue(r.out().contains("\nExample"), r::toString);
        assertTrue(r.out().contains("\n  tenantplane " + command + " "), r::toString);
        assertTrue(r.out().contains("Exit codes:"), r::toString);
        assertTrue(r.out().lines().allMatch(l -> l.length() <= 80), () -> "lines fit 80 columns:\n" + r.out());
    }

    @ParameterizedTest
    @MethodSource("commands")
    void theTopLevelHelpListsEveryCommand(String command) {
        Cli.Result r = Cli.run("--help");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("\n  " + command + " "), r::toString);
    }
}
