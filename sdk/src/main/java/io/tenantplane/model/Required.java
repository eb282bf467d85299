package io.tenantplane.model;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a record component that must be present. The CRD schemas list exactly these fields as {@code required}
 * (a test checks it); validation reports a missing one with {@link #value()} as the fix.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
@interface Required {
    /** How to fix a missing value, e.g. {@code set it to the name of an IsolationProfile in this namespace}. */
    String value() default "";
}
