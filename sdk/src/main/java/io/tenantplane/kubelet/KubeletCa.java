package io.tenantplane.kubelet;

import io.tenantplane.naming.HostNames;
import io.tenantplane.observe.TenantKey;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificate authority of tenantplane's kubelet endpoint: one per installation. It signs the endpoint's serving
 * certificate (which every tenant API server verifies with {@code --kubelet-certificate-authority}) and one client
 * certificate per tenant (which that tenant's API server presents with {@code --kubelet-client-certificate}).
 *
 * <p>A tenant client certificate names its tenant in a URI subject alternative name,
 * {@code urn:tenantplane:tenant:<namespace>:<name>:<uid>}; {@link #tenantOf} reads it back. The uid binds the
 * certificate to one TenantCluster object: a tenant deleted and created again under the same name gets a new uid, so
 * the old certificate no longer admits anything. Keys are ECDSA P-256, signatures SHA-256, as k3s's own certificates
 * ({@code k3s-io/k3s} {@code pkg/daemons/control/deps/deps.go} through {@code rancher/dynamiclistener}).
 *
 * <p>Why tenantplane has a CA of its own instead of using each tenant's k3s CA: signing a serving certificate the
 * tenant API trusts as it is would need every tenant's {@code server-ca.key}, the key that lets its holder impersonate
 * that tenant's API server to all its users. This CA can only impersonate the kubelet endpoint. Immutable and
 * thread-safe.
 */
public final class KubeletCa {

    private static final String URI_PREFIX = "urn:tenantplane:tenant:";
    private static final Pattern TENANT_URI = Pattern.compile("urn:tenantplane:tenant:([a-z0-9.-]+):([a-z0-9.-]+):"
            + "([A-Za-z0-9-]*)");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final X509Certificate certificate;
    private final PrivateKey key;
    private final Clock clock;

    private KubeletCa(X509Certificate certificate, PrivateKey key, Clock clock) {
        this.certificate = certificate;
        this.key = key;
        this.clock = clock;
    }

    /** A new CA named {@code commonName}, valid for ten years from now. */
    public static KubeletCa generate(String commonName, Clock clock) {
        KeyPair pair = keyPair();
        X500Name name = new X500Name("CN=" + commonName);
        Instant now = clock.instant();
        try {
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(3650))), name,
                    pair.getPublic());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature
                    | KeyUsage.cRLSign));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
            return new KubeletCa(sign(b, pair.getPrivate()), pair.getPrivate(), clock);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot create the kubelet CA: " + e.getMessage(), e);
        }
    }

    /**
     * The CA stored as PEM: its certificate and its private key (PKCS#8 {@code PRIVATE KEY} or SEC 1
     * {@code EC PRIVATE KEY}).
     *
     * @throws IllegalArgumentException naming what is wrong when either cannot be read or they do not belong together
     */
    public static KubeletCa fromPem(String certificatePem, String privateKeyPem, Clock clock) {
        X509Certificate cert = readCertificate(certificatePem);
        PrivateKey key = readPrivateKey(privateKeyPem);
        if (cert.getBasicConstraints() < 0) {
            throw new IllegalArgumentException("the kubelet CA certificate (" + cert.getSubjectX500Principal()
                    + ") is not a CA certificate: it lacks basicConstraints CA:TRUE");
        }
        KubeletCa ca = new KubeletCa(cert, key, clock);
        // A key that does not match the certificate would sign certificates nobody can verify; say so now.
        Credential probe = ca.issue(new X500Name("CN=probe"), List.of(), KeyPurposeId.id_kp_clientAuth,
                Duration.ofMinutes(1));
        try {
            probe.certificate().verify(cert.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the kubelet CA's private key does not belong to its certificate ("
                    + cert.getSubjectX500Principal() + ")");
        }
        return ca;
    }

    /** The CA certificate. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA certificate as PEM: what a tenant API server gets as {@code --kubelet-certificate-authority}. */
    public String certificatePem() {
        return pem(certificate);
    }

    /** The CA's private key as PKCS#8 PEM, for storing the CA where it is kept (a Secret). */
    public String privateKeyPem() {
        try {
            return pem(new JcaPKCS8Generator(key, null).generate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The endpoint's serving certificate: valid for {@code names} (DNS names, or IP addresses) and for
     * {@link KubeletEndpoint#METRICS_SERVER_NAME}, the name tenant aggregators verify, for {@code validity}.
     */
    public Credential issueServing(List<String> names, Duration validity) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a serving certificate needs at least one DNS name or IP address");
        }
        List<GeneralName> sans = new ArrayList<>();
        List<String> all = new ArrayList<>(names);
        if (!all.contains(KubeletEndpoint.METRICS_SERVER_NAME)) {
            all.add(KubeletEndpoint.METRICS_SERVER_NAME);
        }
        for (String n : all) {
            sans.add(HostNames.isIpAddress(n) ? new GeneralName(GeneralName.iPAddress, n) : new GeneralName(GeneralName.dNSName, n));
        }
        return issue(new X500Name("CN=tenantplane-kubelet"), sans, KeyPurposeId.id_kp_serverAuth, validity);
    }

    /** The client certificate of {@code tenant}'s API server, bound to the TenantCluster of {@code uid}. */
    public Credential issueTenantClient(TenantKey tenant, String uid, Duration validity) {
        Objects.requireNonNull(tenant, "tenant");
        String u = uid == null ? "" : uid;
        return issue(new X500Name("O=tenantplane:tenant-apis,CN=tenantplane:tenant-api:" + tenant.namespace() + "/"
                        + tenant.name()),
                List.of(new GeneralName(GeneralName.uniformResourceIdentifier, URI_PREFIX + tenant.namespace() + ":"
                        + tenant.name() + ":" + u)),
                KeyPurposeId.id_kp_clientAuth, validity);
    }

    /**
     * A client certificate named {@code commonName} (client-auth usage, no subject alternative names): what a CA of
     * this kind issues to any other client, such as the front proxy of an API server whose request-header CA it is.
     */
    public Credential issueClient(String commonName, Duration validity) {
        if (commonName == null || commonName.isBlank()) {
            throw new IllegalArgumentException("a client certificate needs a common name");
        }
        return issue(new X500Name(new org.bouncycastle.asn1.x500.RDN[] {new org.bouncycastle.asn1.x500.RDN(
                org.bouncycastle.asn1.x500.style.BCStyle.CN, new org.bouncycastle.asn1.DERUTF8String(commonName))}),
                List.of(), KeyPurposeId.id_kp_clientAuth, validity);
    }

    /** The tenant a client certificate of {@link #issueTenantClient} names; empty for any other certificate. */
    public static Optional<Identity> tenantOf(X509Certificate certificate) {
        Collection<List<?>> sans;
        try {
            sans = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return Optional.empty();
        }
        if (sans == null) {
            return Optional.empty();
        }
        for (List<?> san : sans) {
            if (san.size() == 2 && Integer.valueOf(GeneralName.uniformResourceIdentifier).equals(san.get(0))) {
                Matcher m = TENANT_URI.matcher(String.valueOf(san.get(1)));
                if (m.matches()) {
                    return Optional.of(new Identity(new TenantKey(m.group(1), m.group(2)), m.group(3)));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A TLS context that presents {@code own} and trusts certificates this CA signed: the endpoint's (with the serving
     * credential) or a tenant API server's (with its client credential).
     */
    public SSLContext context(Credential own) {
        return context(own, certificate);
    }

    /**
     * A TLS context that presents {@code own} and trusts only certificates signed by the CA in {@code trustedCaPem}:
     * what a tenant API server holds with the files of its {@code <tenant>-kubelet-client} Secret (or, with its
     * aggregator's certificate, what it calls tenantplane's {@code metrics.k8s.io} with).
     */
    public static SSLContext context(Credential own, String trustedCaPem) {
        return context(own, readCertificate(trustedCaPem));
    }

    /**
     * The endpoint's TLS server context: it presents {@code serving} and admits a client certificate this CA signed or
     * one of a tenant's aggregator ({@code proxies}).
     */
    SSLContext serverContext(Credential serving, FrontProxies proxies) {
        try {
            javax.net.ssl.X509TrustManager own = null;
            for (javax.net.ssl.TrustManager tm : trustManagers(certificate)) {
                if (tm instanceof javax.net.ssl.X509TrustManager x) {
                    own = x;
                }
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keyManagers(serving, certificate), new javax.net.ssl.TrustManager[] {proxies.trust(own)}, RANDOM);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the kubelet TLS context: " + e.getMessage(), e);
        }
    }

    /** Whether this CA signed {@code certificate} (and it is valid now). */
    boolean signed(X509Certificate certificate) {
        try {
            certificate.verify(this.certificate.getPublicKey());
            certificate.checkValidity();
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static SSLContext context(Credential own, X509Certificate certificate) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keyManagers(own, certificate), trustManagers(certificate), RANDOM);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the kubelet TLS context: " + e.getMessage(), e);
        }
    }

    /**
     * Key managers presenting {@code own}, with {@code issuer} in the chain when it signed it (an endpoint's or a
     * tenant API server's certificate), alone otherwise (a tenant aggregator's, signed by its request-header CA).
     */
    private static javax.net.ssl.KeyManager[] keyManagers(Credential own, X509Certificate issuer)
            throws IOException, GeneralSecurityException {
        char[] pass = new char[0];
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, pass);
        boolean signedByIssuer;
        try {
            own.certificate().verify(issuer.getPublicKey());
            signedByIssuer = true;
        } catch (GeneralSecurityException e) {
            signedByIssuer = false;
        }
        keys.setKeyEntry("own", own.privateKey(), pass, signedByIssuer
                ? new X509Certificate[] {own.certificate(), issuer} : new X509Certificate[] {own.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, pass);
        return kmf.getKeyManagers();
    }

    /** Trust managers that trust certificates {@code ca} signed, and nothing else. */
    private static javax.net.ssl.TrustManager[] trustManagers(X509Certificate ca)
            throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, new char[0]);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        return tmf.getTrustManagers();
    }

    /** A certificate and its key, as objects and as PEM. */
    public record Credential(X509Certificate certificate, PrivateKey privateKey) {

        public String certificatePem() {
            return pem(certificate);
        }

        public String privateKeyPem() {
            try {
                return pem(new JcaPKCS8Generator(privateKey, null).generate());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Whether less than a third of the certificate's life is left at {@code now}. */
        public boolean dueForRenewal(Instant now) {
            long start = certificate.getNotBefore().getTime();
            long end = certificate.getNotAfter().getTime();
            return now.toEpochMilli() >= end - (end - start) / 3;
        }

        /** A credential stored as PEM. */
        public static Credential fromPem(String certificatePem, String privateKeyPem) {
            return new Credential(readCertificate(certificatePem), readPrivateKey(privateKeyPem));
        }
    }

    /** The tenant a client certificate names, and the uid of the TenantCluster it was issued for. */
    public record Identity(TenantKey tenant, String uid) {
    }

    // ------------------------------------------------------------ internals

    private Credential issue(X500Name subject, List<GeneralName> sans, KeyPurposeId purpose, Duration validity) {
        KeyPair pair = keyPair();
        Instant now = clock.instant();
        Instant notAfter = now.plus(validity);
        if (notAfter.isAfter(certificate.getNotAfter().toInstant())) {
            notAfter = certificate.getNotAfter().toInstant();
        }
        try {
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(certificate, serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(notAfter), subject, pair.getPublic());
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
            if (!sans.isEmpty()) {
                b.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(sans.toArray(new GeneralName[0])));
            }
            return new Credential(sign(b, key), pair.getPrivate());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue a kubelet certificate: " + e.getMessage(), e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer)
            throws GeneralSecurityException {
        try {
            X509CertificateHolder holder = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer));
            return new JcaX509CertificateConverter().getCertificate(holder);
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no EC P-256 key generator: " + e.getMessage(), e);
        }
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static String pem(Object o) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    static X509Certificate readCertificate(String pem) {
        try (PEMParser p = new PEMParser(new StringReader(pem == null ? "" : pem))) {
            Object o = p.readObject();
            if (!(o instanceof X509CertificateHolder h)) {
                throw new IllegalArgumentException("expected a PEM certificate (-----BEGIN CERTIFICATE-----), found "
                        + (o == null ? "nothing" : o.getClass().getSimpleName()));
            }
            return new JcaX509CertificateConverter().getCertificate(h);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the PEM certificate: " + e.getMessage(), e);
        }
    }

    static PrivateKey readPrivateKey(String pem) {
        try (PEMParser p = new PEMParser(new StringReader(pem == null ? "" : pem))) {
            Object o = p.readObject();
            JcaPEMKeyConverter c = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair kp) {
                return c.getKeyPair(kp).getPrivate();
            }
            if (o instanceof PrivateKeyInfo info) {
                return c.getPrivateKey(info);
            }
            throw new IllegalArgumentException("expected a PEM private key (PRIVATE KEY or EC PRIVATE KEY), found "
                    + (o == null ? "nothing" : o.getClass().getSimpleName()));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the PEM private key: " + e.getMessage(), e);
        }
    }
}
