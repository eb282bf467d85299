package io.tenantplane.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.observe.TenantKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The installation's kubelet CA: what it issues, what it reads back, and what it refuses to load. */
class KubeletCaTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);

    @Test
    void aTenantClientCertificateNamesItsTenantAndUidAndIsSignedByTheCa() throws Exception {
        KubeletCa ca = KubeletCa.generate("test-ca", CLOCK);
        KubeletCa.Credential c = ca.issueTenantClient(new TenantKey("team-dev", "dev"), "1234-uid", Duration.ofDays(30));

        c.certificate().verify(ca.certificate().getPublicKey());
        assertEquals(Optional.of(new KubeletCa.Identity(new TenantKey("team-dev", "dev"), "1234-uid")),
                KubeletCa.tenantOf(c.certificate()));
        assertEquals(List.of("1.3.6.1.5.5.7.3.2"), c.certificate().getExtendedKeyUsage(), "client auth only");
        assertEquals(-1, c.certificate().getBasicConstraints(), "not a CA");
    }

    @Test
    void aServingCertificateNamesNoTenantAndCarriesItsNames() throws Exception {
        KubeletCa ca = KubeletCa.generate("test-ca", CLOCK);
        KubeletCa.Credential s = ca.issueServing(List.of("tenantplane-kubelet.tenantplane-system.svc", "10.96.0.20"),
                Duration.ofDays(1));

        assertEquals(Optional.empty(), KubeletCa.tenantOf(s.certificate()));
        var names = s.certificate().getSubjectAlternativeNames().stream().map(l -> l.get(0) + ":" + l.get(1)).toList();
        assertEquals(List.of("2:tenantplane-kubelet.tenantplane-system.svc", "7:10.96.0.20",
                "2:" + KubeletEndpoint.METRICS_SERVER_NAME), names,
                "a DNS name and an IP address, and the name tenant aggregators verify for metrics.k8s.io");
        assertThrows(IllegalArgumentException.class, () -> ca.issueServing(List.of(), Duration.ofDays(1)));
    }

    @Test
    void aCaStoredAsPemReadsBackAndAMismatchedKeyIsRefusedWithTheReason() {
        KubeletCa ca = KubeletCa.generate("test-ca", CLOCK);
        KubeletCa back = KubeletCa.fromPem(ca.certificatePem(), ca.privateKeyPem(), CLOCK);
        assertEquals(ca.certificate(), back.certificate());

        KubeletCa other = KubeletCa.generate("other", CLOCK);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KubeletCa.fromPem(ca.certificatePem(), other.privateKeyPem(), CLOCK));
        assertTrue(e.getMessage().contains("does not belong to its certificate"), e.getMessage());

        KubeletCa.Credential leaf = ca.issueTenantClient(new TenantKey("a", "b"), "u", Duration.ofDays(1));
        e = assertThrows(IllegalArgumentException.class,
                () -> KubeletCa.fromPem(leaf.certificatePem(), leaf.privateKeyPem(), CLOCK));
        assertTrue(e.getMessage().contains("not a CA certificate"), e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> KubeletCa.fromPem("not pem", "", CLOCK));
        assertTrue(e.getMessage().contains("expected a PEM certificate"), e.getMessage());
    }

    @Test
    void aCredentialIsDueForRenewalWhenAThirdOfItsLifeIsLeft() {
        KubeletCa ca = KubeletCa.generate("test-ca", CLOCK);
        KubeletCa.Credential c = ca.issueTenantClient(new TenantKey("a", "b"), "u", Duration.ofDays(30));
        Instant issued = CLOCK.instant();

        assertFalse(c.dueForRenewal(issued.plus(Duration.ofDays(19))));
        assertTrue(c.dueForRenewal(issued.plus(Duration.ofDays(21))));
        KubeletCa.Credential back = KubeletCa.Credential.fromPem(c.certificatePem(), c.privateKeyPem());
        assertEquals(c.certificate(), back.certificate());
    }

    @Test
    void noCertificateOutlivesItsCa() {
        KubeletCa ca = KubeletCa.generate("test-ca", CLOCK);
        KubeletCa.Credential c = ca.issueTenantClient(new TenantKey("a", "b"), "u", Duration.ofDays(365 * 20));

        assertEquals(ca.certificate().getNotAfter(), c.certificate().getNotAfter());
    }
}
