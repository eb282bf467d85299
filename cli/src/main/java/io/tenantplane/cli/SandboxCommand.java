package io.tenantplane.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.json.Json;
import io.tenantplane.kubelet.KubeletCa;
import io.tenantplane.kubelet.KubeletEndpoint;
import io.tenantplane.kubelet.KubeletServer;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.observe.Observer;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import io.tenantplane.testkit.KubeApiServer;
import io.tenantplane.testkit.Simulation;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tenantplane sandbox}: the reconciler live on loopback, with no cluster. One JVM runs a host API server with
 * simulated nodes, kubelets and controllers (the testkit), the SDK's Syncer wired as the service wires it (default
 * kubeconfig-Secret connector, Events on the TenantClusters), and one in-process API server per tenant standing in for
 * its k3s; the sandbox also plays what k3s would do on the host (publish the tenant kubeconfig, report the control
 * plane ready). It writes kubeconfigs for kubectl and stays up until interrupted, printing each write as it happens.
 */
final class SandboxCommand implements Subcommand {

    static final List<String> CRDS = List.of("crds/tenantclusters.tenantplane.io.yaml",
            "crds/isolationprofiles.tenantplane.io.yaml", "crds/syncpolicies.tenantplane.io.yaml");
    private static final String GROUP = "tenantplane.io";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

    @Override
    public CommandSpec spec() {
        CommandSpec s = Specs.command("sandbox", new String[] {
            "Runs tenantplane live on this machine, with no cluster and no Docker.",
            "",
            "Starts in one JVM, on loopback: a host Kubernetes API server with",
            "simulated nodes, kubelets, scheduler and controllers; the reconciler as",
            "the service runs it; and for each tenant an API server that stands in",
            "for its k3s (the sandbox also plays k3s's part on the host: it publishes",
            "the tenant kubeconfig and reports the control plane ready). Applies the",
            "CRDs and the example TenantCluster, IsolationProfile and SyncPolicy,",
            "writes host.kubeconfig and tenant-<name>.kubeconfig into --dir, prints",
            "one line per write as it happens, and runs until Ctrl-C, when it stops",
            "and removes what it wrote."}, new String[] {
            "",
            "Examples:",
            "  tenantplane sandbox",
            "  tenantplane sandbox --tenants 2 --dir /tmp/tp --port 6443",
            "  tenantplane sandbox -f my-platform/   # your CRs; other objects go into every tenant",
            "",
            "Exit codes: 0 stopped, 2 bad input (a --dir that holds files, a port in",
            "use, unreadable -f)."});
        s.addOption(Specs.intValue("PORT", "Port of the host API on 127.0.0.1 (default: any free port).", "--port"));
        s.addOption(Specs.value("DIR", "Where the kubeconfigs go (default: ./tenantplane-sandbox); must be empty "
                + "or absent.", "--dir"));
        s.addOption(Specs.intValue("N", "How many tenants, named after the example's (dev, dev-2, ...); default 1.",
                "--tenants"));
        s.addOption(Specs.value("DIR", "Your own TenantCluster, IsolationProfile and SyncPolicy (and workloads, "
                + "applied in every tenant) instead of the examples.", "-f", "--filename"));
        return s;
    }

