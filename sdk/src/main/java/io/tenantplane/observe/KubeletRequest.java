package io.tenantplane.observe;

import java.time.Duration;
import java.util.Objects;

/**
 * One call a tenant API server made to tenantplane's kubelet endpoint, as answered: for logs, exec, attach and
 * port-forward into a tenant Pod. Observers count it; exec, attach and port-forward are also auditable actions (the
 * Events observer, {@code io.tenantplane.events.EventObserver}, records them as Events on the TenantCluster), logs
 * are counted only.
 *
 * @param verb         the kubelet API call: {@code containerLogs}, {@code exec}, {@code attach}, {@code portForward},
 *                     {@code stats} or {@code other}
 * @param namespace    the tenant Pod's virtual namespace; null when the call names no pod
 * @param pod          the tenant Pod; null when the call names no pod
 * @param container    the container; null when the call names none
 * @param hostPod      the host copy the call reached or would have reached ({@code <namespace>/<name>}); null when none
 * @param user         who asked, where the tenant API server says so; {@code unknown} otherwise (an API server calls a
 *                     kubelet as itself and forwards no user)
 * @param code         the HTTP status answered
 * @param reason       a stable CamelCase reason, e.g. {@code Streamed}, {@code PodNotFound}, {@code NotServed}
 * @param message      a sentence for a person
 * @param took         how long the call took, stream included
 */
public record KubeletRequest(String verb, String namespace, String pod, String container, String hostPod,
                             String user, int code, String reason, String message, Duration took) {

    public KubeletRequest {
        Objects.requireNonNull(verb, "verb");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
        user = user == null || user.isBlank() ? "unknown" : user;
        took = took == null ? Duration.ZERO : took;
    }

    /** Whether this call is audited as an Event: it runs something in, or opens a connection into, a tenant Pod. */
    public boolean audited() {
        return verb.equals("exec") || verb.equals("attach") || verb.equals("portForward");
    }
}
