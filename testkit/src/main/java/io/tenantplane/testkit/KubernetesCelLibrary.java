package io.tenantplane.testkit;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.ListType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.TypeParamType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Kubernetes CEL libraries cel-java does not have, written after their upstream code
 * ({@code staging/src/k8s.io/apiserver/pkg/cel/library/lists.go}, {@code regex.go}, {@code quantity.go},
 * {@code ip.go}, {@code cidr.go}, {@code urls.go} and {@code format.go}), as the
 * API server's base environment adds them ({@code staging/src/k8s.io/apiserver/pkg/cel/environment/base.go}):
 * <ul>
 *   <li>lists: {@code isSorted()}, {@code sum()}, {@code min()}, {@code max()}, {@code indexOf(e)},
 *   {@code lastIndexOf(e)} on lists of comparable values;</li>
 *   <li>regex: {@code find(re)} (the first match, or the empty string) and {@code findAll(re[, limit])} on strings;</li>
 *   <li>quantity: {@code quantity(s)}, {@code isQuantity(s)}, {@code sign(q)} and the comparisons, conversions and
 *   sums of {@link #QUANTITY} values ({@link Quantity});</li>
 *   <li>ip and cidr: addresses and prefixes ({@link #IP}, {@link #CIDR}, {@link NetAddresses});</li>
 *   <li>urls: {@code url(s)}, {@code isURL(s)} and the parts of a {@link #URL} ({@link GoUrl});</li>
 *   <li>format: {@code format.<name>()}, {@code format.named(name)}, {@code validate(s)} ({@link NamedFormat}).</li>
 * </ul>
 * Regular expressions run with RE2 (re2j), as the server's Go {@code regexp}: backreferences and lookaround are
 * refused there as here.
 */
final class KubernetesCelLibrary {

    private KubernetesCelLibrary() {
    }

    private static final TypeParamType T = TypeParamType.create("T");

    /** The {@code kubernetes.Quantity} type of the quantity library ({@code apiservercel.QuantityType}). */
    static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");

    static List<CelFunctionDecl> declarations() {
        ListType listOfT = ListType.create(T);
        List<CelFunctionDecl> out = new ArrayList<>(listsAndRegex(listOfT));
        out.addAll(quantityDeclarations());
        out.addAll(netDeclarations());
        out.addAll(urlDeclarations());
        out.addAll(formatDeclarations());
        return out;
    }

    /** The {@code kubernetes.NamedFormat} type of the format library ({@code apiservercel.FormatType}). */
    static final OpaqueType FORMAT = OpaqueType.create("kubernetes.NamedFormat");

    /**
     * The format library ({@code staging/src/k8s.io/apiserver/pkg/cel/library/format.go}, in the base environment
     * from 1.31): {@code format.<name>()} for each named format, {@code format.named(name)} (an optional format) and
     * {@code <format>.validate(s)} (none when valid, else the problems), with the formats of {@link NamedFormat}.
     */
    private static List<CelFunctionDecl> formatDeclarations() {
        List<CelFunctionDecl> out = new ArrayList<>();
        for (String name : NamedFormat.ALL.keySet()) {
            out.add(CelFunctionDecl.newFunctionDeclaration("format." + name,
                    CelOverloadDecl.newGlobalOverload("format." + name, FORMAT)));
        }
        out.add(CelFunctionDecl.newFunctionDeclaration("format.named",
                CelOverloadDecl.newGlobalOverload("format-named", dev.cel.common.types.OptionalType.create(FORMAT),
                        SimpleType.STRING)));
        out.add(CelFunctionDecl.newFunctionDeclaration("validate",
                CelOverloadDecl.newMemberOverload("format-validate", dev.cel.common.types.OptionalType.create(
                        ListType.create(SimpleType.STRING)), FORMAT, SimpleType.STRING)));
        return out;
    }

    private static List<CelFunctionBinding> formatBindings() {
        List<CelFunctionBinding> out = new ArrayList<>();
        for (NamedFormat f : NamedFormat.ALL.values()) {
            out.add(CelFunctionBinding.from("format." + f.name(), List.of(), args -> f));
        }
        out.add(CelFunctionBinding.from("format-named", String.class,
                name -> java.util.Optional.ofNullable(NamedFormat.ALL.get(name))));
        out.add(CelFunctionBinding.from("format-validate", NamedFormat.class, String.class, (f, s) -> {
            List<String> problems = f.validate().apply(s);
            return problems.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(problems);
        }));
        return out;
    }

    /** The {@code kubernetes.URL} type of the URL library ({@code apiservercel.URLType}). */
    static final OpaqueType URL = OpaqueType.create("kubernetes.URL");

    /**
     * The URL library ({@code staging/src/k8s.io/apiserver/pkg/cel/library/urls.go}, in the base environment from
     * 1.27): {@code url(s)}, {@code isURL(s)} and on a URL {@code getScheme}, {@code getHost}, {@code getHostname},
     * {@code getPort}, {@code getEscapedPath}, {@code getQuery}, parsed as Go's {@code net/url} parses ({@link GoUrl}).
     */
    private static List<CelFunctionDecl> urlDeclarations() {
        return List.of(
                CelFunctionDecl.newFunctionDeclaration("url",
                        CelOverloadDecl.newGlobalOverload("string_to_url", URL, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("isURL",
                        CelOverloadDecl.newGlobalOverload("is_url_string", SimpleType.BOOL, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("getScheme",
                        CelOverloadDecl.newMemberOverload("url_get_scheme", SimpleType.STRING, URL)),
                CelFunctionDecl.newFunctionDeclaration("getHost",
                        CelOverloadDecl.newMemberOverload("url_get_host", SimpleType.STRING, URL)),
                CelFunctionDecl.newFunctionDeclaration("getHostname",
                        CelOverloadDecl.newMemberOverload("url_get_hostname", SimpleType.STRING, URL)),
                CelFunctionDecl.newFunctionDeclaration("getPort",
                        CelOverloadDecl.newMemberOverload("url_get_port", SimpleType.STRING, URL)),
                CelFunctionDecl.newFunctionDeclaration("getEscapedPath",
                        CelOverloadDecl.newMemberOverload("url_get_escaped_path", SimpleType.STRING, URL)),
                CelFunctionDecl.newFunctionDeclaration("getQuery",
                        CelOverloadDecl.newMemberOverload("url_get_query", dev.cel.common.types.MapType.create(
                                SimpleType.STRING, ListType.create(SimpleType.STRING)), URL)));
    }

    private static List<CelFunctionBinding> urlBindings() {
        return List.of(
                CelFunctionBinding.from("string_to_url", String.class, s -> {
                    try {
                        // As upstream: ParseRequestURI checks (an absolute URI or path), Parse is what is kept.
                        GoUrl.parseRequestUri(s);
                        return GoUrl.parse(s);
                    } catch (GoUrl.UrlException e) {
                        throw new CelEvaluationException("URL parse error during conversion from string: "
                                + e.getMessage());
                    }
                }),
                CelFunctionBinding.from("is_url_string", String.class, s -> {
                    try {
                        GoUrl.parseRequestUri(s);
                        return true;
                    } catch (GoUrl.UrlException e) {
                        return false;
                    }
                }),
                CelFunctionBinding.from("url_get_scheme", GoUrl.class, GoUrl::scheme),
                CelFunctionBinding.from("url_get_host", GoUrl.class, GoUrl::host),
                CelFunctionBinding.from("url_get_hostname", GoUrl.class, GoUrl::hostname),
                CelFunctionBinding.from("url_get_port", GoUrl.class, GoUrl::port),
                CelFunctionBinding.from("url_get_escaped_path", GoUrl.class, GoUrl::escapedPath),
                CelFunctionBinding.from("url_get_query", GoUrl.class, GoUrl::query));
    }

    /** The {@code net.IP} and {@code net.CIDR} types of the ip and cidr libraries. */
    static final OpaqueType IP = OpaqueType.create("net.IP");
    static final OpaqueType CIDR = OpaqueType.create("net.CIDR");

    /**
     * The ip and cidr libraries ({@code staging/src/k8s.io/apiserver/pkg/cel/library/ip.go}, {@code cidr.go}, in the
     * base environment from 1.30): {@code ip(s)}, {@code isIP(s)}, {@code ip.isCanonical(s)}, {@code string(ip)} and
     * on an address {@code family}, {@code isUnspecified}, {@code isLoopback}, {@code isLinkLocalMulticast},
     * {@code isLinkLocalUnicast}, {@code isGlobalUnicast}; {@code cidr(s)}, {@code isCIDR(s)}, {@code string(cidr)}
     * and on a prefix {@code containsIP}, {@code containsCIDR} (a value or a string), {@code ip}, {@code masked},
     * {@code prefixLength} ({@link NetAddresses}).
     */
    private static List<CelFunctionDecl> netDeclarations() {
        return List.of(
                CelFunctionDecl.newFunctionDeclaration("ip",
                        CelOverloadDecl.newGlobalOverload("string_to_ip", IP, SimpleType.STRING),
                        CelOverloadDecl.newMemberOverload("cidr_ip", IP, CIDR)),
                CelFunctionDecl.newFunctionDeclaration("isIP",
                        CelOverloadDecl.newGlobalOverload("is_ip", SimpleType.BOOL, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("ip.isCanonical",
                        CelOverloadDecl.newGlobalOverload("ip_is_canonical", SimpleType.BOOL, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("family",
                        CelOverloadDecl.newMemberOverload("ip_family", SimpleType.INT, IP)),
                CelFunctionDecl.newFunctionDeclaration("isUnspecified",
                        CelOverloadDecl.newMemberOverload("ip_is_unspecified", SimpleType.BOOL, IP)),
                CelFunctionDecl.newFunctionDeclaration("isLoopback",
                        CelOverloadDecl.newMemberOverload("ip_is_loopback", SimpleType.BOOL, IP)),
                CelFunctionDecl.newFunctionDeclaration("isLinkLocalMulticast",
                        CelOverloadDecl.newMemberOverload("ip_is_link_local_multicast", SimpleType.BOOL, IP)),
                CelFunctionDecl.newFunctionDeclaration("isLinkLocalUnicast",
                        CelOverloadDecl.newMemberOverload("ip_is_link_local_unicast", SimpleType.BOOL, IP)),
                CelFunctionDecl.newFunctionDeclaration("isGlobalUnicast",
                        CelOverloadDecl.newMemberOverload("ip_is_global_unicast", SimpleType.BOOL, IP)),
                CelFunctionDecl.newFunctionDeclaration("cidr",
                        CelOverloadDecl.newGlobalOverload("string_to_cidr", CIDR, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("isCIDR",
                        CelOverloadDecl.newGlobalOverload("is_cidr", SimpleType.BOOL, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("containsIP",
                        CelOverloadDecl.newMemberOverload("cidr_contains_ip_string", SimpleType.BOOL, CIDR,
                                SimpleType.STRING),
                        CelOverloadDecl.newMemberOverload("cidr_contains_ip_ip", SimpleType.BOOL, CIDR, IP)),
                CelFunctionDecl.newFunctionDeclaration("containsCIDR",
                        CelOverloadDecl.newMemberOverload("cidr_contains_cidr_string", SimpleType.BOOL, CIDR,
                                SimpleType.STRING),
                        CelOverloadDecl.newMemberOverload("cidr_contains_cidr", SimpleType.BOOL, CIDR, CIDR)),
                CelFunctionDecl.newFunctionDeclaration("prefixLength",
                        CelOverloadDecl.newMemberOverload("cidr_prefix_length", SimpleType.INT, CIDR)),
                CelFunctionDecl.newFunctionDeclaration("masked",
                        CelOverloadDecl.newMemberOverload("cidr_masked", CIDR, CIDR)),
                CelFunctionDecl.newFunctionDeclaration("string",
                        CelOverloadDecl.newGlobalOverload("ip_to_string", SimpleType.STRING, IP),
                        CelOverloadDecl.newGlobalOverload("cidr_to_string", SimpleType.STRING, CIDR)));
    }

    private static List<CelFunctionBinding> netBindings() {
        return List.of(
                CelFunctionBinding.from("string_to_ip", String.class, s -> net(() -> NetAddresses.parseIp(s))),
                CelFunctionBinding.from("cidr_ip", NetAddresses.Prefix.class, NetAddresses.Prefix::ip),
                CelFunctionBinding.from("is_ip", String.class, NetAddresses::isIp),
                CelFunctionBinding.from("ip_is_canonical", String.class,
                        s -> net(() -> NetAddresses.parseIp(s)).toString().equals(s)),
                CelFunctionBinding.from("ip_family", NetAddresses.Ip.class, ip -> ip.is4() ? 4L : 6L),
                CelFunctionBinding.from("ip_is_unspecified", NetAddresses.Ip.class, NetAddresses.Ip::isUnspecified),
                CelFunctionBinding.from("ip_is_loopback", NetAddresses.Ip.class, NetAddresses.Ip::isLoopback),
                CelFunctionBinding.from("ip_is_link_local_multicast", NetAddresses.Ip.class,
                        NetAddresses.Ip::isLinkLocalMulticast),
                CelFunctionBinding.from("ip_is_link_local_unicast", NetAddresses.Ip.class,
                        NetAddresses.Ip::isLinkLocalUnicast),
                CelFunctionBinding.from("ip_is_global_unicast", NetAddresses.Ip.class,
                        NetAddresses.Ip::isGlobalUnicast),
                CelFunctionBinding.from("string_to_cidr", String.class, s -> net(() -> NetAddresses.parseCidr(s))),
                CelFunctionBinding.from("is_cidr", String.class, NetAddresses::isCidr),
                CelFunctionBinding.from("cidr_contains_ip_string", NetAddresses.Prefix.class, String.class,
                        (c, s) -> c.contains(net(() -> NetAddresses.parseIp(s)))),
                CelFunctionBinding.from("cidr_contains_ip_ip", NetAddresses.Prefix.class, NetAddresses.Ip.class,
                        NetAddresses.Prefix::contains),
                CelFunctionBinding.from("cidr_contains_cidr_string", NetAddresses.Prefix.class, String.class,
                        (c, s) -> containsCidr(c, net(() -> NetAddresses.parseCidr(s)))),
                CelFunctionBinding.from("cidr_contains_cidr", NetAddresses.Prefix.class, NetAddresses.Prefix.class,
                        KubernetesCelLibrary::containsCidr),
                CelFunctionBinding.from("cidr_prefix_length", NetAddresses.Prefix.class, c -> (long) c.bits()),
                CelFunctionBinding.from("cidr_masked", NetAddresses.Prefix.class, NetAddresses.Prefix::masked),
                CelFunctionBinding.from("ip_to_string", NetAddresses.Ip.class, NetAddresses.Ip::toString),
                CelFunctionBinding.from("cidr_to_string", NetAddresses.Prefix.class, NetAddresses.Prefix::toString));
    }

    /** A prefix holds another when it is at least as long and lies within it (the documented examples). */
    private static boolean containsCidr(NetAddresses.Prefix outer, NetAddresses.Prefix inner) {
        return inner.bits() >= outer.bits() && outer.contains(inner.ip());
    }

    private interface NetParse<T> {
        T get();
    }

    /** A parse error as the rule's evaluation error, with the library's message. */
    private static <T> T net(NetParse<T> parse) throws CelEvaluationException {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new CelEvaluationException(e.getMessage());
        }
    }

    /**
     * The quantity library ({@code staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go}, in the base environment
     * from 1.28): {@code quantity(s)}, {@code isQuantity(s)}, {@code sign(q)}, and on a quantity
     * {@code isGreaterThan}, {@code isLessThan}, {@code compareTo}, {@code asApproximateFloat}, {@code asInteger},
     * {@code isInteger}, {@code add} and {@code sub} (a quantity or an int). {@code mul}, {@code div} and
     * {@code divInt}, which later versions add, are not here: a rule using them is refused with its CRD.
     */
    private static List<CelFunctionDecl> quantityDeclarations() {
        return List.of(
                CelFunctionDecl.newFunctionDeclaration("quantity",
                        CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("isQuantity",
                        CelOverloadDecl.newGlobalOverload("is_quantity_string", SimpleType.BOOL, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("sign",
                        CelOverloadDecl.newGlobalOverload("quantity_sign", SimpleType.INT, QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("isGreaterThan",
                        CelOverloadDecl.newMemberOverload("quantity_is_greater_than", SimpleType.BOOL, QUANTITY,
                                QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("isLessThan",
                        CelOverloadDecl.newMemberOverload("quantity_is_less_than", SimpleType.BOOL, QUANTITY,
                                QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("compareTo",
                        CelOverloadDecl.newMemberOverload("quantity_compare_to", SimpleType.INT, QUANTITY, QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("asApproximateFloat",
                        CelOverloadDecl.newMemberOverload("quantity_get_float", SimpleType.DOUBLE, QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("asInteger",
                        CelOverloadDecl.newMemberOverload("quantity_get_int", SimpleType.INT, QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("isInteger",
                        CelOverloadDecl.newMemberOverload("quantity_is_integer", SimpleType.BOOL, QUANTITY)),
                CelFunctionDecl.newFunctionDeclaration("add",
                        CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
                        CelOverloadDecl.newMemberOverload("quantity_add_int", QUANTITY, QUANTITY, SimpleType.INT)),
                CelFunctionDecl.newFunctionDeclaration("sub",
                        CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
                        CelOverloadDecl.newMemberOverload("quantity_sub_int", QUANTITY, QUANTITY, SimpleType.INT)));
    }

    private static List<CelFunctionBinding> quantityBindings() {
        return List.of(
                CelFunctionBinding.from("string_to_quantity", String.class, s -> {
                    try {
                        return Quantity.parse(s);
                    } catch (IllegalArgumentException e) {
                        throw new CelEvaluationException(e.getMessage());
                    }
                }),
                CelFunctionBinding.from("is_quantity_string", String.class, Quantity::isQuantity),
                CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.value().signum()),
                CelFunctionBinding.from("quantity_is_greater_than", Quantity.class, Quantity.class,
                        (a, b) -> a.compareTo(b) > 0),
                CelFunctionBinding.from("quantity_is_less_than", Quantity.class, Quantity.class,
                        (a, b) -> a.compareTo(b) < 0),
                CelFunctionBinding.from("quantity_compare_to", Quantity.class, Quantity.class,
                        (a, b) -> (long) Integer.signum(a.compareTo(b))),
                CelFunctionBinding.from("quantity_get_float", Quantity.class, q -> q.value().doubleValue()),
                CelFunctionBinding.from("quantity_get_int", Quantity.class, q -> {
                    Long v = q.asLong();
                    if (v == null) {
                        throw new CelEvaluationException("cannot convert value to integer");
                    }
                    return v;
                }),
                CelFunctionBinding.from("quantity_is_integer", Quantity.class, q -> q.asLong() != null),
                CelFunctionBinding.from("quantity_add", Quantity.class, Quantity.class,
                        (a, b) -> a.plus(b.value())),
                CelFunctionBinding.from("quantity_add_int", Quantity.class, Long.class,
                        (a, b) -> a.plus(java.math.BigDecimal.valueOf(b))),
                CelFunctionBinding.from("quantity_sub", Quantity.class, Quantity.class,
                        (a, b) -> a.plus(b.value().negate())),
                CelFunctionBinding.from("quantity_sub_int", Quantity.class, Long.class,
                        (a, b) -> a.plus(java.math.BigDecimal.valueOf(b).negate())));
    }

    private static List<CelFunctionDecl> listsAndRegex(ListType listOfT) {
        return List.of(
                CelFunctionDecl.newFunctionDeclaration("isSorted",
                        CelOverloadDecl.newMemberOverload("list_isSorted", SimpleType.BOOL, listOfT)),
                CelFunctionDecl.newFunctionDeclaration("sum",
                        CelOverloadDecl.newMemberOverload("list_sum", T, listOfT)),
                CelFunctionDecl.newFunctionDeclaration("min",
                        CelOverloadDecl.newMemberOverload("list_min", T, listOfT)),
                CelFunctionDecl.newFunctionDeclaration("max",
                        CelOverloadDecl.newMemberOverload("list_max", T, listOfT)),
                CelFunctionDecl.newFunctionDeclaration("indexOf",
                        CelOverloadDecl.newMemberOverload("list_indexOf", SimpleType.INT, listOfT, T)),
                CelFunctionDecl.newFunctionDeclaration("lastIndexOf",
                        CelOverloadDecl.newMemberOverload("list_lastIndexOf", SimpleType.INT, listOfT, T)),
                CelFunctionDecl.newFunctionDeclaration("find",
                        CelOverloadDecl.newMemberOverload("string_find_string", SimpleType.STRING,
                                SimpleType.STRING, SimpleType.STRING)),
                CelFunctionDecl.newFunctionDeclaration("findAll",
                        CelOverloadDecl.newMemberOverload("string_find_all_string", ListType.create(SimpleType.STRING),
                                SimpleType.STRING, SimpleType.STRING),
                        CelOverloadDecl.newMemberOverload("string_find_all_string_int",
                                ListType.create(SimpleType.STRING), SimpleType.STRING, SimpleType.STRING,
                                SimpleType.INT)));
    }

    static List<CelFunctionBinding> bindings() {
        List<CelFunctionBinding> out = new ArrayList<>(listsAndRegexBindings());
        out.addAll(quantityBindings());
        out.addAll(netBindings());
        out.addAll(urlBindings());
        out.addAll(formatBindings());
        return out;
    }

    private static List<CelFunctionBinding> listsAndRegexBindings() {
        return List.of(
                CelFunctionBinding.from("list_isSorted", List.class, KubernetesCelLibrary::isSorted),
                CelFunctionBinding.from("list_sum", List.class, KubernetesCelLibrary::sum),
                CelFunctionBinding.from("list_min", List.class, l -> extreme(l, -1, "min")),
                CelFunctionBinding.from("list_max", List.class, l -> extreme(l, 1, "max")),
                CelFunctionBinding.from("list_indexOf", List.class, Object.class,
                        (l, e) -> (long) indexOf(l, e)),
                CelFunctionBinding.from("list_lastIndexOf", List.class, Object.class,
                        (l, e) -> (long) lastIndexOf(l, e)),
                CelFunctionBinding.from("string_find_string", String.class, String.class, (s, re) -> {
                    Matcher m = compile(re).matcher(s);
                    return m.find() ? m.group() : "";
                }),
                CelFunctionBinding.from("string_find_all_string", String.class, String.class,
                        (s, re) -> findAll(s, re, -1)),
                CelFunctionBinding.from("string_find_all_string_int", List.of(String.class, String.class, Long.class),
                        args -> findAll((String) args[0], (String) args[1], (Long) args[2])));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) throws CelEvaluationException {
        if (a instanceof Number x && b instanceof Number y && !(a.getClass().equals(b.getClass()))) {
            return Double.compare(x.doubleValue(), y.doubleValue());
        }
        if (a instanceof Comparable ca && a.getClass().equals(b.getClass())) {
            return ca.compareTo(b);
        }
        throw new CelEvaluationException("no such overload: compare " + a.getClass().getSimpleName() + " with "
                + b.getClass().getSimpleName());
    }

    private static boolean isSorted(List<?> l) throws CelEvaluationException {
        for (int i = 1; i < l.size(); i++) {
            if (compare(l.get(i - 1), l.get(i)) > 0) {
                return false;
            }
        }
        return true;
    }

    private static Object sum(List<?> l) throws CelEvaluationException {
        if (l.isEmpty()) {
            return 0L;
        }
        if (l.get(0) instanceof Double) {
            double d = 0;
            for (Object o : l) {
                d += ((Number) o).doubleValue();
            }
            return d;
        }
        if (l.get(0) instanceof Long) {
            long s = 0;
            for (Object o : l) {
                s = Math.addExact(s, ((Number) o).longValue());
            }
            return s;
        }
        throw new CelEvaluationException("no such overload: sum of " + l.get(0).getClass().getSimpleName());
    }

    private static Object extreme(List<?> l, int sign, String name) throws CelEvaluationException {
        if (l.isEmpty()) {
            throw new CelEvaluationException(name + " called on empty list");
        }
        Object best = l.get(0);
        for (Object o : l) {
            if (compare(o, best) * sign > 0) {
                best = o;
            }
        }
        return best;
    }

    private static int indexOf(List<?> l, Object e) {
        for (int i = 0; i < l.size(); i++) {
            if (Objects.equals(l.get(i), e)) {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOf(List<?> l, Object e) {
        for (int i = l.size() - 1; i >= 0; i--) {
            if (Objects.equals(l.get(i), e)) {
                return i;
            }
        }
        return -1;
    }

    private static List<String> findAll(String s, String re, long limit) throws CelEvaluationException {
        List<String> out = new ArrayList<>();
        Matcher m = compile(re).matcher(s);
        while ((limit < 0 || out.size() < limit) && m.find()) {
            out.add(m.group());
        }
        return out;
    }

    private static Pattern compile(String re) throws CelEvaluationException {
        try {
            return Pattern.compile(re);
        } catch (PatternSyntaxException e) {
            throw new CelEvaluationException("error parsing regexp: " + e.getMessage());
        }
    }
}