    @Override
    public int run(Args a) {
        int port = a.integer("--port", 0);
        int tenants = a.integer("--tenants", 1);
        if (tenants < 1 || tenants > 20) {
            throw new CliException(null, "--tenants", "must be within 1..20, got " + tenants, "pass e.g. --tenants 2");
        }
        if (port < 0 || port > 65535) {
            throw new CliException(null, "--port", "must be within 0..65535, got " + port, "pass e.g. --port 6443");
        }
        Path dir = Path.of(a.string("--dir", "tenantplane-sandbox")).toAbsolutePath().normalize();
        boolean madeDir = prepare(dir);
        List<Doc> docs = a.string("-f") == null ? Inputs.embeddedExamples()
                : Inputs.read(List.of(a.string("-f")), InputStream.nullInputStream(), "-f");
        Sandbox sandbox = new Sandbox(a.out(), dir, madeDir);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            sandbox.close();
            stopped.countDown();
        }, "tenantplane-sandbox-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            sandbox.start(port, docs, tenants, a.string("-f") != null);
        } catch (RuntimeException e) {
            Runtime.getRuntime().removeShutdownHook(hook);
            sandbox.close();
            throw e;
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Main.OK;
    }

    /** Creates {@code dir} when absent (true) or accepts it empty (false); anything else is bad input. */
    private static boolean prepare(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                try (var list = Files.list(dir)) {
                    if (list.findAny().isPresent()) {
                        throw new CliException(dir.toString(), "--dir", "is not empty", "pass an empty or new "
                                + "directory: the sandbox removes what it wrote there when it stops");
                    }
                }
                return false;
            }
            Files.createDirectories(dir);
            return true;
        } catch (IOException e) {
            throw new CliException(dir.toString(), "--dir", "cannot be used (" + e.getMessage() + ")",
                    "pass a directory you can write", e);
        }
    }

    /** Everything the sandbox runs, and how to stop it. */
    private static final class Sandbox {
        private final PrintWriter out;
        private final Path dir;
        private final boolean madeDir;
        private final List<Path> written = new ArrayList<>();
        private final Map<String, KubeApiServer> tenantServers = new LinkedHashMap<>();
        private final Map<String, String> tenantNamespaces = new LinkedHashMap<>();
        private KubeApiServer host;
        private Syncer syncer;
        private Thread kubeletOfK3s;
        private volatile boolean closed;
        private KubeletServer kubelet;

        Sandbox(PrintWriter out, Path dir, boolean madeDir) {
            this.out = out;
            this.dir = dir;
            this.madeDir = madeDir;
        }

        void start(int port, List<Doc> docs, int tenants, boolean ownFiles) {
            try {
                host = KubeApiServer.builder().port(port)
                        .namespaces("default", "kube-system", "kube-public", "kube-node-lease")
                        .simulate(Simulation.defaults()).streams().build().start();
            } catch (RuntimeException e) {
                throw new CliException("127.0.0.1:" + port, "--port", "cannot serve the host API there ("
                        + e.getMessage() + ")", "pass another --port, or none for any free port", e);
            }
            ApiClient hostClient = new ClientBuilder().setBasePath(host.url()).build();
            Http rest = new Http(hostClient);
            // The kubelet endpoint, as the service runs it: kubectl logs, exec and port-forward inside the tenants.
            KubeletCa ca = KubeletCa.generate("sandbox-kubelet-ca", java.time.Clock.systemUTC());
            Printer printer = new Printer(out);
            try {
                kubelet = KubeletServer.builder().hostClient(hostClient).ca(ca)
                        .serving(ca.issueServing(List.of("localhost"), java.time.Duration.ofDays(1)))
                        .bindAddress(java.net.InetAddress.getLoopbackAddress()).port(0).observer(printer).start();
            } catch (IOException e) {
                throw new CliException("127.0.0.1", null, "cannot open the kubelet endpoint (" + e.getMessage() + ")",
                        "free a local port and start again", e);
            }
            for (String crd : CRDS) {
                create(rest, resource(crd));
            }
            List<JsonObject> custom = new ArrayList<>();
            List<JsonObject> workloads = new ArrayList<>();
            for (Doc d : docs) {
                JsonObject o = d.loaded().object();
                if (Json.string(o, "apiVersion") != null && Json.string(o, "apiVersion").startsWith(GROUP + "/")) {
                    custom.add(o);
                } else if (ownFiles) {
                    workloads.add(o);
                }
            }
            List<JsonObject> clusters = new ArrayList<>();
            for (JsonObject o : custom) {
                String ns = Json.string(o, "metadata", "namespace");
                if (ns != null) {
                    ensureNamespace(rest, ns);
                }
                if ("TenantCluster".equals(Json.string(o, "kind"))) {
                    clusters.add(o);
                } else {
                    create(rest, o);
                }
            }
            if (clusters.isEmpty()) {
                throw new CliException(null, "-f", "holds no TenantCluster", "pass a directory with a TenantCluster, "
                        + "its IsolationProfile and its SyncPolicy (as examples/yaml does)");
            }
            for (JsonObject base : clusters) {
                for (int i = 1; i <= tenants; i++) {
                    JsonObject tc = base.deepCopy();
                    String name = Json.string(base, "metadata", "name") + (i == 1 ? "" : "-" + i);
                    Json.child(tc, "metadata").addProperty("name", name);
                    String ns = Json.string(tc, "metadata", "namespace");
                    create(rest, tc);
                    String uid = Json.string(rest.call("GET", custom(GROUP + "/v1alpha1", "TenantCluster")
                            .objectPath(ns, name), null).body(), "metadata", "uid");
                    // What provisioning writes into <tenant>-kubelet-client for k3s, handed to its stand-in directly.
                    tenantServers.put(name, KubeApiServer.builder()
                            .simulate(Simulation.builder().nodes(0).build())
                            .kubeletClient(ca.context(ca.issueTenantClient(new TenantKey(ns, name), uid,
                                    java.time.Duration.ofDays(1))))
                            .streams().build().start());
                    tenantNamespaces.put(name, ns);
                }
            }
            written.add(writeKubeconfig(host, "host.kubeconfig"));
            for (var t : tenantServers.entrySet()) {
                written.add(writeKubeconfig(t.getValue(), "tenant-" + t.getKey() + ".kubeconfig"));
                ApiClient tenantClient = new ClientBuilder().setBasePath(t.getValue().url()).build();
                for (JsonObject w : workloads) {
                    create(new Http(tenantClient), w);
                }
            }
            kubeletOfK3s = Thread.ofVirtual().name("sandbox-k3s").start(() -> playK3s(rest));
            TenantPlane plane = TenantPlane.builder().hostClient(hostClient).reportingInstance("sandbox")
                    .observer(printer).kubeletEndpoint(new KubeletEndpoint("localhost", kubelet.port(), ca)).build();
            syncer = Syncer.create(plane, SyncerOptions.defaults().withThreads(Thread.ofVirtual()
                    .name("sandbox-sync-", 0).factory())).start();
            greet();
        }

        private void greet() {
            String first = tenantServers.keySet().iterator().next();
            String ns = tenantNamespaces.get(first);
            Path hostKc = dir.resolve("host.kubeconfig");
            Path tenantKc = dir.resolve("tenant-" + first + ".kubeconfig");
            out.println("tenantplane sandbox: host API " + host.url() + " (in-process, simulated nodes and kubelets)");
            for (var t : tenantServers.entrySet()) {
                out.println("  tenant " + tenantNamespaces.get(t.getKey()) + "/" + t.getKey() + ": its API "
                        + t.getValue().url() + " stands in for its k3s; kubeconfig "
                        + dir.resolve("tenant-" + t.getKey() + ".kubeconfig"));
            }
            out.println();
            out.println("Try:");
            out.println("  kubectl --kubeconfig " + tenantKc + " apply -f examples/yaml/workloads/");
            out.println("  kubectl --kubeconfig " + tenantKc + " get pods -A");
            out.println("  kubectl --kubeconfig " + tenantKc + " logs deploy/nginx");
            out.println("  kubectl --kubeconfig " + tenantKc + " exec deploy/nginx -- echo hello from the host copy"
                    + "    (simulated containers: echo, cat, sh -c)");
            out.println("  kubectl --kubeconfig " + hostKc + " get pods -n " + ns + " -l tenantplane.io/tenant="
                    + first);
            out.println("  kubectl --kubeconfig " + hostKc + " events -n " + ns + " --for tenantcluster/" + first);
            out.println("  ./tenantplane decisions --kubeconfig " + hostKc + " --tenant " + ns + "/" + first);
            out.println("Every write is printed below. Ctrl-C stops the sandbox and removes " + dir + ".");
            out.println();
            out.flush();
        }

        /**
         * What k3s and the host's StatefulSet controller would do for each tenant: publish its kubeconfig into the
         * Secret the control plane's Role names, and report the control plane's StatefulSet ready.
         */
        private void playK3s(Http rest) {
            ResourceKind secrets = ResourceKind.wellKnown("v1", "Secret").orElseThrow();
            ResourceKind sets = ResourceKind.wellKnown("apps/v1", "StatefulSet").orElseThrow();
            while (!closed) {
                for (var t : tenantServers.entrySet()) {
                    String ns = tenantNamespaces.get(t.getKey());
                    Http.Reply secret = rest.get(secrets.objectPath(ns, t.getKey() + "-kubeconfig"));
                    if (secret.ok() && !secret.body().has("data")) {
                        JsonObject s = secret.body();
                        s.add("data", Json.gson().toJsonTree(Map.of("config", Base64.getEncoder().encodeToString(
                                kubeconfig(t.getValue()).getBytes(StandardCharsets.UTF_8)))));
                        rest.call("PUT", secrets.objectPath(ns, t.getKey() + "-kubeconfig"), s);
                    }
                    Http.Reply sts = rest.get(sets.objectPath(ns, t.getKey() + "-control-plane"));
                    if (sts.ok() && Json.object(sts.body(), "status") == null
                            || sts.ok() && !Json.object(sts.body(), "status").has("readyReplicas")) {
                        JsonObject s = sts.body();
                        long replicas = Json.object(s, "spec").get("replicas").getAsLong();
                        s.add("status", JsonParser.parseString("{\"replicas\":" + replicas + ",\"readyReplicas\":"
                                + replicas + ",\"availableReplicas\":" + replicas + "}"));
                        rest.call("PUT", sets.objectPath(ns, t.getKey() + "-control-plane") + "/status", s);
                    }
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private static String kubeconfig(KubeApiServer server) {
            return """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: tenant
                      cluster: {server: "%s"}
                    contexts:
                    - name: tenant
                      context: {cluster: tenant, user: tenant, namespace: default}
                    current-context: tenant
                    users:
                    - name: tenant
                      user: {}
                    """.formatted(server.url());
        }

        private Path writeKubeconfig(KubeApiServer server, String name) {
            Path file = dir.resolve(name);
            try {
                Files.writeString(file, kubeconfig(server), StandardCharsets.UTF_8);
                return file;
            } catch (IOException e) {
                throw new CliException(file.toString(), "--dir", "cannot be written (" + e.getMessage() + ")",
                        "pass a directory you can write", e);
            }
        }

        private static void ensureNamespace(Http rest, String ns) {
            ResourceKind namespaces = ResourceKind.wellKnown("v1", "Namespace").orElseThrow();
            if (rest.get(namespaces.objectPath(null, ns)).code() == 404) {
                create(rest, JsonParser.parseString("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                        + "\"metadata\":{\"name\":\"" + ns + "\"}}").getAsJsonObject());
            }
        }

        private static void create(Http rest, JsonObject o) {
            String apiVersion = Json.string(o, "apiVersion");
            String kind = Json.string(o, "kind");
            ResourceKind k = ResourceKind.wellKnown(apiVersion, kind).orElseGet(() -> custom(apiVersion, kind));
            String ns = k.namespaced() ? Json.string(o, "metadata", "namespace") : null;
            Http.Reply r = rest.call("POST", k.collectionPath(ns == null && k.namespaced() ? "default" : ns), o);
            if (!r.ok() && r.code() != 409) {
                throw new CliException(kind + " " + Json.string(o, "metadata", "name"), null, "was refused by the "
                        + "API server (" + r.code() + " " + Json.string(r.body(), "message") + ")",
                        "fix the object and start again");
            }
        }

        /** The kinds the sandbox creates beyond the built-in ones: the CRDs and tenantplane's own resources. */
        private static ResourceKind custom(String apiVersion, String kind) {
            return switch (kind) {
                case "CustomResourceDefinition" -> new ResourceKind("apiextensions.k8s.io", "v1", kind,
                        "customresourcedefinitions", false);
                case "TenantCluster" -> new ResourceKind(GROUP, "v1alpha1", kind, "tenantclusters", true);
                case "IsolationProfile" -> new ResourceKind(GROUP, "v1alpha1", kind, "isolationprofiles", true);
                case "SyncPolicy" -> new ResourceKind(GROUP, "v1alpha1", kind, "syncpolicies", true);
                default -> throw new CliException(apiVersion + " " + kind, "-f", "is not a kind the sandbox can "
                        + "create", "keep to built-in Kubernetes kinds and tenantplane's own");
            };
        }

        private static JsonObject resource(String name) {
            try (InputStream in = SandboxCommand.class.getClassLoader().getResourceAsStream(name)) {
                if (in == null) {
                    throw new CliException("embedded:" + name, null, "is not in this build",
                            "rebuild the CLI with ./mvnw -pl cli -am package");
                }
                List<LoadedObject> objects = Manifests.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8),
                        Path.of(name));
                return objects.get(0).object();
            } catch (IOException e) {
                throw new CliException("embedded:" + name, null, "cannot be read (" + e.getMessage() + ")",
                        "rebuild the CLI with ./mvnw -pl cli -am package", e);
            }
        }

        /** Stops the Syncer, the servers and the k3s stand-in; removes the kubeconfigs (and the folder it made). */
        synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (syncer != null) {
                syncer.close();
            }
            if (kubeletOfK3s != null) {
                kubeletOfK3s.interrupt();
            }
            if (kubelet != null) {
                kubelet.close();
            }
            tenantServers.values().forEach(KubeApiServer::close);
            if (host != null) {
                host.close();
            }
            for (Path p : written) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    out.println("could not remove " + p + ": " + e.getMessage());
                }
            }
            if (madeDir) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException e) {
                    out.println("could not remove " + dir + ": " + e.getMessage());
                }
            }
            out.println("tenantplane sandbox stopped; removed what it wrote in " + dir);
            out.flush();
        }
    }

    /** JSON over the client's HTTP connection (the in-process servers need no authentication). */
    private static final class Http {
        private static final MediaType JSON = MediaType.get("application/json");
        private final ApiClient client;

        Http(ApiClient client) {
            this.client = client;
        }

        record Reply(int code, JsonObject body) {
            boolean ok() {
                return code >= 200 && code < 300;
            }
        }

        Reply get(String path) {
            return call("GET", path, null);
        }

        Reply call(String method, String path, JsonObject body) {
            Request.Builder b = new Request.Builder().url(client.getBasePath() + path);
            b.method(method, body == null ? null : RequestBody.create(body.toString(), JSON));
            try (Response r = client.getHttpClient().newCall(b.build()).execute()) {
                String text = r.body() == null ? "" : r.body().string();
                JsonObject parsed = text.isBlank() ? new JsonObject() : JsonParser.parseString(text).getAsJsonObject();
                return new Reply(r.code(), parsed);
            } catch (IOException | RuntimeException e) {
                JsonObject status = new JsonObject();
                status.addProperty("message", String.valueOf(e.getMessage()));
                return new Reply(0, status);
            }
        }
    }

    /** One line per executed write, and per refusal: time, tenant, action, tenant object, host object, reason. */
    private static final class Printer implements Observer {
        private final PrintWriter out;

        Printer(PrintWriter out) {
            this.out = out;
        }

        @Override
        public void kubeletRequest(TenantKey tenant, io.tenantplane.observe.KubeletRequest r) {
            synchronized (out) {
                out.println(LocalTime.now().format(CLOCK) + "  " + tenant.name() + "  kubelet " + r.verb() + "  Pod "
                        + r.namespace() + "/" + r.pod() + " -> " + (r.hostPod() == null ? "(none)" : r.hostPod())
                        + "  " + r.code() + " " + r.reason());
                out.flush();
            }
        }

        @Override
        public void decision(TenantKey tenant, Outcome outcome) {
            Decision d = outcome.decision();
            boolean shown = outcome instanceof Outcome.Applied || outcome instanceof Outcome.Failed
                    || d.action() == Action.ERROR || d.action() == Action.CONFLICT;
            if (!shown) {
                return;
            }
            boolean ofTheTenant = d.source() == null || tenant.namespace().equals(d.source().virtualNamespace())
                    && tenant.name().equals(d.source().name());
            String from = ofTheTenant ? "" : d.kind() + " " + (d.source().virtualNamespace() == null ? ""
                    : d.source().virtualNamespace() + "/") + d.source().name();
            String to = d.host() == null ? "(tenant)" : (d.host().namespace() == null ? "" : d.host().namespace() + "/")
                    + d.host().name();
            String failed = outcome instanceof Outcome.Failed f ? "  FAILED " + f.code() + " " + f.message() : "";
            synchronized (out) {
                out.println(LocalTime.now().format(CLOCK) + "  " + tenant.name() + "  " + d.action().display() + "  "
                        + (from.isEmpty() ? d.kind() : from) + " -> " + to + "  " + d.reason() + failed);
                out.flush();
            }
        }
    }
}
