package io.tenantplane.naming;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The host name of a synced tenant object: a pure, deterministic function of (name, virtual namespace, tenant).
 *
 * <h2>The rule</h2>
 * <ol>
 *   <li>The <em>plain form</em> joins the parts with {@code -x-}: {@code <name>-x-<virtualNamespace>-x-<tenant>}
 *       (cluster-scoped kinds omit the namespace part: {@code <name>-x-<tenant>}).</li>
 *   <li>The plain form is the host name when it has at most 63 characters and is <em>unambiguous</em>: splitting it
 *       at each {@code -x-} gives back exactly the parts it was made from.</li>
 *   <li>Otherwise the host name is the first 52 characters of the plain form with trailing {@code -} and {@code .}
 *       trimmed, then {@code -}, then the first 10 hex digits of a SHA-256 (at most 63 characters). What is hashed
 *       is the plain form, except when the plain form is ambiguous: then it is the parts joined with {@code /}
 *       ({@code a-x-b/default/dev}), because two sources can share an ambiguous plain form ({@code a-x-b}/{@code c}
 *       and {@code a}/{@code b-x-c} both give {@code a-x-b-x-c-x-dev}) and hashing it would give them one name.</li>
 * </ol>
 * A part that contains {@code -x-} always makes the plain form ambiguous; so does a name or virtual namespace that
 * ends in {@code -x} ({@code a-x}/{@code b} would read back as {@code a}/{@code x-b}). Only sources whose plain form
 * reads back exactly keep it, so two sources never share a plain name.
 *
 * <h2>Worked examples</h2>
 * <pre>
 * hostName("nginx", "default", "dev")           = "nginx-x-default-x-dev"
 * hostName("test-pod", "default", "suffix")     = "test-pod-x-default-x-suffix"
 * hostName("a", "x-b", "dev")                   = "a-x-x-b-x-dev"
 * hostName("a-x", "b", "dev")                   = "a-x-x-b-x-dev-30b605e41b"        (ambiguous: sha256("a-x/b/dev"))
 * hostName("a-x-b", "default", "dev")           = "a-x-b-x-default-x-dev-e913454f23" (ambiguous: sha256("a-x-b/default/dev"))
 * hostName("a" * 48, "default", "dev")          = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-x-d-41d03d52d9"
 *                                                 (64 characters: first 52 + "-" + sha256 of the plain form)
 * </pre>
 *
 * <h2>vcluster compatibility</h2>
 * For plain forms of at most 63 characters that are unambiguous, and for longer ones whose 52-character prefix does
 * not end in {@code -} or {@code .}, the result equals vcluster's {@code SafeConcatName(name, "x", namespace, "x",
 * vcluster)}; it differs only where that rule gives {@code --} before the hash or maps two sources to one name.
 *
 * <p>All methods are static, pure and thread-safe.
 */
public final class HostNames {

    /** The longest host name this rule produces (a DNS-1123 label). */
    public static final int MAX_LENGTH = 63;
    /** How many characters of the plain form a hashed name keeps (before trimming). */
    public static final int PREFIX_LENGTH = 52;
    /** How many hex digits of SHA-256 a hashed name ends with. */
    public static final int HASH_HEX_DIGITS = 10;
    /** The separator between the parts of the plain form. */
    public static final String SEPARATOR = "-x-";
    /** Joins the parts of an ambiguous plain form for hashing; it never occurs in a Kubernetes name. */
    public static final String AMBIGUOUS_HASH_SEPARATOR = "/";

    private HostNames() {
    }

    /**
     * The host name of a namespaced tenant object.
     *
     * @param name             the object's name in the tenant (a DNS-1123 subdomain)
     * @param virtualNamespace its namespace in the tenant (a DNS-1123 label)
     * @param tenant           the tenant's name (a DNS-1123 label)
     * @return a DNS-1123 subdomain of at most 63 characters; a DNS-1123 label when {@code name} is one
     * @throws IllegalArgumentException naming the argument when one is null, empty or not a valid name
     */
    public static String hostName(String name, String virtualNamespace, String tenant) {
        return name(name, virtualNamespace, tenant);
    }

    /**
     * The host name of a cluster-scoped tenant object (only synced when a SyncPolicy says so explicitly):
     * {@code <name>-x-<tenant>} under the same rule.
     *
     * @throws IllegalArgumentException naming the argument when one is null, empty or not a valid name
     */
    public static String clusterScopedHostName(String name, String tenant) {
        return name(name, null, tenant);
    }

