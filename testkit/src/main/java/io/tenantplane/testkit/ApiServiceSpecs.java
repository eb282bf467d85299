package io.tenantplane.testkit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;

/**
 * {@code APIService} ({@code apiregistration.k8s.io/v1}) defaults and validation, as
 * {@code staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/defaults.go} ({@code spec.service.port} 443)
 * and {@code .../apiregistration/validation/validation.go} ({@code ValidateAPIService}) have them: the name must be
 * {@code spec.version + "." + spec.group}; only {@code v1} may have an empty group; the group a DNS-1123 subdomain,
 * the version a DNS-1035 label; {@code groupPriorityMinimum} in 1..20000 and {@code versionPriority} in 1..1000; a
 * local APIService (no service) takes neither {@code caBundle} nor {@code insecureSkipTLSVerify}; a service needs its
 * namespace and name, and {@code insecureSkipTLSVerify} may not be true with a {@code caBundle}.
 */
final class ApiServiceSpecs {
    private ApiServiceSpecs() {
    }

    static void defaults(JsonObject o) {
        JsonObject service = Json.obj(Json.obj(o, "spec"), "service");
        if (service != null && (!service.has("port") || service.get("port").isJsonNull())) {
            service.addProperty("port", 443);
        }
    }

    static void validate(JsonObject o, List<ApiError.Cause> causes) {
        JsonObject spec = Json.child(o, "spec");
        String group = Json.str(spec, "group") == null ? "" : Json.str(spec, "group");
        String version = Json.str(spec, "version") == null ? "" : Json.str(spec, "version");
        String name = Json.str(Json.meta(o), "name");
        String required = version + "." + group;
        if (name != null && !name.equals(required)) {
            causes.add(ApiError.Cause.invalid("metadata.name", Validation.quote(name), "must be `spec.version+\".\"+spec.group`: \""
                    + required + "\""));
        }
        if (group.isEmpty() && !version.equals("v1")) {
            causes.add(ApiError.Cause.required("spec.group", "only v1 may have an empty group and it better be "
                    + "legacy kube"));
        }
        if (!group.isEmpty() && !Validation.isDns1123Subdomain(group)) {
            causes.add(ApiError.Cause.invalid("spec.group", Validation.quote(group), Validation.nameProblem(group,
                    Validation.NameRule.DNS1123_SUBDOMAIN)));
        }
        String versionProblem = Validation.nameProblem(version, Validation.NameRule.DNS1035_LABEL);
        if (versionProblem != null) {
            causes.add(ApiError.Cause.invalid("spec.version", Validation.quote(version), versionProblem));
        }
        long groupPriority = number(spec, "groupPriorityMinimum");
        if (groupPriority <= 0 || groupPriority > 20000) {
            causes.add(ApiError.Cause.invalid("spec.groupPriorityMinimum", String.valueOf(groupPriority),
                    "must be positive and less than 20000"));
        }
        long versionPriority = number(spec, "versionPriority");
        if (versionPriority <= 0 || versionPriority > 1000) {
            causes.add(ApiError.Cause.invalid("spec.versionPriority", String.valueOf(versionPriority),
                    "must be positive and less than 1000"));
        }
        JsonObject service = Json.obj(spec, "service");
        String caBundle = Json.str(spec, "caBundle");
        boolean insecure = Json.bool(spec, "insecureSkipTLSVerify");
        if (caBundle != null) {
            try {
                java.util.Base64.getDecoder().decode(caBundle);
            } catch (IllegalArgumentException e) {
                // []byte decodes from base64 before validation runs: the request body is refused as undecodable.
                throw ApiError.badRequest("APIService in version \"v1\" cannot be handled as a APIService: "
                        + "illegal base64 data in spec.caBundle");
            }
        }
        if (service == null) {
            if (caBundle != null && !caBundle.isEmpty()) {
                causes.add(ApiError.Cause.invalid("spec.caBundle", Validation.quote(decodedLength(caBundle) + " bytes"),
                        "local APIServices may not have a caBundle"));
            }
            if (insecure) {
                causes.add(ApiError.Cause.invalid("spec.insecureSkipTLSVerify", "true",
                        "local APIServices may not have insecureSkipTLSVerify"));
            }
            return;
        }
        if (Json.str(service, "namespace") == null || Json.str(service, "namespace").isEmpty()) {
            causes.add(ApiError.Cause.required("spec.service.namespace", ""));
        }
        if (Json.str(service, "name") == null || Json.str(service, "name").isEmpty()) {
            causes.add(ApiError.Cause.required("spec.service.name", ""));
        }
        if (insecure && caBundle != null && !caBundle.isEmpty()) {
            causes.add(ApiError.Cause.invalid("spec.insecureSkipTLSVerify", "true",
                    "may not be true if caBundle is present"));
        }
    }

    /** {@code caBundle} is {@code []byte}: base64 in JSON, its length counted decoded. */
    private static int decodedLength(String base64) {
        return java.util.Base64.getDecoder().decode(base64).length;
    }

    private static long number(JsonObject spec, String key) {
        JsonElement e = spec.get(key);
        return e == null || e.isJsonNull() || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber() ? 0
                : e.getAsLong();
    }
}
