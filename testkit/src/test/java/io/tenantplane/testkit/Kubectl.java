package io.tenantplane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real kubectl binary run against a kubeconfig, as a user runs it; a missing kubectl fails the test. */
final class Kubectl {
    private final String binary;
    private final Path kubeconfig;
    private final Path dir;

    /** The outcome of one kubectl run. */
    record Run(int exit, String out, String err) {
        Run ok() {
            assertEquals(0, exit, () -> "kubectl failed:\n" + out + err);
            return this;
        }

        Run fails() {
            org.junit.jupiter.api.Assertions.assertNotEquals(0, exit, () -> "kubectl succeeded:\n" + out + err);
            return this;
        }
    }

    Kubectl(Path kubeconfig, Path dir) {
        this.binary = locate();
        this.kubeconfig = kubeconfig;
        this.dir = dir;
    }

    static String locate() {
        List<String> candidates = new ArrayList<>();
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            candidates.add(d + File.separator + "kubectl");
        }
        candidates.add("/usr/local/bin/kubectl");
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return fail("kubectl is not installed (looked on PATH and in /usr/local/bin); these tests need kubectl "
                + "1.32 and CI installs it");
    }

    Run run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary, "--kubeconfig", kubeconfig.toString(), "--cache-dir",
                dir.resolve("cache").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("HOME", dir.toString());
        pb.environment().remove("KUBECONFIG");
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("kubectl " + String.join(" ", args) + " did not finish in 90 s");
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
