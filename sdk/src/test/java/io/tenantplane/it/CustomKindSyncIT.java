package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.PlanRequest;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.explain.Explanation;
import io.tenantplane.json.Json;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.HostMirrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Any kind crosses to the host as the SyncPolicy declares it: a team's own custom resource ({@code Backup} of
 * {@code example.com}) with references to a Secret and a ConfigMap and a pod selector goes through create, drift
 * correction, a conflict with a foreign object and garbage collection, with the declared fields rewritten and the
 * policy's patches applied; a kind the installation does not allow, or the host does not serve, is an explained Skip
 * that writes nothing; and the host's StorageClasses and PriorityClasses are mirrored into the tenant, where a tenant
 * Pod using a mirrored class runs on the host and one using the tenant's own class is an explained Skip. Each live
 * decision is what {@code explainSync} predicts from the same objects.
 */
@Tag(Live.HOOKS)
class CustomKindSyncIT {

    private static final String BACKUPS = "/apis/example.com/v1/namespaces/%s/backups";
    private static final String POD_SPEC = """
            "securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
            "containers":[{"name":"c","image":"busybox:1.36",
              "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]""";

    private Live live;
    private Kube dev;
    private TenantKey key;

    @BeforeEach
    void start() {
        live = Live.start(true);
        live.createTenant("dev", o -> {
            if ("SyncPolicy".equals(Json.string(o, "kind"))) {
                JsonArray kinds = Json.object(o, "spec").getAsJsonArray("kinds");
                kinds.add(Kube.json("""
                        {"kind":"Backup","apiVersion":"example.com/v1","toHost":true,"fromHost":"status",
                         "references":[{"path":"spec.secretName","kind":"Secret"},
                                       {"path":"spec.targets[*].configRef.name","kind":"ConfigMap"}],
                         "labelSelectors":[{"path":"spec.selector"}],
                         "patches":[{"op":"set","path":"metadata.labels[example.com/tenant]","valueFrom":"tenant"},
                                    {"op":"set","path":"spec.storageLocation","value":"s3://platform-backups"},
                                    {"op":"remove","path":"spec.debug"}]}"""));
                Json.object(o, "spec").add("fromHost", Kube.json("""
                        {"x":[{"kind":"StorageClass","names":["standard","fast"]},
                              {"kind":"PriorityClass","selector":{"matchLabels":{"example.com/share":"true"}}}]}""")
                        .getAsJsonArray("x"));
            }
        });
        live.syncPrerequisites("dev");
        dev = live.tenant("dev");
        dev.createCrd(backupCrd("Namespaced"));
        key = live.key("dev");
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds","namespace":"default"},
                 "stringData":{"key":"s3cr3t"}}"""));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default"},
                 "data":{"retention":"7d"}}"""));
    }

    @AfterEach
    void stop() {
        live.close();
    }

    static JsonObject backupCrd(String scope) {
        return Kube.json("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"backups.example.com"},
                 "spec":{"group":"example.com","scope":"%s",
                   "names":{"kind":"Backup","plural":"backups","singular":"backup","listKind":"BackupList"},
                   "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
                     "schema":{"openAPIV3Schema":{"type":"object","properties":{
                       "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
                       "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}"""
                .formatted(scope));
    }

    private JsonObject backup(String name) {
        return Kube.json("""
                {"apiVersion":"example.com/v1","kind":"Backup","metadata":{"name":"%s","namespace":"default",
                   "labels":{"app":"db"}},
                 "spec":{"schedule":"0 3 * * *","secretName":"creds","debug":true,
                   "targets":[{"configRef":{"name":"cfg"}},{"configRef":{"name":"cfg"}}],
                   "selector":{"matchLabels":{"app":"db"}}}}""".formatted(name));
    }

    private static JsonObject created(Kube kube, String path, JsonObject o) {
        Kube.Reply r = kube.call("POST", path, Map.of(), o);
        assertTrue(r.code() == 201 || r.code() == 200, () -> r.code() + " " + r.body());
        return r.body();
    }

    private TenantPlane plane(boolean allowBackups) {
        return live.plane(b -> b.allowedKinds(allowBackups ? List.of("Backup.example.com") : List.of()));
    }

    private static Decision decision(ConvergenceReport r, String kind, String name) {
        return r.decisions().stream().filter(d -> d.kind().equals(kind) && d.source() != null
                && name.equals(d.source().name())).findFirst()
                .orElseThrow(() -> new AssertionError(kind + " " + name + " not in " + r.decisions()));
    }

    private JsonObject hostBackup(String hostName) {
        Kube.Reply r = live.hostKube.call("GET", BACKUPS.formatted(live.namespace) + "/" + hostName, Map.of(), null);
        return r.code() == 404 ? null : r.body();
    }

    /** What {@code explainSync} says, from the objects a pass reads: the tenant's, the host's and the host CRD. */
    private Explanation explain(TenantPlane plane, String kind, String name) {
        TenantContext ctx = plane.context(key).orElseThrow();
        List<JsonObject> tenantObjects = new ArrayList<>();
        for (String kindName : List.of("Secret", "ConfigMap", "Pod")) {
            tenantObjects.addAll(dev.list(kindName, null, null));
        }
        dev.call("GET", "/apis/example.com/v1/backups", Map.of(), null).body().getAsJsonArray("items")
                .forEach(e -> tenantObjects.add(withType(e.getAsJsonObject(), "example.com/v1", "Backup")));
        List<JsonObject> hostObjects = new ArrayList<>();
        Kube.Reply hostList = live.hostKube.call("GET", BACKUPS.formatted(live.namespace), Map.of(), null);
        if (hostList.code() == 200) {
            hostList.body().getAsJsonArray("items")
                    .forEach(e -> hostObjects.add(withType(e.getAsJsonObject(), "example.com/v1", "Backup")));
        }
        Kube.Reply crd = live.hostKube.call("GET",
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/backups.example.com", Map.of(), null);
        if (crd.code() == 200) {
            hostObjects.add(crd.body());
        }
        // Services among them: the tenant API and DNS Services say where tenant pods reach their API and DNS.
        for (String k : List.of("Secret", "ConfigMap", "Pod", "Service")) {
            hostObjects.addAll(live.hostKube.list(k, live.namespace, null));
        }
        hostObjects.addAll(live.hostKube.list("PriorityClass", null, null));
        PlanRequest request = new PlanRequest(ctx.cluster(), ctx.profile(), ctx.policy(), tenantObjects, hostObjects);
        return plane.explainSync(request, "default", kind, name);
    }

    private static JsonObject withType(JsonObject o, String apiVersion, String kind) {
        o.addProperty("apiVersion", apiVersion);
        o.addProperty("kind", kind);
        return o;
    }

    private static void assertExplained(Decision live, Explanation explained) {
        Decision e = explained.decision();
        assertEquals(List.of(live.action(), live.reason(), live.message()), List.of(e.action(), e.reason(),
                e.message()), "explain-sync says what the live pass did");
    }

    @Test
    void aCustomResourceCrossesWithItsReferencesSelectorAndPatchesAndIsCorrectedAndCollected() {
        live.hostKube.createCrd(backupCrd("Namespaced"));
        TenantPlane plane = plane(true);
        created(dev, BACKUPS.formatted("default"), backup("nightly"));

        ConvergenceReport first = plane.converge(key);
        Decision create = decision(first, "Backup", "nightly");
        assertEquals(Action.CREATE, create.action(), first.decisions()::toString);
        assertTrue(create.message().contains("rewrites the declared spec.secretName, spec.targets[*].configRef.name, "
                + "spec.selector; every other field is copied unchanged"), create.message());
        assertTrue(create.message().contains("patched by the SyncPolicy: set metadata.labels[example.com/tenant], "
                + "set spec.storageLocation, removed spec.debug"), create.message());
        JsonObject host = hostBackup("nightly-x-default-x-dev");
        assertNotNull(host);
        JsonObject spec = host.getAsJsonObject("spec");
        assertEquals("creds-x-default-x-dev", Json.string(spec, "secretName"));
        for (var t : spec.getAsJsonArray("targets")) {
            assertEquals("cfg-x-default-x-dev", Json.string(t.getAsJsonObject(), "configRef", "name"));
        }
        assertEquals(Map.of("app", "db", "tenantplane.io/tenant", "dev", "tenantplane.io/virtual-namespace", "default"),
                Json.gson().fromJson(Json.object(spec, "selector", "matchLabels"), Map.class));
        assertEquals("0 3 * * *", Json.string(spec, "schedule"), "an undeclared field is copied unchanged");
        assertEquals("s3://platform-backups", Json.string(spec, "storageLocation"));
        assertFalse(spec.has("debug"));
        assertEquals("dev", Json.labels(host).get("example.com/tenant"));
        // The referenced objects went too, so the copy works on the host.
        assertTrue(live.hostKube.get("Secret", live.namespace, "creds-x-default-x-dev").isPresent());

        ConvergenceReport steady = plane.converge(key);
        assertEquals(Action.UNCHANGED, decision(steady, "Backup", "nightly").action());
        assertExplained(decision(steady, "Backup", "nightly"), explain(plane, "Backup", "nightly"));

        // Status flows back, as the policy says (fromHost: status).
        host.add("status", Kube.json("{\"lastBackup\":\"2026-12-04T03:00:00Z\"}"));
        Kube.Reply st = live.hostKube.call("PUT", BACKUPS.formatted(live.namespace) + "/nightly-x-default-x-dev/status",
                Map.of(), host);
        assertEquals(200, st.code(), () -> String.valueOf(st.body()));
        plane.converge(key);
        JsonObject tenantBackup = dev.call("GET", BACKUPS.formatted("default") + "/nightly", Map.of(), null).body();
        assertEquals("2026-12-04T03:00:00Z", Json.string(tenantBackup, "status", "lastBackup"));

        // Drift on the host is undone.
        JsonObject edited = hostBackup("nightly-x-default-x-dev");
        Json.object(edited, "spec").addProperty("schedule", "* * * * *");
        assertEquals(200, live.hostKube.call("PUT", BACKUPS.formatted(live.namespace) + "/nightly-x-default-x-dev",
                Map.of(), edited).code());
        ConvergenceReport drift = plane.converge(key);
        assertEquals("DriftCorrected", decision(drift, "Backup", "nightly").reason(), drift.decisions()::toString);
        assertEquals("0 3 * * *", Json.string(hostBackup("nightly-x-default-x-dev"), "spec", "schedule"));

        // A foreign object at a host name is a Conflict and is left alone.
        JsonObject foreign = withType(Kube.json("""
                {"metadata":{"name":"weekly-x-default-x-dev","namespace":"%s"},"spec":{"schedule":"mine"}}"""
                .formatted(live.namespace)), "example.com/v1", "Backup");
        created(live.hostKube, BACKUPS.formatted(live.namespace), foreign);
        created(dev, BACKUPS.formatted("default"), backup("weekly"));
        ConvergenceReport conflict = plane.converge(key);
        Decision c = decision(conflict, "Backup", "weekly");
        assertEquals(Action.CONFLICT, c.action());
        assertEquals("ForeignObject", c.reason());
        assertEquals("mine", Json.string(hostBackup("weekly-x-default-x-dev"), "spec", "schedule"));
        assertExplained(c, explain(plane, "Backup", "weekly"));

        // The tenant deletes its Backup: the host copy is collected, the foreign object stays.
        assertEquals(200, dev.call("DELETE", BACKUPS.formatted("default") + "/nightly", Map.of(), null).code());
        ConvergenceReport gc = plane.converge(key);
        Decision collected = gc.decisions().stream().filter(d -> d.kind().equals("Backup")
                && d.action() == Action.DELETE).findFirst().orElseThrow(() -> new AssertionError(gc.decisions()));
        assertEquals("SourceDeleted", collected.reason());
        assertNull(hostBackup("nightly-x-default-x-dev"));
        assertNotNull(hostBackup("weekly-x-default-x-dev"));
    }

    @Test
    void aReferenceToAKindThePolicyDoesNotSyncKeepsTheCustomResourceInTheTenant() {
        live.hostKube.createCrd(backupCrd("Namespaced"));
        TenantPlane plane = plane(true);
        JsonObject b = backup("orphan");
        created(dev, BACKUPS.formatted("default"), b);
        // A policy without ConfigMaps: the reference at spec.targets[*].configRef.name cannot be followed.
        String path = "/apis/tenantplane.io/v1alpha1/namespaces/" + live.namespace + "/syncpolicies/default";
        JsonObject policy = live.hostKube.call("GET", path, Map.of(), null).body();
        JsonArray kinds = new JsonArray();
        policy.getAsJsonObject("spec").getAsJsonArray("kinds").forEach(k -> {
            if (!"ConfigMap".equals(Json.string(k.getAsJsonObject(), "kind"))) {
                kinds.add(k);
            }
        });
        policy.getAsJsonObject("spec").add("kinds", kinds);
        Kube.Reply put = live.hostKube.call("PUT", path, Map.of(), policy);
        assertEquals(200, put.code(), () -> String.valueOf(put.body()));
        ConvergenceReport r = plane.converge(key);
        Decision d = decision(r, "Backup", "orphan");
        assertEquals(Action.SKIP, d.action());
        assertEquals("ReferencesUnsyncedKind", d.reason());
        assertTrue(d.message().contains("spec.targets[0].configRef.name refers to ConfigMap 'cfg'"), d.message());
        assertNull(hostBackup("orphan-x-default-x-dev"));
        assertExplained(d, explain(plane, "Backup", "orphan"));
    }

    @Test
    void aCustomKindThePolicyStopsSendingHasItsHostCopiesCollected() {
        live.hostKube.createCrd(backupCrd("Namespaced"));
        TenantPlane plane = plane(true);
        created(dev, BACKUPS.formatted("default"), backup("nightly"));
        assertEquals(Action.CREATE, decision(plane.converge(key), "Backup", "nightly").action());
        String path = "/apis/tenantplane.io/v1alpha1/namespaces/" + live.namespace + "/syncpolicies/default";
        JsonObject policy = live.hostKube.call("GET", path, Map.of(), null).body();
        policy.getAsJsonObject("spec").getAsJsonArray("kinds").forEach(k -> {
            if ("Backup".equals(Json.string(k.getAsJsonObject(), "kind"))) {
                k.getAsJsonObject().addProperty("toHost", false);
            }
        });
        assertEquals(200, live.hostKube.call("PUT", path, Map.of(), policy).code());
        ConvergenceReport r = plane.converge(key);
        Decision gone = r.decisions().stream().filter(d -> d.kind().equals("Backup") && d.action() == Action.DELETE)
                .findFirst().orElseThrow(() -> new AssertionError(r.decisions()));
        assertEquals("KindNotSynced", gone.reason());
        assertNull(hostBackup("nightly-x-default-x-dev"));
    }

    @Test
    void aKindTheInstallationDoesNotAllowIsNeitherReadNorWrittenOnTheHost() {
        live.hostKube.createCrd(backupCrd("Namespaced"));
        TenantPlane plane = plane(false);
        created(dev, BACKUPS.formatted("default"), backup("nightly"));
        live.requireHostServer().requests().reset();
        ConvergenceReport r = plane.converge(key);
        Decision d = decision(r, "Backup", "nightly");
        assertEquals(Action.SKIP, d.action());
        assertEquals("KindNotAllowed", d.reason());
        assertTrue(d.message().contains("does not allow custom kind Backup.example.com"), d.message());
        assertEquals(List.of(), live.requireHostServer().requests().entries().stream()
                .filter(e -> e.resource().equals("backups")).toList(), "no host request for the kind");
        assertNull(hostBackup("nightly-x-default-x-dev"));
        assertExplained(d, explain(plane, "Backup", "nightly"));
    }

    @Test
    void aCrdMissingOnTheHostIsASkipThatNamesIt() {
        TenantPlane plane = plane(true);
        created(dev, BACKUPS.formatted("default"), backup("nightly"));
        ConvergenceReport r = plane.converge(key);
        Decision d = decision(r, "Backup", "nightly");
        assertEquals(Action.SKIP, d.action(), r.decisions()::toString);
        assertEquals("KindNotServedOnHost", d.reason());
        assertTrue(d.message().contains("install the CustomResourceDefinition of Backup.example.com on the host"),
                d.message());
        assertExplained(d, explain(plane, "Backup", "nightly"));
        assertTrue(r.converged(), "the rest of the pass goes on: " + r);
        assertTrue(live.hostKube.get("Secret", live.namespace, "creds-x-default-x-dev").isPresent());

        // Installed cluster-scoped on the host: it still never goes there.
        live.hostKube.createCrd(backupCrd("Cluster"));
        Decision scoped = decision(plane.converge(key), "Backup", "nightly");
        assertEquals("KindNotAllowed", scoped.reason());
        assertTrue(scoped.message().contains("cluster-scoped"), scoped.message());
        assertExplained(scoped, explain(plane, "Backup", "nightly"));
    }

    @Test
    void aClusterScopedCustomKindTheInstallationAllowsIsMirroredFromTheHost() {
        JsonObject crd = Kube.json("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"clusterissuers.cert-manager.io"},
                 "spec":{"group":"cert-manager.io","scope":"Cluster",
                   "names":{"kind":"ClusterIssuer","plural":"clusterissuers","singular":"clusterissuer",
                     "listKind":"ClusterIssuerList"},
                   "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
                     "type":"object","properties":{"spec":{"type":"object",
                       "x-kubernetes-preserve-unknown-fields":true}}}}}]}}""");
        live.hostKube.createCrd(crd);
        dev.createCrd(crd);
        String issuers = "/apis/cert-manager.io/v1/clusterissuers";
        for (String name : List.of("letsencrypt", "internal")) {
            created(live.hostKube, issuers, withType(Kube.json("{\"metadata\":{\"name\":\"" + name
                    + "\"},\"spec\":{\"acme\":{\"server\":\"https://acme.example\"}}}"), "cert-manager.io/v1",
                    "ClusterIssuer"));
        }
        String path = "/apis/tenantplane.io/v1alpha1/namespaces/" + live.namespace + "/syncpolicies/default";
        JsonObject policy = live.hostKube.call("GET", path, Map.of(), null).body();
        policy.getAsJsonObject("spec").getAsJsonArray("fromHost").add(Kube.json("""
                {"kind":"ClusterIssuer","apiVersion":"cert-manager.io/v1","names":["letsencrypt"]}"""));
        assertEquals(200, live.hostKube.call("PUT", path, Map.of(), policy).code());

        // Not in the allow-list: nothing is mirrored.
        live.plane(b -> { }).converge(key);
        assertEquals(404, dev.call("GET", issuers + "/letsencrypt", Map.of(), null).code());

        TenantPlane plane = live.plane(b -> b.allowedKinds(List.of("ClusterIssuer.cert-manager.io")));
        ConvergenceReport r = plane.converge(key);
        assertEquals("MirroredFromHost", decision(r, "ClusterIssuer", "letsencrypt").reason(), r.decisions()::toString);
        JsonObject mirror = dev.call("GET", issuers + "/letsencrypt", Map.of(), null).body();
        assertTrue(HostMirrors.isMirror(mirror), mirror::toString);
        assertEquals("https://acme.example", Json.string(mirror, "spec", "acme", "server"));
        assertEquals(404, dev.call("GET", issuers + "/internal", Map.of(), null).code(), "not selected");
    }

    @Test
    void hostClassesAreMirroredIntoTheTenantAndTenantPodsUseThem() {
        TenantPlane plane = plane(true);
        live.hostKube.create(Kube.json("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"standard",
                   "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
                 "provisioner":"rancher.io/local-path","volumeBindingMode":"WaitForFirstConsumer"}"""));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"other"},
                 "provisioner":"example.com/other"}"""));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"batch",
                   "labels":{"example.com/share":"true"}},"value":1000,"description":"batch jobs"}"""));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"platform"},
                 "value":900000}"""));
        // The tenant's own StorageClass under a name the host also has: never overwritten.
        dev.create(Kube.json("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},
                 "provisioner":"tenant.example.com/own"}"""));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},
                 "provisioner":"example.com/fast"}"""));

        ConvergenceReport r = plane.converge(key);
        JsonObject standard = dev.require("StorageClass", null, "standard");
        assertTrue(HostMirrors.isMirror(standard), standard::toString);
        assertEquals("rancher.io/local-path", Json.string(standard, "provisioner"));
        assertEquals("true", Json.annotations(standard).get("storageclass.kubernetes.io/is-default-class"));
        assertTrue(dev.get("StorageClass", null, "other").isEmpty(), "not selected");
        assertEquals(1000, dev.require("PriorityClass", null, "batch").get("value").getAsInt());
        assertTrue(dev.get("PriorityClass", null, "platform").isEmpty(), "not selected");
        Decision fast = decision(r, "StorageClass", "fast");
        assertEquals(Action.CONFLICT, fast.action());
        assertEquals("ForeignObject", fast.reason());
        assertEquals("tenant.example.com/own", Json.string(dev.require("StorageClass", null, "fast"), "provisioner"));

        // A tenant Pod using the mirrored class is admitted in the tenant and on the host, with the host's value.
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"job","namespace":"default"},
                 "spec":{"priorityClassName":"batch",%s}}""".formatted(POD_SPEC)));
        // One using the tenant's own class would be refused by the host: it stays in the tenant, explained.
        dev.create(Kube.json("""
                {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"mine"},"value":5}"""));
        dev.create(Kube.json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"own","namespace":"default"},
                 "spec":{"priorityClassName":"mine",%s}}""".formatted(POD_SPEC)));
        // A watch event on the Pod drives a pass over it alone: it judges the class as a full pass does, also on a
        // plane that has made no full pass yet.
        TenantPlane fresh = plane(true);
        ConvergenceReport one = fresh.converge(fresh.context(key).orElseThrow(),
                new io.tenantplane.naming.TenantObjectRef("dev", "Pod", "default", "job", null));
        assertEquals(Action.CREATE, decision(one, "Pod", "job").action(), one.decisions()::toString);
        ConvergenceReport pods = plane.converge(key);
        assertEquals(Action.UNCHANGED, decision(pods, "Pod", "job").action(), pods.decisions()::toString);
        JsonObject hostJob = live.hostKube.require("Pod", live.namespace, "job-x-default-x-dev");
        assertEquals(1000, Json.object(hostJob, "spec").get("priority").getAsInt());
        Decision own = decision(pods, "Pod", "own");
        assertEquals(Action.SKIP, own.action());
        assertEquals("ClassNotMirrored", own.reason());
        assertTrue(own.message().contains("spec.priorityClassName names PriorityClass 'mine'"), own.message());
        assertTrue(live.hostKube.get("Pod", live.namespace, "own-x-default-x-dev").isEmpty());
        assertExplained(own, explain(plane, "Pod", "own"));
        assertExplained(decision(plane.converge(key), "Pod", "job"), explain(plane, "Pod", "job"));

        // An edit in the tenant is undone; a class that leaves the selection leaves the tenant.
        JsonObject edited = dev.require("StorageClass", null, "standard");
        Json.child(edited, "metadata", "labels").addProperty("tampered", "yes");
        dev.update(edited);
        JsonObject batch = live.hostKube.require("PriorityClass", null, "batch");
        Json.child(batch, "metadata", "labels").remove("example.com/share");
        live.hostKube.update(batch);
        ConvergenceReport again = plane.converge(key);
        assertEquals("MirroredFromHost", decision(again, "StorageClass", "standard").reason(),
                again.decisions()::toString);
        assertNull(Json.labels(dev.require("StorageClass", null, "standard")).get("tampered"));
        assertEquals("MirrorNotSelected", decision(again, "PriorityClass", "batch").reason());
        assertTrue(dev.get("PriorityClass", null, "batch").isEmpty());
    }

    @Test
    void aMirroredKindTheTenantCannotListSitsThePassOutAndTheRestConverges() {
        TenantPlane plane = plane(true);
        live.hostKube.create(Kube.json("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"standard"},
                 "provisioner":"rancher.io/local-path"}"""));
        live.hostKube.create(Kube.json("""
                {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"batch",
                   "labels":{"example.com/share":"true"}},"value":1000}"""));
        live.tenantServer("dev").faults().add(io.tenantplane.testkit.FaultRule.on("list", "priorityclasses")
                .respond(403));

        ConvergenceReport r = plane.converge(key);
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertTrue(HostMirrors.isMirror(dev.require("StorageClass", null, "standard")), "the other kind is mirrored");
        assertTrue(r.decisions().stream().noneMatch(d -> d.kind().equals("PriorityClass")), r.decisions()::toString);
        assertTrue(dev.get("PriorityClass", null, "batch").isEmpty());

        live.tenantServer("dev").faults().clear();
        ConvergenceReport next = plane.converge(key);
        assertEquals("MirroredFromHost", decision(next, "PriorityClass", "batch").reason(), next.decisions()::toString);
        assertEquals(1000, dev.require("PriorityClass", null, "batch").get("value").getAsInt());
    }
}
