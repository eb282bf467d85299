package io.tenantplane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cold-start harness times a launcher and kubectl and leaves out runs in which the launcher rebuilt the CLI.
 * A stand-in launcher keeps the test fast; the real one is timed by {@code bench/run.sh cli}.
 */
class ColdStartSmokeTest {

    private static Path launcher(Path repo, String script) throws Exception {
        Path l = repo.resolve("tenantplane");
        Files.writeString(l, script);
        Files.setPosixFilePermissions(l, PosixFilePermissions.fromString("rwxr-xr-x"));
        return l;
    }

    @Test
    void coldStartSectionReportsTheLauncherAgainstTheJvmAndKubectl(@TempDir Path repo) throws Exception {
        launcher(repo, "#!/bin/sh\nexit 0\n");
        Report.Section s = ColdStartSection.run(repo, 3);
        Figure cli = s.figures().get(0);
        assertTrue(cli.value().endsWith(" ms"), cli.toString());
        boolean kubectl = ColdStartSection.onPath("kubectl").isPresent();
        assertEquals(kubectl, cli.ratio() != null, cli.toString());
        assertTrue(s.figures().stream().anyMatch(f -> f.name().contains("JVM start alone")), s.toString());
    }

    @Test
    void aRunInWhichTheLauncherRebuiltIsNotASample(@TempDir Path repo) throws Exception {
        Path marker = repo.resolve("built");
        Path l = launcher(repo, """
                #!/bin/sh
                if [ ! -f "%s" ]; then touch "%s"; echo "tenantplane: building the CLI" >&2; sleep 1; fi
                exit 0
                """.formatted(marker, marker));
        long t = ColdStartSection.timeLauncher(List.of(l.toString()), repo);
        assertTrue(Files.exists(marker), "the first run rebuilt");
        assertTrue(t < 900_000_000L, "the sample is a run without the rebuild's 1 s sleep: " + t / 1e6 + " ms");
    }

    @Test
    void aFailingCommandFailsTheMeasurementWithItsError(@TempDir Path repo) throws Exception {
        Path l = launcher(repo, "#!/bin/sh\necho 'no such kind' >&2\nexit 2\n");
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> ColdStartSection.time(List.of(l.toString()), repo, 10));
        assertTrue(e.getMessage().contains("exited 2: no such kind"), e.getMessage());
    }
}
