package io.tenantplane.controlplane.internal;

import io.tenantplane.model.TenantCluster;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Service range a shared or dedicated tenant's API runs with when its TenantCluster names none. A tenant Service
 * takes its host copy's ClusterIP, so the tenant API must accept every Service IP of the host. The host does not
 * publish its range before 1.33 (the ServiceCIDR API), and newer releases no longer name it in their refusals; but
 * every cluster has the {@code kubernetes} Service at its range's first address, and kube-apiserver refuses an IPv4
 * range wider than /12 ({@code --service-cluster-ip-range}: "for 32-bit addresses, the mask must be >= 12",
 * {@code cmd/kube-apiserver/app/options/validation.go}). So the /12 block around that address holds the host's whole
 * range, whatever its prefix: 10.43.0.1 (k3s) gives 10.32.0.0/12, 10.96.0.1 (kubeadm, kind) 10.96.0.0/12, the
 * default.
 *
 * <p>Where that block is the default ({@link TenantCluster#DEFAULT_SERVICE_CIDR}) nothing changes, so the control
 * planes of tenants on such hosts are not restarted for it; elsewhere (k3s's 10.43.0.0/16, many managed clusters) the
 * tenant runs with the block. A tenant range wider than the host's makes the tenant API draw some IPs the host does
 * not have; such a Service takes the host's address once its copy exists, as before ({@code ClusterIPFromHost}).
 */
public final class ServiceRange {
    private static final Pattern IPV4 = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");
    /** The widest IPv4 Service range kube-apiserver takes. */
    private static final int WIDEST = 12;

    private ServiceRange() {
    }

    /**
     * The /12 block holding the host's Service range, from the ClusterIP of its {@code kubernetes} Service; empty when
     * that is not an IPv4 address (an IPv6 host, a headless or missing Service): then the default applies.
     */
    public static Optional<String> fromKubernetesServiceIp(String clusterIp) {
        long a = address(clusterIp);
        if (a < 0) {
            return Optional.empty();
        }
        long block = a & mask(WIDEST);
        return Optional.of((block >> 24 & 255) + "." + (block >> 16 & 255) + "." + (block >> 8 & 255) + "."
                + (block & 255) + "/" + WIDEST);
    }

    /** True when every address of IPv4 CIDR {@code inner} lies in IPv4 CIDR {@code outer}. */
    public static boolean holds(String outer, String inner) {
        long[] o = parse(outer);
        long[] i = parse(inner);
        if (o == null || i == null || i[1] < o[1]) {
            return false;
        }
        return (o[0] & mask(o[1])) == (i[0] & mask(o[1]));
    }

    /**
     * {@code tc} as it is rendered on a host whose Service range is {@code hostRange} (null: not known): with the
     * host's range as {@code spec.controlPlane.serviceCIDR} when the TenantCluster names none, its tenant's Pods run
     * on the host (not private mode) and the default does not hold the host's range; else {@code tc} itself.
     */
    public static TenantCluster onHost(TenantCluster tc, String hostRange) {
        if (hostRange == null || !takesHostRange(tc) || holds(TenantCluster.DEFAULT_SERVICE_CIDR, hostRange)) {
            return tc;
        }
        TenantCluster.Spec spec = tc.spec();
        TenantCluster.ControlPlane cp = spec.controlPlane();
        TenantCluster.ControlPlane withRange = cp == null
                ? new TenantCluster.ControlPlane(null, null, null, null, hostRange, null)
                : new TenantCluster.ControlPlane(cp.replicas(), cp.version(), cp.datastore(), cp.resources(),
                hostRange, cp.serviceNodePortRange());
        return new TenantCluster(tc.apiVersion(), tc.kind(), tc.metadata(), new TenantCluster.Spec(spec.mode(),
                spec.isolationProfileRef(), spec.syncPolicyRef(), spec.hostNamespace(), withRange), tc.status());
    }

    /**
     * True when {@code tc}'s rendering depends on the host's range: its Pods run on the host (not private mode) and it
     * names no {@code spec.controlPlane.serviceCIDR}.
     */
    public static boolean takesHostRange(TenantCluster tc) {
        TenantCluster.Spec spec = tc.spec();
        return spec != null && tc.mode() != TenantCluster.Mode.PRIVATE
                && (spec.controlPlane() == null || spec.controlPlane().serviceCIDR() == null);
    }

    /** An IPv4 address as a number, or -1. */
    private static long address(String ip) {
        Matcher m = ip == null ? null : IPV4.matcher(ip);
        if (m == null || !m.matches()) {
            return -1;
        }
        long a = 0;
        for (int g = 1; g <= 4; g++) {
            int octet = Integer.parseInt(m.group(g));
            if (octet > 255) {
                return -1;
            }
            a = a << 8 | octet;
        }
        return a;
    }

    /** {address, prefix} of an IPv4 CIDR without host bits, or null. */
    private static long[] parse(String cidr) {
        int slash = cidr == null ? -1 : cidr.indexOf('/');
        if (slash < 0 || !cidr.substring(slash + 1).matches("[0-9]{1,2}")) {
            return null;
        }
        long a = address(cidr.substring(0, slash));
        int prefix = Integer.parseInt(cidr.substring(slash + 1));
        if (a < 0 || prefix > 32 || (a & ~mask(prefix) & 0xFFFFFFFFL) != 0) {
            return null;
        }
        return new long[] {a, prefix};
    }

    /** The network mask of an IPv4 prefix length. */
    private static long mask(long prefix) {
        return prefix == 0 ? 0 : (0xFFFFFFFFL << (32 - prefix)) & 0xFFFFFFFFL;
    }
}
