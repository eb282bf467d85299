package io.tenantplane.cli;

/**
 * Bad input, reported as exactly one line on stderr with exit code 2:
 * {@code tenantplane: <file>: <field>: <problem>; <fix>}. Parts that do not apply are left out.
 */
final class CliException extends RuntimeException {

    private final String file;
    private final String field;
    private final String problem;
    private final String fix;

    CliException(String file, String field, String problem, String fix) {
        super(problem);
        this.file = file;
        this.field = field;
        this.problem = problem;
        this.fix = fix;
    }

    CliException(String file, String field, String problem, String fix, Throwable cause) {
        this(file, field, problem, fix);
        initCause(cause);
    }

    /** The message without the {@code tenantplane: } prefix, on one line. */
    String line() {
        StringBuilder b = new StringBuilder();
        if (file != null) {
            b.append(file).append(": ");
        }
        if (field != null) {
            b.append(field).append(": ");
        }
        b.append(problem);
        if (fix != null && !fix.isBlank()) {
            b.append("; ").append(fix);
        }
        return oneLine(b.toString());
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").trim();
    }
}
