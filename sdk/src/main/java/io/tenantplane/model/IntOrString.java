package io.tenantplane.model;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a string (or map of strings) holding Kubernetes quantities, which users write as numbers or strings
 * ({@code pods: 10}, {@code cpu: "500m"}); both are accepted and kept as strings. The CRD schemas mark these
 * fields {@code x-kubernetes-int-or-string}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
@interface IntOrString {
}
