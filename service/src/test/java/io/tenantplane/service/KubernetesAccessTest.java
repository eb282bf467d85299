package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.testkit.KubeApiServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Delegated authentication and authorisation against an in-process host: who a token is, what RBAC lets them do,
 * how long an answer is reused, and what happens when the host does not answer.
 */
class KubernetesAccessTest {

    private KubeApiServer host;
    private Kube kube;
    private final MutableClock clock = new MutableClock();

    private static final class MutableClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @BeforeEach
    void start() {
        host = KubeApiServer.builder().namespaces("default", "team-dev", "team-prod").build().start();
        kube = Kube.at(host.url());
    }

    @AfterEach
    void stop() {
        host.close();
    }

    private KubernetesAccess access() {
        return new KubernetesAccess(new ClientBuilder().setBasePath(host.url()).build(), clock);
    }

    @Test
    void aServiceAccountTokenIsThatServiceAccountWithItsGroups() {
        Caller caller = access().authenticate(kube.token("team-dev", "ci")).orElseThrow();

        assertEquals("system:serviceaccount:team-dev:ci", caller.name());
        assertFalse(caller.uid().isEmpty(), "the ServiceAccount's uid");
        assertTrue(caller.groups().containsAll(List.of("system:serviceaccounts", "system:serviceaccounts:team-dev",
                "system:authenticated")), caller.groups().toString());
        assertTrue(access().authenticate("eyJhbGciOiJub25lIn0.e30.").isEmpty(), "an unsigned token is nobody");
    }

    @Test
    void rbacDecidesPerNamespaceAndARevokedBindingStopsCountingAfterTheCacheTtl() {
        kube.grantView("team-dev", "ci", "team-dev");
        KubernetesAccess access = access();
        Caller ci = access.authenticate(kube.token("team-dev", "ci")).orElseThrow();

        assertTrue(access.allows(ci, TenantsResource.seeing("team-dev", "dev")));
        assertFalse(access.allows(ci, TenantsResource.seeing("team-prod", "prod")));
        assertFalse(access.allows(ci, new KubernetesAccess.Attributes("update", "tenantplane.io", "tenantclusters",
                "team-dev", "dev")), "view is not update");

        kube.delete("RoleBinding", "team-dev", "view-team-dev-ci");
        assertTrue(access.allows(ci, TenantsResource.seeing("team-dev", "dev")), "reused within the TTL");
        clock.now = clock.now.plus(KubernetesAccess.CACHE_TTL);
        assertFalse(access.allows(ci, TenantsResource.seeing("team-dev", "dev")), "asked again after the TTL");
    }

    @Test
    void aHostThatDoesNotAnswerIsUnavailableNeverAllowed() {
        var client = new ClientBuilder().setBasePath("http://127.0.0.1:9").build();
        client.setHttpClient(client.getHttpClient().newBuilder().callTimeout(Duration.ofSeconds(2)).build());
        KubernetesAccess access = new KubernetesAccess(client, clock);
        Caller someone = new Caller("someone", "", List.of("system:authenticated"), java.util.Map.of());

        var e = assertThrows(KubernetesAccess.Unavailable.class, () -> access.authenticate("token"));
        assertTrue(e.getMessage().contains("did not review the token (no answer"), e.getMessage());
        assertThrows(KubernetesAccess.Unavailable.class, () -> access.allows(someone,
                TenantsResource.seeing("team-dev", "dev")));
    }
}
