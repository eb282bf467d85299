package io.tenantplane.model;

import io.kubernetes.client.custom.Quantity;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** The Kubernetes syntax rules the validators share, each with a message that says what is allowed. */
final class Checks {

    private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern REASON = Pattern.compile("[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?");
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    static final String LABEL_RULE = "lower-case letters, digits and '-', starting and ending with a letter or digit, "
            + "at most 63 characters";

    private Checks() {
    }

    static boolean isDns1123Label(String s) {
        return s != null && s.length() <= 63 && DNS1123_LABEL.matcher(s).matches();
    }

    static boolean isDns1035Label(String s) {
        return s != null && s.length() <= 63 && DNS1035_LABEL.matcher(s).matches();
    }

    static boolean isDns1123Subdomain(String s) {
        return s != null && s.length() <= 253 && DNS1123_SUBDOMAIN.matcher(s).matches();
    }

    /** Adds a problem unless {@code value} is a DNS-1123 label; {@code what} is e.g. "a namespace name". */
    static void label(String field, String value, String what, List<Problem> out) {
        if (value != null && !isDns1123Label(value)) {
            out.add(Problem.of(field, "\"" + value + "\" is not " + what + ": use " + LABEL_RULE + " (a DNS-1123 label)"));
        }
    }

    /** Adds a problem unless {@code value} is a DNS-1123 subdomain (the rule for most object names). */
    static void subdomain(String field, String value, String what, List<Problem> out) {
        if (value != null && !isDns1123Subdomain(value)) {
            out.add(Problem.of(field, "\"" + value + "\" is not " + what + ": use lower-case letters, digits, '-' and "
                    + "'.', starting and ending with a letter or digit, at most 253 characters (a DNS-1123 subdomain)"));
        }
    }

    /** True for a label or annotation key: an optional DNS subdomain prefix and '/', then a name of at most 63. */
    static boolean isQualifiedName(String key) {
        if (key == null || key.isEmpty()) {
            return false;
        }
        int slash = key.indexOf('/');
        String name = key;
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (!isDns1123Subdomain(prefix)) {
                return false;
            }
        }
        return name.length() <= 63 && QUALIFIED_NAME.matcher(name).matches();
    }

    static boolean isLabelValue(String v) {
        return v != null && v.length() <= 63 && LABEL_VALUE.matcher(v).matches();
    }

    static void labels(String field, Map<String, String> labels, List<Problem> out) {
        labels.forEach((k, v) -> {
            if (!isQualifiedName(k)) {
                out.add(Problem.of(field + "[" + k + "]", "\"" + k + "\" is not a valid label key: use an optional "
                        + "DNS subdomain prefix and '/', then letters, digits, '-', '_' and '.' (at most 63)"));
            }
            if (!isLabelValue(v)) {
                out.add(Problem.of(field + "[" + k + "]", "\"" + v + "\" is not a valid label value: use at most 63 "
                        + "letters, digits, '-', '_' and '.', starting and ending with a letter or digit"));
            }
        });
    }

    /** The API server's limit on the size of all annotations of one object, keys and values together. */
    static final int ANNOTATIONS_MAX_BYTES = 256 * 1024;

    /** Adds a problem per invalid annotation key, and one when the annotations are larger than the API allows. */
    static void annotations(String field, Map<String, String> annotations, List<Problem> out) {
        long bytes = 0;
        for (var e : annotations.entrySet()) {
            if (!isQualifiedName(e.getKey())) {
                out.add(Problem.of(field + "[" + e.getKey() + "]", "\"" + e.getKey() + "\" is not a valid annotation "
                        + "key: use an optional DNS subdomain prefix and '/', then letters, digits, '-', '_' and '.' "
                        + "(at most 63)"));
            }
            bytes += e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                    + (e.getValue() == null ? 0 : e.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        }
        if (bytes > ANNOTATIONS_MAX_BYTES) {
            out.add(Problem.of(field, "the annotations take " + bytes + " bytes; the API server allows at most "
                    + ANNOTATIONS_MAX_BYTES + " bytes (256 KiB) for all annotations of an object: keep large data "
                    + "elsewhere, e.g. in a ConfigMap"));
        }
    }

    /** The value of a Kubernetes quantity such as {@code 500m} or {@code 4Gi}, or empty when it is not one. */
    static Optional<BigDecimal> quantity(String s) {
        if (s == null || s.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Quantity.fromString(s.trim()).getNumber());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Adds a problem unless every value of {@code m} is a non-negative quantity; returns the parsed values. */
    static Map<String, BigDecimal> quantities(String field, Map<String, String> m, List<Problem> out) {
        Map<String, BigDecimal> parsed = new java.util.TreeMap<>();
        m.forEach((k, v) -> {
            Optional<BigDecimal> q = quantity(v);
            if (q.isEmpty()) {
                out.add(Problem.of(field + "[" + k + "]", "\"" + v + "\" is not a Kubernetes quantity: write a number "
                        + "with an optional suffix, e.g. 500m, 2, 128Mi or 4Gi"));
            } else if (q.get().signum() < 0) {
                out.add(Problem.of(field + "[" + k + "]", "must not be negative, got " + v));
            } else {
                parsed.put(k, q.get());
            }
        });
        return parsed;
    }

    /** True for the compute resource names a container can request: cpu, memory, ephemeral-storage, hugepages, extended. */
    static boolean isContainerResource(String name) {
        return name.equals("cpu") || name.equals("memory") || name.equals("ephemeral-storage")
                || name.startsWith("hugepages-") || (name.contains("/") && isQualifiedName(name));
    }

    static void containerResources(String field, Map<String, String> m, List<Problem> out) {
        for (String k : m.keySet()) {
            if (!isContainerResource(k)) {
                out.add(Problem.of(field + "[" + k + "]", "unknown resource \"" + k + "\"; use cpu, memory, "
                        + "ephemeral-storage, hugepages-<size> or an extended resource such as example.com/gpu"));
            }
        }
    }

    static boolean isReason(String s) {
        return s != null && s.length() <= 1024 && REASON.matcher(s).matches();
    }

    static boolean isRfc3339(String s) {
        try {
            OffsetDateTime.parse(s);
            return true;
        } catch (DateTimeParseException | NullPointerException e) {
            return false;
        }
    }

    /** True for an IPv4 or IPv6 CIDR such as {@code 10.0.0.0/8} or {@code fd00::/8}. */
    static boolean isCidr(String s) {
        if (s == null) {
            return false;
        }
        int slash = s.indexOf('/');
        if (slash < 0) {
            return false;
        }
        String ip = s.substring(0, slash);
        int prefix;
        try {
            prefix = Integer.parseInt(s.substring(slash + 1));
        } catch (NumberFormatException e) {
            return false;
        }
        var m = IPV4.matcher(ip);
        if (m.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(m.group(i)) > 255) {
                    return false;
                }
            }
            return prefix >= 0 && prefix <= 32;
        }
        if (!ip.contains(":") || !ip.matches("[0-9a-fA-F:.]+")) {
            return false;
        }
        try {
            java.net.InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            return false;
        }
        return prefix >= 0 && prefix <= 128;
    }
}
