package io.tenantplane.cli;

import com.google.gson.JsonObject;
import io.tenantplane.model.LoadedObject;

/**
 * One Kubernetes object read from input, with where it came from so that every message can name the file.
 *
 * @param where  the file as the user named it, plus {@code (document N)} after the first document of a file
 * @param loaded the object as read; never modified
 */
record Doc(String where, LoadedObject loaded) {

    static Doc of(LoadedObject lo) {
        return new Doc(lo.file() + (lo.documentIndex() > 0 ? " (document " + (lo.documentIndex() + 1) + ")" : ""), lo);
    }

    JsonObject object() {
        return loaded.object();
    }

    String apiVersion() {
        return loaded.apiVersion();
    }

    String kind() {
        return loaded.kind();
    }

    String name() {
        return loaded.name();
    }

    /** {@code metadata.namespace}, or null when absent. */
    String namespace() {
        return loaded.namespace();
    }

    /** True for the tenantplane custom resources ({@code tenantplane.io/*}). */
    boolean isTenantPlaneResource() {
        String v = apiVersion();
        return v != null && (v.equals("tenantplane.io") || v.startsWith("tenantplane.io/"));
    }
}
