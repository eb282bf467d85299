package io.tenantplane.testkit;

import com.google.re2j.PatternSyntaxException;
import dev.cel.bundle.Cel;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;
import dev.cel.runtime.CelRuntime;
import dev.cel.validator.CelAstValidator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * cel-go's format validators ({@code cel/validator.go}: {@code ValidateDurationLiterals},
 * {@code ValidateTimestampLiterals}, {@code ValidateRegexLiterals}), which the API server's base environment runs on
 * every rule from Kubernetes 1.29 ({@code staging/src/k8s.io/apiserver/pkg/cel/environment/base.go}): a call to
 * {@code duration}, {@code timestamp} or {@code matches} whose first argument is a string literal must have a
 * literal the call accepts, or the rule does not compile ("invalid duration argument", "invalid timestamp argument",
 * "invalid matches argument"), so its CRD is refused when it is written. A {@code matches} pattern must compile as
 * Go's {@code regexp} (RE2): cel-java's own validator compiles it with {@code java.util.regex}, which accepts what RE2
 * refuses (backreferences, lookaround), so this one compiles it with RE2/J, as the rules run.
 */
final class LiteralArguments implements CelAstValidator {

    static final LiteralArguments INSTANCE = new LiteralArguments();

    /** {@code duration(self)} and {@code timestamp(self)}, compiled in the rules' environment on first use. */
    private final Map<String, CelRuntime.Program> conversions = new ConcurrentHashMap<>();

    private LiteralArguments() {
    }

    @Override
    public void validate(CelNavigableAst ast, Cel cel, IssuesFactory issues) {
        ast.getRoot().allNodes()
                .filter(n -> n.getKind() == CelExpr.ExprKind.Kind.CALL)
                .map(CelNavigableExpr::expr)
                .filter(e -> !e.call().args().isEmpty())
                .forEach(e -> {
                    String function = e.call().function();
                    CelExpr arg = e.call().args().get(0);
                    if (!(function.equals("matches") || function.equals("duration") || function.equals("timestamp"))
                            || arg.getKind() != CelExpr.ExprKind.Kind.CONSTANT
                            || arg.constant().getKind() != CelConstant.Kind.STRING_VALUE) {
                        return;
                    }
                    if (!accepts(cel, function, arg.constant().stringValue())) {
                        issues.addError(arg.id(), "invalid " + function + " argument");
                    }
                });
    }

    private boolean accepts(Cel cel, String function, String literal) {
        if (function.equals("matches")) {
            try {
                com.google.re2j.Pattern.compile(literal);
                return true;
            } catch (PatternSyntaxException e) {
                return false;
            }
        }
        try {
            CelRuntime.Program program = conversions.computeIfAbsent(function, f -> {
                try {
                    CelAbstractSyntaxTree ast = cel.compile(f + "(self)").getAst();
                    return cel.createProgram(ast);
                } catch (dev.cel.common.CelException e) {
                    throw new IllegalStateException("the rules' environment lacks " + f, e);
                }
            });
            program.eval(Map.of("self", literal));
            return true;
        } catch (dev.cel.common.CelException e) {
            return false;
        }
    }
}
