package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.HostSimulator;
import io.tenantplane.plan.Plan;
import io.tenantplane.plan.Planner;
import io.tenantplane.plan.PlannerPropertyTestAccess;
import io.tenantplane.plan.Snapshot;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ownership at scale, with the pure planner and a simulated host: one host namespace of more than 10,000 objects,
 * shared by four tenants and full of foreign objects (plain ones, ones holding a tenant's host names, look-alikes
 * carrying a tenant's labels under the wrong name, copies of a tenant that no pass runs for), through rounds of random
 * tenant changes, host-side edits and deletions and a policy that stops syncing a kind. Checked on every write of
 * every pass, with the ownership rule written again here as the oracle: a pass writes only objects its own tenant
 * manages (or creates names nobody holds); no foreign object ever changes; after convergence every managed object maps
 * back to a live source of a synced kind, and every source has exactly one copy unless a foreign object holds its name.
 */
class OwnershipPropertyTest {

    private static final String HOST_NS = "team-x";
    private static final List<String> TENANTS = List.of("alpha", "beta", "gamma", "delta");
    private static final List<String> KINDS = List.of("ConfigMap", "Secret", "Service", "Pod");
    private static final List<String> VNS = List.of("default", "shop", "x-a", "team-x-one", "payments");
    private static final int SOURCES_PER_TENANT = 1700;
    private static final int FOREIGN = 4000;
    private static final TransformOptions OPTIONS = TransformOptions.defaults()
            .withPodSecurity(PodSecurityLevel.PRIVILEGED);

    private final Planner planner = new Planner();
    private final HostSimulator simulator = new HostSimulator();
    private final Random random = new Random(20_240_601L);
    private final Map<String, Map<String, JsonObject>> sources = new LinkedHashMap<>();
    private final Map<String, List<String>> syncedKinds = new HashMap<>();
    private final Map<String, JsonObject> foreign = new LinkedHashMap<>();
    private List<JsonObject> host = new ArrayList<>();
    private long passes;
    private long decisions;
    private long writes;
    private long conflicts;

    /** The ownership rule of the design, written again: the tenant that manages {@code h}, or null when foreign. */
    static String owner(JsonObject h) {
        return owner(h, HOST_NS);
    }

    /** As {@link #owner(JsonObject)}, for host namespace {@code hostNamespace}. */
    static String owner(JsonObject h, String hostNamespace) {
        Map<String, String> l = Json.labels(h);
        Map<String, String> a = Json.annotations(h);
        String tenant = l.get(ReverseMapping.TENANT);
        String vns = a.get(ReverseMapping.SOURCE_NAMESPACE);
        String name = a.get(ReverseMapping.SOURCE_NAME);
        if (!ReverseMapping.MANAGED_BY_VALUE.equals(l.get(ReverseMapping.MANAGED_BY)) || tenant == null
                || vns == null || name == null || !Objects.equals(a.get(ReverseMapping.SOURCE_KIND), Json.string(h, "kind"))
                || !vns.equals(l.get(ReverseMapping.VIRTUAL_NAMESPACE))
                || !hostNamespace.equals(Json.string(h, "metadata", "namespace"))) {
            return null;
        }
        try {
            return HostNames.hostName(name, vns, tenant).equals(Json.string(h, "metadata", "name")) ? tenant : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String key(JsonObject o) {
        return Json.string(o, "kind") + "/" + Json.string(o, "metadata", "name");
    }

    @Test
    void tenThousandHostObjectsOfFourTenantsAndForeignersConvergeWithoutTouchingWhatIsNotTheirs() {
        for (String t : TENANTS) {
            syncedKinds.put(t, new ArrayList<>(KINDS));
            Map<String, JsonObject> own = new LinkedHashMap<>();
            while (own.size() < SOURCES_PER_TENANT) {
                JsonObject o = tenantObject(t);
                own.putIfAbsent(sourceKey(o), o);
            }
            sources.put(t, own);
        }
        makeForeignObjects();
        host.addAll(foreign.values().stream().map(JsonObject::deepCopy).toList());

        convergeAll();
        int firstSync = host.size();
        assertTrue(firstSync >= 10_000, "the host namespace holds " + firstSync + " objects");
        checkConverged();

        for (int round = 1; round <= 3; round++) {
            for (String t : TENANTS) {
                changeTenant(t);
            }
            if (round == 2) {
                syncedKinds.get("beta").remove("Secret");
            }
            driftOnTheHost();
            convergeAll();
            checkConverged();
        }
        System.out.println("ownership: " + firstSync + " host objects after the first sync, " + host.size()
                + " at the end (" + foreign.size() + " foreign), "
                + TENANTS.size() + " tenants, " + passes + " passes, " + decisions + " decisions, " + writes
                + " writes, " + conflicts + " conflicts; no foreign or other-tenant object written");
    }

    // ---------------------------------------------------------------- passes

    private void convergeAll() {
        for (String t : TENANTS) {
            int rounds = 0;
            while (pass(t) > 0) {
                rounds++;
                assertTrue(rounds <= 2, t + " converges within two passes");
            }
        }
    }

    /** One pass of tenant {@code t} over the whole namespace; returns how many writes it made. */
    private long pass(String t) {
        passes++;
        Snapshot s = new Snapshot(t, HOST_NS, PlannerPropertyTestAccess.policy(syncedKinds.get(t).toArray(String[]::new)),
                OPTIONS, List.copyOf(sources.get(t).values()), host);
        Plan plan = planner.plan(s);
        Map<String, JsonObject> now = new HashMap<>();
        host.forEach(h -> now.put(key(h), h));
        List<Decision> mine = new ArrayList<>();
        for (Decision d : plan.decisions()) {
            decisions++;
            if (d.action() == Action.CONFLICT) {
                conflicts++;
                JsonObject held = now.get(d.kind() + "/" + d.host().name());
                assertNotNull(held, () -> "a conflict is about a name that is held: " + d);
                assertTrue(!t.equals(owner(held)) || d.reason().equals("NameCollision"), () -> t + ": " + d);
            }
            if (!d.action().writes()) {
                continue;
            }
            JsonObject current = now.get(d.kind() + "/" + d.host().name());
            if (d.action() == Action.CREATE) {
                assertNull(current, () -> t + " creates a name that is held: " + d.host() + " by " + current);
            } else {
                assertNotNull(current, () -> t + " writes an object that does not exist: " + d);
                assertEquals(t, owner(current), () -> t + "'s pass " + d.action() + "s " + d.host() + ", which "
                        + (owner(current) == null ? "is foreign" : "tenant " + owner(current) + " manages"));
                assertTrue(!foreign.containsKey(key(current)), () -> t + " writes foreign " + key(current));
            }
            mine.add(d);
        }
        writes += mine.size();
        // The simulator copies what it is given; give it only the objects written, not the whole namespace.
        Set<String> touched = new HashSet<>();
        mine.forEach(d -> touched.add(d.kind() + "/" + d.host().name()));
        List<JsonObject> written = host.stream().filter(h -> touched.contains(key(h))).toList();
        List<JsonObject> next = new ArrayList<>(host.stream().filter(h -> !touched.contains(key(h))).toList());
        next.addAll(simulator.apply(new Plan(mine), written));
        host = next;
        return mine.size();
    }

    private void checkConverged() {
        Map<String, JsonObject> byKey = new HashMap<>();
        for (JsonObject h : host) {
            assertNull(byKey.put(key(h), h), () -> "two host objects named " + key(h));
        }
        foreign.forEach((k, original) -> assertEquals(original, byKey.get(k), () -> "foreign " + k
                + " changed or vanished"));
        Map<String, Set<String>> copies = new HashMap<>();
        for (JsonObject h : host) {
            String t = owner(h);
            if (t == null || !sources.containsKey(t)) {
                continue;
            }
            Map<String, String> a = Json.annotations(h);
            String src = Json.string(h, "kind") + "/" + a.get(ReverseMapping.SOURCE_NAMESPACE) + "/"
                    + a.get(ReverseMapping.SOURCE_NAME);
            assertTrue(sources.get(t).containsKey(src), () -> t + " has a host copy " + key(h) + " of " + src
                    + ", which no longer exists");
            assertTrue(syncedKinds.get(t).contains(Json.string(h, "kind")), () -> t + " keeps a copy of a kind it "
                    + "no longer syncs: " + key(h));
            assertTrue(copies.computeIfAbsent(t, x -> new HashSet<>()).add(src), () -> "two copies of " + src);
        }
        for (String t : TENANTS) {
            for (var e : sources.get(t).entrySet()) {
                JsonObject o = e.getValue();
                String kind = Json.string(o, "kind");
                if (!syncedKinds.get(t).contains(kind)) {
                    continue;
                }
                String name = HostNames.hostName(Json.string(o, "metadata", "name"),
                        Json.string(o, "metadata", "namespace"), t);
                JsonObject held = byKey.get(kind + "/" + name);
                assertNotNull(held, () -> t + "'s " + e.getKey() + " has no host copy");
                if (owner(held) == null || !owner(held).equals(t)) {
                    assertTrue(foreign.containsKey(kind + "/" + name), () -> t + "'s " + e.getKey() + " is held by "
                            + "an object that is neither foreign nor its own");
                } else {
                    assertTrue(copies.get(t).contains(e.getKey()), e.getKey());
                }
            }
        }
    }

    // ---------------------------------------------------------------- changes

    private void changeTenant(String t) {
        Map<String, JsonObject> own = sources.get(t);
        List<String> keys = new ArrayList<>(own.keySet());
        for (String k : keys) {
            int roll = random.nextInt(100);
            if (roll < 5) {
                own.remove(k);
            } else if (roll < 10) {
                JsonObject o = own.get(k).deepCopy();
                payload(o, "v" + random.nextInt(1000));
                own.put(k, o);
            }
        }
        for (int i = 0; i < SOURCES_PER_TENANT / 20; i++) {
            JsonObject o = tenantObject(t);
            own.putIfAbsent(sourceKey(o), o);
        }
    }

    /** Host-side controllers edit some managed copies and delete others; the passes must repair exactly those. */
    private void driftOnTheHost() {
        List<JsonObject> next = new ArrayList<>();
        for (JsonObject h : host) {
            String t = owner(h);
            if (t != null && sources.containsKey(t)) {
                int roll = random.nextInt(200);
                if (roll == 0) {
                    continue;
                }
                if (roll == 1 && h.has("data")) {
                    JsonObject edited = h.deepCopy();
                    Json.child(edited, "data").addProperty("k", "edited-on-the-host");
                    next.add(edited);
                    continue;
                }
            }
            next.add(h);
        }
        host = next;
    }

    // ---------------------------------------------------------------- objects

    private JsonObject tenantObject(String tenant) {
        String kind = KINDS.get(random.nextInt(KINDS.size()));
        String vns = VNS.get(random.nextInt(VNS.size()));
        String name = switch (random.nextInt(10)) {
            case 0 -> "a-x-" + random.nextInt(500);
            case 1 -> "n" + random.nextInt(200) + "-x-" + VNS.get(random.nextInt(VNS.size()));
            default -> "o" + random.nextInt(4000);
        };
        JsonObject o = new JsonObject();
        o.addProperty("apiVersion", "v1");
        o.addProperty("kind", kind);
        JsonObject meta = Json.child(o, "metadata");
        meta.addProperty("name", name);
        meta.addProperty("namespace", vns);
        meta.addProperty("uid", tenant + "-" + kind + "-" + vns + "-" + name);
        JsonObject labels = Json.child(meta, "labels");
        labels.addProperty("app", name.length() > 40 ? "long" : name);
        if (random.nextInt(10) == 0) {
            // Forged ownership: stripped by the transform, re-asserted as this tenant's.
            labels.addProperty(ReverseMapping.TENANT, TENANTS.get(random.nextInt(TENANTS.size())));
            labels.addProperty(ReverseMapping.MANAGED_BY, "tenantplane");
            Json.child(meta, "annotations").addProperty(ReverseMapping.SOURCE_NAME, "o1");
        }
        switch (kind) {
            case "Service" -> o.add("spec", Json.gson().fromJson("{\"selector\":{\"app\":\"" + name
                    + "\"},\"ports\":[{\"port\":80}]}", JsonObject.class));
            case "Pod" -> o.add("spec", Json.gson().fromJson(
                    "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1\"}]}", JsonObject.class));
            default -> {
            }
        }
        payload(o, "v0");
        return o;
    }

    private static void payload(JsonObject o, String v) {
        switch (Json.string(o, "kind")) {
            case "Service" -> Json.child(o, "metadata", "labels").addProperty("version", v);
            case "Pod" -> Json.child(o, "metadata", "labels").addProperty("version", v);
            default -> Json.child(o, "data").addProperty("k", v);
        }
    }

    private static String sourceKey(JsonObject o) {
        return Json.string(o, "kind") + "/" + Json.string(o, "metadata", "namespace") + "/"
                + Json.string(o, "metadata", "name");
    }

    private void makeForeignObjects() {
        List<JsonObject> all = new ArrayList<>();
        sources.forEach((t, m) -> m.values().forEach(all::add));
        int i = 0;
        while (foreign.size() < FOREIGN) {
            i++;
            int roll = random.nextInt(100);
            JsonObject src = all.get(random.nextInt(all.size()));
            String t = Json.string(src, "metadata", "uid").substring(0, Json.string(src, "metadata", "uid").indexOf('-'));
            String kind = Json.string(src, "kind");
            String vns = Json.string(src, "metadata", "namespace");
            String srcName = Json.string(src, "metadata", "name");
            String hostName = HostNames.hostName(srcName, vns, t);
            JsonObject f;
            if (roll < 60) {
                f = plain(KINDS.get(random.nextInt(KINDS.size())), "platform-" + i);
            } else if (roll < 75) {
                f = plain(kind, hostName);
            } else if (roll < 85) {
                f = managedLike(kind, hostName + "-copy", t, vns, srcName);
            } else if (roll < 95) {
                String omegaName = "w" + random.nextInt(100_000);
                f = managedLike(kind, HostNames.hostName(omegaName, vns, "omega"), "omega", vns, omegaName);
            } else {
                f = managedLike(kind, hostName + "-half", t, vns, srcName);
                Json.child(f, "metadata", "annotations").remove(ReverseMapping.SOURCE_NAME);
            }
            Json.child(f, "metadata").addProperty("uid", "foreign-" + i);
            Json.child(f, "metadata").addProperty("resourceVersion", String.valueOf(i));
            foreign.putIfAbsent(key(f), f);
        }
        for (JsonObject f : foreign.values()) {
            String o = owner(f);
            if (o != null && !o.equals("omega")) {
                fail("a foreign object passes the ownership rule: " + f);
            }
        }
    }

    private static JsonObject plain(String kind, String name) {
        JsonObject o = new JsonObject();
        o.addProperty("apiVersion", "v1");
        o.addProperty("kind", kind);
        JsonObject meta = Json.child(o, "metadata");
        meta.addProperty("name", name);
        meta.addProperty("namespace", HOST_NS);
        Json.child(meta, "labels").addProperty("owner", "platform");
        Json.child(o, "data").addProperty("mine", "yes");
        return o;
    }

    private static JsonObject managedLike(String kind, String name, String tenant, String vns, String sourceName) {
        JsonObject o = plain(kind, name);
        JsonObject labels = Json.child(o, "metadata", "labels");
        labels.addProperty(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE);
        labels.addProperty(ReverseMapping.TENANT, tenant);
        labels.addProperty(ReverseMapping.VIRTUAL_NAMESPACE, vns);
        JsonObject ann = Json.child(o, "metadata", "annotations");
        ann.addProperty(ReverseMapping.SOURCE_KIND, kind);
        ann.addProperty(ReverseMapping.SOURCE_NAMESPACE, vns);
        ann.addProperty(ReverseMapping.SOURCE_NAME, sourceName);
        return o;
    }
}
