package io.tenantplane.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.tenantplane.model.IsolationProfile;
import io.tenantplane.model.Parsed;
import io.tenantplane.model.SyncPolicy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a tenant's IsolationProfile asks of its host copies, decided in one place for the pass, explain and a
 * migration's copies ({@link TransformOptions#forProfile}).
 */
class ProfileOptionsTest {

    private static IsolationProfile profile() {
        JsonObject json = JsonParser.parseString("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"IsolationProfile",
                 "metadata":{"name":"restricted","namespace":"team-dev"},
                 "spec":{"network":{"egressToCIDRs":["10.20.0.0/16"]},
                         "podSecurity":{"level":"baseline"},
                         "services":{"allowedTypes":["ClusterIP","LoadBalancer"]},
                         "nodePlacement":{"nodeSelector":{"pool":"dedicated"},
                                          "tolerations":[{"key":"dedicated","operator":"Exists"}]}}}""")
                .getAsJsonObject();
        return ((Parsed.Ok<IsolationProfile>) IsolationProfile.fromJson(json)).value();
    }

    private static SyncPolicy policy(String kinds) {
        JsonObject json = JsonParser.parseString("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy","metadata":{"name":"default",
                 "namespace":"team-dev"},"spec":{"kinds":%s}}""".formatted(kinds)).getAsJsonObject();
        return ((Parsed.Ok<SyncPolicy>) SyncPolicy.fromJson(json)).value();
    }

    @Test
    void theProfilesRulesBecomeTheTransformsOptions() {
        SyncPolicy pods = policy("[{\"kind\":\"Pod\",\"toHost\":true}]");
        TransformOptions shared = TransformOptions.forProfile("dev", false, profile(), pods);

        assertEquals(List.of("10.20.0.0/16"), shared.endpointAddresses().allowedCidrs(),
                "Endpoints may name the profile's egress CIDRs");
        assertEquals(PodSecurityLevel.BASELINE, shared.podSecurity());
        assertEquals(Set.of("ClusterIP", "LoadBalancer"), shared.allowedServiceTypes());
        assertEquals("dev-workload", shared.hostServiceAccount(), "pods run as the tenant's workload account");
        assertEquals(Map.of(), shared.nodeSelector(), "node placement is for dedicated mode only");

        TransformOptions dedicated = TransformOptions.forProfile("dev", true, profile(), pods);
        assertEquals(Map.of("pool", "dedicated"), dedicated.nodeSelector());
        assertEquals(1, dedicated.tolerations().size());
    }

    @Test
    void aPolicyThatSyncsServiceAccountsKeepsThePodsOwnAndNoProfileMeansTheDefaults() {
        TransformOptions own = TransformOptions.forProfile("dev", false, profile(),
                policy("[{\"kind\":\"Pod\",\"toHost\":true},{\"kind\":\"ServiceAccount\",\"toHost\":true}]"));
        assertEquals(TransformOptions.defaults().hostServiceAccount(), own.hostServiceAccount());
        assertTrue(TransformOptions.forProfile("dev", true, null, null).equals(TransformOptions.defaults()));
    }
}
