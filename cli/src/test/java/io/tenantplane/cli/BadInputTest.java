package io.tenantplane.cli;

import static io.tenantplane.cli.ExplainSyncCommandTest.assertOneLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Every kind of bad input is one line on stderr naming the file and field, with a fix, and exit code 2. */
class BadInputTest {

    @Test
    void malformedYamlIsOneLineNamingTheFileAndLine() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "-f", Cli.fixture("malformed.yaml"));
        assertEquals(2, r.code(), r::toString);
        assertEquals("", r.out());
        assertOneLine(r.err());
        assertTrue(r.err().startsWith("tenantplane: " + Cli.fixture("malformed.yaml") + ": line "), r::toString);
        assertTrue(r.err().contains("invalid YAML"), r::toString);
    }

    @Test
    void aMissingFileIsOneLineNamingIt() {
        Cli.Result r = Cli.run("validate", "-f", "no-such-dir/tenant.yaml");
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertEquals("tenantplane: no-such-dir/tenant.yaml: -f: no such file or directory; pass an existing file, "
                + "or a directory of .yaml/.yml/.json files\n", r.err());
    }

    @Test
    void anUnknownTenantplaneKindIsOneLineListingTheKnownKinds() {
        Cli.Result r = Cli.run("plan", "-f", Cli.fixture("unknown-kind.yaml"), "--tenant", "dev",
                "--tenant-namespace", "team-dev");
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().contains("unknown-kind.yaml"), r::toString);
        assertTrue(r.err().contains("kind: "), r::toString);
        assertTrue(r.err().contains("TenantGizmo") && r.err().contains("TenantCluster"), r::toString);
    }

    @Test
    void anInvalidTenantObjectNameIsOneLineNamingFileAndField() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "-f", Cli.fixture("invalid-name"));
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().startsWith("tenantplane: " + Cli.fixture("invalid-name/pod.yaml")
                + ": metadata.name: 'Web_Server' is not a valid name; use "), r::toString);
    }

    @Test
    void anInvalidCustomResourceIsOneLineWithTheFirstProblemAndTheCountOfTheRest() {
        Cli.Result r = Cli.run("render", "-f", Cli.fixture("invalid-tenantcluster.yaml"));
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().contains("invalid-tenantcluster.yaml"), r::toString);
        assertTrue(r.err().contains("more problem"), r::toString);
    }

    @Test
    void anUnknownOptionIsOneLinePointingAtHelp() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "--frobnicate");
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().contains("'--frobnicate'") && r.err().contains("tenantplane plan --help"), r::toString);
    }

    @Test
    void anUnknownCommandIsOneLinePointingAtHelp() {
        Cli.Result r = Cli.run("explain");
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().contains("tenantplane --help"), r::toString);
    }

    @Test
    void debugShowsTheStackTraceThatIsOtherwiseHidden() {
        Cli.Result r = Cli.run("plan", "--debug", "-f", Cli.fixture("malformed.yaml"));
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("ManifestException") && r.err().contains("\tat "), r::toString);
        assertTrue(r.err().strip().endsWith("fix the YAML syntax") || r.err().contains("tenantplane: "), r::toString);
    }
}
