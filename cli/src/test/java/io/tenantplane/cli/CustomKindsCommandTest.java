package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * plan and explain-sync decide a SyncPolicy's custom kinds as the live pass does: from the installation's
 * allow-list ({@code --allow-kind}) and the host's CustomResourceDefinitions among the {@code --host} objects.
 */
class CustomKindsCommandTest {

    /**
     * The example TenantCluster and IsolationProfile, examples/sync's policy under the name the TenantCluster refers
     * to, a Certificate and its Secret.
     */
    private static String[] input(String... more) {
        String policy;
        try {
            Path dir = java.nio.file.Files.createTempDirectory("custom-kinds");
            dir.toFile().deleteOnExit();
            Path file = java.nio.file.Files.writeString(dir.resolve("syncpolicy.yaml"), java.nio.file.Files.readString(
                    Path.of("..", "examples", "sync", "syncpolicy.yaml")).replace("name: custom-kinds", "name: default"));
            file.toFile().deleteOnExit();
            policy = file.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        String[] base = {"-f", Cli.examples().resolve("tenantcluster.yaml").toString(),
            "-f", Cli.examples().resolve("isolationprofile.yaml").toString(),
            "-f", policy, "-f", Cli.fixture("custom-kinds"), "--tenant", "dev"};
        String[] out = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, out, base.length, more.length);
        return out;
    }

    private static String[] cmd(String command, String... args) {
        String[] in = input(args);
        String[] out = new String[in.length + 1];
        out[0] = command;
        System.arraycopy(in, 0, out, 1, in.length);
        return out;
    }

    @Test
    void withoutTheAllowListACustomKindIsNotAllowed() {
        Cli.Result r = Cli.run(cmd("plan", "-o", "wide"));
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("Skip     Certificate   shop/web"), r::toString);
        assertTrue(r.out().contains("KindNotAllowed"), r::toString);
    }

    @Test
    void allowedButWithoutTheHostCrdItIsNotServed() {
        Cli.Result r = Cli.run(cmd("plan", "-o", "wide", "--allow-kind", "Certificate.cert-manager.io"));
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("KindNotServedOnHost"), r::toString);
        assertTrue(r.out().contains("install the CustomResourceDefinition of Certificate.cert-manager.io"), r::toString);
    }

    @Test
    void allowedAndServedItIsCreatedWithItsDeclaredFieldsRewrittenAndExplainSaysSo() {
        Cli.Result r = Cli.run(cmd("explain-sync", "--allow-kind", "Certificate.cert-manager.io", "--host",
                Cli.fixture("custom-kinds-host-crd.yaml"), "--kind", "Certificate", "--virtual-namespace", "shop",
                "--name", "web"));
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("action: Create\nreason: NotOnHost\n"), r::toString);
        assertTrue(r.out().contains("rewrites the declared spec.secretName; every other field is copied unchanged"),
                r::toString);
        assertTrue(r.out().contains("example.com/tenant: dev"), r::toString);
    }

    @Test
    void aBadAllowedKindIsBadInputNamingTheFlag() {
        Cli.Result r = Cli.run(cmd("plan", "--allow-kind", "certificates.cert-manager.io"));
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("--allow-kind: 'certificates.cert-manager.io' is not Kind.group"), r::toString);
        assertTrue(r.err().contains("--allow-kind Certificate.cert-manager.io"), r::toString);
    }
}
