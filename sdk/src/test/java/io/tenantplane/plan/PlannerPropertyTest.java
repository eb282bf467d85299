package io.tenantplane.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.SyncPolicy;
import io.tenantplane.naming.HostNames;
import io.tenantplane.naming.ReverseMapping;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Universal planner properties over random tenants and host namespaces (seeded, so failures reproduce). */
class PlannerPropertyTest {

    private static final String TENANT = "dev";
    private static final String HOST_NS = "team-dev";
    private static final List<String> NAMES = List.of("a", "b", "c", "web", "db", "cfg", "x-a", "a-x", "a-x-b", "cache");
    private static final List<String> NAMESPACES = List.of("default", "shop", "x-b", "team-x-one");
    private static final TransformOptions OPTIONS = TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED);

    private final Planner planner = new Planner();

    static SyncPolicy policy(String... kinds) {
        return new SyncPolicy(null, null, null, new SyncPolicy.Spec(List.of(kinds).stream()
                .map(k -> new SyncPolicy.KindRule(k, null, true, null, null, null)).toList()));
    }

    static JsonObject object(String kind, String ns, String name, String payload) {
        JsonObject o = new JsonObject();
        o.addProperty("apiVersion", "v1");
        o.addProperty("kind", kind);
        JsonObject meta = Json.child(o, "metadata");
        meta.addProperty("name", name);
        meta.addProperty("namespace", ns);
        meta.addProperty("uid", kind + "-" + ns + "-" + name);
        Json.child(meta, "labels").addProperty("app", name);
        switch (kind) {
            case "Service" -> {
                Json.child(o, "spec", "selector").addProperty("app", name);
                o.getAsJsonObject("spec").add("ports", Json.gson().fromJson("[{\"port\":80}]", com.google.gson.JsonArray.class));
            }
            case "Pod" -> o.add("spec", Json.gson().fromJson("{\"containers\":[{\"name\":\"c\",\"image\":\"" + payload + "\"}]}", JsonObject.class));
            default -> Json.child(o, "data").addProperty("k", payload);
        }
        return o;
    }

    static List<JsonObject> randomTenant(Random r, List<String> kinds, int max) {
        Map<String, JsonObject> byId = new java.util.LinkedHashMap<>();
        int n = r.nextInt(max);
        for (int i = 0; i < n; i++) {
            String kind = kinds.get(r.nextInt(kinds.size()));
            String ns = NAMESPACES.get(r.nextInt(NAMESPACES.size()));
            String name = NAMES.get(r.nextInt(NAMES.size()));
            byId.put(kind + "/" + ns + "/" + name, object(kind, ns, name, "v" + r.nextInt(3)));
        }
        return new ArrayList<>(byId.values());
    }

    /** The ownership rule, written again independently of the SDK, as the oracle. */
    static boolean oursByDesign(JsonObject h) {
        Map<String, String> l = Json.labels(h);
        Map<String, String> a = Json.annotations(h);
        String kind = a.get(ReverseMapping.SOURCE_KIND);
        String vns = a.get(ReverseMapping.SOURCE_NAMESPACE);
        String name = a.get(ReverseMapping.SOURCE_NAME);
        if (!HOST_NS.equals(Json.string(h, "metadata", "namespace")) || !"tenantplane".equals(l.get(ReverseMapping.MANAGED_BY))
                || !TENANT.equals(l.get(ReverseMapping.TENANT)) || kind == null || vns == null || name == null
                || !kind.equals(Json.string(h, "kind")) || !vns.equals(l.get(ReverseMapping.VIRTUAL_NAMESPACE))) {
            return false;
        }
        return HostNames.hostName(name, vns, TENANT).equals(Json.string(h, "metadata", "name"));
    }

    @Test
    void garbageCollectionDeletesExactlyTheManagedOrphansAndNeverAForeignObject() {
        Random r = new Random(1234L);
        HostSimulator sim = new HostSimulator();
        int deletes = 0;
        int foreign = 0;
        for (int iteration = 0; iteration < 400; iteration++) {
            List<String> nowSynced = r.nextBoolean() ? List.of("ConfigMap", "Secret") : List.of("ConfigMap");
            List<JsonObject> earlier = randomTenant(r, List.of("ConfigMap", "Secret", "ServiceAccount"), 25);
            List<JsonObject> tenantNow = new ArrayList<>();
            for (JsonObject o : earlier) {
                if (r.nextInt(3) > 0) {
                    tenantNow.add(o);
                }
            }
            tenantNow.addAll(randomTenant(r, List.of("ConfigMap", "Secret"), 6));
            List<JsonObject> host = new ArrayList<>(sim.apply(planner.plan(new Snapshot(TENANT, HOST_NS,
                    policy("ConfigMap", "Secret", "ServiceAccount"), OPTIONS, earlier, List.of())), List.of()));
            List<JsonObject> otherTenant = sim.apply(planner.plan(new Snapshot("other", HOST_NS, policy("ConfigMap", "Secret"),
                    OPTIONS, randomTenant(r, List.of("ConfigMap", "Secret"), 10), List.of())), List.of());
            host.addAll(otherTenant);
            List<JsonObject> ours = List.copyOf(host.subList(0, host.size() - otherTenant.size()));
            for (JsonObject o : ours) {
                int mutation = r.nextInt(8);
                JsonObject copy = o.deepCopy();
                switch (mutation) {
                    case 0 -> {
                        Json.child(copy, "metadata").addProperty("name", Json.string(o, "metadata", "name") + "-copy");
                        host.add(copy);
                    }
                    case 1 -> {
                        Json.child(copy, "metadata").addProperty("namespace", "elsewhere");
                        host.add(copy);
                    }
                    case 2 -> {
                        Json.child(copy, "metadata", "annotations").addProperty(ReverseMapping.SOURCE_NAME, "forged");
                        host.add(copy);
                    }
                    case 3 -> {
                        copy.addProperty("kind", Json.string(o, "kind").equals("Secret") ? "ConfigMap" : "Secret");
                        host.add(copy);
                    }
                    default -> {
                    }
                }
            }
            for (int i = 0; i < 5; i++) {
                String name = HostNames.hostName(NAMES.get(r.nextInt(NAMES.size())), NAMESPACES.get(r.nextInt(NAMESPACES.size())), TENANT);
                JsonObject f = object(r.nextBoolean() ? "ConfigMap" : "Secret", HOST_NS, name, "foreign");
                Json.child(f, "metadata").addProperty("name", name);
                host.add(f);
            }
            host.removeIf(h -> host.stream().filter(x -> x != h && Objects.equals(Json.string(x, "kind"), Json.string(h, "kind"))
                    && Objects.equals(Json.string(x, "metadata", "namespace"), Json.string(h, "metadata", "namespace"))
                    && Objects.equals(Json.string(x, "metadata", "name"), Json.string(h, "metadata", "name"))).findFirst()
                    .map(x -> host.indexOf(x) < host.indexOf(h)).orElse(false));

            Set<String> present = new HashSet<>();
            tenantNow.forEach(t -> present.add(Json.string(t, "kind") + "/" + Json.string(t, "metadata", "namespace") + "/"
                    + Json.string(t, "metadata", "name")));
            Set<String> expectedDeletes = new HashSet<>();
            for (JsonObject h : host) {
                Map<String, String> a = Json.annotations(h);
                String source = a.get(ReverseMapping.SOURCE_KIND) + "/" + a.get(ReverseMapping.SOURCE_NAMESPACE) + "/"
                        + a.get(ReverseMapping.SOURCE_NAME);
                if (oursByDesign(h) && (!nowSynced.contains(Json.string(h, "kind")) || !present.contains(source))) {
                    expectedDeletes.add(Json.string(h, "kind") + " " + Json.string(h, "metadata", "name"));
                }
                foreign += oursByDesign(h) ? 0 : 1;
            }
            Plan plan = planner.plan(new Snapshot(TENANT, HOST_NS, policy(nowSynced.toArray(String[]::new)), OPTIONS, tenantNow, host));
            Set<String> actualDeletes = new HashSet<>();
            for (Decision d : plan.decisions()) {
                if (d.action() == Action.DELETE) {
                    actualDeletes.add(d.kind() + " " + d.host().name());
                    if (!oursByDesign(d.observed())) {
                        fail("deletes an object not managed by tenant dev: " + d.observed());
                    }
                }
                if (d.action() == Action.UPDATE && !oursByDesign(d.observed())) {
                    fail("updates an object not managed by tenant dev: " + d.observed());
                }
            }
            assertEquals(expectedDeletes, actualDeletes, "iteration " + iteration + "\n" + PlannerTest.describe(plan));
            deletes += actualDeletes.size();
        }
        assertTrue(deletes > 500, "the corpus must exercise deletes, got " + deletes);
        assertTrue(foreign > 2000, "the corpus must exercise foreign objects, got " + foreign);
    }

    @Test
    void applyingAPlanConvergesSoTheNextPlanWritesNothing() {
        Random r = new Random(77L);
        HostSimulator sim = new HostSimulator();
        List<String> kinds = List.of("ConfigMap", "Secret", "Service", "Pod");
        SyncPolicy policy = policy(kinds.toArray(String[]::new));
        int writes = 0;
        for (int iteration = 0; iteration < 200; iteration++) {
            List<JsonObject> tenant = randomTenant(r, kinds, 20);
            List<JsonObject> host = new ArrayList<>();
            for (int step = 0; step < 4; step++) {
                Plan plan = planner.plan(new Snapshot(TENANT, HOST_NS, policy, OPTIONS, tenant, host));
                writes += plan.writes().size();
                host = sim.apply(plan, host);
                Plan next = planner.plan(new Snapshot(TENANT, HOST_NS, policy, OPTIONS, tenant, host));
                if (!next.writes().isEmpty()) {
                    fail("not converged after applying, iteration " + iteration + " step " + step + ":\n" + PlannerTest.describe(next));
                }
                assertTrue(next.decisions().stream().allMatch(d -> d.action() == Action.UNCHANGED), PlannerTest.describe(next));
                if (!host.isEmpty()) {
                    int vi = r.nextInt(host.size());
                    JsonObject victim = host.get(vi);
                    String kind = Json.string(victim, "kind");
                    String name = Json.string(victim, "metadata", "name");
                    Decision before = next.decisions().stream().filter(d -> d.kind().equals(kind) && d.host().name().equals(name))
                            .findFirst().orElseThrow();
                    String desiredApp = Json.labels(before.desired()).get("app");
                    Json.child(victim, "metadata", "labels").addProperty("app", "edited-on-host");
                    Decision after = planner.planObject(new Snapshot(TENANT, HOST_NS, policy, OPTIONS, tenant, host), kind, name)
                            .orElseThrow();
                    if (desiredApp == null) {
                        assertEquals(Reasons.IN_SYNC, after.reason(), "an extra host label is tolerated");
                    } else {
                        assertEquals(Reasons.DRIFT_CORRECTED, after.reason());
                        assertTrue(after.message().contains("metadata.labels.app: host had 'edited-on-host', tenant has '"
                                + desiredApp + "'"), after.message());
                    }
                }
                tenant = mutate(r, tenant, kinds);
            }
        }
        assertTrue(writes > 1000, "the corpus must exercise writes, got " + writes);
    }

    private static List<JsonObject> mutate(Random r, List<JsonObject> tenant, List<String> kinds) {
        List<JsonObject> out = new ArrayList<>();
        for (JsonObject o : tenant) {
            int m = r.nextInt(5);
            if (m == 0) {
                continue;
            }
            JsonObject copy = o.deepCopy();
            if (m == 1) {
                Json.child(copy, "metadata", "labels").addProperty("version", "v" + r.nextInt(4));
            } else if (m == 2 && copy.has("data")) {
                Json.child(copy, "data").addProperty("k", "changed-" + r.nextInt(4));
            } else if (m == 3) {
                Json.child(copy, "metadata", "labels").remove("app");
            }
            out.add(copy);
        }
        out.addAll(randomTenant(r, kinds, 4).stream().filter(n -> out.stream().noneMatch(o ->
                Json.string(o, "kind").equals(Json.string(n, "kind"))
                        && Json.string(o, "metadata", "namespace").equals(Json.string(n, "metadata", "namespace"))
                        && Json.string(o, "metadata", "name").equals(Json.string(n, "metadata", "name")))).toList());
        return out;
    }
}
