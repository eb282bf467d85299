package io.tenantplane.transform;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** IP literals and CIDRs, parsed without any DNS lookup. */
final class Addresses {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]+");

    private Addresses() {
    }

    /** The address an IP literal names, or null when {@code s} is not one (a name is never resolved). */
    static InetAddress parse(String s) {
        if (s == null || s.isEmpty()) {
            return null;
        }
        var m = IPV4.matcher(s);
        if (m.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(m.group(i)) > 255 || m.group(i).length() > 1 && m.group(i).startsWith("0")) {
                    return null;
                }
            }
        } else if (!(s.contains(":") && IPV6.matcher(s).matches())) {
            return null;
        }
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /**
     * Why the host refuses this address in an endpoint ({@code ValidateEndpointIP} in kubernetes
     * pkg/apis/core/validation/validation.go), or null when it does not.
     */
    static String special(InetAddress ip) {
        if (ip.isAnyLocalAddress()) {
            return "is unspecified";
        }
        if (ip.isLoopbackAddress()) {
            return "is in the loopback range (127.0.0.0/8, ::1/128)";
        }
        if (ip.isLinkLocalAddress()) {
            return "is in the link-local range (169.254.0.0/16, fe80::/10), where cloud metadata services answer";
        }
        byte[] b = ip.getAddress();
        boolean llMulticast = b.length == 4 ? (b[0] & 0xff) == 224 && b[1] == 0 && b[2] == 0
                : (b[0] & 0xff) == 0xff && (b[1] & 0x0f) == 0x02;
        return llMulticast ? "is in the link-local multicast range (224.0.0.0/24, ff02::/10)" : null;
    }

    /** True when {@code cidr} (e.g. {@code 10.0.0.0/8}) is valid and holds {@code ip} (of the same family). */
    static boolean contains(String cidr, InetAddress ip) {
        int slash = cidr == null ? -1 : cidr.indexOf('/');
        if (slash < 0) {
            return false;
        }
        InetAddress net = parse(cidr.substring(0, slash));
        int bits;
        try {
            bits = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            return false;
        }
        if (net == null || net.getAddress().length != ip.getAddress().length || bits < 0
                || bits > 8 * ip.getAddress().length) {
            return false;
        }
        int width = 8 * ip.getAddress().length;
        BigInteger mask = bits == 0 ? BigInteger.ZERO
                : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE).shiftLeft(width - bits);
        return new BigInteger(1, net.getAddress()).and(mask).equals(new BigInteger(1, ip.getAddress()).and(mask));
    }
}
