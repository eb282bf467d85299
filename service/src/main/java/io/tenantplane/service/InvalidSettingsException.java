package io.tenantplane.service;

import java.util.List;

/**
 * The service configuration is unusable. The message names every bad key at once, with the value found and how to
 * fix it, so one failed start-up is enough to correct the whole configuration.
 */
public final class InvalidSettingsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    InvalidSettingsException(List<String> problems) {
        super(message(problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per bad key: {@code key = 'value': rule; fix}. */
    public List<String> problems() {
        return problems;
    }

    private static String message(List<String> problems) {
        var sb = new StringBuilder("Invalid tenantplane service configuration (")
                .append(problems.size())
                .append(problems.size() == 1 ? " problem" : " problems")
                .append("); set these through microprofile-config.properties, system properties or environment"
                        + " variables (e.g. TENANTPLANE_CONCURRENCY for tenantplane.concurrency):");
        for (String p : problems) {
            sb.append(System.lineSeparator()).append("  - ").append(p);
        }
        return sb.toString();
    }
}
