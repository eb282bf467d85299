package io.tenantplane.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.model.LabelSelector;
import io.tenantplane.plan.PlannerPropertyTestAccess;
import io.tenantplane.transform.PodSecurityLevel;
import io.tenantplane.transform.TransformOptions;
import io.tenantplane.transform.TransformResult;
import io.tenantplane.transform.Transformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The pod selectors the host's scheduler evaluates (inter-pod affinity and anti-affinity terms, topology spread
 * constraints), over random worlds: tenants sharing one host namespace with the platform's own pods, pods with random
 * labels (some forging {@code tenantplane.io/} labels of another tenant), and random terms naming random namespaces,
 * namespace selectors and forged requirements. Every host term a tenant's synced Pod carries selects only that tenant's
 * host pods, and names no host namespace; and the terms are not vacuous: they still select the tenant's own pods of the
 * namespaces they mean.
 */
class PodSelectorPropertyTest {
    private static final int SEEDS = 80;
    private static final String HOST_NS = "team-a";
    private static final List<String> TENANTS = List.of("dev", "qa", "prod");
    private static final List<String> NAMESPACES = List.of("default", "shop", "kube-system");
    private static final List<String> APPS = List.of("web", "db", "cache");

    @Test
    void noHostPodSelectorOfATenantSelectsAnotherTenantsOrThePlatformsPods() {
        long checked = 0;
        long ownMatches = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            Map<String, List<JsonObject>> hostPods = new LinkedHashMap<>();
            List<JsonObject> platform = List.of(pod("ingress", "kube-system", Map.of("app", "web")),
                    pod("metrics", HOST_NS, Map.of("app", "db")));
            for (String tenant : TENANTS) {
                List<JsonObject> mine = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    JsonObject p = randomPod(random, tenant, "p" + i);
                    TransformResult r = transformer(tenant).transform(p);
                    assertTrue(r instanceof TransformResult.Transformed, () -> "synced: " + r);
                    mine.add(((TransformResult.Transformed) r).host());
                }
                hostPods.put(tenant, mine);
            }
            for (String tenant : TENANTS) {
                for (JsonObject host : hostPods.get(tenant)) {
                    for (JsonObject term : terms(host)) {
                        assertEquals(null, term.get("namespaces"), "a host term names no namespace: " + term);
                        assertEquals(null, term.get("namespaceSelector"), "nor selects namespaces: " + term);
                        LabelSelector selector = selector(Json.object(term, "labelSelector"));
                        if (selector == null) {
                            continue;
                        }
                        for (Map.Entry<String, List<JsonObject>> other : hostPods.entrySet()) {
                            for (JsonObject target : other.getValue()) {
                                boolean matches = selector.matches(Json.labels(target));
                                checked++;
                                if (!other.getKey().equals(tenant)) {
                                    String s = "seed " + seed;
                                    assertTrue(!matches, () -> s + ": tenant " + tenant + "'s term " + term
                                            + " selects tenant " + other.getKey() + "'s pod " + target.get("metadata"));
                                } else if (matches) {
                                    ownMatches++;
                                }
                            }
                        }
                        for (JsonObject p : platform) {
                            assertTrue(!selector.matches(Json.labels(p)), "the platform's pods are never selected");
                        }
                    }
                }
            }
        }
        assertTrue(checked > 5_000, "checked " + checked);
        assertTrue(ownMatches > 100, "the terms still select the tenant's own pods: " + ownMatches);
    }

    /**
     * Over random worlds of host nodes (each dedicated tenant's own, tainted and labelled
     * {@code tenantplane.io/dedicated=<tenant>}; shared nodes, some with taints of the tenants' own; a control-plane
     * node tainted as kubeadm and k3s do) and random tenant Pods that try to reach them (tolerating every taint,
     * tolerating and selecting another tenant's reserved taint and label, tolerating ordinary taints): no synced Pod
     * can be scheduled onto a node the platform keeps from its tenant, judged as the host scheduler's
     * TaintToleration and NodeAffinity filters judge it; and each dedicated tenant's Pods still fit its own nodes.
     */
    @Test
    void noSyncedPodFitsANodeThePlatformKeepsFromItsTenant() {
        List<String> dedicated = List.of("dev", "qa");
        long judged = 0;
        long ownFits = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            List<JsonObject> nodes = new ArrayList<>();
            for (String t : dedicated) {
                nodes.add(node("own-" + t, Map.of("tenantplane.io/dedicated", t),
                        List.of(taint("tenantplane.io/dedicated", t, "NoSchedule"))));
            }
            nodes.add(node("control-plane", Map.of("node-role.kubernetes.io/control-plane", "true"),
                    List.of(taint("node-role.kubernetes.io/control-plane", null, "NoSchedule"))));
            nodes.add(node("gpu", Map.of("gpu", "true"), List.of(taint("gpu", "true", "NoSchedule"))));
            nodes.add(node("shared", Map.of(), List.of()));
            for (String tenant : TENANTS) {
                boolean isDedicated = dedicated.contains(tenant);
                TransformOptions options = TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED);
                if (isDedicated) {
                    options = options.withPlacement(Map.of("tenantplane.io/dedicated", tenant),
                            List.of(Json.gson().fromJson("{\"key\":\"tenantplane.io/dedicated\",\"operator\":"
                                    + "\"Equal\",\"value\":\"" + tenant + "\",\"effect\":\"NoSchedule\"}",
                                    JsonObject.class)));
                }
                Transformer transformer = new Transformer(tenant, HOST_NS, PlannerPropertyTestAccess.policy("Pod"),
                        options);
                for (int i = 0; i < 6; i++) {
                    JsonObject pod = placementPod(random, "p" + i);
                    TransformResult r = transformer.transform(pod);
                    assertTrue(r instanceof TransformResult.Transformed, () -> "synced: " + r);
                    JsonObject host = ((TransformResult.Transformed) r).host();
                    for (JsonObject node : nodes) {
                        String name = Json.string(node, "metadata", "name");
                        boolean fits = fits(host, node);
                        judged++;
                        boolean kept = name.equals("control-plane")
                                || name.startsWith("own-") && !name.equals("own-" + tenant);
                        String s = "seed " + seed;
                        assertTrue(!(kept && fits), () -> s + ": tenant " + tenant + "'s pod " + pod.get("spec")
                                + " synced as " + host.get("spec") + " fits node " + name);
                        if (isDedicated && fits) {
                            assertEquals("own-" + tenant, name, "a dedicated tenant's pod fits its own nodes only");
                        }
                        if (isDedicated && name.equals("own-" + tenant) && fits) {
                            ownFits++;
                        }
                    }
                }
            }
        }
        assertTrue(judged > 1_000, "judged " + judged);
        assertTrue(ownFits > 100, "dedicated tenants' pods still fit their own nodes: " + ownFits);
    }

    private static JsonObject placementPod(Random r, String name) {
        JsonObject pod = pod(name, "default", Map.of("app", "web"));
        JsonObject spec = pod.getAsJsonObject("spec");
        JsonArray tolerations = new JsonArray();
        JsonObject selector = new JsonObject();
        String other = TENANTS.get(r.nextInt(TENANTS.size()));
        switch (r.nextInt(5)) {
            case 0 -> tolerations.add(toleration(null, "Exists", null, null));
            case 1 -> {
                tolerations.add(toleration("tenantplane.io/dedicated", "Equal", other, "NoSchedule"));
                selector.addProperty("tenantplane.io/dedicated", other);
            }
            case 2 -> tolerations.add(toleration("tenantplane.io/dedicated", "Exists", null, null));
            case 3 -> tolerations.add(toleration("node-role.kubernetes.io/control-plane", "Exists", null,
                    "NoSchedule"));
            default -> {
                tolerations.add(toleration("gpu", "Equal", "true", "NoSchedule"));
                selector.addProperty("gpu", "true");
            }
        }
        if (r.nextBoolean()) {
            tolerations.add(toleration(null, "Exists", null, "NoSchedule"));
        }
        spec.add("tolerations", tolerations);
        if (!selector.isEmpty()) {
            spec.add("nodeSelector", selector);
        }
        return pod;
    }

    /**
     * Whether the host scheduler's filters admit {@code pod} onto {@code node}: every NoSchedule and NoExecute taint
     * tolerated ({@code TaintToleration}, {@code v1helper.TolerationsTolerateTaint}: an empty key with {@code Exists}
     * matches every taint, an empty effect every effect) and the {@code nodeSelector} matched ({@code NodeAffinity}).
     */
    private static boolean fits(JsonObject pod, JsonObject node) {
        JsonArray taints = Json.array(Json.object(node, "spec"), "taints");
        JsonArray tolerations = Json.array(Json.object(pod, "spec"), "tolerations");
        for (JsonElement te : taints == null ? new JsonArray() : taints) {
            JsonObject taint = te.getAsJsonObject();
            String effect = Json.string(taint, "effect");
            if (!"NoSchedule".equals(effect) && !"NoExecute".equals(effect)) {
                continue;
            }
            boolean tolerated = false;
            for (JsonElement oe : tolerations == null ? new JsonArray() : tolerations) {
                JsonObject t = oe.getAsJsonObject();
                String key = Json.string(t, "key");
                String op = Json.string(t, "operator") == null ? "Equal" : Json.string(t, "operator");
                String e = Json.string(t, "effect");
                boolean effectOk = e == null || e.isEmpty() || e.equals(effect);
                boolean keyOk = key == null || key.isEmpty() ? op.equals("Exists") : key.equals(Json.string(taint, "key"));
                boolean valueOk = op.equals("Exists") || java.util.Objects.equals(
                        Json.string(t, "value") == null ? "" : Json.string(t, "value"),
                        Json.string(taint, "value") == null ? "" : Json.string(taint, "value"));
                tolerated |= effectOk && keyOk && valueOk;
            }
            if (!tolerated) {
                return false;
            }
        }
        JsonObject selector = Json.object(pod, "spec", "nodeSelector");
        Map<String, String> labels = Json.labels(node);
        return selector == null || selector.entrySet().stream()
                .allMatch(e -> e.getValue().getAsString().equals(labels.get(e.getKey())));
    }

    private static JsonObject node(String name, Map<String, String> labels, List<JsonObject> taints) {
        JsonObject node = Json.gson().toJsonTree(Map.of("metadata", Map.of("name", name, "labels", labels)))
                .getAsJsonObject();
        JsonArray t = new JsonArray();
        taints.forEach(t::add);
        JsonObject spec = new JsonObject();
        spec.add("taints", t);
        node.add("spec", spec);
        return node;
    }

    private static JsonObject taint(String key, String value, String effect) {
        JsonObject t = new JsonObject();
        t.addProperty("key", key);
        if (value != null) {
            t.addProperty("value", value);
        }
        t.addProperty("effect", effect);
        return t;
    }

    private static JsonObject toleration(String key, String operator, String value, String effect) {
        JsonObject t = new JsonObject();
        if (key != null) {
            t.addProperty("key", key);
        }
        t.addProperty("operator", operator);
        if (value != null) {
            t.addProperty("value", value);
        }
        if (effect != null) {
            t.addProperty("effect", effect);
        }
        return t;
    }

    private static Transformer transformer(String tenant) {
        return new Transformer(tenant, HOST_NS, PlannerPropertyTestAccess.policy("Pod"),
                TransformOptions.defaults().withPodSecurity(PodSecurityLevel.PRIVILEGED));
    }

    private static JsonObject randomPod(Random r, String tenant, String name) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("app", APPS.get(r.nextInt(APPS.size())));
        if (r.nextInt(4) == 0) {
            // A forged claim to be another tenant's pod, or to live in another namespace.
            labels.put("tenantplane.io/tenant", TENANTS.get(r.nextInt(TENANTS.size())));
            labels.put("tenantplane.io/virtual-namespace", NAMESPACES.get(r.nextInt(NAMESPACES.size())));
        }
        JsonObject pod = pod(name, NAMESPACES.get(r.nextInt(2)), labels);
        JsonObject spec = pod.getAsJsonObject("spec");
        JsonObject affinity = new JsonObject();
        for (String kind : List.of("podAffinity", "podAntiAffinity")) {
            JsonObject a = new JsonObject();
            JsonArray required = new JsonArray();
            JsonArray preferred = new JsonArray();
            for (int i = r.nextInt(3); i > 0; i--) {
                required.add(randomTerm(r));
                JsonObject weighted = new JsonObject();
                weighted.addProperty("weight", 1 + r.nextInt(100));
                weighted.add("podAffinityTerm", randomTerm(r));
                preferred.add(weighted);
            }
            a.add("requiredDuringSchedulingIgnoredDuringExecution", required);
            a.add("preferredDuringSchedulingIgnoredDuringExecution", preferred);
            affinity.add(kind, a);
        }
        spec.add("affinity", affinity);
        JsonArray spread = new JsonArray();
        JsonObject constraint = new JsonObject();
        constraint.addProperty("maxSkew", 1);
        constraint.addProperty("topologyKey", "kubernetes.io/hostname");
        constraint.addProperty("whenUnsatisfiable", "ScheduleAnyway");
        constraint.add("labelSelector", randomSelector(r));
        spread.add(constraint);
        spec.add("topologySpreadConstraints", spread);
        return pod;
    }

    private static JsonObject randomTerm(Random r) {
        JsonObject term = new JsonObject();
        term.addProperty("topologyKey", "kubernetes.io/hostname");
        if (r.nextInt(6) > 0) {
            term.add("labelSelector", randomSelector(r));
        }
        switch (r.nextInt(4)) {
            case 0 -> {
                JsonArray ns = new JsonArray();
                ns.add(NAMESPACES.get(r.nextInt(NAMESPACES.size())));
                ns.add(HOST_NS);
                term.add("namespaces", ns);
            }
            case 1 -> term.add("namespaceSelector", new JsonObject());
            case 2 -> term.add("namespaceSelector", Json.gson().fromJson("{\"matchLabels\":{\"team\":\"a\"}}",
                    JsonObject.class));
            default -> {
            }
        }
        return term;
    }

    private static JsonObject randomSelector(Random r) {
        JsonObject selector = new JsonObject();
        JsonObject matchLabels = new JsonObject();
        if (r.nextBoolean()) {
            matchLabels.addProperty("app", APPS.get(r.nextInt(APPS.size())));
        }
        if (r.nextInt(3) == 0) {
            matchLabels.addProperty("tenantplane.io/tenant", TENANTS.get(r.nextInt(TENANTS.size())));
        }
        selector.add("matchLabels", matchLabels);
        JsonArray expressions = new JsonArray();
        if (r.nextInt(3) == 0) {
            expressions.add(Json.gson().fromJson("{\"key\":\"tenantplane.io/tenant\",\"operator\":\"In\",\"values\":"
                    + "[\"" + TENANTS.get(r.nextInt(TENANTS.size())) + "\"]}", JsonObject.class));
        }
        if (r.nextInt(3) == 0) {
            expressions.add(Json.gson().fromJson("{\"key\":\"app\",\"operator\":\"Exists\"}", JsonObject.class));
        }
        selector.add("matchExpressions", expressions);
        return selector;
    }

    /** Every pod affinity term and topology spread constraint of a host pod (as terms with a labelSelector). */
    private static List<JsonObject> terms(JsonObject host) {
        List<JsonObject> out = new ArrayList<>();
        JsonObject spec = host.getAsJsonObject("spec");
        for (String kind : List.of("podAffinity", "podAntiAffinity")) {
            JsonObject a = Json.object(spec, "affinity", kind);
            JsonArray required = Json.array(a, "requiredDuringSchedulingIgnoredDuringExecution");
            for (JsonElement e : required == null ? new JsonArray() : required) {
                out.add(e.getAsJsonObject());
            }
            JsonArray preferred = Json.array(a, "preferredDuringSchedulingIgnoredDuringExecution");
            for (JsonElement e : preferred == null ? new JsonArray() : preferred) {
                out.add(Json.object(e.getAsJsonObject(), "podAffinityTerm"));
            }
        }
        JsonArray spread = Json.array(spec, "topologySpreadConstraints");
        for (JsonElement e : spread == null ? new JsonArray() : spread) {
            out.add(e.getAsJsonObject());
        }
        return out;
    }

    private static LabelSelector selector(JsonObject json) {
        if (json == null) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        JsonObject ml = Json.object(json, "matchLabels");
        if (ml != null) {
            ml.entrySet().forEach(e -> labels.put(e.getKey(), e.getValue().getAsString()));
        }
        List<LabelSelector.Requirement> reqs = new ArrayList<>();
        JsonArray exprs = Json.array(json, "matchExpressions");
        for (JsonElement e : exprs == null ? new JsonArray() : exprs) {
            JsonObject x = e.getAsJsonObject();
            List<String> values = new ArrayList<>();
            JsonArray vs = Json.array(x, "values");
            if (vs != null) {
                vs.forEach(v -> values.add(v.getAsString()));
            }
            reqs.add(new LabelSelector.Requirement(Json.string(x, "key"), Json.string(x, "operator"), values));
        }
        return new LabelSelector(labels, reqs);
    }

    private static JsonObject pod(String name, String namespace, Map<String, String> labels) {
        JsonObject labelsJson = new JsonObject();
        labels.forEach(labelsJson::addProperty);
        return Json.gson().fromJson("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"" + namespace + "\",\"labels\":" + labelsJson + "},\"spec\":{\"containers\":"
                + "[{\"name\":\"c\",\"image\":\"nginx\"}]}}", JsonObject.class);
    }
}
