package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.testkit.RequestLog;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Ownership with the live applier against an in-process host: three tenants share one host namespace with platform
 * objects, objects holding a tenant's names, look-alikes carrying a tenant's labels under the wrong name and copies of
 * a tenant that has no TenantCluster. Over rounds of random tenant changes and host-side edits, each tenant's pass runs
 * alone with the host's request log cleared, so every write the server sees is that pass's: each one names an object of
 * that tenant (or its own TenantCluster's status), none a foreign or another tenant's object, and after every round
 * the host matches the tenants exactly.
 */
@Tag(Live.HOOKS)
class IsolationOwnershipIT {

    private static final List<String> TENANTS = List.of("dev", "qa", "ops");
    private static final int ROUNDS = 3;

    @Test
    void everyWriteOfATenantsPassNamesAnObjectOfThatTenantAndNothingForeignIsEverWritten() {
        try (ReliabilityWorld w = ReliabilityWorld.start(TENANTS, 10, 31)) {
            Random r = new Random(31);
            addLookAlikes(w, r);
            TenantPlane plane = w.plane();
            long writes = 0;
            long passes = 0;
            for (int round = 0; round <= ROUNDS; round++) {
                if (round > 0) {
                    for (String t : TENANTS) {
                        w.changeTenant(t, 12);
                    }
                    driftOnTheHost(w, r);
                }
                Map<String, Set<String>> names = new HashMap<>();
                for (String t : TENANTS) {
                    names.put(t, hostNamesOf(w, t));
                }
                for (String t : TENANTS) {
                    Map<String, String> before = versions(w);
                    w.host.requests().reset();
                    ConvergenceReport report = plane.converge(w.live.key(t));
                    assertNull(report.failure(), t + " round " + round);
                    passes++;
                    Map<String, String> after = versions(w);
                    Set<String> written = new HashSet<>();
                    after.forEach((k, v) -> {
                        if (!v.equals(before.get(k))) {
                            written.add(k);
                        }
                    });
                    before.keySet().stream().filter(k -> !after.containsKey(k)).forEach(written::add);
                    for (RequestLog.Entry e : w.host.requests().entries()) {
                        if (!e.isWrite() || e.resource().equals("events")) {
                            continue;
                        }
                        writes++;
                        if (e.resource().equals("tenantclusters/status")) {
                            assertEquals(t, e.name(), "a pass writes its own tenant's status only");
                        } else if (e.name() != null) {
                            written.add(kindOf(e) + "/" + e.name());
                        }
                    }
                    for (String key : written) {
                        assertTrue(!w.foreignKeys().contains(key), () -> t + " wrote foreign " + key);
                        for (String other : TENANTS) {
                            if (!other.equals(t)) {
                                assertTrue(!names.get(other).contains(key), () -> t + "'s pass wrote " + key
                                        + ", which belongs to " + other);
                            }
                        }
                        assertTrue(names.get(t).contains(key), () -> t + "'s pass wrote " + key
                                + ", which is not one of its objects");
                    }
                }
                assertNull(w.problem(), "round " + round);
            }
            assertEquals(List.of(), w.writesToForeignObjects());
            System.out.println("isolation live: " + TENANTS.size() + " tenants, " + (w.foreignKeys().size())
                    + " foreign objects, " + ROUNDS + " rounds of changes, " + passes + " passes, " + writes
                    + " host writes, each one checked against its pass's tenant");
        }
    }

    /** Every host object of the synced kinds in the host namespace, by kind and name, with its resourceVersion. */
    private static Map<String, String> versions(ReliabilityWorld w) {
        Map<String, String> out = new HashMap<>();
        for (String kind : ReliabilityWorld.KINDS) {
            for (JsonObject h : w.live.hostKube.list(kind, w.live.namespace, null)) {
                out.put(kind + "/" + Json.string(h, "metadata", "name"), Json.string(h, "metadata",
                        "resourceVersion"));
            }
        }
        return out;
    }

    /** The host names tenant {@code t} may write: copies of its sources now and the copies it has on the host. */
    private static Set<String> hostNamesOf(ReliabilityWorld w, String t) {
        Set<String> out = new HashSet<>();
        for (JsonObject o : w.tenantObjects(t)) {
            String host = HostNames.hostName(Json.string(o, "metadata", "name"), Json.string(o, "metadata",
                    "namespace"), t);
            out.add(Json.string(o, "kind") + "/" + host);
            if ("Pod".equals(Json.string(o, "kind"))) {
                // The tenant API mounts a token in each Pod (ServiceAccount admission): its host Secret is the Pod's.
                out.add("Secret/" + host + io.tenantplane.transform.Transformer.TOKEN_SECRET_SUFFIX);
            }
        }
        for (String kind : ReliabilityWorld.KINDS) {
            for (JsonObject h : w.live.hostKube.list(kind, w.live.namespace, ReverseMapping.TENANT + "=" + t)) {
                if (Json.annotations(h).containsKey(ReverseMapping.SOURCE_KIND)
                        || Json.annotations(h).containsKey(io.tenantplane.plan.internal.TenantTokens.TOKEN_FOR)) {
                    out.add(kind + "/" + Json.string(h, "metadata", "name"));
                }
            }
        }
        return out;
    }

    private static String kindOf(RequestLog.Entry e) {
        return switch (e.resource()) {
            case "configmaps" -> "ConfigMap";
            case "secrets" -> "Secret";
            case "services" -> "Service";
            case "pods" -> "Pod";
            default -> e.resource();
        };
    }

    /** Foreign objects made to look like tenant copies: wrong names, or a tenant that has no TenantCluster. */
    private static void addLookAlikes(ReliabilityWorld w, Random r) {
        for (int i = 0; i < 20; i++) {
            String t = i % 2 == 0 ? TENANTS.get(r.nextInt(TENANTS.size())) : "omega";
            String source = t.equals("omega") ? "w" + i : "configmap-" + r.nextInt(10);
            String ns = r.nextBoolean() ? "default" : "shop";
            String name = t.equals("omega") ? HostNames.hostName(source, ns, t)
                    : HostNames.hostName(source, ns, t) + "-copy-" + i;
            w.addForeign(Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"%s",
                     "labels":{"tenantplane.io/managed-by":"tenantplane","tenantplane.io/tenant":"%s",
                       "tenantplane.io/virtual-namespace":"%s"},
                     "annotations":{"tenantplane.io/source-kind":"ConfigMap","tenantplane.io/source-namespace":"%s",
                       "tenantplane.io/source-name":"%s"}},"data":{"v":"foreign"}}"""
                    .formatted(name, w.live.namespace, t, ns, ns, source)));
        }
    }

    /** Host-side controllers edit a few tenant copies and delete others; the next passes repair exactly those. */
    private static void driftOnTheHost(ReliabilityWorld w, Random r) {
        for (JsonObject h : w.live.hostKube.list("ConfigMap", w.live.namespace, ReverseMapping.MANAGED_BY + "="
                + ReverseMapping.MANAGED_BY_VALUE)) {
            String key = "ConfigMap/" + Json.string(h, "metadata", "name");
            if (w.foreignKeys().contains(key) || !Json.annotations(h).containsKey(ReverseMapping.SOURCE_KIND)) {
                continue;
            }
            int roll = r.nextInt(10);
            if (roll == 0) {
                h.addProperty("kind", "ConfigMap");
                h.addProperty("apiVersion", "v1");
                Json.child(h, "data").addProperty("v", "edited on the host");
                w.live.hostKube.update(h);
            } else if (roll == 1) {
                w.live.hostKube.delete("ConfigMap", w.live.namespace, Json.string(h, "metadata", "name"));
            }
        }
    }
}
