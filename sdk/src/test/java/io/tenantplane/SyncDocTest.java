package io.tenantplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * docs/sync.md's worked example is what tenantplane does today: its SyncPolicy and tenant object, planned offline
 * against its host CRD, give exactly the host object the page shows; the RBAC it shows is the file the RBAC-from-code
 * test grants; its example policy passes validation.
 */
class SyncDocTest {

    private static final Path DOC = Path.of("..", "docs", "sync.md");

    /** The YAML block that follows {@code <!-- sync.md: name -->}. */
    private static String block(String doc, String name) {
        Matcher m = Pattern.compile("<!-- sync\\.md: " + Pattern.quote(name) + " -->\\s*```yaml\\n(.*?)```",
                Pattern.DOTALL).matcher(doc);
        assertTrue(m.find(), "docs/sync.md has no block " + name);
        return m.group(1);
    }

    private static JsonObject one(String yaml) {
        List<LoadedObject> docs = Manifests.parse(yaml, DOC);
        assertEquals(1, docs.size());
        return docs.get(0).object();
    }

    private static String yaml(JsonObject o) {
        DumperOptions opts = new DumperOptions();
        opts.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(opts).dump(Json.toYamlValue(o));
    }

    @Test
    void theWorkedExampleIsWhatThePlannerMakes() throws IOException {
        String doc = Files.readString(DOC);
        SyncPolicy policy = SyncPolicy.fromJson(one(block(doc, "policy"))).orElseThrow();
        assertEquals(List.of(), policy.validate());
        List<JsonObject> tenant = new ArrayList<>();
        Manifests.parse(block(doc, "tenant"), DOC).forEach(lo -> tenant.add(lo.object()));
        JsonObject crd = one(block(doc, "host-crd"));
        TenantCluster tc = TenantPlaneTest.one(TenantCluster.class);
        Plan plan = TenantPlane.builder().allowedKinds(List.of("Certificate.cert-manager.io")).build()
                .plan(new PlanRequest(tc, null, policy, tenant, List.of(crd)));
        Decision d = plan.decisions().stream().filter(x -> x.kind().equals("Certificate")).findFirst().orElseThrow();
        String actual = yaml(d.desired());
        String shown = block(doc, "host");
        if (Boolean.getBoolean("tenantplane.docs.print")) {
            System.out.println("----8<----\n" + actual + "----8<----\n" + d.message());
        }
        assertEquals(actual, shown, "docs/sync.md shows another host object than the planner makes; run with "
                + "-Dtenantplane.docs.print=true and paste it");
        assertTrue(doc.contains(d.message()), "docs/sync.md quotes the decision's message:\n" + d.message());
    }

    @Test
    void theSyncExamplePolicyIsValid() {
        List<LoadedObject> docs = Manifests.read(Path.of("..", "examples", "sync"));
        assertEquals(1, docs.size());
        SyncPolicy p = SyncPolicy.fromJson(docs.get(0).object()).orElseThrow();
        assertEquals(List.of(), p.validate());
        assertEquals(2, p.mirrors().size());
        assertTrue(p.rule("Certificate").orElseThrow().custom());
    }

    @Test
    void theRbacShownIsTheOptInFileTheRbacTestGrants() throws IOException {
        String doc = Files.readString(DOC);
        String file = Files.readString(Path.of("..", "examples", "rbac", "sync-backups.example.com.yaml"));
        String shown = block(doc, "rbac");
        assertTrue(file.contains(shown), "the RBAC in docs/sync.md is examples/rbac/sync-backups.example.com.yaml");
    }
}
