package io.tenantplane.cli;

import static io.tenantplane.cli.ExplainSyncCommandTest.assertOneLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlanCommandTest {

    private static final Set<String> SYNCED_BY_EXAMPLE_POLICY = Set.of("Pod", "Service", "ConfigMap", "Secret",
            "PersistentVolumeClaim", "Ingress");

    @Test
    void planOverTheExamplesExitsZeroAndCreatesEveryExampleWorkload() throws Exception {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString());
        assertEquals(0, r.code(), r::toString);
        List<LoadedObject> workloads = workloads();
        assertFalse(workloads.isEmpty(), "examples/yaml/workloads holds the example workloads");
        for (LoadedObject w : workloads) {
            if (!SYNCED_BY_EXAMPLE_POLICY.contains(w.kind())) {
                continue;
            }
            String ns = w.namespace() == null ? "default" : w.namespace();
            String row = "Create   " + w.kind();
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("Create ") && l.contains(" " + w.kind() + " ")
                    && l.contains(" " + ns + "/" + w.name() + " ") && l.contains("team-dev/" + w.name() + "-x-" + ns
                    + "-x-dev")), () -> "expected a " + row + " line for " + w.describe() + " in\n" + r.out());
        }
        assertTrue(r.out().startsWith("ACTION "), r::toString);
    }

    @Test
    void aForeignHostObjectWithTheSameNameIsAConflictAndExitsOne() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "--host", Cli.fixture("foreign-host-pod.yaml"));
        assertEquals(1, r.code(), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("Conflict ") && l.contains("default/nginx")
                && l.contains("team-dev/nginx-x-default-x-dev") && l.contains("ForeignObject")), r::toString);
        assertTrue(r.out().contains("exit code 1"), r::toString);
    }

    @Test
    void theHostCopyTenantplaneMadeIsNotAConflict() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "--host", Cli.fixture("managed-host-pod.yaml"),
                "-o", "json");
        JsonObject plan = JsonParser.parseString(r.out()).getAsJsonObject();
        JsonObject nginx = decision(plan, "Pod", "nginx");
        assertTrue(Set.of("Update", "Unchanged", "Delete").contains(nginx.get("action").getAsString()), r::toString);
        assertFalse(plan.get("hasProblems").getAsBoolean(), r::toString);
        assertEquals(0, r.code(), r::toString);
    }

    @Test
    void jsonOutputParsesWithEveryDecisionAndItsReason() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "-o", "json");
        assertEquals(0, r.code(), r::toString);
        JsonObject plan = JsonParser.parseString(r.out()).getAsJsonObject();
        assertEquals("dev", plan.get("tenant").getAsString());
        assertEquals("team-dev", plan.get("hostNamespace").getAsString());
        JsonObject nginx = decision(plan, "Pod", "nginx");
        assertEquals("Create", nginx.get("action").getAsString());
        assertEquals("NotOnHost", nginx.get("reason").getAsString());
        assertEquals("nginx-x-default-x-dev", nginx.getAsJsonObject("host").get("name").getAsString());
        assertFalse(nginx.has("desired"), "objects only with --show-objects");
    }

    @Test
    void showObjectsIncludesTheDesiredHostObject() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "-o", "json", "--show-objects");
        JsonObject nginx = decision(JsonParser.parseString(r.out()).getAsJsonObject(), "Pod", "nginx");
        JsonObject desired = nginx.getAsJsonObject("desired");
        assertEquals("nginx-x-default-x-dev", desired.getAsJsonObject("metadata").get("name").getAsString());
        assertEquals("dev", desired.getAsJsonObject("metadata").getAsJsonObject("labels")
                .get("tenantplane.io/tenant").getAsString());
    }

    @Test
    void planningAgainstTheHostCopiesItWouldCreateIsAllUnchangedAndAGoneSourceIsDeleted(@TempDir Path dir)
            throws Exception {
        Cli.Result first = Cli.run("plan", "-f", Cli.examples().toString(), "-o", "json", "--show-objects");
        JsonArray items = new JsonArray();
        for (JsonElement d : JsonParser.parseString(first.out()).getAsJsonObject().getAsJsonArray("decisions")) {
            JsonObject desired = d.getAsJsonObject().getAsJsonObject("desired");
            if (desired != null) {  // the Deployment is a Skip: it stays in the tenant
                items.add(desired);
            }
        }
        JsonObject list = new JsonObject();
        list.addProperty("apiVersion", "v1");
        list.addProperty("kind", "List");
        list.add("items", items);
        Path host = dir.resolve("host.json");
        Files.writeString(host, list.toString());

        Cli.Result again = Cli.run("plan", "-f", Cli.examples().toString(), "--host", host.toString());
        assertEquals(0, again.code(), again::toString);
        assertTrue(again.out().contains(items.size() + " Unchanged"), again::toString);
        assertTrue(again.out().lines().noneMatch(l -> l.startsWith("Create ") || l.startsWith("Update ")),
                again::toString);

        Path tenant = dir.resolve("tenant");
        Files.createDirectories(tenant.resolve("workloads"));
        for (String f : List.of("tenantcluster.yaml", "isolationprofile.yaml", "syncpolicy.yaml")) {
            Files.copy(Cli.examples().resolve(f), tenant.resolve(f));
        }
        try (Stream<Path> s = Files.list(Cli.examples().resolve("workloads"))) {
            for (Path w : s.filter(p -> !p.getFileName().toString().startsWith("configmap")).toList()) {
                Files.copy(w, tenant.resolve("workloads").resolve(w.getFileName()));
            }
        }
        Cli.Result gc = Cli.run("plan", "-f", tenant.toString(), "--host", host.toString());
        assertEquals(0, gc.code(), gc::toString);
        assertTrue(gc.out().lines().anyMatch(l -> l.startsWith("Delete ") && l.contains("ConfigMap")
                && l.contains("team-dev/nginx-config-x-default-x-dev") && l.contains("SourceDeleted")), gc::toString);
    }

    @Test
    void yamlOutputListsTheDecisions() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "-o", "yaml");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("tenant: dev\nhostNamespace: team-dev\n"), r::toString);
        assertTrue(r.out().contains("- action: Create\n  kind: Pod\n"), r::toString);
    }

    @Test
    void aMissingSyncPolicyRefIsOneLineNamingTheRefAndExitsTwo() {
        Cli.Result r = Cli.run("plan", "-f", Cli.fixture("missing-ref"));
        assertEquals(2, r.code(), r::toString);
        assertOneLine(r.err());
        assertTrue(r.err().contains("spec.syncPolicyRef.name"), r::toString);
        assertTrue(r.err().contains("\"strict\""), r::toString);
        assertTrue(r.err().contains("tenantcluster.yaml"), r::toString);
    }

    @Test
    void tenantAndNamespaceFlagsStandInForATenantCluster() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().resolve("workloads").toString(),
                "--tenant", "qa", "--tenant-namespace", "team-qa");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("team-qa/nginx-x-default-x-qa"), r::toString);
        assertTrue(r.err().contains("note: no SyncPolicy given"), r::toString);
    }

    @Test
    void anUnknownOutputFormatIsBadInput() {
        Cli.Result r = Cli.run("plan", "-f", Cli.examples().toString(), "-o", "xml");
        assertEquals(2, r.code(), r::toString);
        assertEquals("tenantplane: -o/--output: unsupported format 'xml'; use one of table, wide, yaml, json\n", r.err());
    }

    private static JsonObject decision(JsonObject plan, String kind, String sourceName) {
        for (JsonElement e : plan.getAsJsonArray("decisions")) {
            JsonObject d = e.getAsJsonObject();
            if (kind.equals(d.get("kind").getAsString()) && d.has("source")
                    && sourceName.equals(d.getAsJsonObject("source").get("name").getAsString())) {
                return d;
            }
        }
        throw new AssertionError("no " + kind + " decision for " + sourceName + " in " + plan);
    }

    static List<LoadedObject> workloads() throws Exception {
        List<Path> files = new java.util.ArrayList<>();
        for (String dir : List.of("workloads", "tenant-api-snapshot")) {
            try (Stream<Path> s = Files.walk(Cli.examples().resolve(dir))) {
                files.addAll(s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".yaml")).sorted()
                        .toList());
            }
        }
        return Manifests.read(files);
    }
}