    /**
     * {@code derive(...).hostName()} without the derivation: the SHA-256 is computed only for a hashed name, and no
     * explanation is written. Names are made for every object of every plan, so this is the hot path.
     */
    private static String name(String name, String virtualNamespace, String tenant) {
        checkName("name", name);
        if (virtualNamespace != null) {
            checkLabel("virtualNamespace", virtualNamespace);
        }
        checkLabel("tenant", tenant);
        String plain = virtualNamespace == null ? name + SEPARATOR + tenant
                : name + SEPARATOR + virtualNamespace + SEPARATOR + tenant;
        boolean ambiguous = !readsBack(plain, name, virtualNamespace, tenant);
        if (!ambiguous && plain.length() <= MAX_LENGTH) {
            return plain;
        }
        String hashInput = ambiguous ? hashInputOfAmbiguous(name, virtualNamespace, tenant) : plain;
        return hashedName(plain, sha256Hex(hashInput));
    }

    /**
     * The host name with each step of its derivation.
     *
     * @param virtualNamespace {@code null} for a cluster-scoped object
     * @throws IllegalArgumentException naming the argument when one is null, empty or not a valid name
     */
    public static NameDerivation derive(String name, String virtualNamespace, String tenant) {
        checkName("name", name);
        if (virtualNamespace != null) {
            checkLabel("virtualNamespace", virtualNamespace);
        }
        checkLabel("tenant", tenant);
        List<String> parts = virtualNamespace == null ? List.of(name, tenant) : List.of(name, virtualNamespace, tenant);
        String plain = String.join(SEPARATOR, parts);
        boolean ambiguous = !readsBack(plain, name, virtualNamespace, tenant);
        String hashInput = ambiguous ? hashInputOfAmbiguous(name, virtualNamespace, tenant) : plain;
        String sha = sha256Hex(hashInput);
        String why = null;
        if (ambiguous) {
            why = "the plain form is ambiguous: splitting it at '" + SEPARATOR + "' does not give back "
                    + String.join(", ", parts.stream().map(p -> "'" + p + "'").toList());
        } else if (plain.length() > MAX_LENGTH) {
            why = "the plain form has " + plain.length() + " characters (more than " + MAX_LENGTH + ")";
        }
        if (why == null) {
            return new NameDerivation(plain, false, null, hashInput, sha, plain);
        }
        return new NameDerivation(plain, true, why, hashInput, sha, hashedName(plain, sha));
    }

    private static String hashedName(String plain, String sha) {
        int end = Math.min(PREFIX_LENGTH, plain.length());
        while (end > 0 && (plain.charAt(end - 1) == '-' || plain.charAt(end - 1) == '.')) {
            end--;
        }
        return plain.substring(0, end) + "-" + sha.substring(0, HASH_HEX_DIGITS);
    }

    private static String hashInputOfAmbiguous(String name, String virtualNamespace, String tenant) {
        return virtualNamespace == null ? name + AMBIGUOUS_HASH_SEPARATOR + tenant
                : name + AMBIGUOUS_HASH_SEPARATOR + virtualNamespace + AMBIGUOUS_HASH_SEPARATOR + tenant;
    }

    /**
     * Whether splitting {@code plain} at each {@code -x-} (left to right, as {@code String.split} does) gives back
     * exactly the parts: the same test as {@code List.of(plain.split("-x-", -1)).equals(parts)}, without a regex.
     */
    private static boolean readsBack(String plain, String name, String virtualNamespace, String tenant) {
        int from = 0;
        for (int i = 0; i < (virtualNamespace == null ? 2 : 3); i++) {
            String part = i == 0 ? name : i == 1 && virtualNamespace != null ? virtualNamespace : tenant;
            int at = plain.indexOf(SEPARATOR, from);
            int end = at < 0 ? plain.length() : at;
            boolean last = i == (virtualNamespace == null ? 1 : 2);
            if (last != (at < 0) || end - from != part.length() || !plain.startsWith(part, from)) {
                return false;
            }
            from = end + SEPARATOR.length();
        }
        return true;
    }

