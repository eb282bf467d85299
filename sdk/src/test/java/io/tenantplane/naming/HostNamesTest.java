package io.tenantplane.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.plan.FixtureYaml;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

class HostNamesTest {

    /** vcluster's SafeConcatName(name, "x", namespace, "x", suffix), ported line by line, for the compatibility claim. */
    static String vclusterSafeConcatName(String... parts) {
        String full = String.join("-", parts);
        if (full.length() > 63) {
            String digest = HostNames.sha256Hex(full);
            return (full.substring(0, 52) + "-" + digest.substring(0, 10)).replace(".-", "-");
        }
        return full;
    }

    static String vcluster(String name, String ns, String tenant) {
        return ns == null ? vclusterSafeConcatName(name, "x", tenant) : vclusterSafeConcatName(name, "x", ns, "x", tenant);
    }

    @TestFactory
    Stream<DynamicTest> goldenNamesMatchTheDocumentedRuleAndTheirVclusterStatus() {
        JsonObject doc = FixtureYaml.resource("naming/goldens.yaml").get(0).getAsJsonObject();
        return FixtureYaml.objects(doc, "cases").stream().map(c -> {
            String name = Json.string(c, "name");
            String ns = Json.string(c, "virtualNamespace");
            String tenant = Json.string(c, "tenant");
            return DynamicTest.dynamicTest(name + "/" + ns + "/" + tenant + " -> " + Json.string(c, "hostName"), () -> {
                NameDerivation d = HostNames.derive(name, ns, tenant);
                assertEquals(Json.string(c, "hostName"), d.hostName());
                assertEquals(c.get("hashed").getAsBoolean(), d.hashed());
                assertEquals(d.hostName(), ns == null ? HostNames.clusterScopedHostName(name, tenant) : HostNames.hostName(name, ns, tenant));
                boolean same = vcluster(name, ns, tenant).equals(d.hostName());
                assertEquals(Json.string(c, "vcluster").equals("same"), same, "vcluster gives " + vcluster(name, ns, tenant));
                assertTrue(d.hostName().length() <= 63);
            });
        });
    }

    @Test
    void seedExampleNamesNginxInDefaultOfDev() {
        assertEquals("nginx-x-default-x-dev", HostNames.hostName("nginx", "default", "dev"));
    }

    @Test
    void aHashedNameSaysWhyItWasHashed() {
        assertTrue(HostNames.derive("a-x-b", "default", "dev").hashReason().contains("ambiguous"));
        assertTrue(HostNames.derive("a".repeat(60), "default", "dev").hashReason().contains("76 characters"));
        assertEquals(null, HostNames.derive("nginx", "default", "dev").hashReason());
    }

    @Test
    void invalidPartsAreRefusedNamingTheArgument() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.hostName("", "default", "dev"))
                .getMessage().startsWith("name"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.hostName("Nginx", "default", "dev"))
                .getMessage().startsWith("name 'Nginx'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.hostName("nginx", "a.b", "dev"))
                .getMessage().startsWith("virtualNamespace"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostNames.hostName("nginx", "default", null))
                .getMessage().startsWith("tenant"));
    }

    @Test
    void plainNamesParseBackAndHashedOrForeignNamesDoNot() {
        assertEquals(Optional.of(new HostNames.Parts("nginx", "default", "dev")), HostNames.parse("nginx-x-default-x-dev", true));
        assertEquals(Optional.of(new HostNames.Parts("a", "x-b", "dev")), HostNames.parse("a-x-x-b-x-dev", true));
        assertEquals(Optional.of(new HostNames.Parts("fast-ssd", null, "dev")), HostNames.parse("fast-ssd-x-dev", false));
        assertFalse(HostNames.parse(HostNames.hostName("a-x-b", "default", "dev"), true).isPresent());
        assertFalse(HostNames.parse("coredns", true).isPresent());
        assertFalse(HostNames.parse("a-x-b-x-c-x-d", true).isPresent());
        assertFalse(HostNames.parse("nginx-x-default-x-dev", false).isPresent());
    }

    @Test
    void labelAndSubdomainChecksFollowKubernetes() {
        assertTrue(HostNames.isDns1123Label("a-b-0"));
        assertFalse(HostNames.isDns1123Label("-a"));
        assertFalse(HostNames.isDns1123Label("a".repeat(64)));
        assertFalse(HostNames.isDns1123Label("a.b"));
        assertTrue(HostNames.isDns1123Subdomain("a.b-c"));
        assertFalse(HostNames.isDns1123Subdomain("a..b"));
        assertFalse(HostNames.isDns1123Subdomain("a.-b"));
        assertTrue(HostNames.isDns1123Subdomain("a".repeat(70)), "Kubernetes does not limit the parts of a subdomain name");
        assertFalse(HostNames.isDns1123Subdomain("a".repeat(254)));
    }

    @Test
    void differentSourcesGetDifferentNamesInTheGoldenCorpusExceptTheBruteForcedCollision() {
        JsonObject doc = FixtureYaml.resource("naming/goldens.yaml").get(0).getAsJsonObject();
        List<JsonObject> cases = FixtureYaml.objects(doc, "cases");
        long distinctNames = cases.stream().map(c -> Json.string(c, "hostName")).distinct().count();
        assertEquals(cases.size() - 1, distinctNames);
        assertNotEquals(HostNames.hostName("a-x", "b", "dev"), HostNames.hostName("a", "x-b", "dev"));
    }
}
