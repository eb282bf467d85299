package io.tenantplane.testkit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities as {@code k8s.io/apimachinery/pkg/api/resource} parses and compares them
 * ({@code ParseQuantity}, {@code Cmp}, {@code AsInt64}, {@code AsApproximateFloat64}): a signed decimal number with a
 * binary suffix ({@code Ki} .. {@code Ei}), a decimal one ({@code n u m k M G T P E}) or a decimal exponent
 * ({@code e3}, {@code E-2}). The value is kept exact, as a {@link BigDecimal}.
 */
record Quantity(BigDecimal value, String text) {

    /** {@code ErrFormatWrong} and its regular expression. */
    static final String FORMAT = "quantities must match the regular expression "
            + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    private static final Pattern SPLIT = Pattern.compile("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)");
    private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
            Map.entry("", BigDecimal.ONE), Map.entry("n", BigDecimal.ONE.scaleByPowerOfTen(-9)),
            Map.entry("u", BigDecimal.ONE.scaleByPowerOfTen(-6)), Map.entry("m", BigDecimal.ONE.scaleByPowerOfTen(-3)),
            Map.entry("k", BigDecimal.ONE.scaleByPowerOfTen(3)), Map.entry("M", BigDecimal.ONE.scaleByPowerOfTen(6)),
            Map.entry("G", BigDecimal.ONE.scaleByPowerOfTen(9)), Map.entry("T", BigDecimal.ONE.scaleByPowerOfTen(12)),
            Map.entry("P", BigDecimal.ONE.scaleByPowerOfTen(15)), Map.entry("E", BigDecimal.ONE.scaleByPowerOfTen(18)),
            Map.entry("Ki", new BigDecimal(BigInteger.TWO.pow(10))), Map.entry("Mi", new BigDecimal(BigInteger.TWO.pow(20))),
            Map.entry("Gi", new BigDecimal(BigInteger.TWO.pow(30))), Map.entry("Ti", new BigDecimal(BigInteger.TWO.pow(40))),
            Map.entry("Pi", new BigDecimal(BigInteger.TWO.pow(50))), Map.entry("Ei", new BigDecimal(BigInteger.TWO.pow(60))));
    private static final Pattern EXPONENT = Pattern.compile("[eE]([+-]?\\d+)");

    /** Parses {@code s}; the exception's message is the parser's error, as {@code ParseQuantity} words it. */
    static Quantity parse(String s) {
        String t = s == null ? "" : s.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException(FORMAT);
        }
        Matcher m = SPLIT.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException(FORMAT);
        }
        String number = m.group(1);
        String suffix = m.group(2);
        if (!NUMBER.matcher(number).matches()) {
            throw new IllegalArgumentException("unable to parse numeric part of quantity");
        }
        BigDecimal base = new BigDecimal(number.startsWith("+") ? number.substring(1) : number);
        BigDecimal factor = SUFFIXES.get(suffix);
        if (factor == null) {
            Matcher e = EXPONENT.matcher(suffix);
            if (!e.matches()) {
                throw new IllegalArgumentException("unable to parse quantity's suffix");
            }
            factor = BigDecimal.ONE.scaleByPowerOfTen(Integer.parseInt(e.group(1)));
        }
        return new Quantity(base.multiply(factor), t);
    }

    static boolean isQuantity(String s) {
        try {
            parse(s);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    int compareTo(Quantity other) {
        return value.compareTo(other.value);
    }

    /** {@code AsInt64}: the value when it is a whole number within int64, else null. */
    Long asLong() {
        BigDecimal v = value.stripTrailingZeros();
        if (v.scale() > 0) {
            return null;
        }
        try {
            return v.longValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    Quantity plus(BigDecimal other) {
        BigDecimal sum = value.add(other);
        return new Quantity(sum, sum.toPlainString());
    }

    @Override
    public String toString() {
        return text;
    }

    private static final String[] DECIMAL = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    private static final String[] BINARY = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    private static final BigDecimal KI = BigDecimal.valueOf(1024);

    /** Whether this quantity was written with a binary suffix ({@code Ki} .. {@code Ei}): Go's BinarySI format. */
    boolean binary() {
        return text.matches(".*[KMGTPE]i$");
    }

    /**
     * {@code Quantity.String()}, the canonical form ({@code CanonicalizeBytes}): in the binary format when written so,
     * the value a whole number of at least 1024 and a multiple of the suffix chosen ({@code 1536Mi}); otherwise
     * decimal, the mantissa an integer and the exponent the largest multiple of 3 that keeps it so ({@code 500m},
     * {@code 4}, {@code 1k}), at most nano precision (rounded up, as Go rounds a value it cannot hold).
     */
    String canonical() {
        return canonical(value, binary());
    }

    static String canonical(BigDecimal value, boolean binary) {
        BigDecimal v = value.stripTrailingZeros();
        if (v.signum() == 0) {
            return "0";
        }
        if (binary && v.scale() <= 0 && v.abs().compareTo(KI) >= 0) {
            int i = 0;
            while (i < BINARY.length - 1 && v.remainder(KI).signum() == 0) {
                v = v.divide(KI);
                i++;
            }
            return v.toBigInteger() + BINARY[i];
        }
        BigDecimal nano = v.scaleByPowerOfTen(9).setScale(0, java.math.RoundingMode.CEILING);
        int exp = 0;
        BigDecimal thousand = BigDecimal.valueOf(1000);
        while (exp < DECIMAL.length - 1 && nano.remainder(thousand).signum() == 0) {
            nano = nano.divide(thousand);
            exp++;
        }
        return nano.toBigInteger() + DECIMAL[exp];
    }

    /**
     * Each value of a resource list ({@code requests}, {@code max}, ...) parsed, keyed as given; a value that is not a
     * quantity is a cause at {@code path[name]}, and with {@code nonNegative} a negative one too
     * ({@code ValidateNonnegativeQuantity}), each reported where its entry stands.
     */
    static java.util.Map<String, Quantity> parseEach(com.google.gson.JsonObject list, String path, boolean nonNegative,
                                                     java.util.List<ApiError.Cause> causes) {
        java.util.Map<String, Quantity> out = new java.util.LinkedHashMap<>();
        if (list == null) {
            return out;
        }
        for (java.util.Map.Entry<String, com.google.gson.JsonElement> e : list.entrySet()) {
            String text = e.getValue().isJsonPrimitive() ? e.getValue().getAsString() : "";
            String field = path + "[" + e.getKey() + "]";
            try {
                Quantity q = parse(text);
                if (nonNegative && q.value().signum() < 0) {
                    causes.add(ApiError.Cause.invalid(field, Validation.quote(q.toString()),
                            "must be greater than or equal to 0"));
                }
                out.put(e.getKey(), q);
            } catch (IllegalArgumentException bad) {
                causes.add(ApiError.Cause.invalid(field, Validation.quote(text), bad.getMessage()));
            }
        }
        return out;
    }
}
