package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An Ingress ({@code networking.k8s.io/v1}) as the API server validates it on create and update
 * ({@code pkg/apis/networking/validation/validation.go}, {@code ValidateIngressCreate}, {@code ValidateIngressUpdate},
 * {@code ValidateIngressSpec}), in upstream's order: rules or a default backend; each backend a Service (a DNS-1035
 * name and a port name or number, not both) or a resource (a kind and name that are path segments, a DNS-subdomain
 * group), not both; rule hosts DNS subdomains (or wildcard ones), not IP addresses; HTTP paths with a path type, an
 * absolute path for {@code Exact} and {@code Prefix} without {@code //}, {@code /./}, {@code /../}, {@code %2f} or a
 * trailing {@code /..} or {@code /.}; TLS hosts and Secret names; the class name; and on create the
 * {@code kubernetes.io/ingress.class} annotation agreeing with {@code ingressClassName}. An update may keep what its
 * stored Ingress already had wrong (invalid TLS Secret names, rules under wildcard hosts), as upstream allows.
 */
final class IngressSpecs {

    private static final List<String> PATH_TYPES = List.of("Exact", "ImplementationSpecific", "Prefix");
    private static final List<String> INVALID_SEQUENCES = List.of("//", "/./", "/../", "%2f", "%2F");
    private static final List<String> INVALID_SUFFIXES = List.of("/..", "/.");
    private static final String CLASS_ANNOTATION = "kubernetes.io/ingress.class";
    private static final Pattern WILDCARD = Pattern.compile(
            "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final String WILDCARD_MESSAGE = "a wildcard DNS-1123 subdomain must start with '*.', followed by a "
            + "valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with "
            + "an alphanumeric character (e.g. '*.example.com', regex used for validation is "
            + "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

    private IngressSpecs() {
    }

    /** {@code ValidateIngressCreate} ({@code old} null) or {@code ValidateIngressUpdate}. */
    static void validate(JsonObject o, JsonObject old, List<ApiError.Cause> causes) {
        boolean allowInvalidSecretName = false;
        boolean allowInvalidWildcardHostRule = false;
        if (old != null) {
            List<ApiError.Cause> before = new ArrayList<>();
            spec(Json.obj(old, "spec"), false, false, before);
            allowInvalidSecretName = before.stream().anyMatch(c -> c.field().matches("spec\\.tls\\[\\d+]\\.secretName"));
            allowInvalidWildcardHostRule = before.stream().anyMatch(c -> wildcardRule(old, c.field()));
        }
        spec(Json.obj(o, "spec"), allowInvalidSecretName, allowInvalidWildcardHostRule, causes);
        if (old == null) {
            String annotation = Json.str(Json.obj(Json.meta(o), "annotations"), CLASS_ANNOTATION);
            String className = Json.str(Json.obj(o, "spec"), "ingressClassName");
            if (annotation != null && className != null && !annotation.equals(className)) {
                causes.add(ApiError.Cause.invalid("annotations." + CLASS_ANNOTATION, Validation.quote(annotation),
                        "must match `ingressClassName` when both are specified"));
            }
        }
    }

    /** Whether a cause at {@code field} is about a rule value under a wildcard host of {@code ingress}. */
    private static boolean wildcardRule(JsonObject ingress, String field) {
        java.util.regex.Matcher m = Pattern.compile("spec\\.rules\\[(\\d+)]\\.http.*").matcher(field);
        if (!m.matches()) {
            return false;
        }
        JsonArray rules = Json.arr(Json.obj(ingress, "spec"), "rules");
        int i = Integer.parseInt(m.group(1));
        String host = rules == null || i >= rules.size() ? null : Json.str(Json.asObject(rules.get(i)), "host");
        return host != null && host.contains("*");
    }

    /** {@code ValidateIngressSpec}. */
    private static void spec(JsonObject spec, boolean allowInvalidSecretName, boolean allowInvalidWildcardHostRule,
                             List<ApiError.Cause> causes) {
        JsonObject s = spec == null ? new JsonObject() : spec;
        JsonArray rules = Json.arr(s, "rules");
        JsonObject defaultBackend = Json.obj(s, "defaultBackend");
        if ((rules == null || rules.isEmpty()) && defaultBackend == null) {
            causes.add(ApiError.Cause.invalid("spec", rules == null ? "[]networking.IngressRule(nil)"
                    : "[]networking.IngressRule{}", "either `defaultBackend` or `rules` must be specified"));
        }
        if (defaultBackend != null) {
            backend(defaultBackend, "spec.defaultBackend", causes);
        }
        for (int i = 0; rules != null && i < rules.size(); i++) {
            JsonObject rule = Json.asObject(rules.get(i));
            String at = "spec.rules[" + i + "]";
            String host = Json.str(rule, "host");
            boolean wildcard = false;
            if (host != null && !host.isEmpty()) {
                if (NetAddresses.isIp(host)) {
                    causes.add(ApiError.Cause.invalid(at + ".host", Validation.quote(host),
                            "must be a DNS name, not an IP address"));
                }
                if (host.contains("*")) {
                    if (host.length() > 253) {
                        causes.add(ApiError.Cause.invalid(at + ".host", Validation.quote(host),
                                "must be no more than 253 characters"));
                    }
                    if (!WILDCARD.matcher(host).matches()) {
                        causes.add(ApiError.Cause.invalid(at + ".host", Validation.quote(host), WILDCARD_MESSAGE));
                    }
                    wildcard = true;
                } else {
                    String problem = Validation.nameProblem(host, Validation.NameRule.DNS1123_SUBDOMAIN);
                    if (problem != null) {
                        causes.add(ApiError.Cause.invalid(at + ".host", Validation.quote(host), problem));
                    }
                }
            }
            JsonObject http = Json.obj(rule, "http");
            if (http != null && (!wildcard || !allowInvalidWildcardHostRule)) {
                httpRule(http, at + ".http", causes);
            }
        }
        JsonArray tls = Json.arr(s, "tls");
        for (int i = 0; tls != null && i < tls.size(); i++) {
            JsonObject t = Json.asObject(tls.get(i));
            String at = "spec.tls[" + i + "]";
            JsonArray hosts = Json.arr(t, "hosts");
            for (int j = 0; hosts != null && j < hosts.size(); j++) {
                String host = hosts.get(j).getAsString();
                String problem = host.contains("*") ? (WILDCARD.matcher(host).matches() ? null : WILDCARD_MESSAGE)
                        : Validation.nameProblem(host, Validation.NameRule.DNS1123_SUBDOMAIN);
                if (problem != null) {
                    causes.add(ApiError.Cause.invalid(at + ".hosts[" + j + "]", Validation.quote(host), problem));
                }
            }
            String secret = Json.str(t, "secretName");
            if (!allowInvalidSecretName && secret != null && !secret.isEmpty()) {
                String problem = Validation.nameProblem(secret, Validation.NameRule.DNS1123_SUBDOMAIN);
                if (problem != null) {
                    causes.add(ApiError.Cause.invalid(at + ".secretName", Validation.quote(secret), problem));
                }
            }
        }
        String className = Json.str(s, "ingressClassName");
        if (className != null) {
            String problem = Validation.nameProblem(className, Validation.NameRule.DNS1123_SUBDOMAIN);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid("spec.ingressClassName", Validation.quote(className), problem));
            }
        }
    }

    /** {@code validateHTTPIngressRuleValue} and {@code validateHTTPIngressPath}. */
    private static void httpRule(JsonObject http, String at, List<ApiError.Cause> causes) {
        JsonArray paths = Json.arr(http, "paths");
        if (paths == null || paths.isEmpty()) {
            causes.add(ApiError.Cause.required(at + ".paths"));
            return;
        }
        for (int i = 0; i < paths.size(); i++) {
            JsonObject p = Json.asObject(paths.get(i));
            String pat = at + ".paths[" + i + "]";
            String type = Json.str(p, "pathType");
            String path = Json.str(p, "path") == null ? "" : Json.str(p, "path");
            if (type == null) {
                causes.add(ApiError.Cause.required(pat + ".pathType", "pathType must be specified"));
                continue;
            }
            switch (type) {
                case "Exact", "Prefix" -> {
                    if (!path.startsWith("/")) {
                        causes.add(ApiError.Cause.invalid(pat + ".path", Validation.quote(path),
                                "must be an absolute path"));
                    }
                    if (!path.isEmpty()) {
                        for (String seq : INVALID_SEQUENCES) {
                            if (path.contains(seq)) {
                                causes.add(ApiError.Cause.invalid(pat + ".path", Validation.quote(path),
                                        "must not contain '" + seq + "'"));
                            }
                        }
                        for (String suffix : INVALID_SUFFIXES) {
                            if (path.endsWith(suffix)) {
                                causes.add(ApiError.Cause.invalid(pat + ".path", Validation.quote(path),
                                        "cannot end with '" + suffix + "'"));
                            }
                        }
                    }
                }
                case "ImplementationSpecific" -> {
                    if (!path.isEmpty() && !path.startsWith("/")) {
                        causes.add(ApiError.Cause.invalid(pat + ".path", Validation.quote(path),
                                "must be an absolute path"));
                    }
                }
                default -> causes.add(ApiError.Cause.notSupported(pat + ".pathType", Validation.quote(type),
                        PATH_TYPES));
            }
            JsonObject backend = Json.obj(p, "backend");
            backend(backend == null ? new JsonObject() : backend, pat + ".backend", causes);
        }
    }

    /** {@code validateIngressBackend}. */
    private static void backend(JsonObject backend, String at, List<ApiError.Cause> causes) {
        JsonObject resource = Json.obj(backend, "resource");
        JsonObject service = Json.obj(backend, "service");
        if (resource != null && service != null) {
            causes.add(ApiError.Cause.invalid(at, "\"\"", "cannot set both resource and service backends"));
        } else if (resource != null) {
            resource(resource, at + ".resource", causes);
        } else if (service != null) {
            String name = Json.str(service, "name");
            if (name == null || name.isEmpty()) {
                causes.add(ApiError.Cause.required(at + ".service.name"));
            } else {
                String problem = Validation.nameProblem(name, Validation.NameRule.DNS1035_LABEL);
                if (problem != null) {
                    causes.add(ApiError.Cause.invalid(at + ".service.name", Validation.quote(name), problem));
                }
            }
            JsonObject port = Json.obj(service, "port");
            String portName = Json.str(port, "name");
            JsonElement number = port == null ? null : port.get("number");
            boolean hasName = portName != null && !portName.isEmpty();
            boolean hasNumber = number != null && number.isJsonPrimitive() && number.getAsLong() != 0;
            if (hasName && hasNumber) {
                causes.add(ApiError.Cause.invalid(at, "\"\"", "cannot set both port name & port number"));
            } else if (hasName) {
                PodSpecs.portNameProblems(portName).forEach(m -> causes.add(ApiError.Cause.invalid(
                        at + ".service.port.name", Validation.quote(portName), m)));
            } else if (hasNumber) {
                long n = number.getAsLong();
                if (n < 1 || n > 65535) {
                    causes.add(ApiError.Cause.invalid(at + ".service.port.number", String.valueOf(n),
                            "must be between 1 and 65535, inclusive"));
                }
            } else {
                causes.add(ApiError.Cause.required(at, "port name or number is required"));
            }
        } else {
            causes.add(ApiError.Cause.invalid(at, "\"\"", "resource or service backend is required"));
        }
    }

    /** {@code validateIngressTypedLocalObjectReference}. */
    private static void resource(JsonObject ref, String at, List<ApiError.Cause> causes) {
        String group = Json.str(ref, "apiGroup");
        if (group != null) {
            String problem = Validation.nameProblem(group, Validation.NameRule.DNS1123_SUBDOMAIN);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid(at + ".apiGroup", Validation.quote(group), problem));
            }
        }
        for (String f : List.of("kind", "name")) {
            String v = Json.str(ref, f);
            if (v == null || v.isEmpty()) {
                causes.add(ApiError.Cause.required(at + "." + f, f + " is required"));
            } else {
                pathSegment(v).forEach(m -> causes.add(ApiError.Cause.invalid(at + "." + f, Validation.quote(v), m)));
            }
        }
    }

    /** {@code IsValidPathSegmentName}. */
    private static List<String> pathSegment(String name) {
        List<String> out = new ArrayList<>();
        if (name.equals(".") || name.equals("..")) {
            out.add("may not be '" + name + "'");
            return out;
        }
        for (String illegal : List.of("/", "%")) {
            if (name.contains(illegal)) {
                out.add("may not contain '" + illegal + "'");
            }
        }
        return out;
    }
}
