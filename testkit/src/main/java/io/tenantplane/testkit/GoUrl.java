package io.tenantplane.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A URL parsed as Go's {@code net/url} parses it, for the Kubernetes CEL URL library
 * ({@code staging/src/k8s.io/apiserver/pkg/cel/library/urls.go}): {@link #parseRequestUri} is {@code url.ParseRequestURI}
 * (what {@code url()} and {@code isURL()} accept: an absolute URI or an absolute path), {@link #parse} is
 * {@code url.Parse} (what {@code url()} then keeps, the fragment cut off), and the getters are the {@code URL} methods
 * the library calls ({@code Hostname}, {@code Port}, {@code EscapedPath}, {@code Query}). Errors carry Go's messages.
 *
 * @param scheme   the scheme, lower case; empty when absent
 * @param opaque   what follows the scheme when it is not a path ({@code mailto:x@example.com}); empty otherwise
 * @param host     host and port, brackets of an IPv6 literal included; empty when absent
 * @param path     the path, unescaped
 * @param rawPath  the path as written, when it is not the default escaping of {@code path}; empty otherwise
 * @param rawQuery the query as written, without the {@code ?}
 */
record GoUrl(String scheme, String opaque, String host, String path, String rawPath, String rawQuery) {

    /** A string {@code url.ParseRequestURI} or {@code url.Parse} refuses, with Go's {@code url.Error} message. */
    static final class UrlException extends IllegalArgumentException {
        UrlException(String raw, String error) {
            super("parse " + quote(raw) + ": " + error);
        }
    }

    private enum Mode { PATH, HOST, USER, QUERY }

    /** {@code url.ParseRequestURI}: the string must be an absolute URI or an absolute path; a fragment is not cut. */
    static GoUrl parseRequestUri(String raw) {
        return parse(raw, raw, true);
    }

    /** {@code url.Parse}: the fragment (after {@code #}) is cut off first, then the rest is parsed. */
    static GoUrl parse(String raw) {
        int hash = raw.indexOf('#');
        String u = hash < 0 ? raw : raw.substring(0, hash);
        if (hash >= 0) {
            unescape(raw, raw.substring(hash + 1), Mode.PATH);
        }
        return parse(raw, u, false);
    }

    private static GoUrl parse(String original, String raw, boolean viaRequest) {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new UrlException(original, "net/url: invalid control character in URL");
            }
        }
        if (raw.isEmpty() && viaRequest) {
            throw new UrlException(original, "empty url");
        }
        if (raw.equals("*")) {
            return new GoUrl("", "", "", "*", "", "");
        }
        String scheme = "";
        String rest = raw;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
                continue;
            }
            if (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
                if (i == 0) {
                    break;
                }
                continue;
            }
            if (c == ':') {
                if (i == 0) {
                    throw new UrlException(original, "missing protocol scheme");
                }
                scheme = raw.substring(0, i).toLowerCase(java.util.Locale.ROOT);
                rest = raw.substring(i + 1);
            }
            break;
        }
        String rawQuery = "";
        if (rest.endsWith("?") && rest.indexOf('?') == rest.length() - 1) {
            rest = rest.substring(0, rest.length() - 1);
        } else {
            int q = rest.indexOf('?');
            if (q >= 0) {
                rawQuery = rest.substring(q + 1);
                rest = rest.substring(0, q);
            }
        }
        if (!rest.startsWith("/")) {
            if (!scheme.isEmpty()) {
                return new GoUrl(scheme, rest, "", "", "", rawQuery);
            }
            if (viaRequest) {
                throw new UrlException(original, "invalid URI for request");
            }
            int slash = rest.indexOf('/');
            if ((slash < 0 ? rest : rest.substring(0, slash)).contains(":")) {
                throw new UrlException(original, "first path segment in URL cannot contain colon");
            }
        }
        String host = "";
        if ((!scheme.isEmpty() || !viaRequest && !rest.startsWith("///")) && rest.startsWith("//")) {
            String authority = rest.substring(2);
            rest = "";
            int slash = authority.indexOf('/');
            if (slash >= 0) {
                rest = authority.substring(slash);
                authority = authority.substring(0, slash);
            }
            host = parseAuthority(original, authority);
        }
        String path = unescape(original, rest, Mode.PATH);
        String rawPath = escape(path, Mode.PATH).equals(rest) ? "" : rest;
        return new GoUrl(scheme, "", host, path, rawPath, rawQuery);
    }

    private static String parseAuthority(String original, String authority) {
        int at = authority.lastIndexOf('@');
        String host = parseHost(original, at < 0 ? authority : authority.substring(at + 1));
        if (at >= 0) {
            String userinfo = authority.substring(0, at);
            for (int i = 0; i < userinfo.length(); i++) {
                char c = userinfo.charAt(i);
                if (!(Character.isLetterOrDigit(c) && c < 0x80) && "-._:~!$&'()*+,;=%@".indexOf(c) < 0) {
                    throw new UrlException(original, "net/url: invalid userinfo");
                }
            }
            unescape(original, userinfo, Mode.USER);
        }
        return host;
    }

    private static String parseHost(String original, String host) {
        if (host.startsWith("[")) {
            int close = host.lastIndexOf(']');
            if (close < 0) {
                throw new UrlException(original, "missing ']' in host");
            }
            String colonPort = host.substring(close + 1);
            if (!validOptionalPort(colonPort)) {
                throw new UrlException(original, "invalid port " + quote(colonPort) + " after host");
            }
        } else {
            int colon = host.lastIndexOf(':');
            if (colon >= 0 && !validOptionalPort(host.substring(colon))) {
                throw new UrlException(original, "invalid port " + quote(host.substring(colon)) + " after host");
            }
        }
        return unescape(original, host, Mode.HOST);
    }

    /** Go's {@code validOptionalPort}: empty, or a colon followed by digits only (none is allowed). */
    private static boolean validOptionalPort(String port) {
        if (port.isEmpty()) {
            return true;
        }
        if (port.charAt(0) != ':') {
            return false;
        }
        for (int i = 1; i < port.length(); i++) {
            if (port.charAt(i) < '0' || port.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** {@code URL.Hostname()}: the host without its port, an IPv6 literal without its brackets. */
    String hostname() {
        String h = splitHostPort()[0];
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** {@code URL.Port()}: the port, empty when absent. */
    String port() {
        return splitHostPort()[1];
    }

    private String[] splitHostPort() {
        int colon = host.lastIndexOf(':');
        if (colon >= 0 && validOptionalPort(host.substring(colon))) {
            return new String[] {host.substring(0, colon), host.substring(colon + 1)};
        }
        return new String[] {host, ""};
    }

    /** {@code URL.EscapedPath()}: the path as written when that is a valid escaping of it, else its default escaping. */
    String escapedPath() {
        if (!rawPath.isEmpty() && validEncoded(rawPath) && unescape(rawPath, rawPath, Mode.PATH).equals(path)) {
            return rawPath;
        }
        if (path.equals("*")) {
            return "*";
        }
        return escape(path, Mode.PATH);
    }

    /**
     * {@code URL.Query()}: the query's values by key, unescaped, in order; a pair that does not unescape, or whose key
     * holds a semicolon, is left out, as {@code url.ParseQuery} leaves it out of its result.
     */
    Map<String, List<String>> query() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        String q = rawQuery;
        while (!q.isEmpty()) {
            int amp = q.indexOf('&');
            String pair = amp < 0 ? q : q.substring(0, amp);
            q = amp < 0 ? "" : q.substring(amp + 1);
            if (pair.contains(";")) {
                continue;
            }
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                key = unescape(rawQuery, key, Mode.QUERY);
                value = unescape(rawQuery, value, Mode.QUERY);
            } catch (UrlException e) {
                continue;
            }
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        }
        return out;
    }

    // ---- Go's shouldEscape, escape, unescape and validEncoded, for the modes used here ----

    private static boolean shouldEscape(int c, Mode mode) {
        if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
            return false;
        }
        if (mode == Mode.HOST && "!$&'()*+,;=:[]<>\"".indexOf(c) >= 0) {
            return false;
        }
        if ("-_.~".indexOf(c) >= 0) {
            return false;
        }
        if ("$&+,/:;=?@".indexOf(c) >= 0) {
            return switch (mode) {
                case PATH -> c == '?';
                case USER -> c == '@' || c == '/' || c == '?' || c == ':';
                case QUERY -> true;
                case HOST -> false;
            };
        }
        return true;
    }

    private static String escape(String s, Mode mode) {
        StringBuilder b = new StringBuilder();
        for (byte raw : s.getBytes(StandardCharsets.UTF_8)) {
            int c = raw & 0xff;
            if (c == ' ' && mode == Mode.QUERY) {
                b.append('+');
            } else if (shouldEscape(c, mode)) {
                b.append('%').append("0123456789ABCDEF".charAt(c >> 4)).append("0123456789ABCDEF".charAt(c & 15));
            } else {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    private static String unescape(String original, String s, Mode mode) {
        byte[] in = s.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
        for (int i = 0; i < in.length; i++) {
            int c = in[i] & 0xff;
            if (c == '%') {
                if (i + 2 >= in.length || hex(in[i + 1]) < 0 || hex(in[i + 2]) < 0) {
                    String bad = new String(in, i, Math.min(3, in.length - i), StandardCharsets.UTF_8);
                    throw new UrlException(original, "invalid URL escape " + quote(bad));
                }
                if (mode == Mode.HOST && hex(in[i + 1]) < 8 && !(in[i + 1] == '2' && in[i + 2] == '5')) {
                    throw new UrlException(original, "invalid URL escape "
                            + quote(new String(in, i, 3, StandardCharsets.UTF_8)));
                }
                out.write(hex(in[i + 1]) << 4 | hex(in[i + 2]));
                i += 2;
            } else if (c == '+' && mode == Mode.QUERY) {
                out.write(' ');
            } else {
                if (mode == Mode.HOST && c < 0x80 && shouldEscape(c, mode)) {
                    throw new UrlException(original, "invalid character " + quote(String.valueOf((char) c))
                            + " in host name");
                }
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static boolean validEncoded(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ("!$&'()*+,;=:@[]%".indexOf(c) >= 0) {
                continue;
            }
            if (c >= 0x80 || shouldEscape(c, Mode.PATH)) {
                return false;
            }
        }
        return true;
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    /** Go's {@code %q} of a printable string. */
    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
