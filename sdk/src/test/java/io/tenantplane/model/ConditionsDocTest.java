package io.tenantplane.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.ConvergenceReport;
import io.tenantplane.migration.Rejection;
import io.tenantplane.migration.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md's condition table says exactly what the code emits: every {@code Condition.of(type, status,
 * "Reason", ...)} in the SDK is a row, and every row's reason is emitted (literally, or as a migration step, a
 * rejection or a pass failure reason).
 */
class ConditionsDocTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| (True|False|Unknown) \\| (.+?) \\|",
            Pattern.MULTILINE);
    private static final Pattern EMITTED = Pattern.compile("Condition\\.of\\(\\s*([A-Za-z_.\"]+),\\s*Condition\\.Status"
            + "\\.(TRUE|FALSE|UNKNOWN),\\s*\"(\\w+)\"");
    private static final Pattern FAILURE = Pattern.compile("(?:PassFailure|MigrationProgress\\.Failed)\\([^\"]*?\"(\\w+)\"");

    /** A condition type as the code spells it: a constant of {@link Condition} or a literal. */
    private static String type(String expr) {
        if (expr.startsWith("\"")) {
            throw new AssertionError("condition type " + expr + " is a literal: name it as a Condition constant");
        }
        String name = expr.replace("Condition.", "");
        try {
            return (String) Condition.class.getField(name).get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("unknown condition type expression " + expr, e);
        }
    }

    private static String status(String s) {
        return s.charAt(0) + s.substring(1).toLowerCase();
    }

    @Test
    void theConditionTableIsWhatTheCodeEmits() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "operations.md"));
        Set<String> documented = new TreeSet<>();
        Matcher row = ROW.matcher(docs);
        while (row.find()) {
            for (String reason : row.group(3).split(" / ")) {
                documented.add(row.group(1) + " " + row.group(2) + " " + reason.replace("`", "").trim());
            }
        }
        Set<String> literal = new TreeSet<>();
        Set<String> failures = new TreeSet<>();
        StringBuilder sources = new StringBuilder();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String src = Files.readString(f);
                sources.append(src);
                Matcher m = EMITTED.matcher(src);
                while (m.find()) {
                    literal.add(type(m.group(1)) + " " + status(m.group(2)) + " " + m.group(3));
                }
                Matcher fm = FAILURE.matcher(src);
                while (fm.find()) {
                    failures.add(fm.group(1));
                }
            }
        }
        Set<String> documentedTypes = new TreeSet<>();
        for (String entry : documented) {
            documentedTypes.add(entry.substring(0, entry.indexOf(' ')));
        }
        assertEquals(new TreeSet<>(Condition.TYPES), documentedTypes,
                "docs/operations.md's condition table covers exactly the types of Condition.TYPES");
        for (String emitted : literal) {
            assertTrue(documented.contains(emitted), "docs/operations.md lacks the condition row " + emitted);
        }
        Set<String> dynamic = new TreeSet<>();
        for (Step s : Step.values()) {
            dynamic.add("Migrating True " + s.display());
        }
        for (String r : Set.of(Rejection.INVALID_TARGET, Rejection.BLOCKED)) {
            dynamic.add("Migrating False " + r);
        }
        failures.add(ConvergenceReport.MIGRATION_IN_PROGRESS);
        failures.add("TenantApiUnavailable");
        for (String f : failures) {
            dynamic.add("Synced False " + f);
            dynamic.add("Migrating False " + f);
        }
        Set<String> unemitted = new TreeSet<>(documented);
        unemitted.removeAll(literal);
        unemitted.removeAll(dynamic);
        // Reasons computed in the code (a ternary, a constant) are emitted when their literal is in the sources.
        unemitted.removeIf(r -> sources.toString().contains("\"" + r.substring(r.lastIndexOf(" ") + 1) + "\""));
        assertEquals(Set.of(), unemitted, "documented but never emitted");
    }
}