    /**
     * Reads the parts back from a host name when that is possible from the name alone: only plain (unhashed) names
     * can be read; a hashed name needs the host object's annotations (see {@link ReverseMapping}).
     *
     * @param hostName   the host name, e.g. {@code nginx-x-default-x-dev}
     * @param namespaced whether the kind is namespaced (three parts) or cluster-scoped (two)
     * @return the parts, verified by recomputing the name; empty when the name is not a plain tenantplane name
     */
    public static Optional<Parts> parse(String hostName, boolean namespaced) {
        if (hostName == null) {
            return Optional.empty();
        }
        String[] split = split(hostName);
        if (split.length != (namespaced ? 3 : 2)) {
            return Optional.empty();
        }
        Parts parts = namespaced ? new Parts(split[0], split[1], split[2]) : new Parts(split[0], null, split[1]);
        try {
            NameDerivation d = derive(parts.name(), parts.virtualNamespace(), parts.tenant());
            return !d.hashed() && d.hostName().equals(hostName) ? Optional.of(parts) : Optional.empty();
        } catch (IllegalArgumentException notAName) {
            return Optional.empty();
        }
    }

    /** {@code s.split("-x-", -1)} without a regex. */
    private static String[] split(String s) {
        List<String> out = new java.util.ArrayList<>(3);
        int from = 0;
        for (int at = s.indexOf(SEPARATOR); at >= 0; at = s.indexOf(SEPARATOR, from)) {
            out.add(s.substring(from, at));
            from = at + SEPARATOR.length();
        }
        out.add(s.substring(from));
        return out.toArray(String[]::new);
    }

    /**
     * True when {@code s} is written as an IP address (dotted IPv4, or IPv6 with colons) rather than a DNS name: what
     * decides between an {@code InternalIP} and a {@code Hostname}, an IP and a DNS SAN, a ClusterIP and a Service name.
     */
    public static boolean isIpAddress(String s) {
        return s != null && (s.matches("(\\d{1,3}\\.){3}\\d{1,3}") || s.contains(":") && s.matches("[0-9a-fA-F:.]+"));
    }

    /** True when {@code s} is a DNS-1123 label: lowercase alphanumerics and {@code -}, at most 63 characters. */
    public static boolean isDns1123Label(String s) {
        return s != null && !s.isEmpty() && s.length() <= 63 && isLabel(s, 0, s.length());
    }

    /**
     * Whether {@code s[from, to)} matches {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}: lowercase alphanumerics and
     * {@code -}, starting and ending with an alphanumeric (a char loop: names are checked for every object).
     */
    private static boolean isLabel(String s, int from, int to) {
        if (from >= to || !isAlnum(s.charAt(from)) || !isAlnum(s.charAt(to - 1))) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            char c = s.charAt(i);
            if (c != '-' && !isAlnum(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    /**
     * True when {@code s} is a DNS-1123 subdomain as Kubernetes checks object names: at most 253 characters of
     * dot-separated parts, each of lowercase alphanumerics and {@code -} starting and ending with an alphanumeric.
     */
    public static boolean isDns1123Subdomain(String s) {
        if (s == null || s.isEmpty() || s.length() > 253) {
            return false;
        }
        int from = 0;
        for (int dot = s.indexOf('.'); dot >= 0; dot = s.indexOf('.', from)) {
            if (!isLabel(s, from, dot)) {
                return false;
            }
            from = dot + 1;
        }
        return isLabel(s, from, s.length());
    }

    /** The lowercase hex SHA-256 of the UTF-8 bytes of {@code s}. */
    public static String sha256Hex(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /**
     * The parts of a plain host name.
     *
     * @param virtualNamespace {@code null} for a cluster-scoped object
     */
    public record Parts(String name, String virtualNamespace, String tenant) {
    }

    private static void checkName(String arg, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(arg + " must not be empty");
        }
        if (!isDns1123Subdomain(value)) {
            throw new IllegalArgumentException(arg + " '" + value + "' is not a DNS-1123 subdomain: use at most 253 "
                    + "lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit");
        }
    }

    private static void checkLabel(String arg, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(arg + " must not be empty");
        }
        if (!isDns1123Label(value)) {
            throw new IllegalArgumentException(arg + " '" + value + "' is not a DNS-1123 label: use at most 63 "
                    + "lowercase letters, digits and '-', starting and ending with a letter or digit");
        }
    }
}
