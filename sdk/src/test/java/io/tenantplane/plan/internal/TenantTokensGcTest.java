package io.tenantplane.plan.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.gson.JsonObject;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Reasons;
import io.tenantplane.transform.Transformer;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which tenant token Secrets a full pass deletes: those no host Pod that stays mounts. */
class TenantTokensGcTest {
    private static final String NS = "team-dev";
    private static final String POD = "web-x-default-x-dev";
    private static final String SECRET = Transformer.tokenSecretName(POD);

    private static JsonObject hostPod() {
        return com.google.gson.JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s"},
                 "spec":{"volumes":[{"name":"kube-api-access","projected":{"sources":[{"secret":{"name":"%s"}}]}}]}}"""
                .formatted(POD, NS, SECRET)).getAsJsonObject();
    }

    private static JsonObject secret() {
        return com.google.gson.JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s","namespace":"%s",
                  "labels":{"%s":"%s","%s":"dev"},"annotations":{"%s":"%s"}}}"""
                .formatted(SECRET, NS, ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE, ReverseMapping.TENANT,
                        TenantTokens.TOKEN_FOR, POD)).getAsJsonObject();
    }

    private static Decision podDecision(Action action) {
        Decision.HostRef h = new Decision.HostRef(NS, POD);
        return action == Action.DELETE ? Decision.delete("Pod", null, h, Reasons.SOURCE_DELETED, "m", null, hostPod())
                : Decision.unchanged("Pod", null, h, Reasons.IN_SYNC, "m", null, hostPod());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("the host Pod stays: its Secret stays", List.of(hostPod()), List.of(), List.of()),
                Arguments.of("the host Pod is gone: its Secret goes", List.of(), List.of(), List.of(SECRET)),
                Arguments.of("the pass deletes the host Pod: its Secret goes in the same pass", List.of(hostPod()),
                        List.of(podDecision(Action.DELETE)), List.of(SECRET)),
                Arguments.of("the pass leaves the host Pod unchanged: its Secret stays", List.of(hostPod()),
                        List.of(podDecision(Action.UNCHANGED)), List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aTokenSecretIsCollectedWithItsHostPod(String name, List<JsonObject> hostObjects, List<Decision> plan,
                                               List<String> deleted) {
        TenantTokens.Result r = TenantTokens.plan("dev", NS, new Plan(plan), List.of(), hostObjects,
                List.of(secret()), Instant.parse("2026-06-01T10:00:00Z"), true);
        assertEquals(deleted, r.deletes().stream().map(d -> d.host().name()).toList(), name);
        r.deletes().forEach(d -> assertEquals(TenantTokens.UNUSED, d.reason()));
    }
}
