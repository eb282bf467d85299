package io.tenantplane.controlplane.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tenantplane.model.TenantCluster;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServiceRangeTest {

    @ParameterizedTest(name = "kubernetes Service at {0}: {1}")
    @CsvSource(nullValues = "none", textBlock = """
            10.43.0.1,      10.32.0.0/12
            10.96.0.1,      10.96.0.0/12
            10.100.0.1,     10.96.0.0/12
            172.20.0.1,     172.16.0.0/12
            34.118.224.1,   34.112.0.0/12
            10.0.0.1,       10.0.0.0/12
            fd00:10:96::1,  none
            None,           none
            '',             none
            10.300.0.1,     none
            none,           none
            """)
    void theBlockAroundTheKubernetesServiceHoldsTheHostsRange(String ip, String block) {
        assertEquals(Optional.ofNullable(block), ServiceRange.fromKubernetesServiceIp(ip));
    }

    @ParameterizedTest(name = "{0} holds {1}: {2}")
    @CsvSource(textBlock = """
            10.96.0.0/12,  10.96.0.0/16,  true
            10.96.0.0/12,  10.100.0.0/16, true
            10.96.0.0/12,  10.96.0.0/12,  true
            10.96.0.0/12,  10.43.0.0/16,  false
            10.96.0.0/12,  10.64.0.0/10,  false
            10.32.0.0/12,  10.43.0.0/16,  true
            10.96.0.0/16,  10.96.0.0/12,  false
            10.96.0.1/12,  10.96.0.0/16,  false
            """)
    void holdsIsCidrContainment(String outer, String inner, boolean holds) {
        assertEquals(holds, ServiceRange.holds(outer, inner));
    }

    /** Every range a host may have (a /12 or narrower) lies in the block of its first address. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"10.43.0.0/16", "10.96.0.0/12", "172.20.0.0/16", "192.168.128.0/17", "100.64.0.0/28"})
    void everyHostRangeLiesInTheBlockOfItsKubernetesService(String hostRange) {
        String base = hostRange.substring(0, hostRange.indexOf('/'));
        String[] octets = base.split("\\.");
        String first = octets[0] + "." + octets[1] + "." + octets[2] + "." + (Integer.parseInt(octets[3]) + 1);
        String block = ServiceRange.fromKubernetesServiceIp(first).orElseThrow();
        assertTrue(ServiceRange.holds(block, hostRange), block + " holds " + hostRange);
    }

    private static TenantCluster tenant(TenantCluster.Mode mode, String serviceCidr) {
        return new TenantCluster(TenantCluster.API_VERSION, TenantCluster.KIND,
                io.tenantplane.model.ObjectMeta.of("team-dev", "dev"),
                new TenantCluster.Spec(mode, new TenantCluster.Ref("restricted"), new TenantCluster.Ref("default"),
                        null, serviceCidr == null ? null
                        : new TenantCluster.ControlPlane(1, null, null, null, serviceCidr, "30000-32767")),
                null);
    }

    @ParameterizedTest(name = "{0}, spec {1}, host block {2}: {3}")
    @CsvSource(nullValues = "none", textBlock = """
            SHARED,    none,          10.32.0.0/12, 10.32.0.0/12
            DEDICATED, none,          10.32.0.0/12, 10.32.0.0/12
            SHARED,    none,          10.96.0.0/12, none
            SHARED,    none,          none,         none
            SHARED,    10.43.0.0/16,  10.32.0.0/12, 10.43.0.0/16
            PRIVATE,   none,          10.32.0.0/12, none
            """)
    void aTenantNamingNoRangeIsRenderedWithTheHostsBlockWhereTheDefaultDoesNotHoldIt(
            TenantCluster.Mode mode, String spec, String hostBlock, String rendered) {
        TenantCluster tc = tenant(mode, spec);
        TenantCluster on = ServiceRange.onHost(tc, hostBlock);
        TenantCluster.ControlPlane cp = on.spec().controlPlane();
        assertEquals(rendered, cp == null ? null : cp.serviceCIDR());
        if (rendered == null || rendered.equals(spec)) {
            assertSame(tc, on, "nothing to change: the TenantCluster itself");
        } else {
            assertEquals(tc.spec().mode(), on.spec().mode());
            assertEquals(tc.metadata(), on.metadata());
        }
    }
}
