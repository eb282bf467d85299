package io.tenantplane.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantConnector;
import io.tenantplane.TenantContext;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.events.EventObserver;
import io.tenantplane.json.Json;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import io.tenantplane.sync.ShardLeases;
import io.tenantplane.testkit.FaultRule;
import io.tenantplane.testkit.KubeApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Least privilege, derived from the code rather than from a list: one replica, wired as the service wires it (elector,
 * reconciler informers, the SDK Syncer and its shard Leases, the kubeconfig-Secret tenant connector, Events, the explain
 * reads of the REST API), runs a tenant's whole life on an in-process host: a shared sqlite tenant and a dedicated
 * etcd tenant that syncs every namespaced kind, drift repaired, a source deleted, the shared tenant migrated to
 * dedicated mode, an Event series and a conflict on it, then both TenantClusters deleted. Every request the service's own clients send is recorded as the RBAC
 * permission it needs (verb, API group, resource). The ClusterRole and Role of {@code kubectl kustomize k8s/} must
 * grant exactly that set: every call granted, nothing granted that the code does not use.
 */
class RbacFromCodeTest {

    private static final String NS = "team-dev";
    private static final Duration SYNC = Duration.ofSeconds(30);

    /** One RBAC permission: verb, API group ("" for core) and resource (with {@code /subresource}). */
    record Permission(String group, String resource, String verb) implements Comparable<Permission> {
        @Override
        public int compareTo(Permission o) {
            return toString().compareTo(o.toString());
        }

        @Override
        public String toString() {
            return (group.isEmpty() ? "core" : group) + " " + resource + " " + verb;
        }
    }

    /** A team's own custom kind that prod's SyncPolicy sends to the host (the installation allows it). */
    private static final JsonObject BACKUP_CRD = JsonParser.parseString("""
            {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
             "metadata":{"name":"backups.example.com"},
             "spec":{"group":"example.com","scope":"Namespaced",
               "names":{"kind":"Backup","plural":"backups","singular":"backup","listKind":"BackupList"},
               "versions":[{"name":"v1","served":true,"storage":true,
                 "schema":{"openAPIV3Schema":{"type":"object","properties":{
                   "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}""").getAsJsonObject();
    /** The opt-in RBAC docs/sync.md shows for that kind. */
    private static final java.nio.file.Path BACKUP_RBAC = Kube.REPO.resolve("examples/rbac/sync-backups.example.com.yaml");

    private final Set<Permission> used = ConcurrentHashMap.newKeySet();
    /** The kubelet endpoint's CA, loaded (or created) by the service's code at the start of each test. */
    private final java.util.concurrent.atomic.AtomicReference<io.tenantplane.kubelet.KubeletCa> kubeletCa =
            new java.util.concurrent.atomic.AtomicReference<>();
    /**
     * What the Roles the service creates grant: Kubernetes lets a client create a Role only with permissions it holds
     * itself (RBAC escalation prevention), which the in-process server does not check.
     */
    private final Set<Permission> escalation = new TreeSet<>();
    /** Where each permission was used: namespaces, or "*" for cluster-scoped and all-namespace requests. */
    private final Map<Permission, Set<String>> namespaces = new ConcurrentHashMap<>();
    /** Where prod's host objects are: its own namespace when dedicated, the TenantCluster's when shared. */
    private String prodNamespace = "team-dev-x-prod";
    private KubeApiServer host;
    private KubeApiServer dev;
    private KubeApiServer prod;
    private Thread controlPlane;

    @BeforeEach
    void start() {
        host = KubeApiServer.builder().namespaces("default", "tenantplane-system", NS).build().start();
        Kube.at(host.url()).installCrds();
        Kube.at(host.url()).createCrd(BACKUP_CRD);
        dev = KubeApiServer.builder().build().start();
        prod = KubeApiServer.builder().build().start();
        Kube.at(prod.url()).createCrd(BACKUP_CRD);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (controlPlane != null) {
            controlPlane.interrupt();
            controlPlane.join();
        }
        prod.close();
        dev.close();
        host.close();
    }

