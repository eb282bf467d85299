package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The {@code x-kubernetes-validations} rules of a custom resource's schema, compiled and run with cel-java as the
 * API server runs them with cel-go ({@code staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/
 * validation.go}, {@code Validator.validate} and {@code validateExpressions}):
 * <ul>
 *   <li>a rule sees its schema node's value as {@code self}; at the resource root {@code self} has {@code apiVersion},
 *   {@code kind} and of {@code metadata} only {@code name} and {@code generateName}
 *   ({@code model.WithTypeAndObjectMeta});</li>
 *   <li>null and absent values are not validated; a rule that uses {@code oldSelf} (a transition rule) runs only on an
 *   update where the old value exists, unless it sets {@code optionalOldSelf: true}: then it runs always, with
 *   {@code oldSelf} an optional that is {@code optional.none()} on create or where the old value is absent (and
 *   {@code optionalOldSelf} on a rule that does not use {@code oldSelf} refuses the CRD);</li>
 *   <li>a rule that is not true is the error {@code <path>: Invalid value: "<schema type>": <message>} (the root's
 *   path prints as {@code <nil>}, as the strategy passes a nil path), or {@code failed rule: <rule>} without a
 *   message; {@code fieldPath} and {@code reason} are honoured; {@code messageExpression} is evaluated, falling back
 *   to the message when it fails;</li>
 *   <li>ratcheting (CRDValidationRatcheting, on by default since 1.30): on update, a failing rule without
 *   {@code oldSelf} on a value equal to its old value (or whose nearest correlatable ancestor is unchanged) is not an
 *   error;</li>
 *   <li>an evaluation error is {@code <error> evaluating rule: <message or rule>}.</li>
 * </ul>
 * When the CRD is written, each rule is compiled with {@code self} and {@code oldSelf} typed from the schema node it is
 * declared on ({@link CelDeclType}, as the API server's {@code SchemaDeclType}): a rule naming a field the schema does
 * not expose, or mixing types, refuses the CRD. The programs that run are compiled with {@code dyn} variables and given
 * values typed the same way (formats as timestamps, durations and bytes; property names escaped). Both with the
 * libraries of the API server's base
 * environment ({@code staging/src/k8s.io/apiserver/pkg/cel/environment/base.go}, 1.32) that exist here: CEL's
 * standard library, the strings extension (version 2), sets, optional types, two-variable comprehensions, and the
 * Kubernetes lists, regex, quantity, ip, cidr, URL and format libraries ({@link KubernetesCelLibrary}). Each rule's
 * worst-case cost is estimated as the API server estimates it ({@link CelCost}), and a CRD over the per-rule or the
 * per-schema budget is refused. There is no runtime cost limit while a rule runs. A rule using a function the testkit
 * lacks is refused when its CRD is created (never silently accepted).
 */
final class CelRules {

    private static final Pattern OLD_SELF = Pattern.compile("\\boldSelf\\b");
    private static final dev.cel.common.CelOptions OPTIONS = dev.cel.common.CelOptions.current().build();
    private static final CelCompiler COMPILER = compiler(SimpleType.DYN);
    /** For rules with {@code optionalOldSelf: true}: {@code oldSelf} is an optional of the old value. */
    private static final CelCompiler OPTIONAL_OLD_COMPILER = compiler(
            dev.cel.common.types.OptionalType.create(SimpleType.DYN));
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
            .setOptions(OPTIONS)
            .addLibraries(dev.cel.extensions.CelExtensions.strings(), dev.cel.extensions.CelExtensions.sets(OPTIONS),
                    dev.cel.extensions.CelExtensions.optional(), dev.cel.extensions.CelExtensions.comprehensions())
            .addFunctionBindings(KubernetesCelLibrary.bindings())
            .build();
    /**
     * The literal checks the base environment runs after type-checking from 1.29 ({@code cel.ASTValidators} in
     * {@code base.go}): duration, timestamp and regex literals (RE2; {@link LiteralArguments}) and homogeneous list
     * and map literals (except within {@code format}).
     */
    private static final dev.cel.validator.CelValidator LITERALS = dev.cel.validator.CelValidatorFactory
            .standardCelValidatorBuilder(COMPILER, RUNTIME)
            .addAstValidators(LiteralArguments.INSTANCE,
                    dev.cel.validator.validators.HomogeneousLiteralValidator.newInstance("format"))
            .build();
    /** Compiled programs by expression (the variables are dyn, so the text alone decides the program). */
    private static final Map<String, Compiled> CACHE = new ConcurrentHashMap<>();

    private record Compiled(CelRuntime.Program program, String error) {
    }

    private CelRules() {
    }

    /** Names the object types of each schema node compiled apart ({@code generateUniqueSelfTypeName}). */
    private static final java.util.concurrent.atomic.AtomicLong TYPE_NAMES = new java.util.concurrent.atomic.AtomicLong();

    /** A compiler with {@code self} of {@code self}'s type and {@code oldSelf} the same or an optional of it. */
    private static CelCompiler typedCompiler(dev.cel.common.types.CelType self, CelDeclType.Registry types,
                                             boolean optionalOld) {
        return builder().setTypeProvider(types).addVar("self", self).addVar("oldSelf", optionalOld
                ? dev.cel.common.types.OptionalType.create(self) : self).build();
    }

    private static CelCompiler compiler(dev.cel.common.types.CelType oldSelf) {
        return builder().addVar("self", SimpleType.DYN).addVar("oldSelf", oldSelf).build();
    }

    private static dev.cel.compiler.CelCompilerBuilder builder() {
        return CelCompilerFactory.standardCelCompilerBuilder()
                .setOptions(OPTIONS)
                .setStandardMacros(dev.cel.parser.CelStandardMacro.STANDARD_MACROS)
                // The libraries of the API server's base environment (1.32) that cel-java has: strings (version 2),
                // sets, optional types, two-variable comprehensions; and the Kubernetes ones written after upstream.
                .addLibraries(dev.cel.extensions.CelExtensions.strings(), dev.cel.extensions.CelExtensions.sets(OPTIONS),
                        dev.cel.extensions.CelExtensions.optional(), dev.cel.extensions.CelExtensions.comprehensions())
                .addFunctionDeclarations(KubernetesCelLibrary.declarations());
    }

    /** {@code optionalOld}: compiled for a rule with {@code optionalOldSelf: true}. */
    private static Compiled compile(String expression, boolean optionalOld) {
        return CACHE.computeIfAbsent((optionalOld ? "optional-old\u0000" : "") + expression, key -> {
            String e = expression;
            try {
                CelAbstractSyntaxTree ast = (optionalOld ? OPTIONAL_OLD_COMPILER : COMPILER).compile(e).getAst();
                dev.cel.common.CelValidationResult literals = LITERALS.validate(ast);
                if (literals.hasError()) {
                    return new Compiled(null, literals.getErrorString());
                }
                return new Compiled(RUNTIME.createProgram(ast), null);
            } catch (CelValidationException ex) {
                return new Compiled(null, ex.getMessage());
            } catch (dev.cel.common.CelException ex) {
                return new Compiled(null, ex.getMessage());
            }
        });
    }

    /**
     * At CRD create and update: every rule (and messageExpression) of the schema must compile with {@code self} and
     * {@code oldSelf} typed from the schema node it is declared on ({@link CelDeclType}), as {@code Compile} in
     * {@code staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go} does: a rule naming a
     * field the schema does not expose, or comparing values of different types, is refused; a rule must evaluate to a
     * bool and a messageExpression to a string; rules on a node whose values are not exposed (no type, only
     * {@code x-kubernetes-preserve-unknown-fields}) cannot be declared. {@code schema} is a resource's root.
     */
    static void compileAll(JsonObject schema, String path, List<ApiError.Cause> causes) {
        CelCost.Total total = new CelCost.Total();
        compileAll(schema, path, true, 1L, total, causes);
        if (total.total() > CelCost.CRD_LIMIT) {
            // ValidateCustomResourceDefinitionSpec: the most expensive ones, then the total at the schema's root.
            for (var expensive : total.mostExpensive()) {
                causes.add(ApiError.Cause.forbidden(expensive.path(), "contributed to estimated rule cost total "
                        + "exceeding cost limit for entire OpenAPIv3 schema"));
            }
            causes.add(ApiError.Cause.forbidden(path, CelCost.exceeds("x-kubernetes-validations estimated rule cost "
                    + "total for entire OpenAPIv3 schema", total.total(), CelCost.CRD_LIMIT)));
        }
    }

    /**
     * @param cardinality how often a value of this node can occur in one object: the product of the {@code maxItems}
     *                    and {@code maxProperties} above it ({@code CELSchemaContext.MaxCardinality}); null when one
     *                    of them is unbounded
     * @param total       the estimated cost of every rule so far ({@code TotalCost})
     */
    private static void compileAll(JsonObject schema, String path, boolean resourceRoot, Long cardinality,
                                   CelCost.Total total, List<ApiError.Cause> causes) {
        if (schema == null) {
            return;
        }
        JsonArray rules = Json.arr(schema, "x-kubernetes-validations");
        if (rules != null && !rules.isEmpty()) {
            compileRules(schema, rules, path, resourceRoot, cardinality, total, causes);
        }
        JsonObject properties = Json.obj(schema, "properties");
        if (properties != null) {
            for (var e : properties.entrySet()) {
                if (e.getValue().isJsonObject()) {
                    JsonObject child = e.getValue().getAsJsonObject();
                    compileAll(child, path + ".properties[" + e.getKey() + "]",
                            Json.bool(child, "x-kubernetes-embedded-resource"), cardinality, total, causes);
                }
            }
        }
        JsonObject items = Json.obj(schema, "items");
        if (items != null) {
            compileAll(items, path + ".items", Json.bool(items, "x-kubernetes-embedded-resource"),
                    times(cardinality, schema, "maxItems"), total, causes);
        }
        JsonElement additional = schema.get("additionalProperties");
        if (additional != null && additional.isJsonObject()) {
            compileAll(additional.getAsJsonObject(), path + ".additionalProperties",
                    Json.bool(additional.getAsJsonObject(), "x-kubernetes-embedded-resource"),
                    times(cardinality, schema, "maxProperties"), total, causes);
        }
    }

    /** {@code cardinality} times the node's bound ({@code maxItems} or {@code maxProperties}); null if unbounded. */
    private static Long times(Long cardinality, JsonObject schema, String bound) {
        JsonElement max = schema.get(bound);
        if (cardinality == null || max == null || !max.isJsonPrimitive() || !max.getAsJsonPrimitive().isNumber()) {
            return null;
        }
        return CelCost.Range.multiply(cardinality, Math.max(0, max.getAsLong()));
    }

    /** The rules of one schema node, compiled with {@code self} typed from that node, and their estimated cost. */
    private static void compileRules(JsonObject schema, JsonArray rules, String path, boolean resourceRoot,
                                     Long cardinality, CelCost.Total total, List<ApiError.Cause> causes) {
        CelDeclType.Registry registry = new CelDeclType.Registry();
        CelDeclType self = CelDeclType.of(schema, resourceRoot, "selfType" + TYPE_NAMES.incrementAndGet(), registry);
        if (self == null) {
            String type = Json.str(schema, "type") == null ? "" : Json.str(schema, "type");
            causes.add(new ApiError.Cause("InternalError", path + ".x-kubernetes-validations", "Internal error: rule "
                    + "declared on schema that does not support validation rules type: '" + type
                    + "' x-kubernetes-preserve-unknown-fields: '"
                    + Json.bool(schema, "x-kubernetes-preserve-unknown-fields") + "'"));
            return;
        }
        CelCompiler typed = typedCompiler(self.type, registry, false);
        CelCompiler typedOptionalOld = null;
        for (int i = 0; i < rules.size(); i++) {
            JsonObject rule = rules.get(i).isJsonObject() ? rules.get(i).getAsJsonObject() : new JsonObject();
            String at = path + ".x-kubernetes-validations[" + i + "]";
            String text = Json.str(rule, "rule");
            if (text == null || text.isBlank()) {
                causes.add(ApiError.Cause.required(at + ".rule"));
                continue;
            }
            boolean optionalOld = Json.bool(rule, "optionalOldSelf");
            if (optionalOld && typedOptionalOld == null) {
                typedOptionalOld = typedCompiler(self.type, registry, true);
            }
            CelCompiler compiler = optionalOld ? typedOptionalOld : typed;
            Checked rule0 = check(compiler, text, SimpleType.BOOL, "cel expression must evaluate to a bool");
            String error = rule0.error();
            if (error != null) {
                causes.add(ApiError.Cause.invalid(at + ".rule", Validation.quote(text), error));
            } else {
                long cost = CelCost.times(CelCost.estimate(rule0.ast(), self), cardinality, self);
                if (cost > CelCost.RULE_LIMIT) {
                    causes.add(ApiError.Cause.forbidden(at + ".rule", CelCost.exceeds("estimated rule cost", cost,
                            CelCost.RULE_LIMIT)));
                }
                total.observe(at + ".rule", cost);
            }
            JsonElement optionalOldSet = rule.get("optionalOldSelf");
            if (optionalOldSet != null && !optionalOldSet.isJsonNull() && !OLD_SELF.matcher(text).find()) {
                // ValidateCustomResourceDefinitionOpenAPISchema (apiextensions/validation/validation.go).
                causes.add(ApiError.Cause.invalid(at + ".optionalOldSelf", optionalOldSet.getAsString(),
                        "may not be set if oldSelf is not used in rule"));
            }
            String messageExpression = Json.str(rule, "messageExpression");
            if (error == null && messageExpression != null) {
                // Compiled only when the rule compiled (compileRule returns at a rule's error).
                Checked message = check(compiler, messageExpression, SimpleType.STRING,
                        "messageExpression must evaluate to a string");
                String messageError = message.error();
                if (messageError != null) {
                    causes.add(ApiError.Cause.invalid(at + ".messageExpression", Validation.quote(messageExpression),
                            messageError.startsWith("compilation failed: ") ? "messageExpression " + messageError
                                    : messageError));
                } else {
                    // Not multiplied by how often the rule runs (validation.go compares MessageExpressionMaxCost).
                    long cost = CelCost.estimate(message.ast(), self);
                    if (cost > CelCost.RULE_LIMIT) {
                        causes.add(ApiError.Cause.forbidden(at + ".messageExpression", CelCost.exceeds(
                                "estimated messageExpression cost", cost, CelCost.RULE_LIMIT)));
                    }
                    total.observe(at + ".messageExpression", cost);
                }
            }
        }
    }

    /**
     * The estimated cost of {@code rule} declared on {@code schema} ({@link CelCost#estimate}), not multiplied by how
     * often it runs; for tests.
     *
     * @throws IllegalArgumentException when the rule does not compile there
     */
    static long estimatedCost(JsonObject schema, String rule) {
        CelDeclType.Registry registry = new CelDeclType.Registry();
        CelDeclType self = CelDeclType.of(schema, false, "selfType" + TYPE_NAMES.incrementAndGet(), registry);
        if (self == null) {
            throw new IllegalArgumentException("no rules on this schema");
        }
        Checked c = check(typedCompiler(self.type, registry, false), rule, SimpleType.BOOL, "not a bool");
        if (c.error() != null) {
            throw new IllegalArgumentException(c.error());
        }
        return CelCost.estimate(c.ast(), self);
    }

    /**
     * {@code expression} checked with {@code compiler}: it must pass the literal checks and have the {@code result}
     * type, else the API server's detail ({@code compilation failed: ...} or {@code notOfType}).
     */
    private static Checked check(CelCompiler compiler, String expression, dev.cel.common.types.CelType result,
                                 String notOfType) {
        CelAbstractSyntaxTree ast;
        try {
            ast = compiler.compile(expression).getAst();
        } catch (CelValidationException ex) {
            return new Checked(null, "compilation failed: " + ex.getMessage());
        }
        dev.cel.common.CelValidationResult literals = LITERALS.validate(ast);
        if (literals.hasError()) {
            return new Checked(null, "compilation failed: " + literals.getErrorString());
        }
        if (!ast.getResultType().equals(result)) {
            return new Checked(null, notOfType);
        }
        return new Checked(ast, null);
    }

    /** A type-checked expression, or why it is refused. */
    private record Checked(CelAbstractSyntaxTree ast, String error) {
    }

    /** Whether the schema has any rule ({@code cel.NewValidator} returns no validator otherwise). */
    static boolean present(JsonObject schema) {
        if (schema == null) {
            return false;
        }
        JsonArray rules = Json.arr(schema, "x-kubernetes-validations");
        if (rules != null && !rules.isEmpty()) {
            return true;
        }
        JsonObject properties = Json.obj(schema, "properties");
        if (properties != null) {
            for (var e : properties.entrySet()) {
                if (e.getValue().isJsonObject() && present(e.getValue().getAsJsonObject())) {
                    return true;
                }
            }
        }
        JsonElement additional = schema.get("additionalProperties");
        return present(Json.obj(schema, "items"))
                || additional != null && additional.isJsonObject() && present(additional.getAsJsonObject());
    }

    /** Runs the rules of {@code schema} over {@code object}; {@code old} is the stored object on update, else null. */
    static void validate(JsonObject object, JsonObject old, JsonObject schema, List<ApiError.Cause> causes) {
        walk(object, old, schema, null, true, old != null && Json.same(object, old), causes);
    }

    private static void walk(JsonElement v, JsonElement old, JsonObject s, String path, boolean root,
                             boolean unchanged, List<ApiError.Cause> causes) {
        if (v == null || v.isJsonNull() || s == null) {
            return;
        }
        if (old != null && old.isJsonNull()) {
            old = null;
        }
        JsonArray rules = Json.arr(s, "x-kubernetes-validations");
        if (rules != null && !rules.isEmpty()) {
            evaluate(rules, v, old, s, path, root, unchanged, causes);
        }
        if (v.isJsonObject()) {
            JsonObject o = v.getAsJsonObject();
            JsonObject oldObject = old != null && old.isJsonObject() ? old.getAsJsonObject() : null;
            JsonObject properties = Json.obj(s, "properties");
            JsonElement additional = s.get("additionalProperties");
            boolean correlatable = !"atomic".equals(Json.str(s, "x-kubernetes-map-type"));
            for (var e : o.entrySet()) {
                String key = e.getKey();
                if (root && (key.equals("metadata") || key.equals("apiVersion") || key.equals("kind"))) {
                    continue;
                }
                JsonObject child = properties == null ? null : Json.obj(properties, key);
                String childPath;
                if (child != null) {
                    childPath = path == null ? key : path + "." + key;
                } else if (additional != null && additional.isJsonObject()) {
                    child = additional.getAsJsonObject();
                    childPath = (path == null ? "" : path) + "[" + key + "]";
                } else {
                    continue;
                }
                JsonElement oldChild = correlatable && oldObject != null ? oldObject.get(key) : null;
                boolean childUnchanged = correlatable ? oldChild != null && Json.same(e.getValue(), oldChild)
                        : unchanged;
                walk(e.getValue(), oldChild, child, childPath, false, childUnchanged, causes);
            }
        } else if (v.isJsonArray()) {
            JsonObject items = Json.obj(s, "items");
            JsonArray a = v.getAsJsonArray();
            JsonArray oldArray = old != null && old.isJsonArray() ? old.getAsJsonArray() : null;
            List<String> mapKeys = "map".equals(Json.str(s, "x-kubernetes-list-type")) ? strings(Json.arr(s,
                    "x-kubernetes-list-map-keys")) : null;
            for (int i = 0; i < a.size(); i++) {
                JsonElement item = a.get(i);
                JsonElement oldItem = mapKeys == null || oldArray == null ? null : sameKeys(item, oldArray, mapKeys);
                boolean itemUnchanged = mapKeys != null ? oldItem != null && Json.same(item, oldItem) : unchanged;
                walk(item, oldItem, items, (path == null ? "" : path) + "[" + i + "]", false, itemUnchanged, causes);
            }
        }
    }

    private static void evaluate(JsonArray rules, JsonElement v, JsonElement old, JsonObject s, String path,
                                 boolean root, boolean unchanged, List<ApiError.Cause> causes) {
        Object self = value(v, s, root);
        Object oldSelf = old == null ? null : value(old, s, root);
        String type = Json.str(s, "type") == null ? "" : Json.str(s, "type");
        String field = path == null ? "<nil>" : path;
        for (int i = 0; i < rules.size(); i++) {
            JsonObject rule = rules.get(i).getAsJsonObject();
            String text = Json.str(rule, "rule");
            boolean optionalOld = Json.bool(rule, "optionalOldSelf");
            Compiled c = compile(text, optionalOld);
            if (c.error() != null) {
                causes.add(ApiError.Cause.invalid(field, Validation.quote(type), "rule compile error: " + c.error()));
                continue;
            }
            boolean usesOld = OLD_SELF.matcher(text).find();
            if (usesOld && oldSelf == null && !optionalOld) {
                continue; // a transition rule runs on update only, unless it opts in with optionalOldSelf
            }
            Map<String, Object> vars = new HashMap<>();
            vars.put("self", self);
            if (usesOld) {
                // With optionalOldSelf, oldSelf is optional.none() on create and where the old value is absent.
                vars.put("oldSelf", optionalOld ? java.util.Optional.ofNullable(oldSelf) : oldSelf);
            }
            Object result;
            try {
                result = c.program().eval(vars);
            } catch (CelEvaluationException e) {
                causes.add(ApiError.Cause.invalid(field, Validation.quote(type), e.getMessage()
                        + " evaluating rule: " + ruleErrorString(rule)));
                continue;
            }
            if (Boolean.TRUE.equals(result)) {
                continue;
            }
            if (!usesOld && unchanged) {
                continue;
            }
            String at = field;
            String fieldPath = Json.str(rule, "fieldPath");
            if (fieldPath != null && !fieldPath.isEmpty()) {
                String rel = fieldPath.startsWith(".") ? fieldPath.substring(1) : fieldPath;
                at = path == null ? rel : path + "." + rel;
            }
            String detail = message(rule, vars);
            String reason = Json.str(rule, "reason");
            if ("FieldValueForbidden".equals(reason)) {
                causes.add(ApiError.Cause.forbidden(at, detail));
            } else if ("FieldValueRequired".equals(reason)) {
                causes.add(new ApiError.Cause("FieldValueRequired", at, "Required value: " + detail));
            } else {
                causes.add(ApiError.Cause.invalid(at, Validation.quote(type), detail));
            }
        }
    }

    private static String message(JsonObject rule, Map<String, Object> vars) {
        String messageExpression = Json.str(rule, "messageExpression");
        if (messageExpression != null) {
            Compiled c = compile(messageExpression, Json.bool(rule, "optionalOldSelf"));
            if (c.program() != null) {
                try {
                    Object out = c.program().eval(vars);
                    if (out instanceof String m && !m.isBlank() && !m.contains("\n")) {
                        return m.strip();
                    }
                } catch (CelEvaluationException e) {
                    // As the API server: a failed messageExpression falls back to the message.
                }
            }
        }
        String message = Json.str(rule, "message");
        return message == null || message.isEmpty() ? "failed rule: " + ruleErrorString(rule) : message.strip();
    }

    private static String ruleErrorString(JsonObject rule) {
        String message = Json.str(rule, "message");
        return message != null && !message.isEmpty() ? message.strip() : Json.str(rule, "rule").strip();
    }

    /** The JSON value as CEL sees it: maps, lists, int as long, number as double, by the schema's type. */
    private static Object value(JsonElement v, JsonObject s, boolean root) {
        if (v == null || v.isJsonNull()) {
            return dev.cel.common.values.NullValue.NULL_VALUE;
        }
        if (v.isJsonObject()) {
            Map<String, Object> out = new LinkedHashMap<>();
            JsonObject properties = s == null ? null : Json.obj(s, "properties");
            JsonElement additional = s == null ? null : s.get("additionalProperties");
            for (var e : v.getAsJsonObject().entrySet()) {
                if (root && e.getKey().equals("metadata") && e.getValue().isJsonObject()) {
                    Map<String, Object> meta = new LinkedHashMap<>();
                    for (String k : List.of("name", "generateName")) {
                        JsonElement m = e.getValue().getAsJsonObject().get(k);
                        if (m != null && m.isJsonPrimitive()) {
                            meta.put(k, m.getAsString());
                        }
                    }
                    out.put("metadata", meta);
                    continue;
                }
                JsonObject child = properties == null ? null : Json.obj(properties, e.getKey());
                String key = e.getKey();
                if (child != null) {
                    // A property is the field of its escaped name (CelDeclType.escape); one that cannot be escaped
                    // is not visible.
                    java.util.Optional<String> escaped = CelDeclType.escape(key);
                    if (escaped.isEmpty()) {
                        continue;
                    }
                    key = escaped.get();
                } else if (additional != null && additional.isJsonObject()) {
                    child = additional.getAsJsonObject();
                }
                if (e.getValue().isJsonNull()) {
                    continue;
                }
                out.put(key, value(e.getValue(), child, false));
            }
            return out;
        }
        if (v.isJsonArray()) {
            List<Object> out = new ArrayList<>();
            JsonObject items = s == null ? null : Json.obj(s, "items");
            for (JsonElement e : v.getAsJsonArray()) {
                out.add(value(e, items, false));
            }
            return out;
        }
        JsonPrimitive p = v.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return p.getAsBoolean();
        }
        if (p.isString()) {
            return formatted(p.getAsString(), s == null || Json.bool(s, "x-kubernetes-int-or-string") ? null
                    : Json.str(s, "format"));
        }
        BigDecimal n = p.getAsBigDecimal();
        String type = s == null ? null : Json.str(s, "type");
        if ("number".equals(type)) {
            return n.doubleValue();
        }
        try {
            return n.longValueExact();
        } catch (ArithmeticException e) {
            return n.doubleValue();
        }
    }

    /**
     * A string as the rule sees it by its format, as the API server's values are typed ({@code UnstructuredToVal} in
     * {@code staging/src/k8s.io/apiserver/pkg/cel/common/values.go}): {@code byte} as bytes (base64), {@code duration}
     * as a duration, {@code date} and {@code date-time} as timestamps; the string itself when it does not parse.
     */
    private static Object formatted(String value, String format) {
        if (format == null) {
            return value;
        }
        try {
            switch (format) {
                case "byte" -> {
                    return dev.cel.common.values.CelByteString.of(java.util.Base64.getDecoder().decode(value));
                }
                case "duration" -> {
                    return goDuration(value);
                }
                case "date" -> {
                    return java.time.LocalDate.parse(value).atStartOfDay(java.time.ZoneOffset.UTC).toInstant();
                }
                case "date-time" -> {
                    return java.time.OffsetDateTime.parse(value).toInstant();
                }
                default -> {
                    return value;
                }
            }
        } catch (RuntimeException unparsed) {
            return value;
        }
    }

    /** One number-and-unit term of a Go duration. */
    private static final Pattern GO_DURATION_TERM = Pattern.compile("(\\d*\\.?\\d*)(ns|us|µs|μs|ms|s|m|h)");

    /** Go's {@code time.ParseDuration}: an optional sign, then numbers with units ns, us, µs, ms, s, m, h. */
    static java.time.Duration goDuration(String text) {
        String s = text;
        boolean negative = s.startsWith("-");
        if (s.startsWith("-") || s.startsWith("+")) {
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return java.time.Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("invalid duration " + text);
        }
        java.math.BigDecimal nanos = java.math.BigDecimal.ZERO;
        java.util.regex.Matcher m = GO_DURATION_TERM.matcher(s);
        int at = 0;
        while (at < s.length()) {
            if (!m.find(at) || m.start() != at || m.group(1).isEmpty() || m.group(1).equals(".")) {
                throw new IllegalArgumentException("invalid duration " + text);
            }
            long unit = switch (m.group(2)) {
                case "ns" -> 1L;
                case "us", "µs", "μs" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos = nanos.add(new BigDecimal(m.group(1).startsWith(".") ? "0" + m.group(1) : m.group(1))
                    .multiply(BigDecimal.valueOf(unit)));
            at = m.end();
        }
        long n = nanos.setScale(0, java.math.RoundingMode.DOWN).longValueExact();
        return java.time.Duration.ofNanos(negative ? -n : n);
    }

    private static List<String> strings(JsonArray a) {
        List<String> out = new ArrayList<>();
        for (int i = 0; a != null && i < a.size(); i++) {
            out.add(a.get(i).getAsString());
        }
        return out;
    }

    private static JsonElement sameKeys(JsonElement item, JsonArray old, List<String> keys) {
        if (!item.isJsonObject()) {
            return null;
        }
        for (JsonElement o : old) {
            if (o.isJsonObject() && keys.stream().allMatch(k -> Json.same(item.getAsJsonObject().get(k),
                    o.getAsJsonObject().get(k)))) {
                return o;
            }
        }
        return null;
    }
}
