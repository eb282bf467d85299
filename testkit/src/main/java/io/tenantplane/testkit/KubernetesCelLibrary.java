package io.tenantplane.testkit;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.TypeParamType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Kubernetes CEL libraries cel-java does not have, written after their upstream code
 * ({@code staging/src/k8s.io/apiserver/pkg/cel/library/lists.go} and {@code regex.go}), as the API server's base
 * environment adds them ({@code staging/src/k8s.io/apiserver/pkg/cel/environment/base.go}):
 * <ul>
 *   <li>lists: {@code isSorted()}, {@code sum()}, {@code min()}, {@code max()}, {@code indexOf(e)},
 *   {@code lastIndexOf(e)} on lists of comparable values;</li>
 *   <li>regex: {@code find(re)} (the first match, or the empty string) and {@code findAll(re[, limit])} on strings.</li>
 * </ul>
 * Regular expressions run with RE2 (re2j), as the server's Go {@code regexp}: backreferences and lookaround are
 * refused there as here.
 */
final class KubernetesCelLibrary {

    private KubernetesCelLibrary() {
    }

    private static final TypeParamType T = TypeParamType.create("T");

    static List<CelFunctionDecl> declarations() {
        ListType listOfT = ListType.create(T);
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
