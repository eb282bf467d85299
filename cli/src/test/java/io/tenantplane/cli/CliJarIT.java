package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the shaded jar as users do, {@code java -jar tenantplane.jar ...}, in a directory with no checkout. */
class CliJarIT {

    @TempDir
    static Path workDir;

    private static Path jar;

    @BeforeAll
    static void findJar() {
        String p = System.getProperty("tenantplane.jar");
        assertTrue(p != null && Files.isRegularFile(Path.of(p)), "the build passes the shaded jar's path: " + p);
        jar = Path.of(p).toAbsolutePath();
    }

    record Run(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Run run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(List.of(args));
        Path out = workDir.resolve("out.txt");
        Path err = workDir.resolve("err.txt");
        Process p = new ProcessBuilder(cmd).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI finishes");
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void demoRunsFromTheExamplesInsideTheJar() throws Exception {
        Run r = run("demo");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("Create ") && l.contains("team-dev/nginx-x-default-x-dev")),
                r::toString);
        assertTrue(r.out().contains("name: nginx-x-default-x-dev"), r::toString);
        assertEquals("", r.err());
    }

    @Test
    void explainSyncOfTheSeedPodPrintsParsableJson() throws Exception {
        Run r = run("explain-sync", "--tenant", "dev", "--tenant-namespace", "team-dev", "--virtual-namespace",
                "default", "--kind", "Pod", "--name", "nginx", "-o", "json");
        assertEquals(0, r.code(), r::toString);
        JsonObject o = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("team-dev", o.getAsJsonObject("hostResource").get("namespace").getAsString());
        assertEquals("nginx-x-default-x-dev", o.getAsJsonObject("hostResource").get("name").getAsString());
    }

    @Test
    void malformedYamlIsOneLineOnStderrWithExitTwoAndNoStackTrace() throws Exception {
        Path bad = workDir.resolve("bad.yaml");
        Files.writeString(bad, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n labels: {}\n");
        Run r = run("plan", "-f", "bad.yaml", "--tenant", "dev", "--tenant-namespace", "team-dev");
        assertEquals(2, r.code(), r::toString);
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r::toString);
        assertTrue(r.err().startsWith("tenantplane: bad.yaml: line "), r::toString);
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r::toString);
    }

    @Test
    void planIsACiGateThatFailsOnAConflict() throws Exception {
        Path examples = Path.of(System.getProperty("tenantplane.examples")).toAbsolutePath();
        Path host = workDir.resolve("host.yaml");
        Files.writeString(host, "apiVersion: v1\nkind: Service\nmetadata:\n  name: nginx-x-default-x-dev\n"
                + "  namespace: team-dev\nspec:\n  ports:\n  - port: 80\n");
        Run ok = run("plan", "-f", examples.toString());
        assertEquals(0, ok.code(), ok::toString);
        Run conflict = run("plan", "-f", examples.toString(), "--host", host.toString());
        assertEquals(1, conflict.code(), conflict::toString);
        assertTrue(conflict.out().lines().anyMatch(l -> l.startsWith("Conflict ") && l.contains("Service")),
                conflict::toString);
    }

    @Test
    void decisionsAgainstAnUnreachableHostIsOneLineWithNoLoggerNoise() throws Exception {
        Path config = workDir.resolve("kubeconfig");
        Files.writeString(config, """
                apiVersion: v1
                kind: Config
                clusters: [{name: gone, cluster: {server: "http://127.0.0.1:1"}}]
                contexts: [{name: gone, context: {cluster: gone, user: gone}}]
                current-context: gone
                users: [{name: gone, user: {}}]
                """);
        Run r = run("decisions", "--tenant", "team-dev/dev", "--kubeconfig", config.toString());
        assertEquals(2, r.code(), r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
        assertTrue(r.err().startsWith("tenantplane: http://127.0.0.1:1: cannot list Events"), r::toString);
    }

    @Test
    void versionNamesTheBuild() throws Exception {
        Run r = run("--version");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().matches("tenantplane \\d+\\.\\d+\\.\\d+.*\\n"), r::toString);
    }
}
