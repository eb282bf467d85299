package io.tenantplane.model;

import java.util.List;
import java.util.Map;

/**
 * The subset of Kubernetes {@code metadata} that tenantplane's custom resources carry.
 * Collections are never null after construction; maps are sorted by key so output is stable.
 */
public record ObjectMeta(
        String name,
        String namespace,
        String uid,
        String resourceVersion,
        Long generation,
        String creationTimestamp,
        String deletionTimestamp,
        Map<String, String> labels,
        Map<String, String> annotations,
        List<String> finalizers) {

    public ObjectMeta {
        labels = Copies.map(labels);
        annotations = Copies.map(annotations);
        finalizers = finalizers == null ? List.of() : List.copyOf(finalizers);
    }

    /** Metadata with only a name and namespace, as a user would write it. */
    public static ObjectMeta of(String namespace, String name) {
        return new ObjectMeta(name, namespace, null, null, null, null, null, null, null, null);
    }
}
