package io.tenantplane.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The real {@code kubectl} (1.32) against the server through a generated kubeconfig: the commands users type.
 * kubectl must be installed; without it these tests fail rather than skip.
 */
class KubectlTest {
    @RegisterExtension
    static final KubeApiServerExtension kube = new KubeApiServerExtension();

    @TempDir
    static Path dir;

    private static Kubectl kubectl;

    @BeforeAll
    static void findKubectl() {
        kubectl = new Kubectl(kube.writeKubeconfig(dir), dir);
    }

    private static Kubectl.Run kubectl(String... args) throws IOException, InterruptedException {
        return kubectl.run(args);
    }

    private static Path file(String name, String yaml) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, yaml, StandardCharsets.UTF_8);
        return f;
    }

    private static String widget(String name, int size) {
        return """
                apiVersion: example.com/v1
                kind: Widget
                metadata:
                  name: %s
                  namespace: default
                spec:
                  size: %d
                """.formatted(name, size);
    }

    private static Path crd() throws IOException {
        Path f = dir.resolve("crd.yaml");
        try (var in = KubectlTest.class.getResourceAsStream("/fixtures/widget-crd.yaml")) {
            Files.write(f, in.readAllBytes());
        }
        return f;
    }

    @Test
    void applyOfACrdThenACustomResourceCreatesConfiguresAndLeavesUnchanged() throws Exception {
        String applied = kubectl("apply", "-f", crd().toString()).ok().out();
        assertTrue(applied.matches("(?s)customresourcedefinition.apiextensions.k8s.io/widgets.example.com "
                + "(created|unchanged)\\s*"), applied);
        Path cr = file("w1.yaml", widget("w1", 3));
        assertTrue(kubectl("apply", "-f", cr.toString()).ok().out().contains("widget.example.com/w1 created"));
        assertTrue(kubectl("apply", "-f", cr.toString()).ok().out().contains("widget.example.com/w1 unchanged"));
        file("w1.yaml", widget("w1", 4));
        assertTrue(kubectl("apply", "-f", cr.toString()).ok().out().contains("widget.example.com/w1 configured"));
        assertEquals("4", kubectl("get", "widget", "w1", "-o", "jsonpath={.spec.size}").ok().out());
        String table = kubectl("get", "wg").ok().out();
        assertTrue(table.lines().findFirst().orElse("").matches("NAME\\s+SIZE\\s+READY\\s+AGE"), table);
        assertTrue(table.lines().anyMatch(l -> l.matches("w1\\s+4\\s+\\d+s")), table);
    }

    @Test
    void applyOfCoreKindsUsesStrategicMergePatchAndIsIdempotent() throws Exception {
        Path app = file("app.yaml", """
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: shop
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: settings
                  namespace: shop
                data:
                  mode: blue
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: web
                  namespace: shop
                spec:
                  selector: {app: web}
                  ports: [{port: 80, targetPort: 8080}]
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: web
                  namespace: shop
                  labels: {app: web}
                spec:
                  containers:
                  - name: web
                    image: nginx:1.27
                """);
        String first = kubectl("apply", "-f", app.toString()).ok().out();
        for (String line : List.of("namespace/shop created", "configmap/settings created", "service/web created",
                "pod/web created")) {
            assertTrue(first.contains(line), first);
        }
        String second = kubectl("apply", "-f", app.toString()).ok().out();
        assertEquals(4, second.lines().filter(l -> l.endsWith(" unchanged")).count(), second);

        kube.server().requests().reset();
        Files.writeString(app, Files.readString(app).replace("mode: blue", "mode: green")
                .replace("image: nginx:1.27", "image: nginx:1.28"));
        String third = kubectl("apply", "-f", app.toString()).ok().out();
        assertTrue(third.contains("configmap/settings configured") && third.contains("pod/web configured"), third);
        assertEquals(2, kube.server().requests().count("patch", "*"));
        assertEquals("green", kubectl("get", "configmap", "settings", "-n", "shop", "-o", "jsonpath={.data.mode}")
                .ok().out());
        assertEquals("nginx:1.28", kubectl("get", "pod", "web", "-n", "shop", "-o",
                "jsonpath={.spec.containers[0].image}").ok().out());
        String services = kubectl("get", "svc", "-n", "shop").ok().out();
        assertTrue(services.lines().anyMatch(l -> l.matches("web\\s+ClusterIP\\s+10\\.96\\.\\d+\\.\\d+\\s+\\d+s")),
                services);
    }

    @Test
    void kubectlReportsSchemaViolationsAndUnknownFieldsOfACustomResource() throws Exception {
        kubectl("apply", "-f", crd().toString()).ok();
        Kubectl.Run invalid = kubectl("apply", "-f", file("big.yaml", widget("big", 99)).toString());
        assertNotEquals(0, invalid.exit());
        assertTrue(invalid.err().contains("The Widget \"big\" is invalid: spec.size: Invalid value: 99: spec.size in "
                + "body should be less than or equal to 10"), invalid.err());
        Kubectl.Run unknown = kubectl("apply", "-f", file("odd.yaml", widget("odd", 1) + "  extra: 1\n").toString());
        assertNotEquals(0, unknown.exit());
        assertTrue(unknown.err().contains("unknown field \"spec.extra\""), unknown.err());
    }

    @Test
    void deleteRemovesTheCustomResourceAndThenTheCrd() throws Exception {
        Path crd = crd();
        kubectl("apply", "-f", crd.toString()).ok();
        Path cr = file("gone.yaml", widget("gone", 1));
        kubectl("apply", "-f", cr.toString()).ok();
        assertTrue(kubectl("delete", "-f", cr.toString()).ok().out().contains("widget.example.com \"gone\" deleted"));
        assertNotEquals(0, kubectl("get", "widget", "gone").exit());
        kubectl("delete", "-f", crd.toString()).ok();
        assertNotEquals(0, kubectl("get", "widgets").exit());
        kubectl("apply", "-f", crd.toString()).ok();
    }

    @Test
    void getPrintsNamespacesAsATable() throws Exception {
        String out = kubectl("get", "namespaces").ok().out();
        assertTrue(out.lines().findFirst().orElse("").matches("NAME\\s+STATUS\\s+AGE"), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("default\\s+Active\\s+\\d+[smhd]")), out);
        String resources = kubectl("api-resources").ok().out();
        assertTrue(resources.lines().anyMatch(l -> l.matches("deployments\\s+deploy\\s+apps/v1\\s+true\\s+Deployment")),
                resources);
    }

    @Test
    void imperativeGeneratorsForNamespacesConfigMapsSecretsAndServiceAccountsWork() throws Exception {
        assertTrue(kubectl("create", "namespace", "imperative").ok().out().contains("namespace/imperative created"));
        kubectl("create", "configmap", "settings", "-n", "imperative", "--from-literal=a=1", "--from-literal=b=2").ok();
        kubectl("create", "secret", "generic", "creds", "-n", "imperative", "--from-literal=password=hunter2").ok();
        kubectl("create", "serviceaccount", "robot", "-n", "imperative").ok();
        kubectl("label", "configmap", "settings", "-n", "imperative", "team=a").ok();
        assertEquals("{\"a\":\"1\",\"b\":\"2\"} {\"team\":\"a\"}", kubectl("get", "configmap", "settings",
                "-n", "imperative", "-o", "jsonpath={.data} {.metadata.labels}").ok().out());
        assertEquals("aHVudGVyMg== Opaque", kubectl("get", "secret", "creds", "-n", "imperative", "-o",
                "jsonpath={.data.password} {.type}").ok().out());
        assertEquals("robot", kubectl("get", "serviceaccount", "robot", "-n", "imperative", "-o",
                "jsonpath={.metadata.name}").ok().out());
        Kubectl.Run deployment = kubectl("create", "deployment", "web", "-n", "imperative", "--image=nginx:1.27");
        assertNotEquals(0, deployment.exit());
        assertTrue(deployment.err().contains("kubectl apply -f"), deployment.err());
    }

    @Test
    void getWatchPrintsPrinterColumnsForObjectsAsTheyChange() throws Exception {
        kubectl("apply", "-f", crd().toString()).ok();
        Path cr = file("watched.yaml", widget("watched", 5));
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(700);
                kubectl("apply", "-f", cr.toString()).ok();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Kubectl.Run watch = kubectl("get", "widgets", "-w", "--request-timeout=3s");
        writer.join();
        assertTrue(watch.out().lines().anyMatch(l -> l.matches("watched\\s+5\\s+\\d+s")), watch.out() + watch.err());
    }
}
