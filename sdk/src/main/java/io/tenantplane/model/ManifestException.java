package io.tenantplane.model;

import io.tenantplane.errors.TenantPlaneException;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * A manifest file could not be read: it is missing, is not valid YAML or JSON, or holds something that is not a
 * Kubernetes object. The message names the file, the line when known, and the fix, in one line.
 */
public final class ManifestException extends TenantPlaneException {

    private final transient Path file;
    private final int line;

    /**
     * @param file    the file (or the name given to in-memory content)
     * @param line    the 1-based line, or 0 when unknown
     * @param message what is wrong and how to fix it
     */
    public ManifestException(Path file, int line, String message) {
        super(file + (line > 0 ? ": line " + line : "") + ": " + message);
        this.file = file;
        this.line = line;
    }

    /** The file the problem is in. */
    public Path file() {
        return file;
    }

    /** The 1-based line of the problem, when known. */
    public OptionalInt line() {
        return line > 0 ? OptionalInt.of(line) : OptionalInt.empty();
    }
}
