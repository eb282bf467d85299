package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

class ExplainSyncCommandTest {

    private static final String[] SEED = {"explain-sync", "--tenant", "dev", "--tenant-namespace", "team-dev",
        "--virtual-namespace", "default", "--kind", "Pod", "--name", "nginx"};

    @Test
    void seedExamplePrintsHostNamespaceNameLabelsAndReasonAsYaml() {
        Cli.Result r = Cli.run(SEED);
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("hostResource:\n  namespace: team-dev\n  name: nginx-x-default-x-dev\n"), r::toString);
        assertTrue(r.out().contains("tenantplane.io/managed-by: tenantplane"), r::toString);
        assertTrue(r.out().contains("tenantplane.io/tenant: dev"), r::toString);
        assertTrue(r.out().contains("tenantplane.io/virtual-namespace: default"), r::toString);
        assertTrue(r.out().contains("tenantplane.io/source-name: nginx"), r::toString);
        assertTrue(r.out().contains("reason: NotOnHost"), r::toString);
        assertEquals("", r.err());
    }

    @Test
    void jsonOutputParsesAndCarriesTheSameAnswer() {
        String[] args = java.util.Arrays.copyOf(SEED, SEED.length + 2);
        args[SEED.length] = "-o";
        args[SEED.length + 1] = "json";
        Cli.Result r = Cli.run(args);
        assertEquals(0, r.code(), r::toString);
        JsonObject o = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("team-dev", o.getAsJsonObject("hostResource").get("namespace").getAsString());
        assertEquals("nginx-x-default-x-dev", o.getAsJsonObject("hostResource").get("name").getAsString());
        assertEquals("dev", o.getAsJsonObject("labels").get("tenantplane.io/tenant").getAsString());
        assertEquals("Pod", o.getAsJsonObject("annotations").get("tenantplane.io/source-kind").getAsString());
        assertEquals("Create", o.get("action").getAsString());
        assertFalse(o.get("reason").getAsString().isBlank());
    }

    @Test
    void withFilesAPodTheProfileForbidsIsAnErrorNamingTheField() {
        Cli.Result r = Cli.run("explain-sync", "-f", Cli.examples().toString(), "-f", Cli.fixture("privileged-pod.yaml"),
                "--kind", "Pod", "--name", "debug");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("action: Error\nreason: PodSecurityViolation\n"), r::toString);
        assertTrue(r.out().contains("spec.hostNetwork"), r::toString);
        assertTrue(r.out().contains("hypothetical: false"), r::toString);
    }

    @Test
    void withFilesAKindThePolicyDoesNotSyncIsASkipWithItsReason() {
        Cli.Result r = Cli.run("explain-sync", "-f", Cli.examples().toString(), "--kind", "ServiceAccount",
                "--name", "builder");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("action: Skip\nreason: KindNotSynced\n"), r::toString);
    }

    @Test
    void withAForeignHostObjectTheAnswerIsAConflict() {
        Cli.Result r = Cli.run("explain-sync", "-f", Cli.examples().toString(), "--host",
                Cli.fixture("foreign-host-pod.yaml"), "--kind", "Pod", "--name", "nginx", "-o", "json");
        assertEquals(0, r.code(), r::toString);
        JsonObject o = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("Conflict", o.get("action").getAsString());
        assertEquals("ForeignObject", o.get("reason").getAsString());
    }

    @Test
    void acceptsKindsAsKubectlUsersTypeThem() {
        Cli.Result r = Cli.run("explain-sync", "--tenant", "dev", "--tenant-namespace", "team-dev",
                "--kind", "pods", "--name", "nginx");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("name: nginx-x-default-x-dev"), r::toString);
    }

    @Test
    void unknownKindIsOneLineNamingTheFlagAndExitsTwo() {
        Cli.Result r = Cli.run("explain-sync", "--tenant", "dev", "--tenant-namespace", "team-dev",
                "--kind", "Gizmo", "--name", "nginx");
        assertEquals(2, r.code(), r::toString);
        assertEquals("", r.out());
        assertOneLine(r.err());
        assertTrue(r.err().startsWith("tenantplane: --kind: unknown kind 'Gizmo'; use"), r::toString);
    }

    @Test
    void invalidNameIsOneLineWithTheFixAndExitsTwo() {
        Cli.Result r = Cli.run("explain-sync", "--tenant", "dev", "--tenant-namespace", "team-dev",
                "--kind", "Pod", "--name", "Nginx_1");
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().startsWith("tenantplane: --name: 'Nginx_1' is not a valid name"), r::toString);
        assertTrue(r.err().contains("; use "), r::toString);
    }

    @Test
    void missingFlagIsOneLineAndExitsTwo() {
        Cli.Result r = Cli.run("explain-sync", "--tenant", "dev", "--kind", "Pod", "--name", "nginx");
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().contains("--tenant-namespace"), r::toString);
    }

    static void assertOneLine(String err) {
        assertTrue(err.endsWith("\n") && err.indexOf('\n') == err.length() - 1, () -> "expected one line, got:\n" + err);
        assertFalse(err.contains("Exception"), () -> "no stack traces or exception names: " + err);
    }
}
