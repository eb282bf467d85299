package io.tenantplane.model;

import io.tenantplane.model.TenantCluster.ControlPlane;
import io.tenantplane.model.TenantCluster.DatastoreType;
import io.tenantplane.model.TenantCluster.Mode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** The rules of a TenantCluster on its own. */
final class TenantClusterValidation {

    static final Pattern SERVICE_CIDR = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
                    + "/([8-9]|[12][0-9]|30)");
    /** {@code <first>-<last>}, as the CRD's pattern has it; the bounds are checked as numbers. */
    static final Pattern PORT_RANGE = Pattern.compile("([0-9]{1,5})-([0-9]{1,5})");
    static final Pattern K3S_VERSION = Pattern.compile("v1\\.[0-9]+\\.[0-9]+\\+k3s[0-9]+");
    static final Set<String> RESERVED_NAMESPACES = Set.of("kube-system", "kube-public", "kube-node-lease", "default");

    private TenantClusterValidation() {
    }

    static List<Problem> validate(TenantCluster tc) {
        List<Problem> out = new ArrayList<>();
        ObjectValidation.identity(tc.apiVersion(), tc.kind(), TenantCluster.API_VERSION, TenantCluster.KIND, out);
        ObjectValidation.metadata(tc.metadata(), TenantCluster.KIND, out);
        name(tc.tenant(), out);
        out.addAll(Structure.missingRequired(tc));
        TenantCluster.Spec spec = tc.spec();
        if (spec != null) {
            ref("spec.isolationProfileRef.name", spec.isolationProfileRef(), out);
            ref("spec.syncPolicyRef.name", spec.syncPolicyRef(), out);
            hostNamespace(tc, out);
            if (spec.controlPlane() != null) {
                controlPlane(spec.controlPlane(), out);
            }
        }
        if (tc.status() != null) {
            ObjectValidation.conditions("status.conditions", tc.status().conditions(), out);
            Checks.label("status.hostNamespace", tc.status().hostNamespace(), "a valid namespace name", out);
        }
        return out;
    }

    private static void name(String name, List<Problem> out) {
        if (name == null || name.isEmpty()) {
            return;
        }
        if (!Checks.isDns1035Label(name)) {
            out.add(Problem.of("metadata.name", "\"" + name + "\" is not a valid tenant name: use lower-case letters, "
                    + "digits and '-', starting with a letter and ending with a letter or digit (a DNS-1035 label, "
                    + "because Service names are built from it)"));
        }
        if (name.length() > TenantCluster.MAX_NAME_LENGTH) {
            out.add(Problem.of("metadata.name", "\"" + name + "\" has " + name.length() + " characters; tenant names "
                    + "have at most " + TenantCluster.MAX_NAME_LENGTH + " so that host names built from them (such as "
                    + "<tenant>-control-plane-headless) stay within 63: choose a shorter name"));
        }
    }

    private static void ref(String field, TenantCluster.Ref ref, List<Problem> out) {
        if (ref != null && ref.name() != null) {
            Checks.subdomain(field, ref.name(), "a valid object name", out);
        }
    }

    private static void hostNamespace(TenantCluster tc, List<Problem> out) {
        String hn = tc.spec().hostNamespace();
        if (hn == null) {
            return;
        }
        if (tc.mode() == Mode.SHARED) {
            out.add(Problem.of("spec.hostNamespace", "only for dedicated and private modes: in shared mode workloads "
                    + "run in the TenantCluster's own namespace" + (tc.namespace() == null ? "" : " (" + tc.namespace()
                    + ")") + "; remove spec.hostNamespace or set spec.mode: dedicated"));
            return;
        }
        Checks.label("spec.hostNamespace", hn, "a valid namespace name", out);
        if (RESERVED_NAMESPACES.contains(hn)) {
            out.add(Problem.of("spec.hostNamespace", hn + " is a system namespace and cannot hold tenant workloads; "
                    + "use a namespace of the tenant's own, or leave it unset for the default "
                    + "<namespace>-x-<tenant>"));
        }
    }

    private static void controlPlane(ControlPlane cp, List<Problem> out) {
        DatastoreType type = cp.datastore() == null || cp.datastore().type() == null
                ? DatastoreType.SQLITE : cp.datastore().type();
        Integer replicas = cp.replicas();
        if (replicas != null && replicas < 1) {
            out.add(Problem.of("spec.controlPlane.replicas", "must be at least 1, got " + replicas));
        } else if (replicas != null && type == DatastoreType.SQLITE && replicas != 1) {
            out.add(Problem.of("spec.controlPlane.datastore.type", "sqlite requires replicas = 1, got " + replicas
                    + "; set spec.controlPlane.replicas: 1, or use datastore type etcd with 3, 5 or 7 replicas"));
        } else if (replicas != null && type == DatastoreType.ETCD && (replicas < 3 || replicas > 7 || replicas % 2 == 0)) {
            out.add(Problem.of("spec.controlPlane.datastore.type", "etcd requires an odd number of replicas from 3 to 7 "
                    + "(3, 5 or 7), got " + replicas + "; an even count adds no fault tolerance and 1 has none: use "
                    + "sqlite for a single replica"));
        }
        if (cp.version() != null && !K3S_VERSION.matcher(cp.version()).matches()) {
            out.add(Problem.of("spec.controlPlane.version", "\"" + cp.version() + "\" is not a k3s version: write it "
                    + "as in the k3s release names, e.g. " + TenantCluster.DEFAULT_K3S_VERSION + " (the default when "
                    + "unset)"));
        }
        if (cp.serviceCIDR() != null && !SERVICE_CIDR.matcher(cp.serviceCIDR()).matches()) {
            out.add(Problem.of("spec.controlPlane.serviceCIDR", "\"" + cp.serviceCIDR() + "\" is not an IPv4 CIDR: "
                    + "write the host's Service range (kube-apiserver --service-cluster-ip-range), e.g. "
                    + TenantCluster.DEFAULT_SERVICE_CIDR + " (the default when unset)"));
        }
        if (cp.serviceNodePortRange() != null) {
            String problem = portRangeProblem(cp.serviceNodePortRange());
            if (problem != null) {
                out.add(Problem.of("spec.controlPlane.serviceNodePortRange", "\"" + cp.serviceNodePortRange() + "\" "
                        + problem + ": write the host's node port range (kube-apiserver --service-node-port-range) as "
                        + "<first>-<last>, e.g. 30000-32767 (the default when unset)"));
            }
        }
        if (cp.datastore() != null) {
            TenantCluster.Datastore ds = cp.datastore();
            if (ds.storage() != null) {
                var q = Checks.quantity(ds.storage());
                if (q.isEmpty()) {
                    out.add(Problem.of("spec.controlPlane.datastore.storage", "\"" + ds.storage() + "\" is not a "
                            + "Kubernetes quantity: write a size such as 5Gi (the default) or 500Mi"));
                } else if (q.get().signum() <= 0) {
                    out.add(Problem.of("spec.controlPlane.datastore.storage", "must be more than 0, got "
                            + ds.storage() + "; the datastore needs a volume, e.g. 5Gi"));
                }
            }
            Checks.subdomain("spec.controlPlane.datastore.storageClassName", ds.storageClassName(),
                    "a valid StorageClass name", out);
        }
        if (cp.resources() != null) {
            resources("spec.controlPlane.resources", cp.resources(), out);
        }
    }

    static void resources(String field, TenantCluster.Resources r, List<Problem> out) {
        Checks.containerResources(field + ".requests", r.requests(), out);
        Checks.containerResources(field + ".limits", r.limits(), out);
        Map<String, BigDecimal> req = Checks.quantities(field + ".requests", r.requests(), out);
        Map<String, BigDecimal> lim = Checks.quantities(field + ".limits", r.limits(), out);
        req.forEach((k, v) -> {
            BigDecimal l = lim.get(k);
            if (l != null && v.compareTo(l) > 0) {
                out.add(Problem.of(field + ".requests[" + k + "]", "request " + r.requests().get(k) + " is more than "
                        + "the limit " + r.limits().get(k) + "; lower the request or raise the limit"));
            }
        });
    }

    /**
     * Why a node port range is not one the API server takes, or null: {@code <first>-<last>} with
     * {@code 1 <= first <= last <= 65535} (the form of {@code utilnet.ParsePortRange} that the CRD allows).
     */
    static String portRangeProblem(String range) {
        var m = PORT_RANGE.matcher(range);
        if (!m.matches()) {
            return "is not a port range";
        }
        int first = Integer.parseInt(m.group(1));
        int last = Integer.parseInt(m.group(2));
        if (first < 1 || last > 65535) {
            return "is not within ports 1-65535";
        }
        if (first > last) {
            return "ends before it starts";
        }
        return null;
    }
}
