package io.tenantplane.testkit;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.OptionalType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The worst-case cost of a type-checked CEL rule, estimated as the API server estimates it when a CRD is written:
 * cel-go's static estimator ({@code checker/cost.go} in {@code google/cel-go}, {@code Cost}) with the Kubernetes
 * library's call costs ({@code EstimateCallCost} in {@code staging/src/k8s.io/apiserver/pkg/cel/library/cost.go}) and
 * the schema's sizes ({@code sizeEstimator} in {@code staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/
 * cel/compilation.go}: a value's most elements from {@code maxLength}, {@code maxItems}, {@code maxProperties}, or what
 * fits in a request). The limits and the message are those of {@code apiextensions/validation/validation.go}.
 *
 * <p>Costs are unsigned 64-bit in Go; here they saturate at {@link Long#MAX_VALUE}, which is above every limit, so a
 * comparison with a limit comes out the same. Sizes of the items of lists built in the expression itself are not
 * tracked (as in the cel-go of Kubernetes 1.32): iterating one costs as if its items were of unknown size.
 */
final class CelCost {

    /** {@code StaticEstimatedCostLimit}: the most one rule (times how often it can run) may cost. */
    static final long RULE_LIMIT = 10_000_000L;
    /** {@code StaticEstimatedCRDCostLimit}: the most all rules of one version's schema may cost together. */
    static final long CRD_LIMIT = 100_000_000L;
    private static final long MAX = Long.MAX_VALUE;
    private static final double STRING_TRAVERSAL = 0.1;
    private static final double REGEX_STRING_LENGTH = 0.25;
    private static final Range UNKNOWN = new Range(0, MAX);
    private static final Range ONE = new Range(1, 1);
    private static final Set<String> ACCUMULATORS = Set.of("__result__", "@result", "@__result__");

    /** A range of costs or sizes, added and multiplied without overflow. */
    record Range(long min, long max) {
        Range add(Range o) {
            return new Range(add(min, o.min), add(max, o.max));
        }

        Range multiply(Range o) {
            return new Range(multiply(min, o.min), multiply(max, o.max));
        }

        Range byFactor(double factor) {
            return new Range(factor(min, factor), factor(max, factor));
        }

        Range union(Range o) {
            return new Range(Math.min(min, o.min), Math.max(max, o.max));
        }

        static long add(long x, long y) {
            return x > MAX - y ? MAX : x + y;
        }

        static long multiply(long x, long y) {
            if (x == 0 || y == 0) {
                return 0;
            }
            return x > MAX / y ? MAX : x * y;
        }

        static long factor(long x, double f) {
            double v = Math.ceil((double) x * f);
            return v >= (double) MAX ? MAX : (long) v;
        }
    }

    private record LocalVar(List<String> path, Range size) {
    }

    /**
     * The estimated cost of every rule of one schema, and the four most expensive of those that are at least 1% of
     * the schema's limit ({@code TotalCost.ObserveExpressionCost}).
     */
    static final class Total {
        record Cost(String path, long cost) {
        }

        private long total;
        private final List<Cost> mostExpensive = new ArrayList<>();

        void observe(String path, long cost) {
            total = Range.add(total, cost);
            if (cost < CRD_LIMIT / 100) {
                return;
            }
            mostExpensive.add(new Cost(path, cost));
            mostExpensive.sort((a, b) -> Long.compare(b.cost(), a.cost()));
            if (mostExpensive.size() > 4) {
                mostExpensive.subList(4, mostExpensive.size()).clear();
            }
        }

        long total() {
            return total;
        }

        List<Cost> mostExpensive() {
            return List.copyOf(mostExpensive);
        }
    }

    private final CelAbstractSyntaxTree ast;
    private final CelDeclType root;
    private final Map<Long, List<String>> paths = new HashMap<>();
    private final Map<Long, Range> sizes = new HashMap<>();
    private final Map<String, Deque<LocalVar>> locals = new HashMap<>();

    private CelCost(CelAbstractSyntaxTree ast, CelDeclType root) {
        this.ast = ast;
        this.root = root;
    }

    /** The most {@code ast} can cost, {@code self} and {@code oldSelf} being of type {@code root}. */
    static long estimate(CelAbstractSyntaxTree ast, CelDeclType root) {
        return new CelCost(ast, root).cost(ast.getExpr()).max();
    }

    /**
     * A rule's cost times how often it can run: the product of the {@code maxItems} and {@code maxProperties} above
     * it, or, when one of them is unbounded, as many times as the smallest value of its type fits in a request
     * ({@code getExpressionCost}, {@code maxCardinality}).
     */
    static long times(long cost, Long cardinality, CelDeclType type) {
        long n = cardinality != null ? cardinality
                : CelDeclType.MAX_REQUEST_SIZE_BYTES / (type.minSerializedSize + 1);
        return cost == 0 ? 0 : Range.multiply(cost, n);
    }

    /** {@code getCostErrorMessage}. */
    static String exceeds(String costName, long cost, long limit) {
        double f = (double) cost / (double) limit;
        String factor = f > 100.0 ? "more than 100x"
                : f < 1.5 ? String.format(java.util.Locale.ROOT, "%fx", f)
                : String.format(java.util.Locale.ROOT, "%.1fx", f);
        return costName + " exceeds budget by factor of " + factor + " (try simplifying the rule, or adding maxItems, "
                + "maxProperties, and maxLength where arrays, maps, and strings are declared)";
    }

    private Range cost(CelExpr e) {
        return switch (e.getKind()) {
            case CONSTANT -> new Range(0, 0);
            case IDENT -> {
                LocalVar v = peek(e.ident().name());
                paths.put(e.id(), v != null ? v.path() : List.of(e.ident().name()));
                yield ONE;
            }
            case SELECT -> select(e);
            case CALL -> call(e);
            case LIST -> {
                Range sum = new Range(0, 0);
                for (CelExpr item : e.list().elements()) {
                    sum = sum.add(cost(item));
                }
                yield sum.add(new Range(10, 10));
            }
            case MAP -> {
                Range sum = new Range(0, 0);
                for (var entry : e.map().entries()) {
                    sum = sum.add(cost(entry.key())).add(cost(entry.value()));
                }
                yield sum.add(new Range(30, 30));
            }
            case STRUCT -> {
                Range sum = new Range(0, 0);
                for (var field : e.struct().entries()) {
                    sum = sum.add(cost(field.value()));
                }
                yield sum.add(new Range(40, 40));
            }
            case COMPREHENSION -> isBind(e) ? bind(e) : comprehension(e);
            default -> new Range(0, 0);
        };
    }

    private Range select(CelExpr e) {
        CelExpr.CelSelect sel = e.select();
        if (sel.testOnly()) {
            // has(): the presence test costs one, the operand its own.
            return ONE.add(cost(sel.operand()));
        }
        Range sum = cost(sel.operand());
        CelKind kind = type(sel.operand()).kind();
        if (kind == CelKind.MAP || kind == CelKind.STRUCT || kind == CelKind.TYPE_PARAM) {
            sum = sum.add(ONE);
        }
        paths.put(e.id(), append(path(sel.operand()), sel.field()));
        return sum;
    }

    private Range call(CelExpr e) {
        CelExpr.CelCall call = e.call();
        if (call.function().equals("dyn") && call.args().size() == 1 && call.target().isEmpty()) {
            Range argCost = cost(call.args().get(0));
            Range size = size(call.args().get(0));
            if (size != null) {
                sizes.put(e.id(), size);
            }
            return ONE.add(argCost);
        }
        List<Range> argCosts = new ArrayList<>();
        for (CelExpr a : call.args()) {
            argCosts.add(cost(a));
        }
        List<String> overloads = ast.getReference(e.id()).map(r -> (List<String>) r.overloadIds()).orElse(List.of());
        if (overloads.isEmpty()) {
            return new Range(0, 0);
        }
        Range sum = new Range(0, 0);
        CelExpr target = call.target().orElse(null);
        if (target != null) {
            sum = sum.add(cost(target));
        }
        Range fn = new Range(MAX, 0);
        Range resultSize = null;
        for (String overload : overloads) {
            Estimate est = functionCost(e, call.function(), overload, target, call.args(), argCosts);
            fn = fn.union(est.cost());
            if (est.resultSize() != null) {
                resultSize = resultSize == null ? est.resultSize() : resultSize.union(est.resultSize());
            }
            if (overload.equals("index_list") && !call.args().isEmpty()) {
                paths.put(e.id(), append(path(call.args().get(0)), "@items"));
            } else if (overload.equals("index_map") && !call.args().isEmpty()) {
                paths.put(e.id(), append(path(call.args().get(0)), "@values"));
            }
            if (resultSize == null) {
                resultSize = size(e);
            }
        }
        if (resultSize != null) {
            sizes.put(e.id(), resultSize);
        }
        return sum.add(fn);
    }

    private record Estimate(Range cost, Range resultSize) {
    }

    private Estimate functionCost(CelExpr e, String function, String overload, CelExpr target, List<CelExpr> args,
                                  List<Range> argCosts) {
        Range argSum = new Range(0, 0);
        for (Range r : argCosts) {
            argSum = argSum.add(r);
        }
        Estimate library = kubernetes(function, overload, target, args);
        if (library != null) {
            return new Estimate(library.cost().add(argSum), library.resultSize());
        }
        switch (overload) {
            case "string_to_bytes" -> {
                if (args.size() == 1) {
                    Range sz = sizeOrUnknown(args.get(0));
                    return new Estimate(sz.byFactor(STRING_TRAVERSAL).add(argSum),
                            new Range(sz.min(), Range.multiply(sz.max(), 4)));
                }
            }
            case "bytes_to_string" -> {
                if (args.size() == 1) {
                    Range sz = sizeOrUnknown(args.get(0));
                    return new Estimate(sz.byFactor(STRING_TRAVERSAL).add(argSum), new Range(sz.min() / 4, sz.max()));
                }
            }
            case "starts_with_string", "ends_with_string" -> {
                if (args.size() == 1) {
                    return new Estimate(sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL).add(argSum), null);
                }
            }
            case "in_list" -> {
                if (args.size() == 2) {
                    return new Estimate(sizeOrUnknown(args.get(1)).byFactor(1).add(argSum), null);
                }
            }
            case "matches_string" -> {
                if (target != null && args.size() == 1) {
                    Range str = sizeOrUnknown(target).add(ONE).byFactor(STRING_TRAVERSAL);
                    Range regex = sizeOrUnknown(args.get(0)).byFactor(REGEX_STRING_LENGTH);
                    return new Estimate(str.multiply(regex).add(argSum), null);
                }
            }
            case "contains_string" -> {
                if (target != null && args.size() == 1) {
                    Range str = sizeOrUnknown(target).byFactor(STRING_TRAVERSAL);
                    Range sub = sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL);
                    return new Estimate(str.multiply(sub).add(argSum), null);
                }
            }
            case "logical_or", "logical_and" -> {
                Range lhs = argCosts.get(0);
                Range rhs = argCosts.get(1);
                return new Estimate(new Range(lhs.min(), lhs.add(rhs).max()), null);
            }
            case "conditional" -> {
                Range size = sizeOrUnknown(args.get(1)).union(sizeOrUnknown(args.get(2)));
                return new Estimate(argCosts.get(0).add(argCosts.get(1).union(argCosts.get(2))), size);
            }
            case "add_string", "add_bytes", "add_list" -> {
                if (args.size() == 2) {
                    Range result = sizeOrUnknown(args.get(0)).add(sizeOrUnknown(args.get(1)));
                    if (overload.equals("add_list")) {
                        return new Estimate(ONE.add(argSum), result);
                    }
                    return new Estimate(result.byFactor(STRING_TRAVERSAL).add(argSum), result);
                }
            }
            case "less_string", "greater_string", "less_equals_string", "greater_equals_string", "less_bytes",
                 "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals" -> {
                Range l = sizeOrUnknown(args.get(0));
                Range r = sizeOrUnknown(args.get(1));
                long smallestMax = Math.min(l.max(), r.max());
                return new Estimate(new Range(smallestMax > 0 ? 1 : 0, smallestMax).byFactor(STRING_TRAVERSAL)
                        .add(argSum), null);
            }
            default -> {
            }
        }
        return new Estimate(ONE.add(argSum), null);
    }

    /** The Kubernetes library's {@code EstimateCallCost}, for the functions the testkit declares; null otherwise. */
    private Estimate kubernetes(String function, String overload, CelExpr target, List<CelExpr> args) {
        switch (function) {
            case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf" -> {
                if (target != null) {
                    CelType t = type(target);
                    if (t instanceof ListType list) {
                        Range el = ONE;
                        CelKind k = list.elemType().kind();
                        if (k == CelKind.STRING || k == CelKind.BYTES) {
                            el = el.add(elementSize(target).byFactor(STRING_TRAVERSAL));
                        }
                        return new Estimate(sizeOrUnknown(target).multiply(el), null);
                    }
                    return new Estimate(sizeOrUnknown(target).byFactor(STRING_TRAVERSAL), null);
                }
            }
            case "url" -> {
                if (args.size() == 1) {
                    return new Estimate(sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL), null);
                }
            }
            case "lowerAscii", "upperAscii", "substring", "trim" -> {
                if (target != null) {
                    Range sz = sizeOrUnknown(target);
                    return new Estimate(sz.byFactor(STRING_TRAVERSAL), sz);
                }
            }
            case "replace" -> {
                if (target != null && args.size() >= 2) {
                    return new Estimate(sizeOrUnknown(target).byFactor(2 * STRING_TRAVERSAL),
                            replaceSize(sizeOrUnknown(target), sizeOrUnknown(args.get(0)),
                                    sizeOrUnknown(args.get(1))));
                }
            }
            case "split" -> {
                if (target != null) {
                    Range sz = sizeOrUnknown(target);
                    long max = sz.max();
                    if (args.size() > 1 && args.get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT
                            && args.get(1).constant().getKind() == CelConstant.Kind.INT64_VALUE) {
                        max = args.get(1).constant().int64Value();
                    }
                    return new Estimate(sz.byFactor(2 * STRING_TRAVERSAL), new Range(0, max));
                }
            }
            case "join" -> {
                if (target != null) {
                    Range listSize = sizeOrUnknown(target);
                    Range sz = new Range(0, 0);
                    if (type(target) instanceof ListType) {
                        sz = listSize.multiply(elementSize(target));
                    }
                    if (!args.isEmpty()) {
                        Range sep = sizeOrUnknown(args.get(0));
                        sz = sz.add(sep.multiply(new Range(listSize.min() > 0 ? listSize.min() - 1 : 0,
                                listSize.max() > 0 ? listSize.max() - 1 : 0)));
                    }
                    return new Estimate(sz.byFactor(STRING_TRAVERSAL), sz);
                }
            }
            case "find", "findAll" -> {
                if (target != null && !args.isEmpty()) {
                    Range sz = sizeOrUnknown(target);
                    Range str = sz.add(ONE).byFactor(STRING_TRAVERSAL);
                    Range regex = sizeOrUnknown(args.get(0)).byFactor(REGEX_STRING_LENGTH);
                    return new Estimate(str.multiply(regex), new Range(0, sz.max()));
                }
            }
            case "cidr", "isIP", "isCIDR" -> {
                if (target != null) {
                    return new Estimate(sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL), null);
                }
            }
            case "ip" -> {
                if (target != null && !args.isEmpty()) {
                    if (overload.equals("cidr_ip")) {
                        return new Estimate(ONE, null);
                    }
                    return new Estimate(sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL), null);
                } else if (target != null) {
                    return new Estimate(ONE, null);
                }
            }
            case "ip.isCanonical" -> {
                if (target != null && !args.isEmpty()) {
                    return new Estimate(sizeOrUnknown(args.get(0)).byFactor(2 * STRING_TRAVERSAL), null);
                }
            }
            case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                 "isLinkLocalUnicast" -> {
                return new Estimate(ONE, null);
            }
            case "containsIP", "containsCIDR" -> {
                if (target != null && !args.isEmpty()) {
                    Range sz = new Range(4, 16);
                    Range c = sz.add(sz).byFactor(STRING_TRAVERSAL);
                    if (function.equals("containsCIDR")) {
                        c = c.add(sz.byFactor(STRING_TRAVERSAL)).add(ONE);
                    }
                    if (overload.equals("cidr_contains_ip_string") || overload.equals("cidr_contains_cidr_string")) {
                        c = c.add(sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL));
                    }
                    return new Estimate(c, null);
                }
            }
            case "quantity", "isQuantity" -> {
                if (target != null) {
                    return new Estimate(sizeOrUnknown(args.get(0)).byFactor(STRING_TRAVERSAL), null);
                }
            }
            case "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo",
                 "add", "sub" -> {
                return new Estimate(ONE, null);
            }
            default -> {
            }
        }
        return null;
    }

    /** The size of a string after {@code replace} ({@code EstimateCallCost}, case {@code replace}). */
    private static Range replaceSize(Range sz, Range toReplace, Range with) {
        long countMax;
        long retainedMax = 0;
        if (toReplace.min() == 0) {
            countMax = sz.max() < MAX ? sz.max() + 1 : sz.max();
            retainedMax = sz.max();
        } else if (with.max() <= toReplace.min()) {
            countMax = 0;
            retainedMax = sz.max();
        } else {
            countMax = (long) Math.ceil((double) sz.max() / (double) toReplace.min());
        }
        long countMin;
        long retainedMin = 0;
        if (toReplace.max() == 0) {
            countMin = sz.min() < MAX ? sz.min() + 1 : sz.min();
            retainedMin = sz.min();
        } else if (toReplace.max() <= with.min()) {
            countMin = 0;
            retainedMin = sz.min();
        } else {
            countMin = (long) Math.ceil((double) sz.min() / (double) toReplace.max());
        }
        return new Range(countMin, countMax).multiply(with).add(new Range(retainedMin, retainedMax));
    }

    private Range comprehension(CelExpr e) {
        CelExpr.CelComprehension c = e.comprehension();
        Range sum = cost(c.iterRange()).add(cost(c.accuInit()));
        push(c.accuVar(), path(c.accuInit()), size(c.accuInit()));
        boolean two = c.iterVar2() != null && !c.iterVar2().isEmpty();
        boolean list = type(c.iterRange()).kind() == CelKind.LIST;
        List<String> range = path(c.iterRange());
        if (two) {
            push(c.iterVar(), append(range, list ? "@indices" : "@keys"), null);
            push(c.iterVar2(), append(range, list ? "@items" : "@values"), null);
        } else {
            push(c.iterVar(), append(range, list ? "@items" : "@keys"), null);
        }
        Range loop = cost(c.loopCondition());
        Range step = cost(c.loopStep());
        pop(c.iterVar());
        if (two) {
            pop(c.iterVar2());
        }
        sum = sum.add(cost(c.result()));
        pop(c.accuVar());
        Range count = sizeOrUnknown(c.iterRange());
        sum = sum.add(count.multiply(step.add(loop)));
        switch (c.accuInit().getKind()) {
            case CONSTANT -> {
                Range s = size(c.accuInit());
                if (s != null) {
                    sizes.put(e.id(), s);
                }
            }
            case LIST, MAP -> sizes.put(e.id(), count);
            default -> {
            }
        }
        return sum;
    }

    private boolean isBind(CelExpr e) {
        CelExpr.CelComprehension c = e.comprehension();
        return c.iterRange().getKind() == CelExpr.ExprKind.Kind.LIST && c.iterRange().list().elements().isEmpty()
                && c.loopCondition().getKind() == CelExpr.ExprKind.Kind.CONSTANT
                && c.loopCondition().constant().getKind() == CelConstant.Kind.BOOLEAN_VALUE
                && !c.loopCondition().constant().booleanValue() && !ACCUMULATORS.contains(c.accuVar());
    }

    private Range bind(CelExpr e) {
        CelExpr.CelComprehension c = e.comprehension();
        Range sum = cost(c.iterRange()).add(cost(c.accuInit()));
        push(c.accuVar(), path(c.accuInit()), size(c.accuInit()));
        sum = sum.add(cost(c.result()));
        pop(c.accuVar());
        Range s = size(c.result());
        if (s != null) {
            sizes.put(e.id(), s);
        }
        return sum;
    }

    // ---------------------------------------------------------------- sizes and paths

    private Range sizeOrUnknown(CelExpr e) {
        Range s = size(e);
        return s == null ? UNKNOWN : s;
    }

    /** {@code computeSize}: what the expression says, else the schema's bound, else 1 for a scalar type. */
    private Range size(CelExpr e) {
        Range known = sizes.get(e.id());
        if (known != null) {
            return known;
        }
        Range literal = literalSize(e);
        if (literal != null) {
            return literal;
        }
        Range schema = estimateSize(path(e));
        if (schema != null) {
            sizes.put(e.id(), schema);
            return schema;
        }
        if (scalar(type(e))) {
            return ONE;
        }
        if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
            LocalVar v = peek(e.ident().name());
            if (v != null && v.size() != null) {
                return v.size();
            }
        }
        return null;
    }

    private static Range literalSize(CelExpr e) {
        return switch (e.getKind()) {
            case CONSTANT -> switch (e.constant().getKind()) {
                case STRING_VALUE -> {
                    long n = e.constant().stringValue().codePointCount(0, e.constant().stringValue().length());
                    yield new Range(n, n);
                }
                case BYTES_VALUE -> new Range(e.constant().bytesValue().size(), e.constant().bytesValue().size());
                case BOOLEAN_VALUE, DOUBLE_VALUE, DURATION_VALUE, INT64_VALUE, TIMESTAMP_VALUE, UINT64_VALUE,
                     NULL_VALUE -> ONE;
                default -> null;
            };
            case LIST -> new Range(e.list().elements().size(), e.list().elements().size());
            case MAP -> new Range(e.map().entries().size(), e.map().entries().size());
            default -> null;
        };
    }

    /**
     * The schema's bound for a path from a variable ({@code sizeEstimator.EstimateSize}): the path's first element
     * (the variable) is cut off and the rest walked from the rule's type.
     */
    private Range estimateSize(List<String> path) {
        if (path == null || path.isEmpty()) {
            return null;
        }
        CelDeclType node = root;
        for (String name : path.subList(1, path.size())) {
            switch (name) {
                case "@items", "@values" -> node = node.elem;
                case "@keys" -> node = node.key;
                default -> node = node.fields.get(name);
            }
            if (node == null) {
                return null;
            }
        }
        return new Range(0, node.maxElements);
    }

    /** The size of a list's items, by the list's path ({@code listElementNode}). */
    private Range elementSize(CelExpr list) {
        List<String> p = nodePath(list);
        Range s = p == null ? null : estimateSize(append(p, "@items"));
        if (s != null) {
            return s;
        }
        if (type(list) instanceof ListType lt && scalar(lt.elemType())) {
            return ONE;
        }
        return UNKNOWN;
    }

    /** An argument's path as the estimator is given it: none when it starts at a comprehension's accumulator. */
    private List<String> nodePath(CelExpr e) {
        List<String> p = path(e);
        return p.isEmpty() || ACCUMULATORS.contains(p.get(0)) ? null : p;
    }

    private static boolean scalar(CelType t) {
        return switch (t.kind()) {
            case BOOL, DOUBLE, DURATION, INT, TIMESTAMP, UINT -> true;
            case OPAQUE -> t instanceof OptionalType o && scalar(o.parameters().get(0));
            default -> false;
        };
    }

    private List<String> path(CelExpr e) {
        if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
            LocalVar v = peek(e.ident().name());
            if (v != null) {
                return v.path();
            }
        }
        return paths.getOrDefault(e.id(), List.of());
    }

    private CelType type(CelExpr e) {
        return ast.getType(e.id()).orElse(dev.cel.common.types.SimpleType.DYN);
    }

    private static List<String> append(List<String> path, String next) {
        List<String> out = new ArrayList<>(path);
        out.add(next);
        return out;
    }

    private void push(String name, List<String> path, Range size) {
        locals.computeIfAbsent(name, k -> new ArrayDeque<>()).push(new LocalVar(path, size));
    }

    private void pop(String name) {
        Deque<LocalVar> d = locals.get(name);
        if (d != null && !d.isEmpty()) {
            d.pop();
        }
    }

    private LocalVar peek(String name) {
        Deque<LocalVar> d = locals.get(name);
        return d == null || d.isEmpty() ? null : d.peek();
    }
}