    /** The RBAC permission a request needs, or null for discovery and other non-resource paths. */
    static Permission permission(Request r) {
        HttpUrl url = r.url();
        List<String> seg = url.pathSegments().stream().filter(s -> !s.isEmpty()).toList();
        List<String> rest;
        String group;
        if (seg.size() >= 3 && seg.get(0).equals("api")) {
            group = "";
            rest = seg.subList(2, seg.size());
        } else if (seg.size() >= 4 && seg.get(0).equals("apis")) {
            group = seg.get(1);
            rest = seg.subList(3, seg.size());
        } else {
            return null;
        }
        String resource;
        String name = null;
        String sub = null;
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            resource = rest.get(2);
            name = rest.size() > 3 ? rest.get(3) : null;
            sub = rest.size() > 4 ? rest.get(4) : null;
        } else {
            resource = rest.get(0);
            name = rest.size() > 1 ? rest.get(1) : null;
            sub = rest.size() > 2 ? rest.get(2) : null;
        }
        String verb = switch (r.method()) {
            case "GET" -> name != null ? "get" : "true".equals(url.queryParameter("watch")) ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name != null ? "delete" : "deletecollection";
            default -> throw new IllegalArgumentException(r.method());
        };
        return new Permission(group, sub == null ? resource : resource + "/" + sub, verb);
    }

    /** A client of the host whose every request is recorded as the permission it needs. */
    private ApiClient recording(Duration readTimeout) {
        ApiClient c = new ClientBuilder().setBasePath(host.url()).build();
        c.setHttpClient(c.getHttpClient().newBuilder().readTimeout(readTimeout).addInterceptor(chain -> {
            Permission p = permission(chain.request());
            if (p != null && "websocket".equalsIgnoreCase(chain.request().header("Upgrade"))) {
                // A WebSocket upgrade is a GET, which Kubernetes 1.30+ also authorizes as create
                // (AuthorizePodWebsocketUpgradeCreatePermission).
                Permission create = new Permission(p.group(), p.resource(), "create");
                used.add(create);
                List<String> segs = chain.request().url().pathSegments();
                int at = segs.indexOf("namespaces");
                namespaces.computeIfAbsent(create, x -> ConcurrentHashMap.newKeySet())
                        .add(at >= 0 && segs.size() >= at + 2 ? segs.get(at + 1) : "*");
            }
            if (p != null) {
                used.add(p);
                List<String> seg = chain.request().url().pathSegments();
                int i = seg.indexOf("namespaces");
                // A Namespace object itself counts as in that namespace, as the API server's request info has it
                // (so a RoleBinding there grants get and update on it).
                namespaces.computeIfAbsent(p, x -> ConcurrentHashMap.newKeySet())
                        .add(i >= 0 && seg.size() >= i + 2 ? seg.get(i + 1) : "*");
            }
            return chain.proceed(chain.request());
        }).build());
        return c;
    }

    @Test
    void theServiceRbacGrantsExactlyWhatTheCodeCallsAndNothingMore() throws Exception {
        Kube hostKube = hostWithTenantsReady();
        loadKubeletCa();
        Replica replica = replica(null);
        TenantPlane plane = replica.plane();
        ApiClient hostClient = replica.hostClient();
        try {
            bothTenantsLiveThroughSyncDriftAndDeletion(hostKube, prodTenant());
            logsInsideDev(hostKube, plane, List.of());

            JsonObject profile = hostKube.require("IsolationProfile", NS, "restricted");
            profile.getAsJsonObject("spec").add("nodePlacement", JsonParser.parseString(
                    "{\"nodeSelector\":{\"kubernetes.io/os\":\"linux\"}}"));
            hostKube.update(profile);
            JsonObject devCluster = hostKube.require("TenantCluster", NS, "dev");
            devCluster.getAsJsonObject("spec").addProperty("mode", "dedicated");
            hostKube.update(devCluster);
            assertTrue(Kube.eventually(Duration.ofSeconds(60), () -> {
                JsonObject tc = hostKube.require("TenantCluster", NS, "dev");
                return "dedicated".equals(Json.string(tc, "status", "mode"))
                        && Json.object(tc, "status", "migration") == null
                        && hostKube.get("Pod", "team-dev-x-dev", "nginx-x-default-x-dev").isPresent();
            }), () -> "dev migrates from shared to dedicated: " + hostKube.require("TenantCluster", NS, "dev")
                    .get("status"));

            explainReviewEventsAndDeleteBothTenants(hostKube, plane, hostClient);
            for (String own : List.of("team-dev-x-prod", "team-dev-x-dev")) {
                assertTrue(hostKube.get("Namespace", null, own)
                        .map(n -> Json.string(n, "metadata", "deletionTimestamp") != null).orElse(true),
                        "with its own namespace " + own);
            }
        } finally {
            replica.close();
        }

        assertGrantsExactlyWhatWasUsed(Rbac.rendered(Kube.REPO.resolve("k8s"), BACKUP_RBAC),
                "k8s/ with " + Kube.REPO.relativize(BACKUP_RBAC));
        Set<String> secretVerbs = new TreeSet<>();
        used.stream().filter(p -> p.group().isEmpty() && p.resource().equals("secrets")).forEach(p ->
                secretVerbs.add(p.verb()));
        Set<String> secretNamespaces = new TreeSet<>();
        used.stream().filter(p -> p.group().isEmpty() && p.resource().equals("secrets")).forEach(p ->
                secretNamespaces.addAll(namespaces.get(p)));
        System.out.println("rbac: secrets are used with " + secretVerbs + " in " + secretNamespaces);
        assertFalse(secretVerbs.contains("deletecollection"));
        assertTrue(Set.of(NS, "team-dev-x-prod", "team-dev-x-dev", "tenantplane-system").containsAll(secretNamespaces),
                "Secrets are touched only in TenantCluster namespaces, tenants' (possible) own host namespaces and the "
                        + "service's own (the kubelet CA), never across all namespaces: " + secretNamespaces);
    }

    /**
     * The namespaced install ({@code examples/install-namespaced}: k8s/ with the component
     * {@code k8s/components/namespaced}): a replica watching only {@code team-dev} runs two shared tenants (one
     * syncing every namespaced kind) through their life; every call must be granted in the namespace it is made in
     * (RoleBindings) or be one of the few cluster-wide ones, and nothing more is granted.
     */
    @Test
    void theNamespacedInstallGrantsExactlyWhatAReplicaWatchingOneNamespaceCalls() throws Exception {
        prodNamespace = NS;
        Kube hostKube = hostWithTenantsReady();
        loadKubeletCa();
        Replica replica = replica(NS);
        TenantPlane plane = replica.plane();
        ApiClient hostClient = replica.hostClient();
        try {
            List<JsonObject> prodShared = prodTenant();
            Json.child(prodShared.get(1), "spec").addProperty("mode", "shared");
            Json.child(prodShared.get(1), "spec").add("controlPlane", JsonParser.parseString("{\"replicas\":1}"));
            bothTenantsLiveThroughSyncDriftAndDeletion(hostKube, prodShared);
            logsInsideDev(hostKube, plane, List.of(NS));

            explainReviewEventsAndDeleteBothTenants(hostKube, plane, hostClient);
        } finally {
            replica.close();
        }
        assertGrantsExactlyWhatWasUsed(Rbac.rendered(Kube.REPO.resolve("examples/install-namespaced"), BACKUP_RBAC),
                "examples/install-namespaced with " + Kube.REPO.relativize(BACKUP_RBAC));
    }

    /**
     * dev (the example) and {@code prod} are created and become Ready and synced; a host copy is edited and a tenant
     * object deleted (both repaired); every rendered object drifts and every tenant object of prod changes (both
     * reach the host).
     */
    private void bothTenantsLiveThroughSyncDriftAndDeletion(Kube hostKube, List<JsonObject> prod) {
        List<JsonObject> example = Kube.exampleTenant(NS, "dev");
        for (JsonObject o : example) {
            if ("IsolationProfile".equals(Json.string(o, "kind"))) {
                // prod's hand-made Endpoints name an external database at 203.0.113.10: a tenant's own
                // endpoints reach the host only inside CIDRs its profile lets it reach.
                Json.child(o, "spec", "network").add("egressToCIDRs",
                        JsonParser.parseString("[\"203.0.113.0/24\"]"));
            }
        }
        hostKube.createAll(example);
        hostKube.createAll(prod);
        assertTrue(Kube.eventually(SYNC, () -> ready("dev") && ready("prod")),
                () -> "both tenants become Ready: " + hostKube.get("TenantCluster", NS, "prod")
                        .map(o -> o.get("status")).orElse(null));
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("Pod", NS, "nginx-x-default-x-dev").isPresent()
                && hostKube.get("NetworkPolicy", prodNamespace, "deny-x-default-x-prod").isPresent()));
        debugInDev();
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("Pod", NS, "nginx-x-default-x-dev")
                        .map(p -> p.getAsJsonObject("spec").has("ephemeralContainers")).orElse(false)),
                "kubectl debug inside dev reaches the host copy");

        JsonObject copy = hostKube.require("ConfigMap", NS, "nginx-config-x-default-x-dev");
        copy.getAsJsonObject("data").addProperty("default.conf", "edited on the host");
        hostKube.update(copy);
        Kube.at(dev.url()).delete("Secret", "default", "nginx-env");
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("Secret", NS, "nginx-env-x-default-x-dev").isEmpty()
                && !"edited on the host".equals(Json.string(hostKube.require("ConfigMap", NS,
                "nginx-config-x-default-x-dev"), "data", "default.conf"))), "drift and deletion are repaired");

        escalation.addAll(rulesOfRenderedRoles(hostKube));
        driftEveryRenderedObject(hostKube);
        changeEveryTenantObjectOfProd();
        assertTrue(Kube.eventually(SYNC, () -> renderedDrifted(hostKube).isEmpty() && prodCopiesChanged(hostKube)),
                () -> "rendered objects are restored and prod's changes reach the host: "
                        + renderedDrifted(hostKube));
        renderedNamesHeldByUnlabelledObjects(hostKube);
        // prod's custom kind: a deleted Backup's host copy is collected, an edited one is restored.
        Kube.at(this.prod.url()).delete("Backup", "default", "weekly");
        JsonObject nightly = hostKube.require("Backup", prodNamespace, "nightly-x-default-x-prod");
        Json.child(nightly, "spec").addProperty("schedule", "edited on the host");
        hostKube.update(nightly);
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("Backup", prodNamespace, "weekly-x-default-x-prod")
                .isEmpty() && "0 3 * * *".equals(Json.string(hostKube.require("Backup", prodNamespace,
                "nightly-x-default-x-prod"), "spec", "schedule"))), "prod's Backups are collected and restored");
        assertTrue(Kube.at(this.prod.url()).get("StorageClass", null, "standard").isPresent(),
                "the host's StorageClass is mirrored into prod");
    }

    /** A node on the host, the example workloads in both tenants (every namespaced kind in prod), k3s played. */
    private Kube hostWithTenantsReady() {
        Kube hostKube = Kube.at(host.url());
        hostKube.create(JsonParser.parseString("""
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"kubernetes.io/os":"linux"}}}""")
                .getAsJsonObject());
        Kube.at(dev.url()).createAll(Kube.exampleWorkloads());
        Kube.at(prod.url()).createAll(Kube.exampleWorkloads());
        Kube.at(prod.url()).createAll(everyNamespacedKind());
        for (String name : List.of("nightly", "weekly")) {
            Kube.at(prod.url()).create(JsonParser.parseString("""
                    {"apiVersion":"example.com/v1","kind":"Backup","metadata":{"name":"%s","namespace":"default"},
                     "spec":{"secretName":"nginx-env","schedule":"0 3 * * *"}}""".formatted(name)).getAsJsonObject());
        }
        hostKube.create(JsonParser.parseString("""
                {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"standard"},
                 "provisioner":"rancher.io/local-path"}""").getAsJsonObject());
        controlPlane = Thread.ofVirtual().start(() -> fakeControlPlaneAndScheduler(hostKube));
        return hostKube;
    }

    /** One replica wired as the service wires it, every client recording; it owns every shard when this returns. */
    private record Replica(TenantPlane plane, ApiClient hostClient, Reconciler reconciler, ShardLeases leases)
            implements AutoCloseable {
        @Override
        public void close() {
            reconciler.close();
            leases.close();
        }
    }

    /**
     * The rest of a replica's calls, in both installs: explain's reads, the REST API's delegated checks (through the
     * client AccessControl uses), an Event series with a conflict, and both tenants deleted.
     */
    private void explainReviewEventsAndDeleteBothTenants(Kube hostKube, TenantPlane plane, ApiClient hostClient)
            throws Exception {
        TenantContext ctx = plane.context(new TenantKey(NS, "prod")).orElseThrow();
        plane.explainLive(ctx, ResourceKind.wellKnown("v1", "Pod").orElseThrow(), "default", "nginx");
        plane.explainLive(ctx, Kube.kind("example.com/v1", "Backup"), "default", "nightly");
        KubernetesAccess access = new KubernetesAccess(recording(AccessControl.REVIEW_TIMEOUT), Clock.systemUTC());
        Caller caller = access.authenticate(hostKube.viewerToken()).orElseThrow();
        assertTrue(access.allows(caller, TenantsResource.seeing(NS, "prod")));
        eventSeriesWithAConflict();

        hostKube.delete("TenantCluster", NS, "prod");
        hostKube.delete("TenantCluster", NS, "dev");
        assertTrue(Kube.eventually(SYNC, () -> hostKube.get("TenantCluster", NS, "prod").isEmpty()
                && hostKube.get("TenantCluster", NS, "dev").isEmpty()), "both tenants are removed");
    }

    /** The kubelet CA, as the service loads it: created in the service's namespace on first start. */
    private void loadKubeletCa() throws Exception {
        kubeletCa.set(KubeletEndpoints.loadOrCreate(new io.kubernetes.client.openapi.apis.CoreV1Api(
                recording(Duration.ofSeconds(10))), "tenantplane-system", "tenantplane-kubelet-ca", Clock.systemUTC()));
        // A second replica (or a restart) reads the CA the first one created.
        kubeletCa.set(KubeletEndpoints.loadOrCreate(new io.kubernetes.client.openapi.apis.CoreV1Api(
                recording(Duration.ofSeconds(10))), "tenantplane-system", "tenantplane-kubelet-ca", Clock.systemUTC()));
    }

    /**
     * kubectl logs inside dev, as its API server calls the kubelet endpoint with the client certificate tenantplane
     * issued it: the endpoint reads dev's TenantCluster and Pod and asks the host for the Pod's log. {@code watched}:
     * the replica's watched namespaces (empty: all).
     */
    private void logsInsideDev(Kube hostKube, TenantPlane plane, List<String> watched) throws Exception {
        io.tenantplane.kubelet.KubeletCa ca = kubeletCa.get();
        JsonObject secret = hostKube.require("Secret", NS, "dev-kubelet-client");
        JsonObject data = secret.getAsJsonObject("data");
        java.util.function.Function<String, String> file = k -> new String(java.util.Base64.getDecoder()
                .decode(data.get(k).getAsString()), java.nio.charset.StandardCharsets.UTF_8);
        javax.net.ssl.SSLContext tls = io.tenantplane.kubelet.KubeletCa.context(
                io.tenantplane.kubelet.KubeletCa.Credential.fromPem(file.apply("tls.crt"), file.apply("tls.key")),
                file.apply("ca.crt"));
        // As KubeletEndpoints wires it: TenantClusters are read where the replica watches.
        try (io.tenantplane.kubelet.KubeletServer server = plane.kubeletServer().tenantNamespaces(watched)
                .serving(ca.issueServing(List.of("localhost"), Duration.ofHours(1)))
                .bindAddress(java.net.InetAddress.getLoopbackAddress()).port(0).start()) {
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newBuilder().sslContext(tls).build().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("https://localhost:" + server.port()
                            + "/containerLogs/default/nginx/nginx")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            // This host runs no kubelet for node-1, so its pods/log fails; the call was made, which is what counts.
            assertEquals(500, r.statusCode(), r.body());
            assertTrue(r.body().contains("the host API answered 500"), r.body());
            execAttachAndPortForwardInsideDev(tls, server.port());
            topInsideDev(hostKube, server.port());
        }
    }

    /**
     * kubectl top inside dev, as its aggregator calls the endpoint for metrics.k8s.io with its front-proxy certificate:
     * the endpoint reads the TenantClusters and dev's kubeconfig Secret (the published request-header CA), then dev's
     * host Pods and the host's PodMetrics (this host runs no metrics-server: the calls are what count).
     */
    private void topInsideDev(Kube hostKube, int port) throws Exception {
        io.tenantplane.kubelet.KubeletCa requestHeaderCa = io.tenantplane.kubelet.KubeletCa.generate(
                "k3s-request-header-ca@1", Clock.systemUTC());
        JsonObject secret = hostKube.require("Secret", NS, "dev-kubeconfig");
        Json.child(secret, "data").addProperty("request-header-ca.crt", Base64.getEncoder().encodeToString(
                requestHeaderCa.certificatePem().getBytes(StandardCharsets.US_ASCII)));
        hostKube.update(secret);
        io.tenantplane.kubelet.KubeletCa.Credential aggregator = requestHeaderCa.issueClient("system:auth-proxy",
                Duration.ofHours(1));
        javax.net.ssl.SSLContext tls = io.tenantplane.kubelet.KubeletCa.context(aggregator,
                kubeletCa.get().certificatePem());
        java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder().sslContext(tls).build();
        for (String path : List.of("/pods", "/pods/nginx")) {
            java.net.http.HttpResponse<String> r = client.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("https://localhost:" + port + "/apis/metrics.k8s.io/v1beta1/namespaces/default"
                            + path)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertTrue(r.statusCode() == 503 || r.statusCode() == 404, r.statusCode() + " " + r.body());
        }
        assertTrue(used.contains(new Permission("metrics.k8s.io", "pods", "list")), () -> "read: " + used);
    }

    /**
     * kubectl exec, attach and port-forward inside dev: an API server holding dev's kubelet client credential, with
     * dev's Pod bound to a mirror that points at the endpoint, passes each SPDY upgrade to the endpoint, which opens
     * the same on the host copy (where this host, running no kubelet, refuses it: the calls are what count).
     */
    private void execAttachAndPortForwardInsideDev(javax.net.ssl.SSLContext tls, int port) throws Exception {
        try (KubeApiServer api = KubeApiServer.builder().kubeletClient(tls).streams().build().start()) {
            Kube k = Kube.at(api.url());
            JsonObject node = k.create(JsonParser.parseString(
                    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\"}}").getAsJsonObject());
            node.add("status", JsonParser.parseString("{\"addresses\":[{\"type\":\"Hostname\",\"address\":"
                    + "\"localhost\"}],\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":" + port + "}}}"));
            k.updateStatus(node);
            JsonObject pod = Kube.at(dev.url()).require("Pod", "default", "nginx");
            JsonObject copy = new JsonObject();
            copy.addProperty("apiVersion", "v1");
            copy.addProperty("kind", "Pod");
            copy.add("metadata", JsonParser.parseString("{\"name\":\"nginx\",\"namespace\":\"default\"}"));
            JsonObject spec = pod.getAsJsonObject("spec").deepCopy();
            spec.addProperty("nodeName", "node-1");
            copy.add("spec", spec);
            JsonObject created = k.create(copy);
            created.add("status", JsonParser.parseString("{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":"
                    + "\"nginx\",\"ready\":true,\"restartCount\":0,\"image\":\"nginx\",\"imageID\":\"\","
                    + "\"state\":{\"running\":{}}}]}"));
            k.updateStatus(created);
            Path dir = java.nio.file.Files.createTempDirectory("rbac-kubectl");
            Path kubeconfig = api.writeKubeconfig(dir);
            for (List<String> args : List.of(List.of("exec", "nginx", "--", "true"), List.of("attach", "nginx"),
                    List.of("port-forward", "pod/nginx", ":8080"))) {
                List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(),
                        "--request-timeout=20s"));
                cmd.addAll(args);
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                pb.environment().put("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false");
                pb.environment().put("KUBECTL_PORT_FORWARD_WEBSOCKETS", "false");
                Process p = pb.start();
                if (args.get(0).equals("port-forward")) {
                    java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
                            p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
                    String line = out.readLine();
                    assertTrue(line != null && line.startsWith("Forwarding from"), "kubectl: " + line);
                    int local = Integer.parseInt(line.replaceAll(".*:(\\d+) -> .*", "$1"));
                    try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), local)) {
                        s.getOutputStream().write("x".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        s.setSoTimeout(10_000);
                        s.getInputStream().read();
                    } catch (java.io.IOException ignored) {
                        // the host refuses the forward; the call is what counts
                    }
                    p.destroy();
                }
                assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "kubectl " + args + " ends");
            }
        }
        for (String r : List.of("pods/exec", "pods/attach", "pods/portforward")) {
            assertTrue(used.contains(new Permission("", r, "get")), () -> r + " was called: " + used);
        }
    }

    /** Starts a {@link Replica}; {@code watchNamespace} null watches all namespaces. */
    private Replica replica(String watchNamespace) {
        Map<String, String> config = new java.util.HashMap<>(Map.of(
                ServiceSettings.HOST_URL, host.url(),
                ServiceSettings.LEASE_IDENTITY, "replica-a",
                ServiceSettings.LEASE_DURATION, "PT2S",
                ServiceSettings.LEASE_RENEW_DEADLINE, "PT1S",
                ServiceSettings.LEASE_RETRY_PERIOD, "PT0.2S",
                ServiceSettings.RESYNC_INTERVAL, "PT2S",
                ServiceSettings.CONCURRENCY, "2",
                ServiceSettings.SYNC_ALLOWED_KINDS, "Backup.example.com"));
        if (watchNamespace != null) {
            config.put(ServiceSettings.WATCH_NAMESPACES, watchNamespace);
        }
        ServiceSettings settings = ServiceSettings.from(k -> Optional.ofNullable(config.get(k)), () -> "replica-a");
        ApiClient hostClient = recording(Duration.ofSeconds(10));
        TenantPlane plane = TenantPlane.builder().hostClient(hostClient)
                .tenantConnector(TenantConnector.kubeconfigSecret(recording(Duration.ofSeconds(10))))
                .kubeletEndpoint(new io.tenantplane.kubelet.KubeletEndpoint("localhost", 10250,
                        () -> Optional.ofNullable(kubeletCa.get()),
                        io.tenantplane.kubelet.KubeletEndpoint.DEFAULT_CLIENT_VALIDITY))
                .allowedKinds(settings.allowedKinds())
                .reportingInstance("replica-a").build();
        Reconciler reconciler = new Reconciler(settings, recording(Duration.ZERO), plane,
                new ServiceStatus(Clock.systemUTC()));
        ShardLeases leases = Sharding.leases(settings, new CoordinationV1Api(recording(
                settings.lease().renewDeadline())), reconciler, new ShardLeases.Listener() {
                });
        Replica replica = new Replica(plane, hostClient, reconciler, leases);
        reconciler.start(leases::owns);
        leases.start();
        if (!Kube.eventually(SYNC, () -> leases.view().owned() == leases.count())) {
            replica.close();
            fail("the replica owns every shard");
        }
        return replica;
    }

    /** Every permission used is granted where it was used, and nothing is granted that was not used. */
    private void assertGrantsExactlyWhatWasUsed(Rbac rbac, String install) {
        assertTrue(escalation.contains(new Permission("", "secrets", "patch")), () -> "rendered Roles: " + escalation);
        Set<Permission> missing = new TreeSet<>();
        for (Permission p : used) {
            if (!rbac.grants(p, namespaces.get(p))) {
                missing.add(p);
            }
        }
        for (Permission p : escalation) {
            if (!rbac.grants(p, Set.of(NS))) {
                missing.add(p);
            }
        }
        Set<Permission> unused = new TreeSet<>(rbac.all());
        unused.removeAll(used);
        unused.removeAll(escalation);
        System.out.println("rbac: the code used " + used.size() + " permissions: " + new TreeSet<>(used));
        System.out.println("rbac: the Roles it creates grant " + escalation + ", which it must hold itself");
        Map<Permission, Set<String>> where = new java.util.TreeMap<>();
        missing.forEach(p -> where.put(p, namespaces.get(p)));
        assertEquals(Map.of(), where, "every call the code makes is granted by " + install + " RBAC where it is made");
        assertEquals(Set.of(), unused, install + " RBAC grants nothing the code does not use");
    }

    private static final List<String> RENDERED = List.of("StatefulSet", "PodDisruptionBudget", "Service", "Secret",
            "RoleBinding", "Role", "ServiceAccount", "NetworkPolicy", "ResourceQuota", "LimitRange", "Deployment",
            "ConfigMap");
    private static final List<String> PROD_KINDS = List.of("Pod", "Service", "ConfigMap", "Secret",
            "PersistentVolumeClaim", "ServiceAccount", "Endpoints", "EndpointSlice", "Ingress", "NetworkPolicy",
            "PodDisruptionBudget", "Backup");

    private static Set<Permission> rulesOfRenderedRoles(Kube host) {
        Set<Permission> out = new TreeSet<>();
        for (String ns : List.of(NS, "team-dev-x-prod")) {
            for (JsonObject role : host.list("Role", ns)) {
                if (!Json.labels(role).containsKey("tenantplane.io/component")) {
                    continue;
                }
                role.getAsJsonArray("rules").forEach(r -> r.getAsJsonObject().getAsJsonArray("apiGroups").forEach(g ->
                        r.getAsJsonObject().getAsJsonArray("resources").forEach(res ->
                                r.getAsJsonObject().getAsJsonArray("verbs").forEach(v -> out.add(new Permission(
                                        g.getAsString(), res.getAsString(), v.getAsString()))))));
            }
        }
        assertFalse(out.isEmpty(), "the control planes have Roles");
        return out;
    }

    /** A host hand edits the label every rendered object carries, so that provisioning has to restore each kind. */
    private void driftEveryRenderedObject(Kube host) {
        for (String ns : new TreeSet<>(List.of(NS, prodNamespace))) {
            for (String kind : RENDERED) {
                for (JsonObject o : host.list(kind, ns)) {
                    if (Json.labels(o).containsKey("tenantplane.io/component")) {
                        Json.child(o, "metadata", "labels").addProperty("tenantplane.io/component", "drifted");
                        host.update(o);
                    }
                }
            }
        }
        if (!prodNamespace.equals(NS)) {
            JsonObject ns = host.require("Namespace", null, prodNamespace);
            Json.child(ns, "metadata", "labels").addProperty("tenantplane.io/component", "drifted");
            host.update(ns);
        }
    }

    /**
     * Every rendered object loses its tenant label (as by a careless {@code kubectl label}): provisioning lists by that
     * label, so it does not find them, tries to create each, is refused (AlreadyExists), and reads the object of that
     * name to plan it again (a foreign object, left alone). That read is a {@code get} on every rendered kind. With the
     * labels back, both tenants are Ready again.
     */
    private void renderedNamesHeldByUnlabelledObjects(Kube host) {
        // Each object as it was unlabelled (kind, namespace, name) with the tenant it carried.
        record Unlabelled(String kind, String namespace, String name, String tenant) {
        }
        List<Unlabelled> unlabelled = new ArrayList<>();
        for (String ns : new TreeSet<>(List.of(NS, prodNamespace))) {
            for (String kind : RENDERED) {
                for (JsonObject o : host.list(kind, ns)) {
                    Map<String, String> labels = Json.labels(o);
                    if (labels.containsKey("tenantplane.io/component") && labels.containsKey("tenantplane.io/tenant")) {
                        unlabelled.add(new Unlabelled(kind, ns, Json.string(o, "metadata", "name"),
                                labels.get("tenantplane.io/tenant")));
                        Json.child(o, "metadata", "labels").remove("tenantplane.io/tenant");
                        host.update(o);
                    }
                }
            }
        }
        Set<Permission> reads = new TreeSet<>();
        for (Unlabelled u : unlabelled) {
            var k = Kube.kind(null, u.kind());
            reads.add(new Permission(k.group(), k.plural(), "get"));
        }
        assertTrue(Kube.eventually(SYNC, () -> used.containsAll(reads)), () -> "each rendered name, held by an object "
                + "without the tenant's label, is read once its create is refused: " + reads);
        for (Unlabelled u : unlabelled) {
            JsonObject now = host.require(u.kind(), u.namespace(), u.name());
            Json.child(now, "metadata", "labels").addProperty("tenantplane.io/tenant", u.tenant());
            host.update(now);
        }
        assertTrue(Kube.eventually(SYNC, () -> ready("dev") && ready("prod")),
                "with their labels back, the rendered objects are the tenants' own again");
    }

    private List<String> renderedDrifted(Kube host) {
        List<String> out = new ArrayList<>();
        for (String ns : new TreeSet<>(List.of(NS, prodNamespace))) {
            for (String kind : RENDERED) {
                for (JsonObject o : host.list(kind, ns)) {
                    if ("drifted".equals(Json.labels(o).get("tenantplane.io/component"))) {
                        out.add(kind + " " + ns + "/" + Json.string(o, "metadata", "name"));
                    }
                }
            }
        }
        if (!prodNamespace.equals(NS) && "drifted".equals(Json.labels(host.require("Namespace", null,
                prodNamespace)).get("tenantplane.io/component"))) {
            out.add("Namespace " + prodNamespace);
        }
        return out;
    }

    /** A label change on every tenant object of prod: each synced kind gets updated on the host. */
    private void changeEveryTenantObjectOfProd() {
        Kube tenant = Kube.at(prod.url());
        for (String kind : PROD_KINDS) {
            for (JsonObject o : tenant.list(kind, "default")) {
                if (kind.equals("Service") && "kubernetes".equals(Json.string(o, "metadata", "name"))) {
                    continue;
                }
                // The Syncer may write a Pod's status back meanwhile: edit as a user does, retrying a conflict.
                tenant.edit(o, x -> Json.child(x, "metadata", "labels").addProperty("revision", "2"));
            }
        }
    }

    private boolean prodCopiesChanged(Kube host) {
        for (String kind : PROD_KINDS) {
            List<JsonObject> copies = host.list(kind, prodNamespace).stream()
                    .filter(o -> "prod".equals(Json.labels(o).get("tenantplane.io/tenant"))
                            && Json.annotations(o).containsKey("tenantplane.io/source-kind")).toList();
            if (copies.isEmpty() || copies.stream().anyMatch(o -> !"2".equals(Json.labels(o).get("revision")))) {
                return false;
            }
        }
        return true;
    }

    private boolean ready(String tenant) {
        return Kube.at(host.url()).get("TenantCluster", NS, tenant)
                .map(o -> "Ready".equals(Json.string(o, "status", "phase"))).orElse(false);
    }

    /** The same observer the plane uses, with repeats of one decision a series and the first series write refused. */
    private void eventSeriesWithAConflict() {
        EventObserver events = EventObserver.builder().client(recording(Duration.ofSeconds(10)))
                .clock(Clock.systemUTC()).seriesInterval(Duration.ZERO).build();
        Decision conflict = Decision.conflict("ConfigMap", new Decision.SourceRef("dev", "default",
                "settings", null), new Decision.HostRef(NS, "settings-x-default-x-dev"), "ForeignObject",
                "the name is held by a foreign object", null);
        TenantKey dev = new TenantKey(NS, "dev");
        events.decision(dev, new Outcome.NotWritten(conflict));
        assertTrue(events.flush(Duration.ofSeconds(10)), "the Event is written");
        host.faults().add(FaultRule.on("update", "events.events.k8s.io").times(1).respond(409));
        events.decision(dev, new Outcome.NotWritten(conflict));
        events.decision(dev, new Outcome.NotWritten(conflict));
        assertTrue(events.flush(Duration.ofSeconds(10)), "the series is written");
        assertTrue(host.faults().fired() >= 1, "the series write met a conflict and was retried");
    }

    /** The prod tenant: dedicated (its own host namespace), etcd with 3 replicas, a policy syncing every kind. */
    private static List<JsonObject> prodTenant() {
        List<JsonObject> out = new ArrayList<>();
        out.add(JsonParser.parseString("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"SyncPolicy","metadata":{"name":"everything",
                 "namespace":"team-dev"},"spec":{"kinds":[
                  {"kind":"Pod","toHost":true,"fromHost":"status"},{"kind":"Service","toHost":true,"fromHost":"status"},
                  {"kind":"ConfigMap","toHost":true},{"kind":"Secret","toHost":true},
                  {"kind":"PersistentVolumeClaim","toHost":true},{"kind":"ServiceAccount","toHost":true},
                  {"kind":"Endpoints","toHost":true},{"kind":"EndpointSlice","toHost":true},
                  {"kind":"Ingress","toHost":true},{"kind":"NetworkPolicy","toHost":true},
                  {"kind":"PodDisruptionBudget","toHost":true,"fromHost":"status"},
                  {"kind":"Backup","apiVersion":"example.com/v1","toHost":true,
                   "references":[{"path":"spec.secretName","kind":"Secret"}]}],
                 "fromHost":[{"kind":"StorageClass","selector":{}},{"kind":"IngressClass","selector":{}},
                   {"kind":"PriorityClass","selector":{}},{"kind":"RuntimeClass","selector":{}}]}}""")
                .getAsJsonObject());
        out.add(JsonParser.parseString("""
                {"apiVersion":"tenantplane.io/v1alpha1","kind":"TenantCluster","metadata":{"name":"prod",
                 "namespace":"team-dev"},"spec":{"mode":"dedicated","isolationProfileRef":{"name":"restricted"},
                 "syncPolicyRef":{"name":"everything"},"controlPlane":{"replicas":3,"datastore":{"type":"etcd"}}}}""")
                .getAsJsonObject());
        return out;
    }

    /** Tenant objects of the namespaced kinds the examples leave out. */
    private static List<JsonObject> everyNamespacedKind() {
        List<JsonObject> out = new ArrayList<>();
        for (String json : List.of("""
                {"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"deny","namespace":"default"},
                 "spec":{"podSelector":{},"policyTypes":["Ingress"]}}""", """
                {"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"nginx","namespace":"default"},
                 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"nginx"}}}}""", """
                {"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"builder","namespace":"default"}}""", """
                {"apiVersion":"v1","kind":"Service","metadata":{"name":"external","namespace":"default"},
                 "spec":{"ports":[{"port":5432}]}}""", """
                {"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"external","namespace":"default"},
                 "subsets":[{"addresses":[{"ip":"203.0.113.10"}],"ports":[{"port":5432}]}]}""", """
                {"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"external-1",
                 "namespace":"default","labels":{"kubernetes.io/service-name":"external"}},"addressType":"IPv4",
                 "endpoints":[{"addresses":["203.0.113.10"]}],"ports":[{"port":5432}]}""")) {
            out.add(JsonParser.parseString(json).getAsJsonObject());
        }
        return out;
    }

    /**
     * Plays what the test has no real cluster for, with the test's own client: k3s publishing each tenant's
     * kubeconfig, the StatefulSet and Deployment controllers reporting the control plane and its DNS ready, the
     * scheduler binding host pods.
     */
    private void fakeControlPlaneAndScheduler(Kube host) {
        Map<String, KubeApiServer> tenants = Map.of("dev", dev, "prod", prod);
        while (!Thread.currentThread().isInterrupted()) {
            try {
                for (var t : tenants.entrySet()) {
                    host.get("Secret", NS, t.getKey() + "-kubeconfig").filter(s -> !s.has("data")).ifPresent(s -> {
                        JsonObject data = new JsonObject();
                        data.addProperty("config", Base64.getEncoder().encodeToString(kubeconfig(t.getValue())
                                .getBytes(StandardCharsets.UTF_8)));
                        s.add("data", data);
                        host.update(s);
                    });
                    host.get("StatefulSet", NS, t.getKey() + "-control-plane").filter(s -> !s.has("status")
                            || !s.getAsJsonObject("status").has("readyReplicas")).ifPresent(sts -> {
                                long replicas = sts.getAsJsonObject("spec").get("replicas").getAsLong();
                                sts.add("status", JsonParser.parseString("{\"replicas\":" + replicas
                                        + ",\"readyReplicas\":" + replicas + "}"));
                                host.updateStatus(sts);
                            });
                    host.dnsRuns(NS, t.getKey());
                }
                for (String ns : List.of(NS, "team-dev-x-prod", "team-dev-x-dev")) {
                    for (JsonObject pod : host.list("Pod", ns)) {
                        if (pod.getAsJsonObject("metadata").has("deletionTimestamp")) {
                            confirmDeletion(ns, pod);
                        } else if (pod.getAsJsonObject("spec").get("nodeName") == null) {
                            bind(ns, Json.string(pod, "metadata", "name"));
                        } else if (!"Running".equals(Json.string(pod, "status", "phase"))) {
                            pod.add("status", JsonParser.parseString("""
                                    {"phase":"Running","podIP":"10.42.0.7","conditions":[{"type":"Ready",
                                     "status":"True"}]}""").getAsJsonObject());
                            host.updateStatus(pod);
                        }
                    }
                }
            } catch (AssertionError | RuntimeException e) {
                // A conflict with the reconciler's own write: try again at the next tick.
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Deletes a pod being deleted with grace 0, as its kubelet does once the containers stopped. */
    private void confirmDeletion(String ns, JsonObject pod) {
        String body = """
                {"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,"preconditions":{"uid":"%s"}}"""
                .formatted(Json.string(pod, "metadata", "uid"));
        try {
            java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    host.url() + "/api/v1/namespaces/" + ns + "/pods/" + Json.string(pod, "metadata", "name")))
                    .header("Content-Type", "application/json")
                    .method("DELETE", java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code kubectl debug} inside dev: an ephemeral container added to nginx through its subresource. */
    private void debugInDev() {
        // As kubectl debug does: a strategic merge patch of the subresource, which carries no resourceVersion, so
        // the status the pass writes back meanwhile cannot make it a conflict.
        String patch = """
                {"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox:1.36",
                  "securityContext":{"allowPrivilegeEscalation":false,"runAsNonRoot":true,"runAsUser":1000,
                  "capabilities":{"drop":["ALL"]},"seccompProfile":{"type":"RuntimeDefault"}}}]}}""";
        try {
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                            dev.url() + "/api/v1/namespaces/default/pods/nginx/ephemeralcontainers"))
                    .header("Content-Type", "application/strategic-merge-patch+json")
                    .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString(patch)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Binds a host pod to node-1 through {@code pods/binding}, as the scheduler does. */
    private void bind(String ns, String pod) {
        String body = """
                {"apiVersion":"v1","kind":"Binding","metadata":{"name":"%s","namespace":"%s"},
                 "target":{"apiVersion":"v1","kind":"Node","name":"node-1"}}""".formatted(pod, ns);
        try {
            java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    host.url() + "/api/v1/namespaces/" + ns + "/pods/" + pod + "/binding"))
                    .header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String kubeconfig(KubeApiServer server) {
        try {
            Path dir = Files.createTempDirectory("rbac-kubeconfig");
            String text = Files.readString(server.writeKubeconfig(dir));
            Files.delete(dir.resolve("kubeconfig"));
            Files.delete(dir);
            return text;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * What a rendered install grants the service's ServiceAccount: cluster-wide through ClusterRoleBindings, per
     * namespace through RoleBindings (to a Role there or to a ClusterRole).
     */
    private record Rbac(Set<Permission> clusterWide, Map<String, Set<Permission>> perNamespace) {

        private static final String SUBJECT = "tenantplane-system/tenantplane-service";

        /** The RBAC of {@code kubectl kustomize kustomization}, plus the opt-in manifests {@code extra}. */
        static Rbac rendered(Path kustomization, Path... extra) throws IOException, InterruptedException {
            Path out = Files.createTempFile("kustomize", ".yaml");
            Process p = new ProcessBuilder("kubectl", "kustomize", kustomization.toString())
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("kubectl kustomize " + kustomization + " did not finish within 60 s");
            }
            String text = Files.readString(out);
            Files.delete(out);
            assertEquals(0, p.exitValue(), text);
            for (Path e : extra) {
                text = text + "\n---\n" + Files.readString(e);
            }
            Map<String, Set<Permission>> roles = new java.util.HashMap<>();
            List<Map<?, ?>> bindings = new ArrayList<>();
            for (Object doc : new Yaml().loadAll(text)) {
                if (!(doc instanceof Map<?, ?> o)) {
                    continue;
                }
                Object kind = o.get("kind");
                Map<?, ?> meta = (Map<?, ?>) o.get("metadata");
                if ("ClusterRoleBinding".equals(kind) || "RoleBinding".equals(kind)) {
                    bindings.add(o);
                    continue;
                }
                if (!"ClusterRole".equals(kind) && !"Role".equals(kind)) {
                    continue;
                }
                Set<Permission> perms = new TreeSet<>();
                for (Object r : (List<?>) o.get("rules")) {
                    Map<?, ?> rule = (Map<?, ?>) r;
                    assertFalse(rule.containsKey("resourceNames") && "ClusterRole".equals(kind),
                            "the ClusterRoles name no single objects");
                    for (Object g : (List<?>) rule.get("apiGroups")) {
                        for (Object res : (List<?>) rule.get("resources")) {
                            for (Object v : (List<?>) rule.get("verbs")) {
                                assertFalse(String.valueOf(g).contains("*") || String.valueOf(res).contains("*")
                                        || String.valueOf(v).contains("*"), "no wildcard in " + rule);
                                perms.add(new Permission((String) g, (String) res, (String) v));
                            }
                        }
                    }
                }
                roles.put(kind + "/" + ("Role".equals(kind) ? meta.get("namespace") + "/" : "") + meta.get("name"),
                        perms);
            }
            Set<Permission> cluster = new TreeSet<>();
            Map<String, Set<Permission>> perNamespace = new java.util.TreeMap<>();
            for (Map<?, ?> b : bindings) {
                boolean ours = false;
                for (Object sub : (List<?>) b.get("subjects")) {
                    Map<?, ?> subject = (Map<?, ?>) sub;
                    ours |= "ServiceAccount".equals(subject.get("kind"))
                            && SUBJECT.equals(subject.get("namespace") + "/" + subject.get("name"));
                }
                if (!ours) {
                    continue;
                }
                Map<?, ?> ref = (Map<?, ?>) b.get("roleRef");
                String ns = (String) ((Map<?, ?>) b.get("metadata")).get("namespace");
                String key = "ClusterRole".equals(ref.get("kind")) ? "ClusterRole/" + ref.get("name")
                        : "Role/" + ns + "/" + ref.get("name");
                Set<Permission> perms = roles.get(key);
                assertTrue(perms != null, "binding " + b.get("metadata") + " refers to a missing " + key);
                if ("ClusterRoleBinding".equals(b.get("kind"))) {
                    cluster.addAll(perms);
                } else {
                    perNamespace.computeIfAbsent(ns, n -> new TreeSet<>()).addAll(perms);
                }
            }
            return new Rbac(cluster, perNamespace);
        }

        boolean grants(Permission p, Set<String> usedIn) {
            if (clusterWide.contains(p)) {
                return true;
            }
            return usedIn != null && !usedIn.isEmpty() && !usedIn.contains("*") && usedIn.stream()
                    .allMatch(ns -> perNamespace.getOrDefault(ns, Set.of()).contains(p));
        }

        Set<Permission> all() {
            Set<Permission> all = new TreeSet<>(clusterWide);
            perNamespace.values().forEach(all::addAll);
            return all;
        }
    }
}
