package io.tenantplane.testkit;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A format of the Kubernetes CEL format library ({@code staging/src/k8s.io/apiserver/pkg/cel/library/format.go},
 * {@code ConstantFormats}): a name and the validation it runs, with the messages of the upstream validators it calls
 * ({@code apimachinery/pkg/util/validation} {@code IsDNS1123Label}, {@code IsDNS1123Subdomain}, {@code IsDNS1035Label},
 * {@code IsQualifiedName}, {@code IsValidLabelValue}; {@code apimachinery/pkg/api/validation} {@code NameIsDNSLabel}
 * and its kin with {@code maskTrailingDash} for the prefix formats; Go's {@code url.ParseRequestURI} for {@code uri};
 * kube-openapi's strfmt for {@code uuid}, {@code byte}, {@code date} and {@code datetime}).
 *
 * @param name     the name {@code format.named} takes
 * @param validate the problems with a string, empty when it is valid
 */
record NamedFormat(String name, Function<String, List<String>> validate) {

    private static final String DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_SUBDOMAIN = DNS1123_LABEL + "(\\." + DNS1123_LABEL + ")*";
    private static final String DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";
    private static final String QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String LABEL_VALUE = "(" + QUALIFIED_NAME + ")?";
    private static final String QUALIFIED_NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', "
            + "and must start and end with an alphanumeric character";
    /** kube-openapi's {@code strfmt.UUIDPattern}. */
    private static final Pattern UUID = Pattern.compile(
            "(?i)(^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)|(^[0-9a-f]{32}$)");
    /** strfmt's {@code rxDateTime}: the part after the {@code t} of a date-time. */
    private static final Pattern TIME = Pattern.compile(
            "^([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.([0-9]+))?(z|([+-][0-9]{2}:[0-9]{2}))$");

    /** The formats by the names {@code format.named} and the {@code format.<name>()} functions use. */
    static final Map<String, NamedFormat> ALL = Map.ofEntries(
            entry("dns1123Label", s -> dns1123Label(s)),
            entry("dns1123Subdomain", s -> dns1123Subdomain(s)),
            entry("dns1035Label", s -> dns1035Label(s)),
            entry("qualifiedName", NamedFormat::qualifiedName),
            entry("dns1123LabelPrefix", s -> dns1123Label(maskTrailingDash(s))),
            entry("dns1123SubdomainPrefix", s -> dns1123Subdomain(maskTrailingDash(s))),
            entry("dns1035LabelPrefix", s -> dns1035Label(maskTrailingDash(s))),
            entry("labelValue", NamedFormat::labelValue),
            entry("uri", s -> {
                try {
                    GoUrl.parseRequestUri(s);
                    return List.of();
                } catch (GoUrl.UrlException e) {
                    return List.of(e.getMessage());
                }
            }),
            entry("uuid", s -> UUID.matcher(s).find() ? List.of() : List.of("does not match the UUID format")),
            entry("byte", s -> isBase64(s) ? List.of() : List.of("invalid base64")),
            entry("date", s -> isDate(s) ? List.of() : List.of("invalid date")),
            entry("datetime", s -> isDateTime(s) ? List.of() : List.of("invalid datetime")));

    private static Map.Entry<String, NamedFormat> entry(String name, Function<String, List<String>> validate) {
        return Map.entry(name, new NamedFormat(name, validate));
    }

    /** {@code maskTrailingDash}: a trailing dash stands for what a generated suffix adds. */
    private static String maskTrailingDash(String s) {
        return s.length() > 1 && s.endsWith("-") ? s.substring(0, s.length() - 2) + "a" : s;
    }

    /** {@code validation.RegexError}. */
    private static String regexError(String message, String format, String... examples) {
        StringBuilder b = new StringBuilder(message);
        if (examples.length == 0) {
            return b.append(" (regex used for validation is '").append(format).append("')").toString();
        }
        b.append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            if (i > 0) {
                b.append(" or ");
            }
            b.append('\'').append(examples[i]).append("', ");
        }
        return b.append("regex used for validation is '").append(format).append("')").toString();
    }

    private static boolean matches(String regex, String s) {
        return s.matches(regex);
    }

    static List<String> dns1123Label(String s) {
        List<String> errs = new ArrayList<>();
        if (s.length() > 63) {
            errs.add("must be no more than 63 characters");
        }
        if (!matches(DNS1123_LABEL, s)) {
            errs.add(matches(DNS1123_SUBDOMAIN, s) ? "must not contain dots"
                    : regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                    + "'-', and must start and end with an alphanumeric character", DNS1123_LABEL, "my-name",
                    "123-abc"));
        }
        return errs;
    }

    static List<String> dns1123Subdomain(String s) {
        return bounded(s, 253, DNS1123_SUBDOMAIN, regexError("a lowercase RFC 1123 subdomain must consist of lower "
                + "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
                DNS1123_SUBDOMAIN, "example.com"));
    }

    static List<String> dns1035Label(String s) {
        return bounded(s, 63, DNS1035_LABEL, regexError("a DNS-1035 label must consist of lower case alphanumeric "
                + "characters or '-', start with an alphabetic character, and end with an alphanumeric character",
                DNS1035_LABEL, "my-name", "abc-123"));
    }

    /** The shape of most upstream validators: at most {@code max} characters, and the whole matching {@code regex}. */
    private static List<String> bounded(String s, int max, String regex, String regexError) {
        List<String> errs = new ArrayList<>();
        if (s.length() > max) {
            errs.add("must be no more than " + max + " characters");
        }
        if (!matches(regex, s)) {
            errs.add(regexError);
        }
        return errs;
    }

    /** {@code IsQualifiedName}: an optional DNS-subdomain prefix and {@code /}, then a name of at most 63. */
    static List<String> qualifiedName(String s) {
        List<String> errs = new ArrayList<>();
        String[] parts = s.split("/", -1);
        String name;
        switch (parts.length) {
            case 1 -> name = parts[0];
            case 2 -> {
                name = parts[1];
                if (parts[0].isEmpty()) {
                    errs.add("prefix part must be non-empty");
                } else {
                    dns1123Subdomain(parts[0]).forEach(m -> errs.add("prefix part " + m));
                }
            }
            default -> {
                errs.add("a qualified name " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME, "MyName", "my.name",
                        "123-abc") + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
                return errs;
            }
        }
        if (name.isEmpty()) {
            errs.add("name part must be non-empty");
        } else if (name.length() > 63) {
            errs.add("name part must be no more than 63 characters");
        }
        if (!matches(QUALIFIED_NAME, name)) {
            errs.add("name part " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME, "MyName", "my.name",
                    "123-abc"));
        }
        return errs;
    }

    /** {@code IsValidLabelValue}. */
    static List<String> labelValue(String s) {
        return bounded(s, 63, LABEL_VALUE, regexError("a valid label must be an empty string or consist of "
                + "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                LABEL_VALUE, "MyValue", "my_value", "12345"));
    }

    /** strfmt's {@code byte}: Go's {@code base64.StdEncoding.DecodeString} succeeds (padding required). */
    private static boolean isBase64(String s) {
        if (s.length() % 4 != 0) {
            return false;
        }
        try {
            Base64.getDecoder().decode(s);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** strfmt's {@code IsDate}: {@code time.Parse("2006-01-02", s)}. */
    private static boolean isDate(String s) {
        if (!s.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}")) {
            return false;
        }
        try {
            java.time.LocalDate.parse(s);
            return true;
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    /** strfmt's {@code IsDateTime}: a date, a {@code t}, and a time with seconds and a zone, case-insensitive. */
    private static boolean isDateTime(String s) {
        if (s.length() < 4) {
            return false;
        }
        String[] parts = s.toLowerCase(java.util.Locale.ROOT).split("t", -1);
        if (parts.length < 2 || !isDate(parts[0])) {
            return false;
        }
        var m = TIME.matcher(parts[1]);
        if (!m.find()) {
            return false;
        }
        return m.group(1).compareTo("23") <= 0 && m.group(2).compareTo("59") <= 0 && m.group(3).compareTo("59") <= 0;
    }
}
