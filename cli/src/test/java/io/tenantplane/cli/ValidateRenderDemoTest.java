package io.tenantplane.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ValidateRenderDemoTest {

    @Test
    void theExamplesAreValid() {
        Cli.Result r = Cli.run("validate", "-f", Cli.examples().toString());
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("valid: 3 tenantplane resources, "), r::toString);
    }

    @Test
    void validateListsEveryProblemAsFileFieldMessageAndExitsTwo() {
        Cli.Result r = Cli.run("validate", "-f", Cli.fixture("invalid-tenantcluster.yaml"));
        assertEquals(2, r.code(), r::toString);
        String file = Cli.fixture("invalid-tenantcluster.yaml");
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(file) && l.contains(": spec.mode: ")), r::toString);
        assertTrue(r.out().lines().filter(l -> l.startsWith(file)).count() >= 2, r::toString);
        assertTrue(r.out().strip().endsWith("problems"), r::toString);
    }

    @Test
    void validateAndRenderNameAProfileWhoseQuotaHasNoRoomForTheTenantsOwnPods() {
        String dir = Cli.fixture("no-room");
        Cli.Result r = Cli.run("validate", "-f", dir);
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.out().contains("isolationprofile.yaml (IsolationProfile team-dev/restricted): "
                + "spec.quota.hard[pods]: 2 leaves no room for what tenantplane runs for tenant dev in namespace "
                + "team-dev, which needs 3 (StatefulSet dev-control-plane ×1, Deployment dev-dns ×2)"), r::toString);
        Cli.Result rendered = Cli.run("render", "-f", dir);
        assertEquals(2, rendered.code(), rendered::toString);
        assertTrue(rendered.err().contains("spec.quota.hard[pods]"), rendered::toString);
    }

    @Test
    void validateReportsAnUnreadableFileAndStillChecksTheOthers() {
        Cli.Result r = Cli.run("validate", "-f", Cli.fixture("malformed.yaml"), "-f", Cli.fixture("invalid-name"),
                "-o", "json");
        assertEquals(2, r.code(), r::toString);
        JsonObject o = JsonParser.parseString(r.out()).getAsJsonObject();
        assertFalse(o.get("valid").getAsBoolean());
        String all = o.getAsJsonArray("problems").toString();
        assertTrue(all.contains("malformed.yaml") && all.contains("Web_Server"), all);
    }

    @Test
    void renderPrintsTheIsolationBoundaryAndControlPlaneAsMultiDocumentYaml() {
        Cli.Result r = Cli.run("render", "-f", Cli.examples().toString());
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("---\n# "), r::toString);
        for (String kind : new String[] {"NetworkPolicy", "ResourceQuota", "LimitRange", "StatefulSet", "Service",
            "Secret"}) {
            assertTrue(r.out().contains("\nkind: " + kind + "\n"), () -> kind + " missing in\n" + r.out());
        }
        assertTrue(r.out().contains("tenantplane.io/reason"), r::toString);
    }

    @Test
    void renderWithTheHostsKubernetesServiceGivesTheServiceRangeProvisioningWouldUseThere() {
        Cli.Result plain = Cli.run("render", "-f", Cli.examples().toString());
        assertEquals(0, plain.code(), plain::toString);
        assertTrue(plain.out().contains("--service-cidr=10.96.0.0/12"), plain::toString);
        Cli.Result onK3s = Cli.run("render", "-f", Cli.examples().toString(), "--host",
                Cli.fixture("k3s-host-kubernetes-service.yaml"));
        assertEquals(0, onK3s.code(), onK3s::toString);
        assertTrue(onK3s.out().contains("--service-cidr=10.32.0.0/12"),
                () -> "the /12 block around 10.43.0.1 holds the k3s host's 10.43.0.0/16:\n" + onK3s.out());
        assertFalse(onK3s.out().contains("kind: Service\nmetadata:\n  name: kubernetes"),
                "host objects are read, never rendered");
    }

    @Test
    void renderAsJsonIsAKubernetesListThatParses() {
        Cli.Result r = Cli.run("render", "-f", Cli.examples().toString(), "-o", "json");
        assertEquals(0, r.code(), r::toString);
        JsonObject list = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("List", list.get("kind").getAsString());
        Set<String> kinds = new HashSet<>();
        for (JsonElement e : list.getAsJsonArray("items")) {
            kinds.add(e.getAsJsonObject().get("kind").getAsString());
        }
        assertTrue(kinds.contains("StatefulSet") && kinds.contains("NetworkPolicy"), kinds::toString);
    }

    @Test
    void renderNeedsTheReferencedIsolationProfile() {
        Cli.Result r = Cli.run("render", "-f", Cli.examples().resolve("tenantcluster.yaml").toString());
        assertEquals(2, r.code(), r::toString);
        ExplainSyncCommandTest.assertOneLine(r.err());
        assertTrue(r.err().contains("spec.isolationProfileRef.name") || r.err().contains("spec.syncPolicyRef.name"),
                r::toString);
    }

    @Test
    void demoRunsFromTheEmbeddedExamplesWithAPlanAndAnExplanation() {
        Cli.Result r = Cli.run("demo");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("# Plan: "), r::toString);
        assertTrue(r.out().contains("embedded"), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("Create ") && l.contains("team-dev/nginx-x-default-x-dev")),
                r::toString);
        assertTrue(r.out().contains("# Explain: Pod default/nginx of tenant dev"), r::toString);
        assertTrue(r.out().contains("hostResource:\n  namespace: team-dev\n  name: nginx-x-default-x-dev\n"), r::toString);
    }

    @Test
    void docsCliShowsWhatTheDemoPrints() throws java.io.IOException {
        Cli.Result r = Cli.run("demo");
        String doc = java.nio.file.Files.readString(Cli.examples().resolve("../../docs/cli.md").normalize());
        String start = "$ tenantplane demo\n";
        int from = doc.indexOf(start);
        assertTrue(from >= 0, "docs/cli.md shows a demo run");
        String shown = doc.substring(from + start.length(), doc.indexOf("[exit 0]\n```", from));
        assertEquals(r.out(), shown, "docs/cli.md's demo block is what `tenantplane demo` prints");
    }

    @Test
    void demoOverADirectoryGivesTheSameAnswer() {
        Cli.Result embedded = Cli.run("demo");
        Cli.Result dir = Cli.run("demo", "--dir", Cli.examples().toString());
        assertEquals(0, dir.code(), dir::toString);
        String plan = embedded.out().substring(embedded.out().indexOf("ACTION"), embedded.out().indexOf("# Explain"));
        assertTrue(dir.out().contains(plan), () -> "same plan expected:\n" + plan + "\nin\n" + dir.out());
    }
}
