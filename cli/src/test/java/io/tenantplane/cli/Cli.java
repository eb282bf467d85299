package io.tenantplane.cli;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Runs the real command line in-process, capturing what it prints. */
final class Cli {

    /** What one run printed and returned. */
    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Cli() {
    }

    static Result run(String... args) {
        return runWithStdin("", args);
    }

    static Result runWithStdin(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        InputStream in = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
        int code = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true), in, args).execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    /** A file or directory under src/test/resources/fixtures, as a path string for -f. */
    static String fixture(String name) {
        return Path.of(System.getProperty("basedir", "."), "src", "test", "resources", "fixtures", name).toString();
    }

    /** The checkout's examples/yaml (the build passes its location; tests run from cli/ otherwise). */
    static Path examples() {
        String p = System.getProperty("tenantplane.examples");
        return p != null ? Path.of(p) : Path.of("..", "examples", "yaml");
    }
}
