package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class TraceCommandTest {

    @Test
    void aPlainHostNameReadsBackToItsTenantSourceUnverified() {
        Cli.Result r = Cli.run("trace", "--kind", "Pod", "--namespace", "team-dev", "--name", "nginx-x-default-x-dev",
                "-o", "json");
        assertEquals(0, r.code(), r::toString);
        JsonObject o = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("InferredFromName", o.get("reason").getAsString());
        JsonObject src = o.getAsJsonObject("source");
        assertEquals("dev", src.get("tenant").getAsString());
        assertEquals("default", src.get("virtualNamespace").getAsString());
        assertEquals("nginx", src.get("name").getAsString());
        assertTrue(o.get("message").getAsString().contains("not verified"), r::toString);
    }

    @Test
    void aHashedOrForeignNameCannotBeTracedFromTheNameAloneAndSaysToPassTheObject() {
        Cli.Result r = Cli.run("trace", "--kind", "Pod", "--namespace", "team-dev", "--name", "web-7d4b9c8f5-x2x9q");
        assertEquals(1, r.code(), r::toString);
        assertTrue(r.out().contains("reason: Unresolved"), r::toString);
        assertTrue(r.out().contains("annotations"), r::toString);
    }

    @Test
    void aHostObjectFileIsTracedThroughItsVerifiedAnnotations() {
        Cli.Result r = Cli.run("trace", "-f", Cli.fixture("managed-host-pod.yaml"));
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("reason: Managed"), r::toString);
        assertTrue(r.out().contains("tenant: dev"), r::toString);
        assertTrue(r.out().contains("virtualNamespace: default"), r::toString);
        assertTrue(r.out().contains("name: nginx\n"), r::toString);
        assertTrue(r.out().contains("uid: 7d0e6f7a-5b1e-4c55-8f0c-1a2b3c4d5e6f"), r::toString);
    }

    @Test
    void aHostObjectReadFromStdinIsTraced() throws Exception {
        String yaml = Files.readString(java.nio.file.Path.of(Cli.fixture("managed-host-pod.yaml")));
        Cli.Result r = Cli.runWithStdin(yaml, "trace", "-f", "-");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("reason: Managed"), r::toString);
    }

    @Test
    void aForgedObjectWhoseNameDoesNotMatchItsAnnotationsIsNotManaged() {
        Cli.Result r = Cli.run("trace", "-f", Cli.fixture("forged-host-pod.yaml"));
        assertEquals(1, r.code(), r::toString);
        assertTrue(r.out().contains("reason: NotManaged"), r::toString);
    }

    @Test
    void aForeignObjectIsNotManaged() {
        Cli.Result r = Cli.run("trace", "-f", Cli.fixture("foreign-host-pod.yaml"));
        assertEquals(1, r.code(), r::toString);
        assertTrue(r.out().contains("reason: NotManaged"), r::toString);
        assertTrue(r.out().contains("tenantplane.io/managed-by"), r::toString);
    }

    @Test
    void traceNeedsANamespaceForNamespacedKinds() {
        Cli.Result r = Cli.run("trace", "--kind", "Pod", "--name", "nginx-x-default-x-dev");
        assertEquals(2, r.code(), r::toString);
        ExplainSyncCommandTest.assertOneLine(r.err());
        assertTrue(r.err().startsWith("tenantplane: --namespace: is required for Pod;"), r::toString);
    }
}
