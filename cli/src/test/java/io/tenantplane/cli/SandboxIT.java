package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenantplane sandbox} as a user runs it: the shaded jar as a process, driven only with the real kubectl
 * through the kubeconfigs it writes, stopped with SIGINT. A Deployment applied in the tenant runs on the host under
 * its host names; deleted, its pods go on both sides; on exit nothing is left behind.
 */
class SandboxIT {

    @TempDir
    Path work;

    private static final Duration WAIT = Duration.ofSeconds(60);

    private record Run(int code, String out, String err) {
    }

    private Run kubectl(Path kubeconfig, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(work, "kubectl", ".out");
        Path err = Files.createTempFile(work, "kubectl", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl finishes: " + cmd);
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(250);
        }
        return condition.getAsBoolean();
    }

    private String lines(Path kubeconfig, String... args) {
        try {
            Run r = kubectl(kubeconfig, args);
            return r.code() == 0 ? r.out() : "";
        } catch (IOException | InterruptedException e) {
            return "";
        }
    }

    @Test
    void aDeploymentInTheTenantRunsOnTheHostAndGoesWhenDeletedAndSigintLeavesNothing() throws Exception {
        Path jar = Path.of(System.getProperty("tenantplane.jar")).toAbsolutePath();
        Path dir = work.resolve("sandbox");
        Path log = work.resolve("sandbox.out");
        Process sandbox = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "sandbox", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Path host = dir.resolve("host.kubeconfig");
            Path tenant = dir.resolve("tenant-dev.kubeconfig");
            assertTrue(eventually(() -> Files.isRegularFile(tenant) && read(log).contains("Ctrl-C")),
                    () -> "the sandbox writes its kubeconfigs and says how to stop: " + read(log));
            assertTrue(read(log).contains("stands in for its k3s"), read(log));
            assertTrue(eventually(() -> lines(host, "get", "tenantcluster", "dev", "-n", "team-dev", "-o",
                    "jsonpath={.status.phase}").equals("Ready")), () -> "the tenant becomes Ready: " + read(log));

            Path deployment = work.resolve("web.yaml");
            Files.writeString(deployment, """
                    apiVersion: apps/v1
                    kind: Deployment
                    metadata: {name: web, namespace: default}
                    spec:
                      replicas: 2
                      selector: {matchLabels: {app: web}}
                      template:
                        metadata: {labels: {app: web}}
                        spec:
                          securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
                          containers:
                          - name: web
                            image: nginxinc/nginx-unprivileged:1.27
                            securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
                    """);
            Run applied = kubectl(tenant, "apply", "-f", deployment.toString());
            assertEquals(0, applied.code(), applied.err());
            assertTrue(eventually(() -> lines(host, "get", "pods", "-n", "team-dev", "-l",
                    "tenantplane.io/tenant=dev,app=web", "-o", "jsonpath={range .items[*]}{.metadata.name} "
                            + "{.status.phase}{\"\\n\"}{end}").lines().filter(l -> l.endsWith("-x-default-x-dev Running"))
                    .count() == 2), () -> "two host pods Running under their host names: " + lines(host, "get",
                    "pods", "-n", "team-dev") + read(log));
            assertTrue(eventually(() -> lines(tenant, "get", "pods", "-l", "app=web", "-o",
                    "jsonpath={range .items[*]}{.status.phase}{\"\\n\"}{end}").lines()
                    .filter(l -> l.equals("Running")).count() == 2), () -> "the tenant sees its pods Running");
            assertTrue(read(log).lines().anyMatch(l -> l.contains("  dev  Create  Pod default/web-")
                    && l.contains("-> team-dev/web-")), () -> "a live line per write: " + read(log));

            // Debugging inside the tenant, as a user would: logs and exec reach the host copy through the sandbox's
            // kubelet endpoint (kubectl as it comes: its WebSocket is refused and it falls back to SPDY).
            Run logs = kubectl(tenant, "logs", "deploy/web");
            assertEquals(0, logs.code(), logs.err() + read(log));
            assertTrue(logs.out().contains("simulated container web started"), logs.out());
            Run exec = kubectl(tenant, "exec", "deploy/web", "--", "echo", "hello", "from", "the", "host", "copy");
            assertEquals(0, exec.code(), exec.err() + read(log));
            assertEquals("hello from the host copy\n", exec.out());
            Run failing = kubectl(tenant, "exec", "deploy/web", "--", "sh", "-c", "exit 4");
            assertEquals(4, failing.code(), "the exit code comes back: " + failing.err());
            assertTrue(eventually(() -> read(log).lines().anyMatch(l -> l.contains("  dev  kubelet exec  Pod default/web-")
                    && l.contains("101 Exited"))), () -> "each kubelet call is printed: " + read(log));

            assertEquals(0, kubectl(tenant, "delete", "deployment", "web", "--wait=false").code());
            assertTrue(eventually(() -> lines(host, "get", "pods", "-n", "team-dev", "-l",
                    "tenantplane.io/tenant=dev,app=web", "-o", "name").isBlank()
                    && lines(tenant, "get", "pods", "-l", "app=web", "-o", "name").isBlank()),
                    () -> "the pods go on both sides: host " + lines(host, "get", "pods", "-n", "team-dev")
                            + " tenant " + lines(tenant, "get", "pods", "-A"));
        } finally {
            new ProcessBuilder("kill", "-INT", Long.toString(sandbox.pid())).start().waitFor();
            assertTrue(sandbox.waitFor(30, TimeUnit.SECONDS), "SIGINT stops the sandbox");
        }
        assertTrue(read(log).contains("tenantplane sandbox stopped"), read(log));
        assertFalse(Files.exists(dir), "the folder it made is gone");
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
