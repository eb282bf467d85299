package io.tenantplane.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every manifest the project ships applies as a user applies it, with the real kubectl and server-side validation:
 * the install ({@code kubectl apply -k k8s/}), the optional NetworkPolicy, the custom resources of
 * {@code examples/yaml} on the host, and {@code examples/yaml/workloads} in a tenant API.
 */
class ProjectManifestsTest {
    private static final Path REPO = Path.of("..");

    @TempDir
    Path dir;

    @Test
    void theInstallAndTheExampleResourcesApplyToTheHost() throws Exception {
        try (KubeApiServer host = KubeApiServer.builder().build().start()) {
            Kubectl kubectl = new Kubectl(host.writeKubeconfig(dir), dir);
            String install = kubectl.run("apply", "-k", REPO.resolve("k8s").toString()).ok().out();
            assertTrue(install.contains("customresourcedefinition.apiextensions.k8s.io/tenantclusters.tenantplane.io "
                    + "created"), install);
            assertTrue(install.contains("deployment.apps/tenantplane-service created"), install);
            kubectl.run("apply", "--dry-run=server", "-n", "tenantplane-system", "-f",
                    REPO.resolve("k8s/optional/networkpolicy.yaml").toString()).ok();
            kubectl.run("create", "namespace", "team-dev").ok();
            for (String folder : List.of("examples/yaml", "examples/sync", "examples/rbac")) {
                try (Stream<Path> files = Files.list(REPO.resolve(folder))) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                        kubectl.run("apply", "--dry-run=server", "-f", f.toString()).ok();
                    }
                }
            }
            // Server-side apply, as GitOps tools and `kubectl apply --server-side` write them: each custom resource
            // is created through the field manager against the CRDs' schemas (list types, map keys, CEL).
            String applied = kubectl.run("apply", "--server-side", "-f", REPO.resolve("examples/yaml").toString())
                    .ok().out();
            assertTrue(applied.contains("tenantcluster.tenantplane.io/dev serverside-applied"), applied);
            String again = kubectl.run("apply", "--server-side", "-f", REPO.resolve("examples/yaml").toString())
                    .ok().out();
            assertTrue(again.lines().count() == applied.lines().count(), again);
        }
    }

    /** A SyncPolicy with a bad declared path is refused by the CRD's CEL rules, naming the field, as kubectl shows. */
    @Test
    void aSyncPolicyWithABadPathIsRefusedAtApplyNamingTheField() throws Exception {
        try (KubeApiServer host = KubeApiServer.builder().build().start()) {
            Kubectl kubectl = new Kubectl(host.writeKubeconfig(dir), dir);
            kubectl.run("apply", "-f", REPO.resolve("k8s/crds/syncpolicies.tenantplane.io.yaml").toString()).ok();
            Path bad = dir.resolve("bad.yaml");
            Files.writeString(bad, """
                    apiVersion: tenantplane.io/v1alpha1
                    kind: SyncPolicy
                    metadata: {name: bad, namespace: default}
                    spec:
                      kinds:
                      - kind: Certificate
                        apiVersion: cert-manager.io/v1
                        toHost: true
                        patches:
                        - {op: set, path: status.ready, value: true}
                      - {kind: StorageClass, toHost: true}
                    """);
            String err = kubectl.run("apply", "-f", bad.toString()).fails().err();
            assertTrue(err.contains("spec.kinds[0].patches[0]: Invalid value: \"object\": path: a patch cannot "
                    + "change apiVersion, kind or status"), err);
            assertTrue(err.contains("spec.kinds[1]: Invalid value: \"object\": toHost: cluster-scoped kinds never go "
                    + "to the host"), err);
        }
    }

    @Test
    void theExampleWorkloadsApplyToATenantApiAsAUserWritesThem() throws Exception {
        try (KubeApiServer tenant = KubeApiServer.builder().build().start()) {
            Kubectl kubectl = new Kubectl(tenant.writeKubeconfig(dir), dir);
            String out = kubectl.run("apply", "--dry-run=server", "-f", REPO.resolve("examples/yaml/workloads")
                    .toString()).ok().out();
            kubectl.run("apply", "--server-side", "--dry-run=server", "-f", REPO.resolve("examples/yaml/workloads")
                    .toString()).ok();
            try (Stream<Path> files = Files.list(REPO.resolve("examples/yaml/workloads"))) {
                List<Path> all = files.filter(p -> p.toString().endsWith(".yaml")).toList();
                assertTrue(out.lines().filter(l -> l.contains("(server dry run)")).count() >= all.size(), out);
            }
        }
    }

    /**
     * The end-to-end script cannot run here (no Docker, no kind); what can be checked is checked: it parses, and the
     * tenant objects it applies are accepted by a tenant API.
     */
    @Test
    void theEndToEndScriptParsesAndItsTenantObjectsApply() throws Exception {
        Path script = REPO.resolve("e2e/quickstart-kind.sh");
        Process bash = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
        String syntax = new String(bash.getInputStream().readAllBytes());
        assertTrue(bash.waitFor() == 0, "bash -n e2e/quickstart-kind.sh: " + syntax);
        String text = Files.readString(script);
        int start = text.indexOf("<<'YAML'\n");
        int end = text.indexOf("\nYAML\n", start);
        assertTrue(start > 0 && end > start, "the script applies its tenant objects from a YAML heredoc");
        Path yaml = dir.resolve("prober.yaml");
        Files.writeString(yaml, text.substring(start + "<<'YAML'\n".length(), end + 1));
        try (KubeApiServer tenant = KubeApiServer.builder().build().start()) {
            Kubectl kubectl = new Kubectl(tenant.writeKubeconfig(dir), dir);
            // Not a dry run: the pod's ServiceAccount must exist when the pod is admitted, as on a real server.
            String out = kubectl.run("apply", "-f", yaml.toString()).ok().out();
            assertTrue(out.contains("pod/prober created"), out);
            assertTrue(out.contains("rolebinding.rbac.authorization.k8s.io/prober-reads-pods created"), out);
        }
    }
}
