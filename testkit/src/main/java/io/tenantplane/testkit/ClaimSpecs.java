package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.math.BigDecimal;
import java.util.List;

/**
 * A PersistentVolumeClaim's spec as the API server takes it on create and update: its data sources made to agree
 * ({@code NormalizeDataSources}, {@code pkg/api/persistentvolumeclaim/util.go}, as {@code PrepareForCreate} and
 * {@code PrepareForUpdate} call it with {@code AnyVolumeDataSource} on), then {@code ValidatePersistentVolumeClaimSpec}
 * ({@code pkg/apis/core/validation/validation.go}) in upstream's order: access modes (at least one, each supported,
 * {@code ReadWriteOncePod} alone), the selector, a positive storage request, the storage class name, the volume mode,
 * and each data source ({@code validateDataSource}, {@code validateDataSourceRef}: a name, a kind, a
 * {@code PersistentVolumeClaim} in the core group or a DNS-subdomain group, the ref's namespace a DNS label) and their
 * agreement.
 */
final class ClaimSpecs {

    private static final List<String> ACCESS_MODES = List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
            "ReadWriteOncePod");
    private static final List<String> VOLUME_MODES = List.of("Block", "Filesystem");
    private static final String CORE_KIND = "must be 'PersistentVolumeClaim' when referencing the default apiGroup";

    private ClaimSpecs() {
    }

    /**
     * {@code NormalizeDataSources}: a {@code dataSource} alone is copied to {@code dataSourceRef} (kind, name,
     * group), a {@code dataSourceRef} alone without a namespace to {@code dataSource}.
     */
    static void normalizeDataSources(JsonObject spec) {
        JsonObject source = Json.obj(spec, "dataSource");
        JsonObject ref = Json.obj(spec, "dataSourceRef");
        if (source != null && ref == null) {
            spec.add("dataSourceRef", reference(source));
        } else if (ref != null && source == null) {
            String namespace = Json.str(ref, "namespace");
            if (namespace == null || namespace.isEmpty()) {
                spec.add("dataSource", reference(ref));
            }
        }
    }

    private static JsonObject reference(JsonObject from) {
        JsonObject to = new JsonObject();
        if (from.has("apiGroup") && !from.get("apiGroup").isJsonNull()) {
            to.add("apiGroup", from.get("apiGroup").deepCopy());
        }
        to.addProperty("kind", Json.str(from, "kind") == null ? "" : Json.str(from, "kind"));
        to.addProperty("name", Json.str(from, "name") == null ? "" : Json.str(from, "name"));
        return to;
    }

    /** {@code ValidatePersistentVolumeClaimSpec} of {@code spec} at {@code path}. */
    static void validate(JsonObject spec, String path, List<ApiError.Cause> causes) {
        if (spec == null) {
            spec = new JsonObject();
        }
        JsonArray modes = Json.arr(spec, "accessModes");
        if (modes == null || modes.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".accessModes", "at least 1 access mode is required"));
        }
        NetworkPolicySpecs.labelSelector(Json.obj(spec, "selector"), path + ".selector", causes);
        boolean oncePod = false;
        boolean others = false;
        for (JsonElement m : modes == null ? new JsonArray() : modes) {
            String mode = m.isJsonPrimitive() ? m.getAsString() : String.valueOf(m);
            if (!ACCESS_MODES.contains(mode)) {
                causes.add(ApiError.Cause.notSupported(path + ".accessModes", Validation.quote(mode), ACCESS_MODES));
            }
            if (mode.equals("ReadWriteOncePod")) {
                oncePod = true;
            } else if (ACCESS_MODES.contains(mode)) {
                others = true;
            }
        }
        if (oncePod && others) {
            causes.add(ApiError.Cause.forbidden(path + ".accessModes",
                    "may not use ReadWriteOncePod with other access modes"));
        }
        String storage = Json.str(Json.obj(Json.obj(spec, "resources"), "requests"), "storage");
        String storagePath = path + ".resources[storage]";
        if (storage == null) {
            causes.add(ApiError.Cause.required(storagePath));
        } else if (Quantity.isQuantity(storage)) {
            Quantity q = Quantity.parse(storage);
            if (q.value().compareTo(BigDecimal.ZERO) <= 0) {
                // ValidatePositiveQuantityValue: the value as resource.Quantity's String() prints it.
                causes.add(ApiError.Cause.invalid(storagePath, Validation.quote(Quantity.canonical(q.value(),
                        q.binary())), "must be greater than zero"));
            }
        }
        String storageClass = Json.str(spec, "storageClassName");
        if (storageClass != null && !storageClass.isEmpty()) {
            String problem = Validation.nameProblem(storageClass, Validation.NameRule.DNS1123_SUBDOMAIN);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid(path + ".storageClassName", Validation.quote(storageClass), problem));
            }
        }
        String volumeMode = Json.str(spec, "volumeMode");
        if (volumeMode != null && !VOLUME_MODES.contains(volumeMode)) {
            causes.add(ApiError.Cause.notSupported(path + ".volumeMode", Validation.quote(volumeMode), VOLUME_MODES));
        }
        JsonObject source = Json.obj(spec, "dataSource");
        JsonObject ref = Json.obj(spec, "dataSourceRef");
        if (source != null) {
            dataSource(source, path + ".dataSource", causes);
        }
        if (ref != null) {
            dataSource(ref, path + ".dataSourceRef", causes);
            String namespace = Json.str(ref, "namespace");
            if (namespace != null && !namespace.isEmpty()) {
                String problem = Validation.nameProblem(namespace, Validation.NameRule.DNS1123_LABEL);
                if (problem != null) {
                    causes.add(ApiError.Cause.invalid(path + ".dataSourceRef.namespace", Validation.quote(namespace),
                            problem));
                }
            }
        }
        String refNamespace = Json.str(ref, "namespace");
        if (ref != null && refNamespace != null && !refNamespace.isEmpty()) {
            if (source != null) {
                causes.add(ApiError.Cause.invalid(path, "field.Path{...}",
                        "may not be specified when dataSourceRef.namespace is specified"));
            }
        } else if (source != null && ref != null && !(Json.same(source.get("apiGroup"), ref.get("apiGroup"))
                && Json.same(source.get("kind"), ref.get("kind")) && Json.same(source.get("name"), ref.get("name")))) {
            causes.add(ApiError.Cause.invalid(path, "field.Path{...}", "must match dataSourceRef"));
        }
    }

    /** {@code validateDataSource} and the common part of {@code validateDataSourceRef}. */
    private static void dataSource(JsonObject ds, String path, List<ApiError.Cause> causes) {
        String name = Json.str(ds, "name");
        String kind = Json.str(ds, "kind");
        if (name == null || name.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".name"));
        }
        if (kind == null || kind.isEmpty()) {
            causes.add(ApiError.Cause.required(path + ".kind"));
        }
        String group = Json.str(ds, "apiGroup");
        if ((group == null || group.isEmpty()) && !"PersistentVolumeClaim".equals(kind)) {
            causes.add(ApiError.Cause.invalid(path, Validation.quote(kind == null ? "" : kind), CORE_KIND));
        }
        if (group != null && !group.isEmpty()) {
            String problem = Validation.nameProblem(group, Validation.NameRule.DNS1123_SUBDOMAIN);
            if (problem != null) {
                causes.add(ApiError.Cause.invalid(path + ".apiGroup", Validation.quote(group), problem));
            }
        }
    }
}
