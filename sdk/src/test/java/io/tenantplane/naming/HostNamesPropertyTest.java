package io.tenantplane.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Universal properties of host naming over random inputs (seeded, so a failure reproduces). The generator favours the
 * hard cases: {@code -x-} inside parts, parts starting with {@code x-} or ending in {@code -x}, {@code --}, dots, and
 * lengths around the 63-character limit.
 */
class HostNamesPropertyTest {

    private static final int CASES = 150_000;
    private static final List<String> PIECES = List.of("x", "x", "-x-", "-x", "x-", "--", "a", "b", "0", "web", "nginx",
            "default", "dev", "-", "9");

    /** A random DNS-1123 label of 1..maxLen characters made of risky pieces. */
    static String label(Random r, int maxLen) {
        int target = 1 + r.nextInt(maxLen);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < target) {
            sb.append(PIECES.get(r.nextInt(PIECES.size())));
        }
        int from = 0;
        int to = Math.min(sb.length(), target);
        while (from < to && sb.charAt(from) == '-') {
            from++;
        }
        while (to > from && sb.charAt(to - 1) == '-') {
            to--;
        }
        return from == to ? "x" : sb.substring(from, to);
    }

    /** A random DNS-1123 subdomain name (labels joined by dots), up to about 90 characters. */
    static String subdomain(Random r) {
        String s = label(r, 40);
        if (r.nextInt(4) == 0) {
            s = s + "." + label(r, 40);
        }
        return s;
    }

    @Test
    void everyHostNameIsAValidLabelOfAtMost63CharactersForLabelInputs() {
        Random r = new Random(20240601L);
        for (int i = 0; i < CASES; i++) {
            String name = label(r, r.nextBoolean() ? 20 : 63);
            String ns = label(r, r.nextBoolean() ? 10 : 63);
            String tenant = label(r, r.nextBoolean() ? 8 : 40);
            String host = HostNames.hostName(name, ns, tenant);
            if (!HostNames.isDns1123Label(host)) {
                fail("not a DNS-1123 label: " + host + " from " + name + "/" + ns + "/" + tenant);
            }
            String cluster = HostNames.clusterScopedHostName(name, tenant);
            if (!HostNames.isDns1123Label(cluster)) {
                fail("not a DNS-1123 label: " + cluster + " from " + name + "/" + tenant);
            }
        }
    }

    @Test
    void everyHostNameIsAValidSubdomainOfAtMost63CharactersForDottedNames() {
        Random r = new Random(7L);
        for (int i = 0; i < CASES; i++) {
            String name = subdomain(r);
            String host = HostNames.hostName(name, label(r, 15), label(r, 10));
            assertTrue(host.length() <= 63 && HostNames.isDns1123Subdomain(host), host);
        }
    }

    @Test
    void namingIsDeterministicAndInjectiveOverTheRandomCorpus() {
        Random r = new Random(42L);
        Map<String, String> seen = new HashMap<>();
        int hashed = 0;
        int ambiguous = 0;
        for (int i = 0; i < CASES; i++) {
            String name = label(r, r.nextBoolean() ? 63 : 12);
            String ns = label(r, r.nextBoolean() ? 20 : 8);
            String tenant = label(r, 8);
            String source = name + "/" + ns + "/" + tenant;
            NameDerivation d = HostNames.derive(name, ns, tenant);
            assertEquals(d, HostNames.derive(name, ns, tenant), "deterministic");
            hashed += d.hashed() ? 1 : 0;
            ambiguous += d.hashReason() != null && d.hashReason().contains("ambiguous") ? 1 : 0;
            String previous = seen.putIfAbsent(d.hostName(), source);
            if (previous != null && !previous.equals(source)) {
                fail("two sources map to " + d.hostName() + ": " + previous + " and " + source);
            }
        }
        assertTrue(seen.size() > CASES / 2, "the corpus must be mostly distinct, got " + seen.size());
        assertTrue(ambiguous > 1000, "the corpus must exercise ambiguous parts, got " + ambiguous);
        assertTrue(hashed - ambiguous > 1000, "the corpus must exercise long names, got " + (hashed - ambiguous));
    }

    /**
     * A hashed name never reads back as its own source. (It may read as some other source whose tenant name ends in
     * the same ten hex digits; that is why tracing by name alone is reported as unverified.)
     */
    @Test
    void plainNamesAlwaysParseBackToTheirSourceAndHashedNamesNever() {
        Random r = new Random(99L);
        for (int i = 0; i < CASES; i++) {
            String name = label(r, 12);
            String ns = label(r, 12);
            String tenant = label(r, 8);
            NameDerivation d = HostNames.derive(name, ns, tenant);
            if (!d.hashed()) {
                assertEquals(new HostNames.Parts(name, ns, tenant), HostNames.parse(d.hostName(), true).orElseThrow());
            } else {
                assertTrue(HostNames.parse(d.hostName(), true).filter(p -> p.equals(new HostNames.Parts(name, ns, tenant)))
                        .isEmpty(), d.hostName());
            }
        }
    }

    @Test
    void namesEqualVclusterWhereverTheDesignPromisesIt() {
        Random r = new Random(2024L);
        int compared = 0;
        for (int i = 0; i < CASES; i++) {
            String name = label(r, 63);
            String ns = label(r, 20);
            String tenant = label(r, 10);
            NameDerivation d = HostNames.derive(name, ns, tenant);
            String plain = d.plainForm();
            boolean ambiguous = d.hashReason() != null && d.hashReason().contains("ambiguous");
            boolean promised = !ambiguous && (plain.length() <= 63 || (plain.charAt(51) != '-' && plain.charAt(51) != '.'));
            if (promised) {
                compared++;
                assertEquals(HostNamesTest.vcluster(name, ns, tenant), d.hostName(), "for " + name + "/" + ns + "/" + tenant);
            }
        }
        assertTrue(compared > CASES / 10, "compared only " + compared);
    }

    @Test
    void hostNamesEqualTheNameOfTheirDerivation() {
        Random r = new Random(31L);
        for (int i = 0; i < CASES; i++) {
            String name = r.nextInt(4) == 0 ? subdomain(r) : label(r, r.nextBoolean() ? 63 : 12);
            String ns = label(r, r.nextBoolean() ? 20 : 8);
            String tenant = label(r, 8);
            NameDerivation d = HostNames.derive(name, ns, tenant);
            assertEquals(d.hostName(), HostNames.hostName(name, ns, tenant));
            boolean splitsBack = List.of(d.plainForm().split(HostNames.SEPARATOR, -1)).equals(List.of(name, ns, tenant));
            assertEquals(!splitsBack, d.hashReason() != null && d.hashReason().contains("ambiguous"), d.plainForm());
            assertEquals(HostNames.derive(name, null, tenant).hostName(), HostNames.clusterScopedHostName(name, tenant));
        }
    }

    /** The label and subdomain checks accept exactly what Kubernetes' regular expressions accept. */
    @Test
    void labelAndSubdomainChecksAgreeWithKubernetesPatterns() {
        Pattern label = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
        Pattern subdomain = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
        String alphabet = "ab09-.xA_/ \u00e9";
        Random r = new Random(5L);
        for (int i = 0; i < CASES; i++) {
            int n = r.nextInt(10) == 0 ? 60 + r.nextInt(200) : r.nextInt(8);
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < n; k++) {
                sb.append(r.nextInt(3) == 0 ? alphabet.charAt(r.nextInt(alphabet.length())) : 'a');
            }
            String s = sb.toString();
            assertEquals(s.length() <= 63 && label.matcher(s).matches(), HostNames.isDns1123Label(s), s);
            assertEquals(!s.isEmpty() && s.length() <= 253 && subdomain.matcher(s).matches(),
                    HostNames.isDns1123Subdomain(s), s);
        }
    }
}
