package io.tenantplane.testkit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.List;

/**
 * One served resource at one group/version: what discovery advertises and how the store treats its objects.
 *
 * @param custom true for resources served from a CustomResourceDefinition
 * @param schema the version's {@code openAPIV3Schema} (custom resources only, else null)
 * @param printerColumns the version's {@code additionalPrinterColumns} (custom resources only, may be null)
 * @param selectableFields extra field-selector paths besides {@code metadata.name}/{@code metadata.namespace}
 */
record ResourceType(String group, String version, String plural, String singular, String kind, boolean namespaced,
        List<String> shortNames, List<String> categories, boolean statusSubresource, boolean custom,
        JsonObject schema, JsonArray printerColumns, List<String> selectableFields) {

    ResourceType {
        shortNames = List.copyOf(shortNames);
        categories = List.copyOf(categories);
        selectableFields = List.copyOf(selectableFields);
    }

    static ResourceType builtin(String group, String version, String plural, String kind, boolean namespaced,
            boolean status, List<String> shortNames, String... selectableFields) {
        return new ResourceType(group, version, plural, kind.toLowerCase(java.util.Locale.ROOT), kind, namespaced,
                shortNames, List.of(), status, false, null, null, List.of(selectableFields));
    }

    ResourceType withCategories(List<String> categories) {
        return new ResourceType(group, version, plural, singular, kind, namespaced, shortNames, categories,
                statusSubresource, custom, schema, printerColumns, selectableFields);
    }

    String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** Objects of all versions of one resource share storage, as they do in etcd. */
    String storageKey() {
        return group + "/" + plural;
    }

    /** Custom resources and CRDs require {@code metadata.resourceVersion} on update; built-in kinds do not. */
    boolean unconditionalUpdate() {
        return !custom && !isCrd();
    }

    boolean strategicMerge() {
        return !custom;
    }

    /** Pods and Services answer a delete with the deleted object; the rest answer with a success Status. */
    boolean returnsDeletedObject() {
        return group.isEmpty() && (plural.equals("pods") || plural.equals("services"));
    }

    /** A virtual resource that only answers create, as {@code tokenreviews} (nothing is stored). */
    boolean createOnly() {
        return is("authentication.k8s.io", "tokenreviews") || is("authorization.k8s.io", "subjectaccessreviews");
    }

    boolean isCrd() {
        return group.equals("apiextensions.k8s.io") && plural.equals("customresourcedefinitions");
    }

    boolean is(String group, String plural) {
        return this.group.equals(group) && this.plural.equals(plural);
    }
}
