package io.tenantplane.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every request the server answered, for assertions such as "the second reconcile wrote nothing" or "the informer
 * listed once". Verbs are the Kubernetes ones: {@code get}, {@code list}, {@code watch}, {@code create},
 * {@code update}, {@code patch}, {@code delete}, {@code deletecollection}. Resources are named as in RBAC:
 * {@code pods}, {@code pods/status}, or qualified by group ({@code deployments.apps}, {@code widgets.example.com/status}).
 * Discovery and other non-resource requests are recorded with verb {@code get} and an empty resource.
 *
 * <p>Thread-safe.
 */
public final class RequestLog {
    private static final Set<String> WRITES = Set.of("create", "update", "patch", "delete", "deletecollection");

    /**
     * One answered request.
     *
     * @param verb the Kubernetes verb ({@code list}, {@code patch}, ...)
     * @param group the API group, empty for the core group and for non-resource requests
     * @param resource the plural resource name, with {@code /subresource} when there is one; empty for
     *     non-resource requests
     * @param namespace the namespace in the path, or null
     * @param name the object name in the path, or null
     * @param path the request path, e.g. {@code /api/v1/namespaces/default/pods}
     * @param code the HTTP status code answered, or 0 when the connection was reset by a fault
     * @param userAgent the request's {@code User-Agent} header, or null (a real server's audit log records it too)
     */
    public record Entry(String verb, String group, String resource, String namespace, String name, String path,
            int code, String userAgent) {
        /** True for create, update, patch, delete and deletecollection. */
        public boolean isWrite() {
            return WRITES.contains(verb);
        }

        boolean matches(String verb, String resource) {
            if (verb != null && !verb.equals("*") && !verb.equals(this.verb)) {
                return false;
            }
            if (resource == null || resource.equals("*")) {
                return true;
            }
            if (resource.equals(this.resource)) {
                return true;
            }
            return !group.isEmpty() && resource.equals(qualified());
        }

        /** {@code plural.group[/subresource]}, or {@code plural[/subresource]} for the core group. */
        String qualified() {
            if (group.isEmpty()) {
                return resource;
            }
            int slash = resource.indexOf('/');
            return slash < 0 ? resource + "." + group
                    : resource.substring(0, slash) + "." + group + resource.substring(slash);
        }
    }

    private final List<Entry> entries = new ArrayList<>();

    RequestLog() {
    }

    synchronized void record(Entry entry) {
        entries.add(entry);
    }

    /** All recorded requests, oldest first. */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** How many requests had this verb (any resource); {@code "*"} matches every verb. */
    public synchronized long count(String verb) {
        return entries.stream().filter(e -> e.matches(verb, null)).count();
    }

    /**
     * How many requests had this verb on this resource.
     *
     * @param verb a Kubernetes verb, or {@code "*"}
     * @param resource {@code pods}, {@code pods/status}, {@code deployments.apps}, or {@code "*"}
     */
    public synchronized long count(String verb, String resource) {
        return entries.stream().filter(e -> e.matches(verb, resource)).count();
    }

    /** How many writes (create, update, patch, delete, deletecollection) on any resource, failed ones included. */
    public synchronized long writes() {
        return entries.stream().filter(Entry::isWrite).count();
    }

    /** How many writes on one resource, named as in {@link #count(String, String)}. */
    public synchronized long writes(String resource) {
        return entries.stream().filter(e -> e.isWrite() && e.matches("*", resource)).count();
    }

    /** How many requests of any kind, discovery included. */
    public synchronized long total() {
        return entries.size();
    }

    /** Forgets everything recorded so far. */
    public synchronized void reset() {
        entries.clear();
    }

    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder("RequestLog[");
        for (Entry e : entries) {
            if (!e.resource().isEmpty()) {
                sb.append("\n  ").append(e.verb()).append(' ').append(e.qualified())
                        .append(e.namespace() == null ? "" : " -n " + e.namespace())
                        .append(e.name() == null ? "" : " " + e.name()).append(" -> ").append(e.code());
            }
        }
        return sb.append("\n]").toString();
    }
}
