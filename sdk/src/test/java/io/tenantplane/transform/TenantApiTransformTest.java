package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.plan.internal.TenantTokens;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What a tenant pod gets on the host to reach its own API: token volume, KUBERNETES_* variables, host aliases. */
class TenantApiTransformTest {

    private static final TransformOptions.TenantApi API = new TransformOptions.TenantApi("10.96.0.50", 443);

    /** A pod as the tenant API returns it after ServiceAccount admission added its kube-api-access volume. */
    private static JsonObject pod(String extraEnv) {
        return JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"runner","namespace":"ci","uid":"u-1"},
                 "spec":{"serviceAccountName":"builder",
                   "containers":[{"name":"app","image":"busybox","env":[%s],
                     "volumeMounts":[{"name":"kube-api-access-7x2kq",
                       "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true},
                       {"name":"vault-token","mountPath":"/var/run/vault"}]}],
                   "volumes":[{"name":"kube-api-access-7x2kq","projected":{"sources":[
                     {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
                     {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
                     {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1",
                       "fieldPath":"metadata.namespace"}}]}}]}},
                     {"name":"vault-token","projected":{"sources":[
                       {"serviceAccountToken":{"audience":"vault","expirationSeconds":900,"path":"vt"}}]}}]}}
                """.formatted(extraEnv)).getAsJsonObject();
    }

    private static Transformer transformer(TransformOptions.TenantApi api) {
        List<SyncPolicy.KindRule> rules = Stream.of("Pod", "ConfigMap", "Secret")
                .map(k -> new SyncPolicy.KindRule(k, null, true, null, null, null)).toList();
        return new Transformer("dev", "team-dev", new SyncPolicy(null, null, null, new SyncPolicy.Spec(rules)),
                TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED).withTenantApi(api));
    }

    private static TransformResult.Transformed transform(JsonObject pod, TransformOptions.TenantApi api) {
        return assertInstanceOf(TransformResult.Transformed.class, transformer(api).transform(pod));
    }

    private static JsonObject volume(JsonObject host, String name) {
        for (JsonElement v : host.getAsJsonObject("spec").getAsJsonArray("volumes")) {
            if (name.equals(Json.string(v.getAsJsonObject(), "name"))) {
                return v.getAsJsonObject();
            }
        }
        return null;
    }

    private static Map<String, String> env(JsonObject host) {
        Map<String, String> out = new HashMap<>();
        JsonObject c = host.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject();
        for (JsonElement e : c.getAsJsonArray("env")) {
            out.put(Json.string(e.getAsJsonObject(), "name"), Json.string(e.getAsJsonObject(), "value"));
        }
        return out;
    }

    @Test
    void theTokenVolumeReadsTheTenantTokenCaAndNamespaceFromThePodsTokenSecret() {
        TransformResult.Transformed t = transform(pod(""), API);
        JsonObject v = volume(t.host(), "kube-api-access-7x2kq");
        JsonArray sources = v.getAsJsonObject("projected").getAsJsonArray("sources");
        String secret = "runner-x-ci-x-dev-token";
        assertEquals(JsonParser.parseString("{\"secret\":{\"name\":\"" + secret
                + "\",\"items\":[{\"key\":\"token\",\"path\":\"token\"}]}}"), sources.get(0));
        assertEquals(JsonParser.parseString("{\"secret\":{\"name\":\"" + secret
                + "\",\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}}"), sources.get(1));
        assertEquals("metadata.annotations['tenantplane.io/source-namespace']", Json.string(sources.get(2)
                .getAsJsonObject().getAsJsonObject("downwardAPI").getAsJsonArray("items").get(0).getAsJsonObject(),
                "fieldRef", "fieldPath"), "the namespace file holds the virtual namespace");
        JsonObject vault = volume(t.host(), "vault-token").getAsJsonObject("projected").getAsJsonArray("sources")
                .get(0).getAsJsonObject();
        assertEquals(Transformer.tokenKey("vault"), Json.string(vault.getAsJsonObject("secret").getAsJsonArray("items")
                .get(0).getAsJsonObject(), "key"), "another audience reads its own token");
        assertTrue(Transformer.tokenKey("vault").startsWith("token-"));
        assertFalse(t.host().toString().contains("serviceAccountToken"), "no host token is projected");
        assertEquals(false, t.host().getAsJsonObject("spec").get("automountServiceAccountToken").getAsBoolean());
        assertTrue(t.notes().stream().anyMatch(n -> n.contains("mounts a tenant token for ServiceAccount ci/builder")
                && n.contains("API at 10.96.0.50:443")), t.notes()::toString);
        assertEquals(List.of(new TenantTokens.Audience(null, 3607), new TenantTokens.Audience("vault", 900)),
                TenantTokens.audiences(pod("")));
    }

    @Test
    void containersGetTheTenantApiAsKubernetesServiceAndTheDefaultNamesResolveToIt() {
        TransformResult.Transformed t = transform(pod(""), API);
        Map<String, String> env = env(t.host());
        assertEquals("10.96.0.50", env.get("KUBERNETES_SERVICE_HOST"));
        assertEquals("443", env.get("KUBERNETES_SERVICE_PORT"));
        assertEquals("443", env.get("KUBERNETES_SERVICE_PORT_HTTPS"));
        assertEquals("tcp://10.96.0.50:443", env.get("KUBERNETES_PORT"));
        assertEquals("tcp://10.96.0.50:443", env.get("KUBERNETES_PORT_443_TCP"));
        assertEquals("tcp", env.get("KUBERNETES_PORT_443_TCP_PROTO"));
        assertEquals("443", env.get("KUBERNETES_PORT_443_TCP_PORT"));
        assertEquals("10.96.0.50", env.get("KUBERNETES_PORT_443_TCP_ADDR"));
        assertEquals(JsonParser.parseString("[{\"ip\":\"10.96.0.50\",\"hostnames\":[\"kubernetes\","
                + "\"kubernetes.default\",\"kubernetes.default.svc\",\"kubernetes.default.svc.cluster.local\"]}]"),
                t.host().getAsJsonObject("spec").get("hostAliases"));
    }

    @Test
    void aContainersOwnKubernetesServiceHostIsKept() {
        TransformResult.Transformed t = transform(pod("{\"name\":\"KUBERNETES_SERVICE_HOST\",\"value\":\"my.api\"}"),
                API);
        assertEquals("my.api", env(t.host()).get("KUBERNETES_SERVICE_HOST"));
        assertEquals("443", env(t.host()).get("KUBERNETES_SERVICE_PORT"));
    }

    @Test
    void withoutAnAddressForTheTenantApiThereAreNoHostAliases() {
        TransformResult.Transformed t = transform(pod(""), new TransformOptions.TenantApi("dev-api.team-dev.svc", 443));
        assertEquals("dev-api.team-dev.svc", env(t.host()).get("KUBERNETES_SERVICE_HOST"));
        assertNull(t.host().getAsJsonObject("spec").get("hostAliases"));
    }

    @Test
    void withoutATenantApiThePodGetsNoTokenAsBefore() {
        TransformResult.Transformed t = transform(pod(""), null);
        assertNull(volume(t.host(), "kube-api-access-7x2kq"), "the tenant token volume is removed");
        assertFalse(env(t.host()).containsKey("KUBERNETES_SERVICE_HOST"));
    }

    @Test
    void aPodWaitsWhileTheTenantApiServiceHasNoAddress() {
        TransformResult.Skipped s = assertInstanceOf(TransformResult.Skipped.class,
                transformer(TransformOptions.TenantApi.pending("dev-api.team-dev.svc")).transform(pod("")));
        assertEquals(TransformResult.TENANT_API_PENDING, s.reason());
        assertEquals("spec.serviceAccountName", s.fieldPath());
        assertTrue(s.message().contains("ServiceAccount ci/builder"), s.message());
        assertTrue(s.message().contains("dev-api.team-dev.svc has no IP on the host yet"), s.message());
    }

    @Test
    void aPodThatIsRefusedIsRefusedEvenWhileTheTenantApiIsPending() {
        JsonObject pod = pod("");
        pod.getAsJsonObject("spec").getAsJsonArray("containers").get(0).getAsJsonObject()
                .add("envFrom", JsonParser.parseString("[{\"secretRef\":{\"name\":\"../other\"}}]"));
        TransformResult r = transformer(TransformOptions.TenantApi.pending("dev-api.team-dev.svc")).transform(pod);
        TransformResult.Rejected rejected = assertInstanceOf(TransformResult.Rejected.class, r);
        assertEquals(TransformResult.INVALID_SOURCE, rejected.reason());
    }

    @Test
    void aPlannedTenantApiIsNamedByItsServiceWithoutHostAliases() {
        TransformResult.Transformed t = transform(pod(""), TransformOptions.TenantApi.planned("dev-api.team-dev.svc"));
        assertEquals("dev-api.team-dev.svc", env(t.host()).get("KUBERNETES_SERVICE_HOST"));
        assertFalse(t.host().getAsJsonObject("spec").has("hostAliases"));
        assertTrue(t.notes().stream().anyMatch(n -> n.contains("shown by its Service's DNS name")), t.notes().toString());
    }
}
