package io.tenantplane.testkit;

import java.util.Arrays;

/**
 * IP addresses and prefixes as Go's {@code net/netip} parses, prints and classifies them ({@code ParseAddr},
 * {@code ParsePrefix}, {@code Addr.String}, {@code IsLoopback} ...), for the Kubernetes CEL {@code ip} and
 * {@code cidr} libraries ({@code staging/src/k8s.io/apiserver/pkg/cel/library/ip.go}, {@code cidr.go}), which
 * refuse zones and IPv4-mapped IPv6 addresses on top.
 */
final class NetAddresses {

    private NetAddresses() {
    }

    /** An IPv4 (4 bytes) or IPv6 (16 bytes) address; equal by value. */
    record Ip(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Ip other && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        boolean is4() {
            return bytes.length == 4;
        }

        int u8(int i) {
            return bytes[i] & 0xff;
        }

        boolean isUnspecified() {
            for (byte b : bytes) {
                if (b != 0) {
                    return false;
                }
            }
            return true;
        }

        boolean isLoopback() {
            return is4() ? u8(0) == 127 : Arrays.equals(bytes, loopback6());
        }

        boolean isMulticast() {
            return is4() ? (u8(0) & 0xf0) == 0xe0 : u8(0) == 0xff;
        }

        boolean isLinkLocalMulticast() {
            return is4() ? u8(0) == 224 && u8(1) == 0 && u8(2) == 0 : u8(0) == 0xff && (u8(1) & 0x0f) == 0x02;
        }

        boolean isLinkLocalUnicast() {
            return is4() ? u8(0) == 169 && u8(1) == 254 : u8(0) == 0xfe && (u8(1) & 0xc0) == 0x80;
        }

        /** As {@code netip.Addr.IsGlobalUnicast}: private IPv4 and ULA IPv6 addresses count as global unicast. */
        boolean isGlobalUnicast() {
            if (is4() && (isUnspecified() || Arrays.equals(bytes, new byte[] {-1, -1, -1, -1}))) {
                return false;
            }
            return !isUnspecified() && !isLoopback() && !isMulticast() && !isLinkLocalUnicast();
        }

        /** {@code netip.Addr.String}: dotted IPv4; IPv6 as RFC 5952 (the longest run of two or more zero groups as ::). */
        @Override
        public String toString() {
            if (is4()) {
                return u8(0) + "." + u8(1) + "." + u8(2) + "." + u8(3);
            }
            int[] g = new int[8];
            for (int i = 0; i < 8; i++) {
                g[i] = (u8(2 * i) << 8) | u8(2 * i + 1);
            }
            int bestStart = -1;
            int bestLen = 0;
            for (int i = 0; i < 8; ) {
                if (g[i] != 0) {
                    i++;
                    continue;
                }
                int j = i;
                while (j < 8 && g[j] == 0) {
                    j++;
                }
                if (j - i > bestLen && j - i >= 2) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                if (i == bestStart) {
                    sb.append("::");
                    i += bestLen - 1;
                    continue;
                }
                if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                    sb.append(':');
                }
                sb.append(Integer.toHexString(g[i]));
            }
            return sb.toString();
        }
    }

    /** An address with a prefix length, the address kept as written (not masked); equal by value. */
    record Prefix(Ip ip, int bits) {
        Prefix masked() {
            byte[] b = ip.bytes().clone();
            for (int i = 0; i < b.length; i++) {
                int keep = Math.max(0, Math.min(8, bits - 8 * i));
                b[i] = (byte) (b[i] & (0xff << (8 - keep)));
            }
            return new Prefix(new Ip(b), bits);
        }

        /** {@code netip.Prefix.Contains}: same family, and equal in the first {@code bits} bits. */
        boolean contains(Ip other) {
            return other.bytes().length == ip.bytes().length
                    && new Prefix(other, bits).masked().equals(masked());
        }

        @Override
        public String toString() {
            return ip + "/" + bits;
        }
    }

    private static byte[] loopback6() {
        byte[] b = new byte[16];
        b[15] = 1;
        return b;
    }

    /** {@code netip.ParseAddr}, then the library's checks; the message is the library's. */
    static Ip parseIp(String raw) {
        int zone = raw.indexOf('%');
        Ip ip = parseAddr(zone >= 0 ? raw.substring(0, zone) : raw, raw);
        if (zone >= 0) {
            if (ip.is4() || zone == raw.length() - 1) {
                throw new IllegalArgumentException("IP Address \"" + raw + "\" parse error during conversion from "
                        + "string: ParseAddr(\"" + raw + "\"): unable to parse IP");
            }
            throw new IllegalArgumentException("IP address \"" + raw + "\" with zone value is not allowed");
        }
        if (is4In6(ip)) {
            throw new IllegalArgumentException("IPv4-mapped IPv6 address \"" + raw + "\" is not allowed");
        }
        return ip;
    }

    /** {@code netip.ParsePrefix}, then the library's check; the message is the library's. */
    static Prefix parseCidr(String raw) {
        String prefix = "network address parse error during conversion from string: ";
        int slash = raw.lastIndexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException(prefix + "netip.ParsePrefix(\"" + raw + "\"): no '/'");
        }
        String addr = raw.substring(0, slash);
        String bitsText = raw.substring(slash + 1);
        if (addr.contains("%")) {
            throw new IllegalArgumentException(prefix + "netip.ParsePrefix(\"" + raw + "\"): IPv6 zones cannot be "
                    + "present in a prefix");
        }
        Ip ip;
        try {
            ip = parseAddr(addr, addr);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(prefix + "netip.ParsePrefix(\"" + raw + "\"): " + e.getMessage());
        }
        if (!bitsText.matches("0|[1-9][0-9]{0,2}") || Integer.parseInt(bitsText) > ip.bytes().length * 8) {
            throw new IllegalArgumentException(prefix + "netip.ParsePrefix(\"" + raw + "\"): bad bits after slash: "
                    + "\"" + bitsText + "\"");
        }
        if (is4In6(ip)) {
            throw new IllegalArgumentException("IPv4-mapped IPv6 address \"" + raw + "\" is not allowed");
        }
        return new Prefix(ip, Integer.parseInt(bitsText));
    }

    static boolean isIp(String raw) {
        try {
            parseIp(raw);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean isCidr(String raw) {
        try {
            parseCidr(raw);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean is4In6(Ip ip) {
        if (ip.is4()) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            if (ip.bytes()[i] != 0) {
                return false;
            }
        }
        return ip.u8(10) == 0xff && ip.u8(11) == 0xff;
    }

    private static Ip parseAddr(String s, String raw) {
        IllegalArgumentException bad = new IllegalArgumentException("IP Address \"" + raw + "\" parse error during "
                + "conversion from string: ParseAddr(\"" + raw + "\"): unable to parse IP");
        if (s.isEmpty()) {
            throw bad;
        }
        if (s.indexOf(':') < 0) {
            byte[] v4 = parse4(s);
            if (v4 == null) {
                throw bad;
            }
            return new Ip(v4);
        }
        byte[] v6 = parse6(s);
        if (v6 == null) {
            throw bad;
        }
        return new Ip(v6);
    }

    /** Four decimal fields 0..255, no leading zeros, as {@code parseIPv4}. */
    private static byte[] parse4(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (!p.matches("0|[1-9][0-9]{0,2}") || Integer.parseInt(p) > 255) {
                return null;
            }
            b[i] = (byte) Integer.parseInt(p);
        }
        return b;
    }

    /** Hex groups of one to four digits, one {@code ::}, an optional trailing dotted IPv4, as {@code parseIPv6}. */
    private static byte[] parse6(String s) {
        int dbl = s.indexOf("::");
        if (dbl >= 0 && s.indexOf("::", dbl + 1) >= 0) {
            return null;
        }
        String head = dbl >= 0 ? s.substring(0, dbl) : s;
        String tail = dbl >= 0 ? s.substring(dbl + 2) : "";
        java.util.List<Integer> h = groups(head, dbl < 0);
        java.util.List<Integer> t = dbl >= 0 ? groups(tail, true) : java.util.List.of();
        if (h == null || t == null) {
            return null;
        }
        int total = h.size() + t.size();
        if (dbl < 0 && total != 8 || dbl >= 0 && total > 7) {
            return null;
        }
        byte[] b = new byte[16];
        int i = 0;
        for (int g : h) {
            b[i++] = (byte) (g >> 8);
            b[i++] = (byte) g;
        }
        i = 16 - 2 * t.size();
        for (int g : t) {
            b[i++] = (byte) (g >> 8);
            b[i++] = (byte) g;
        }
        return b;
    }

    /** The 16-bit groups of one side of {@code ::}; a dotted IPv4 may end the last side. */
    private static java.util.List<Integer> groups(String side, boolean last) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        if (side.isEmpty()) {
            return out;
        }
        String[] parts = side.split(":", -1);
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (i == parts.length - 1 && last && p.contains(".")) {
                byte[] v4 = parse4(p);
                if (v4 == null) {
                    return null;
                }
                out.add(((v4[0] & 0xff) << 8) | (v4[1] & 0xff));
                out.add(((v4[2] & 0xff) << 8) | (v4[3] & 0xff));
                continue;
            }
            if (!p.matches("[0-9a-fA-F]{1,4}")) {
                return null;
            }
            out.add(Integer.parseInt(p, 16));
        }
        return out;
    }
}
