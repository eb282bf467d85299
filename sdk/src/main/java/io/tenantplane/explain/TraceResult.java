package io.tenantplane.explain;

import io.tenantplane.naming.TenantObjectRef;
import io.tenantplane.plan.Decision;
import java.util.LinkedHashMap;
import java.util.Map;

/** Which tenant object a host object was made from, or why that cannot be said. */
public sealed interface TraceResult {

    /** The host object's kind. */
    String kind();

    /** The host object's namespace (null for cluster-scoped) and name. */
    Decision.HostRef host();

    /** A stable machine reason: {@code Managed}, {@code InferredFromName}, {@code NotManaged}, {@code NotFound} or {@code Unresolved}. */
    String reason();

    /** A human sentence. */
    String message();

    /** The tenant source, when known. */
    default TenantObjectRef source() {
        return null;
    }

    /** The result as ordered maps and scalars, for YAML or JSON output. */
    default Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("kind", kind());
        if (host().namespace() != null) {
            h.put("namespace", host().namespace());
        }
        h.put("name", host().name());
        m.put("hostResource", h);
        m.put("reason", reason());
        m.put("message", message());
        TenantObjectRef s = source();
        if (s != null) {
            Map<String, Object> src = new LinkedHashMap<>();
            src.put("tenant", s.tenant());
            src.put("kind", s.kind());
            if (s.virtualNamespace() != null) {
                src.put("virtualNamespace", s.virtualNamespace());
            }
            src.put("name", s.name());
            if (s.uid() != null) {
                src.put("uid", s.uid());
            }
            m.put("source", src);
        }
        return m;
    }

    /** The host object carries valid reverse-mapping metadata, and its name is the one computed from it. */
    record Managed(String kind, Decision.HostRef host, TenantObjectRef source, String message) implements TraceResult {
        @Override
        public String reason() {
            return "Managed";
        }
    }

    /** Only the host name was given; it is a plain tenantplane name and reads back to this source (not verified). */
    record InferredFromName(String kind, Decision.HostRef host, TenantObjectRef source, String message) implements TraceResult {
        @Override
        public String reason() {
            return "InferredFromName";
        }
    }

    /** The host object is not a tenantplane copy (no or incomplete metadata, or a name that does not match it). */
    record NotManaged(String kind, Decision.HostRef host, String message) implements TraceResult {
        @Override
        public String reason() {
            return "NotManaged";
        }
    }

    /** The host objects given do not include one of that kind, namespace and name. */
    record NotFound(String kind, Decision.HostRef host, String message) implements TraceResult {
        @Override
        public String reason() {
            return "NotFound";
        }
    }

    /** Only the host name was given, and it cannot be read back (a hashed or non-tenantplane name). */
    record Unresolved(String kind, Decision.HostRef host, String message) implements TraceResult {
        @Override
        public String reason() {
            return "Unresolved";
        }
    }
}
