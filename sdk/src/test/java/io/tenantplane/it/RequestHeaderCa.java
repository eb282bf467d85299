package io.tenantplane.it;

import java.io.StringWriter;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A k3s control plane's request-header CA and the client certificate its aggregator presents, as k3s makes them
 * ({@code pkg/daemons/control/deps/deps.go}: CA {@code k3s-request-header-ca@<time>}, client
 * {@code system:auth-proxy} with client-auth usage), for tests that play a tenant API server's aggregator.
 */
record RequestHeaderCa(X509Certificate certificate, PrivateKey key) {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A client certificate of this CA and its key. */
    record Client(X509Certificate certificate, PrivateKey key) {
    }

    static RequestHeaderCa generate() {
        try {
            KeyPair pair = pair();
            X500Name name = new X500Name("CN=k3s-request-header-ca@" + Instant.now().getEpochSecond()
                    + RANDOM.nextInt(1000));
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, new BigInteger(64, RANDOM),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(3650))), name,
                    pair.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            return new RequestHeaderCa(cert, pair.getPrivate());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** What k3s's aggregator presents: common name {@code system:auth-proxy}. */
    Client aggregator() {
        return issue("system:auth-proxy");
    }

    Client issue(String commonName) {
        try {
            KeyPair pair = pair();
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(certificate, new BigInteger(64, RANDOM),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(365))),
                    new X500Name("CN=" + commonName), pair.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
            return new Client(cert, pair.getPrivate());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    String pem() {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(certificate);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toString();
    }

    private static KeyPair pair() throws java.security.GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }
}
