package io.tenantplane.controlplane;

import static io.tenantplane.json.Build.arr;
import static io.tenantplane.json.Build.obj;

import com.google.gson.JsonObject;
import io.tenantplane.model.InvalidResourceException;
import io.tenantplane.model.Problem;
import io.tenantplane.model.TenantCluster.DatastoreType;
import io.tenantplane.model.TenantCluster.Mode;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.naming.ReverseMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Renders a tenant's k3s control plane from its TenantCluster, as host manifests in the TenantCluster's namespace
 * (the control plane stays there in every mode, so its datastore volume survives a mode change):
 * <ol>
 *   <li>ServiceAccount, Role and RoleBinding {@code <tenant>-control-plane}: the pods may read and patch only the
 *       tenant's kubeconfig (and join token) Secrets, nothing else on the host;</li>
 *   <li>Secret {@code <tenant>-kubeconfig} (and, for etcd or private mode, {@code <tenant>-token}), rendered
 *       without data;</li>
 *   <li>Service {@code <tenant>-control-plane-headless} (stable replica names) and {@code <tenant>-api} (port 443);</li>
 *   <li>for etcd, a PodDisruptionBudget that keeps quorum;</li>
 *   <li>StatefulSet {@code <tenant>-control-plane} running {@code k3s server}, with a volume claim template
 *       {@code data} per replica for the datastore.</li>
 * </ol>
 *
 * <p><b>k3s flags.</b> The server always runs with {@code --disable-agent}: no tenant workload runs inside the
 * control plane pod. In shared and dedicated modes the host runs the synced pods, so the tenant's scheduler, network
 * policy controller, node and volume controllers, CoreDNS and the agent tunnel are turned off. In private mode they
 * stay on for the tenant's own k3s agents (rendered separately). Datastore sqlite: k3s's default kine/SQLite in the
 * data directory, exactly one replica. Datastore etcd: replica 0 starts with {@code --cluster-init}, the others join
 * it with the token the first server wrote; an odd number from 3 to 7.
 *
 * <p><b>The kubeconfig.</b> k3s writes its admin kubeconfig to a file. A second container, {@code kubeconfig-publisher}
 * (same image, it carries {@code kubectl}), points the kubeconfig at {@code https://<tenant>-api.<namespace>.svc:443}
 * (a name in the server certificate, see {@code --tls-san}) and writes it into the Secret under
 * {@value ControlPlaneNames#KUBECONFIG_KEY} with server-side apply, owning only its keys. With an etcd datastore or
 * in private mode it also publishes k3s's join token ({@code /var/lib/rancher/k3s/server/token}) into
 * {@code <tenant>-token} under {@value ControlPlaneNames#TOKEN_KEY}: the other etcd replicas and the tenant's own k3s
 * agents (private mode) join with it. In shared and dedicated mode the Secret also carries k3s's request-header CA
 * under {@value ControlPlaneNames#REQUEST_HEADER_CA_KEY}, read from k3s's data directory (mounted read-only into the
 * publisher): tenantplane's kubelet endpoint trusts it for the tenant's aggregated {@code metrics.k8s.io} calls. The
 * renderer emits the
 * Secret without data so that the Role can name it ({@code resourceNames} cannot restrict {@code create}); whoever
 * applies these manifests must not remove data it did not render (server-side apply does exactly that). Only the
 * publisher container gets a host API token.
 *
 * <p><b>The kubelet endpoint.</b> In shared and dedicated mode the k3s container mounts Secret
 * {@code <tenant>-kubelet-client} (optional) at {@value #KUBELET_CLIENT_DIR}, and its k3s config drop-in at
 * {@code /etc/rancher/k3s/config.yaml.d}: with it, kube-apiserver calls tenantplane's kubelet endpoint for Pods on
 * node mirrors with the tenant's client certificate; without it (no endpoint configured) k3s keeps its own
 * kubelet credentials. tenantplane writes that Secret at run time ({@code KubeletClients}); it is not rendered.
 *
 * <p><b>Non-root.</b> Both containers run as UID 10001 with no capabilities, no privilege escalation, a read-only root
 * file system and the RuntimeDefault seccomp profile, which passes the {@code restricted} Pod Security level. k3s
 * allows a non-root server only with {@code --disable-agent} (it refuses "must run as root unless --disable-agent is
 * specified"); what it cannot do without root is run an agent (kubelet, containerd, flannel), which is why
 * private-mode agents run as separate, privileged pods, outside this renderer.
 *
 * <p>The image is {@code <repository>:<version>} with the {@code +} of the k3s version replaced by {@code -}
 * ({@code docker.io/rancher/k3s:v1.35.5-k3s1}); the version defaults to {@link TenantCluster#DEFAULT_K3S_VERSION},
 * the repository to {@link #DEFAULT_IMAGE_REPOSITORY} (override it for a mirror).
 *
 * <p>Every object carries the labels {@code tenantplane.io/managed-by=tenantplane}, {@code tenantplane.io/tenant},
 * {@value #COMPONENT_LABEL}={@value #COMPONENT} and the annotation {@code tenantplane.io/reason}. Stateless and
 * thread-safe.
 */
public final class ControlPlaneRenderer {

    /** The k3s image repository used unless another is given. */
    public static final String DEFAULT_IMAGE_REPOSITORY = "docker.io/rancher/k3s";
    /** Label naming which part of a tenant an object belongs to. */
    public static final String COMPONENT_LABEL = ReverseMapping.COMPONENT;
    /** {@value #COMPONENT_LABEL} value of control-plane objects and pods. */
    public static final String COMPONENT = ReverseMapping.CONTROL_PLANE_COMPONENT;
    /** The port the k3s API (and supervisor) listens on in the pod. */
    public static final int API_PORT = 6443;
    /** The UID and GID the containers run as. */
    public static final long RUN_AS_USER = 10001;

    static final String DATA_DIR = "/var/lib/rancher/k3s";
    static final String KUBECONFIG_DIR = "/var/lib/tenantplane/kubeconfig";
    static final String TOKEN_DIR = "/var/lib/tenantplane/token";
    /** Where the k3s container finds its kubelet client credential (shared and dedicated mode). */
    public static final String KUBELET_CLIENT_DIR = "/var/lib/tenantplane/kubelet";
    /** k3s reads every {@code *.yaml} here after its config file ({@code pkg/configfilearg/parser.go dotDFiles}). */
    static final String K3S_CONFIG_DROP_INS = "/etc/rancher/k3s/config.yaml.d";
    static final String ADMIN_KUBECONFIG = DATA_DIR + "/server/cred/admin.kubeconfig";
    static final String FIELD_MANAGER = "tenantplane-kubeconfig-publisher";

    private final String imageRepository;

    /** A renderer using {@link #DEFAULT_IMAGE_REPOSITORY}. */
    public ControlPlaneRenderer() {
        this(DEFAULT_IMAGE_REPOSITORY);
    }

    /**
     * A renderer pulling k3s from {@code imageRepository}, e.g. a mirror {@code registry.example.com/rancher/k3s}.
     *
     * @throws IllegalArgumentException when the repository is blank or carries a tag or digest
     */
    public ControlPlaneRenderer(String imageRepository) {
        Objects.requireNonNull(imageRepository, "imageRepository");
        String afterSlash = imageRepository.substring(imageRepository.lastIndexOf('/') + 1);
        if (imageRepository.isBlank() || afterSlash.contains(":") || imageRepository.contains("@")
                || imageRepository.contains(" ")) {
            throw new IllegalArgumentException("imageRepository must be a repository without tag or digest, e.g. "
                    + DEFAULT_IMAGE_REPOSITORY + ", got \"" + imageRepository + "\"");
        }
        this.imageRepository = imageRepository;
    }

    /** The k3s image for {@code k3sVersion}, e.g. {@code docker.io/rancher/k3s:v1.35.5-k3s1}. */
    public String image(String k3sVersion) {
        return imageRepository + ":" + k3sVersion.replace('+', '-');
    }

    /**
     * The labels of an object tenantplane renders for {@code tenant} as part of {@code component} (the control plane,
     * the isolation boundary, the agents, the tenant DNS): managed by tenantplane, the tenant, the component.
     */
    public static Map<String, String> renderedLabels(String tenant, String component) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ReverseMapping.MANAGED_BY, ReverseMapping.MANAGED_BY_VALUE);
        m.put(ReverseMapping.TENANT, tenant);
        m.put(COMPONENT_LABEL, component);
        return m;
    }

    /** The labels that select a tenant's control plane pods. */
    public static Map<String, String> selectorLabels(String tenant) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ReverseMapping.TENANT, tenant);
        m.put(COMPONENT_LABEL, COMPONENT);
        return m;
    }

    /**
     * The control-plane manifests of {@code tenantCluster}, in apply order.
     *
     * @throws InvalidResourceException listing every problem when the TenantCluster does not pass validation
     */
    public List<JsonObject> render(TenantCluster tenantCluster) {
        Objects.requireNonNull(tenantCluster, "tenantCluster");
        List<Problem> problems = tenantCluster.validate();
        if (!problems.isEmpty()) {
            throw new InvalidResourceException("cannot render the control plane of TenantCluster "
                    + tenantCluster.id(), problems);
        }
        TenantCluster tc = tenantCluster.withDefaults();
        ControlPlaneNames n = ControlPlaneNames.of(tc);
        boolean etcd = tc.spec().controlPlane().datastore().type() == DatastoreType.ETCD;
        boolean token = publishesToken(tc);
        boolean dns = tc.mode() != Mode.PRIVATE;
        List<JsonObject> out = new ArrayList<>();
        out.add(serviceAccount(n));
        out.add(role(n, token, dns));
        out.add(roleBinding(n));
        out.add(secret(n, n.kubeconfigSecret(), "holds the admin kubeconfig of tenant " + n.tenant() + "'s API under key "
                + ControlPlaneNames.KUBECONFIG_KEY + "; the kubeconfig-publisher container of StatefulSet "
                + n.statefulSet() + " writes the data, tenantplane creates the Secret so that the control plane's Role "
                + "can be limited to it"));
        if (dns) {
            out.add(secret(n, n.dnsKubeconfigSecret(), "holds the credential tenant " + n.tenant() + "'s DNS reads its"
                    + " API with: a kubeconfig and a token of ServiceAccount kube-system/" + DNS_SERVICE_ACCOUNT
                    + " (list and watch of what CoreDNS reads, nothing else); the kubeconfig-publisher container of"
                    + " StatefulSet " + n.statefulSet() + " writes and renews it"));
        }
        if (token) {
            String readers = etcd && tc.mode() == Mode.PRIVATE ? "the other etcd replicas and the tenant's own k3s agents"
                    : etcd ? "the other etcd replicas" : "the tenant's own k3s agents (private mode)";
            out.add(secret(n, n.tokenSecret(), "holds the k3s join token of tenant " + n.tenant() + " under key "
                    + ControlPlaneNames.TOKEN_KEY + ": replica 0 writes it, " + readers + " read it to join"));
        }
        out.add(headlessService(n, etcd));
        out.add(apiService(n));
        if (etcd) {
            out.add(podDisruptionBudget(n, tc.spec().controlPlane().replicas()));
        }
        out.add(statefulSet(tc, n, etcd));
        return List.copyOf(out);
    }

    private static Map<String, String> labels(ControlPlaneNames n) {
        return renderedLabels(n.tenant(), COMPONENT);
    }

    private static JsonObject metadata(ControlPlaneNames n, String name, String reason) {
        return obj("name", name, "namespace", n.namespace(), "labels", labels(n),
                "annotations", Map.of(ReverseMapping.REASON, reason));
    }

    private static JsonObject serviceAccount(ControlPlaneNames n) {
        return obj("apiVersion", "v1", "kind", "ServiceAccount",
                "metadata", metadata(n, n.serviceAccount(), "identity of tenant " + n.tenant() + "'s control plane "
                        + "pods on the host; its token is mounted only into the kubeconfig-publisher container"),
                "automountServiceAccountToken", false);
    }

    /**
     * Whether the control plane publishes its join token: an etcd datastore needs it for the other replicas, private
     * mode for the tenant's own agents.
     */
    static boolean publishesToken(TenantCluster tc) {
        return tc.withDefaults().spec().controlPlane().datastore().type() == DatastoreType.ETCD
                || tc.mode() == Mode.PRIVATE;
    }

    private static JsonObject role(ControlPlaneNames n, boolean token, boolean dns) {
        List<String> names = new ArrayList<>(List.of(n.kubeconfigSecret()));
        if (dns) {
            names.add(n.dnsKubeconfigSecret());
        }
        if (token) {
            names.add(n.tokenSecret());
        }
        String what = "its kubeconfig" + (dns ? ", its DNS credential" : "") + (token ? ", its join token" : "");
        return obj("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "Role",
                "metadata", metadata(n, n.serviceAccount(), "lets tenant " + n.tenant() + "'s control plane publish "
                        + what + " into " + String.join(", ", names) + " and nothing else"),
                "rules", arr(obj("apiGroups", arr(""), "resources", arr("secrets"), "resourceNames", names,
                        "verbs", arr("get", "patch"))));
    }

    private static JsonObject roleBinding(ControlPlaneNames n) {
        return obj("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "RoleBinding",
                "metadata", metadata(n, n.serviceAccount(), "grants Role " + n.serviceAccount() + " to ServiceAccount "
                        + n.serviceAccount()),
                "roleRef", obj("apiGroup", "rbac.authorization.k8s.io", "kind", "Role", "name", n.serviceAccount()),
                "subjects", arr(obj("kind", "ServiceAccount", "name", n.serviceAccount(), "namespace", n.namespace())));
    }

    private static JsonObject secret(ControlPlaneNames n, String name, String reason) {
        return obj("apiVersion", "v1", "kind", "Secret", "metadata", metadata(n, name, reason), "type", "Opaque");
    }

    private static JsonObject headlessService(ControlPlaneNames n, boolean etcd) {
        List<Object> ports = new ArrayList<>();
        ports.add(obj("name", "https", "port", API_PORT, "targetPort", API_PORT, "protocol", "TCP"));
        if (etcd) {
            ports.add(obj("name", "etcd-client", "port", 2379, "targetPort", 2379, "protocol", "TCP"));
            ports.add(obj("name", "etcd-peer", "port", 2380, "targetPort", 2380, "protocol", "TCP"));
        }
        return obj("apiVersion", "v1", "kind", "Service",
                "metadata", metadata(n, n.headlessService(), "stable DNS names for the replicas of StatefulSet "
                        + n.statefulSet() + (etcd ? ", which etcd peers use to find each other before they are ready"
                        : "")),
                "spec", obj("clusterIP", "None", "publishNotReadyAddresses", true,
                        "selector", selectorLabels(n.tenant()), "ports", ports));
    }

    private static JsonObject apiService(ControlPlaneNames n) {
        return obj("apiVersion", "v1", "kind", "Service",
                "metadata", metadata(n, n.apiService(), "the address of tenant " + n.tenant() + "'s API ("
                        + n.apiServerUrl() + "), used by the published kubeconfig and by tenant pods"),
                "spec", obj("type", "ClusterIP", "selector", selectorLabels(n.tenant()),
                        "ports", arr(obj("name", "https", "port", 443, "targetPort", API_PORT, "protocol", "TCP"))));
    }

    private static JsonObject podDisruptionBudget(ControlPlaneNames n, int replicas) {
        int quorum = replicas / 2 + 1;
        return obj("apiVersion", "policy/v1", "kind", "PodDisruptionBudget",
                "metadata", metadata(n, n.podDisruptionBudget(), "keeps the etcd quorum of tenant " + n.tenant()
                        + "'s control plane (" + quorum + " of " + replicas + " replicas) during node drains"),
                "spec", obj("minAvailable", quorum, "selector", obj("matchLabels", selectorLabels(n.tenant()))));
    }

    List<String> serverArgs(TenantCluster tc, ControlPlaneNames n) {
        List<String> a = new ArrayList<>();
        a.add("--data-dir=" + DATA_DIR);
        a.add("--disable-agent");
        a.add("--write-kubeconfig=" + KUBECONFIG_DIR + "/k3s.yaml");
        a.add("--write-kubeconfig-mode=0600");
        String svc = n.apiService();
        for (String san : List.of(svc, svc + "." + n.namespace(), svc + "." + n.namespace() + ".svc",
                svc + "." + n.namespace() + ".svc.cluster.local")) {
            a.add("--tls-san=" + san);
        }
        TenantCluster.ControlPlane cp = tc.withDefaults().spec().controlPlane();
        if (cp.datastore().type() == DatastoreType.ETCD) {
            // Replicas join replica 0 at its stable name (etcdStartScript), and etcd peers talk by these names: each
            // must be in every server's certificate, or the join fails TLS verification.
            for (int i = 0; i < cp.replicas(); i++) {
                String peer = n.statefulSet() + "-" + i + "." + n.headlessService() + "." + n.namespace() + ".svc";
                a.add("--tls-san=" + peer);
                a.add("--tls-san=" + peer + ".cluster.local");
            }
        }
        boolean hostRunsPods = tc.mode() != Mode.PRIVATE;
        // Private mode keeps k3s's local-path provisioner: the tenant's default StorageClass, storing on the agents'
        // volumes. Shared and dedicated tenants get theirs from the host (claims are synced). Private mode keeps
        // k3s's metrics-server too (kubectl top, HPAs): it scrapes the kubelets of the tenant's own agents. Shared and
        // dedicated tenants get metrics.k8s.io from tenantplane's kubelet endpoint instead, answered from the host.
        a.add("--disable=traefik,servicelb" + (hostRunsPods ? ",metrics-server,local-storage,coredns" : ""));
        a.add("--disable-cloud-controller");
        a.add("--disable-helm-controller");
        if (hostRunsPods) {
            // A tenant Service takes its host copy's ClusterIP, so the tenant API must accept the host's range.
            a.add("--service-cidr=" + cp.serviceCIDR());
            if (cp.serviceNodePortRange() != null) {
                // A NodePort Service takes its host copy's node ports too: the tenant API must accept the host's.
                a.add("--service-node-port-range=" + cp.serviceNodePortRange());
            }
            a.add("--disable-scheduler");
            a.add("--disable-network-policy");
            a.add("--egress-selector-mode=disabled");
            a.add("--kube-controller-manager-arg=controllers=*,-nodeipam,-nodelifecycle,-persistentvolume-binder,"
                    + "-attachdetach,-persistentvolume-expander,-cloud-node-lifecycle,-ttl");
        }
        return a;
    }

    static String etcdStartScript() {
        return String.join("\n",
                "set -eu",
                "ordinal=\"${HOSTNAME##*-}\"",
                "if [ \"$ordinal\" = \"0\" ]; then",
                "  exec /bin/k3s server --cluster-init \"$@\"",
                "fi",
                "until [ -s " + TOKEN_DIR + "/token ]; do",
                "  echo \"waiting for the join token in Secret $TOKEN_SECRET\"",
                "  sleep 5",
                "done",
                "exec /bin/k3s server --server \"https://$STATEFULSET-0.$HEADLESS_SERVICE.$POD_NAMESPACE.svc:"
                        + API_PORT + "\" --token-file " + TOKEN_DIR + "/token \"$@\"",
                "");
    }

    /** The tenant ServiceAccount (in {@code kube-system}) whose token the tenant's DNS reads the tenant API with. */
    public static final String DNS_SERVICE_ACCOUNT = "tenantplane-dns";
    /** How long each DNS token lives; the publisher mints a new one every {@value #DNS_TOKEN_RENEW_SECONDS} s. */
    static final String DNS_TOKEN_DURATION = "24h";
    static final int DNS_TOKEN_RENEW_SECONDS = 3600;

    /**
     * What the tenant's DNS may do in the tenant API: the rules of CoreDNS's own {@code system:coredns} ClusterRole
     * (list and watch of endpoints, services, pods, namespaces and endpointslices), to a ServiceAccount of its own.
     */
    static String dnsRbacManifest() {
        return String.join("\n",
                "apiVersion: v1",
                "kind: ServiceAccount",
                "metadata: {name: " + DNS_SERVICE_ACCOUNT + ", namespace: kube-system}",
                "---",
                "apiVersion: rbac.authorization.k8s.io/v1",
                "kind: ClusterRole",
                "metadata: {name: 'tenantplane:dns'}",
                "rules:",
                "- {apiGroups: [''], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}",
                "- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}",
                "---",
                "apiVersion: rbac.authorization.k8s.io/v1",
                "kind: ClusterRoleBinding",
                "metadata: {name: 'tenantplane:dns'}",
                "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: 'tenantplane:dns'}",
                "subjects: [{kind: ServiceAccount, name: " + DNS_SERVICE_ACCOUNT + ", namespace: kube-system}]",
                "");
    }

    static String publisherScript(boolean token) {
        return publisherScript(token, false);
    }

    /** k3s's request-header CA, which signs the client certificate of its aggregator ({@code --proxy-client-cert-file}). */
    static final String REQUEST_HEADER_CA = DATA_DIR + "/server/tls/request-header-ca.crt";

    static String publisherScript(boolean token, boolean dns) {
        List<String> lines = new ArrayList<>(List.of(
                "set -eu",
                "if [ \"${HOSTNAME##*-}\" != \"0\" ]; then",
                "  echo \"replica 0 publishes the kubeconfig; nothing to do here\"",
                "  while true; do sleep 3600; done",
                "fi",
                "src=" + KUBECONFIG_DIR + "/k3s.yaml",
                "until [ -s \"$src\" ]; do echo \"waiting for k3s to write $src\"; sleep 2; done"));
        if (dns) {
            lines.add("cat > /tmp/dns-rbac.yaml <<'EOF'");
            lines.add(dnsRbacManifest() + "EOF");
            lines.add("dns_minted=0");
        }
        lines.addAll(List.of(
                "while true; do",
                "  cat \"$src\" > /tmp/config",
                "  kubectl config set-cluster default --server=\"$TENANT_API_SERVER\" --kubeconfig=/tmp/config >/dev/null",
                // In shared and dedicated mode (dns) the request-header CA goes along: tenantplane's kubelet endpoint
                // trusts it for this tenant's aggregated metrics.k8s.io calls. Read from k3s's files, not from the
                // tenant API, where a tenant admin could rewrite extension-apiserver-authentication.
                "  kubectl create secret generic \"$KUBECONFIG_SECRET\" --namespace=\"$POD_NAMESPACE\" "
                        + "--from-file=" + ControlPlaneNames.KUBECONFIG_KEY + "=/tmp/config "
                        + (dns ? "--from-file=" + ControlPlaneNames.REQUEST_HEADER_CA_KEY + "=" + REQUEST_HEADER_CA + " "
                        : "")
                        + "--dry-run=client -o yaml "
                        + "| kubectl apply --server-side --field-manager=" + FIELD_MANAGER + " --force-conflicts -f - "
                        + ">/dev/null"));
        if (token) {
            lines.add("  if [ -s " + DATA_DIR + "/server/token ]; then");
            lines.add("    kubectl create secret generic \"$TOKEN_SECRET\" --namespace=\"$POD_NAMESPACE\" "
                    + "--from-file=" + ControlPlaneNames.TOKEN_KEY + "=" + DATA_DIR + "/server/token --dry-run=client "
                    + "-o yaml | kubectl apply --server-side --field-manager=" + FIELD_MANAGER + " --force-conflicts "
                    + "-f - >/dev/null");
            lines.add("  fi");
        }
        if (dns) {
            // The DNS credential: a token of the tenant's own DNS ServiceAccount (minted through the local admin
            // kubeconfig), renewed hourly, and a kubeconfig whose user reads it from a file, so CoreDNS (client-go
            // re-reads token files) follows each renewal the kubelet brings into its Secret volume.
            lines.add("  now=$(date +%s)");
            lines.add("  if [ $((now - dns_minted)) -ge " + DNS_TOKEN_RENEW_SECONDS + " ] \\");
            lines.add("      && kubectl --kubeconfig=\"$src\" apply --server-side --field-manager=" + FIELD_MANAGER
                    + " --force-conflicts -f /tmp/dns-rbac.yaml >/dev/null \\");
            lines.add("      && kubectl --kubeconfig=\"$src\" --namespace=kube-system create token "
                    + DNS_SERVICE_ACCOUNT + " --duration=" + DNS_TOKEN_DURATION + " > /tmp/dns-token; then");
            lines.add("    cp /tmp/config /tmp/dns-config");
            lines.add("    kubectl config unset users.default --kubeconfig=/tmp/dns-config >/dev/null");
            lines.add("    kubectl config set users.default.tokenFile " + ControlPlaneNames.DNS_TOKEN_PATH
                    + " --kubeconfig=/tmp/dns-config >/dev/null");
            lines.add("    kubectl create secret generic \"$DNS_SECRET\" --namespace=\"$POD_NAMESPACE\" "
                    + "--from-file=" + ControlPlaneNames.KUBECONFIG_KEY + "=/tmp/dns-config --from-file="
                    + ControlPlaneNames.DNS_TOKEN_KEY + "=/tmp/dns-token --dry-run=client -o yaml "
                    + "| kubectl apply --server-side --field-manager=" + FIELD_MANAGER + " --force-conflicts -f - "
                    + ">/dev/null");
            lines.add("    dns_minted=$now");
            lines.add("  fi");
        }
        lines.add("  sleep 30");
        lines.add("done");
        lines.add("");
        return String.join("\n", lines);
    }

    private JsonObject statefulSet(TenantCluster tc, ControlPlaneNames n, boolean etcd) {
        TenantCluster.ControlPlane cp = tc.spec().controlPlane();
        int replicas = cp.replicas();
        String image = image(cp.version());
        List<Object> env = new ArrayList<>(List.of(
                obj("name", "POD_NAMESPACE", "valueFrom", obj("fieldRef", obj("fieldPath", "metadata.namespace"))),
                obj("name", "HOME", "value", "/tmp")));
        List<Object> k3sEnv = new ArrayList<>(env);
        if (etcd) {
            k3sEnv.add(obj("name", "STATEFULSET", "value", n.statefulSet()));
            k3sEnv.add(obj("name", "HEADLESS_SERVICE", "value", n.headlessService()));
            k3sEnv.add(obj("name", "TOKEN_SECRET", "value", n.tokenSecret()));
        }
        List<Object> ports = new ArrayList<>();
        ports.add(obj("name", "https", "containerPort", API_PORT, "protocol", "TCP"));
        if (etcd) {
            ports.add(obj("name", "etcd-client", "containerPort", 2379, "protocol", "TCP"));
            ports.add(obj("name", "etcd-peer", "containerPort", 2380, "protocol", "TCP"));
        }
        List<Object> k3sMounts = new ArrayList<>(List.of(
                obj("name", "data", "mountPath", DATA_DIR),
                obj("name", "kubeconfig", "mountPath", KUBECONFIG_DIR),
                obj("name", "tmp", "mountPath", "/tmp"),
                obj("name", "run", "mountPath", "/run"),
                obj("name", "etc-rancher", "mountPath", "/etc/rancher")));
        if (etcd) {
            k3sMounts.add(obj("name", "token", "mountPath", TOKEN_DIR, "readOnly", true));
        }
        boolean kubeletEndpoint = tc.mode() != Mode.PRIVATE;
        if (kubeletEndpoint) {
            // The tenant API calls tenantplane's kubelet endpoint for logs of Pods on node mirrors: k3s takes the
            // drop-in (kube-apiserver's --kubelet-certificate-authority, --kubelet-client-certificate and -key) and
            // the files it names from this Secret. Optional: without it (no endpoint configured) k3s keeps its own.
            k3sMounts.add(obj("name", "kubelet-client", "mountPath", KUBELET_CLIENT_DIR, "readOnly", true));
            k3sMounts.add(obj("name", "kubelet-config", "mountPath", K3S_CONFIG_DROP_INS, "readOnly", true));
        }
        JsonObject k3s = obj(
                "name", "k3s",
                "image", image,
                "imagePullPolicy", "IfNotPresent",
                "command", etcd ? arr("/bin/sh", "-c", etcdStartScript(), "k3s-server") : arr("/bin/k3s", "server"),
                "args", serverArgs(tc, n),
                "env", k3sEnv,
                "ports", ports,
                "startupProbe", obj("tcpSocket", obj("port", API_PORT), "periodSeconds", 5, "failureThreshold", 60),
                "readinessProbe", obj("exec", obj("command", arr("/bin/k3s", "kubectl", "--kubeconfig=" + ADMIN_KUBECONFIG,
                        "get", "--raw=/readyz")), "periodSeconds", 10, "timeoutSeconds", 5, "failureThreshold", 3),
                "livenessProbe", obj("tcpSocket", obj("port", API_PORT), "periodSeconds", 20, "timeoutSeconds", 5,
                        "failureThreshold", 6),
                "resources", resources(cp.resources()),
                "securityContext", containerSecurityContext(),
                "volumeMounts", k3sMounts);
        List<Object> publisherMounts = new ArrayList<>(List.of(
                obj("name", "kubeconfig", "mountPath", KUBECONFIG_DIR, "readOnly", true),
                obj("name", "publisher-tmp", "mountPath", "/tmp"),
                obj("name", "host-api-token", "mountPath", "/var/run/secrets/kubernetes.io/serviceaccount",
                        "readOnly", true)));
        boolean token = publishesToken(tc);
        if (token || kubeletEndpoint) {
            // The join token (etcd, private mode) and k3s's request-header CA (shared, dedicated) are k3s's files.
            publisherMounts.add(obj("name", "data", "mountPath", DATA_DIR, "readOnly", true));
        }
        List<Object> publisherEnv = new ArrayList<>(env);
        publisherEnv.add(obj("name", "TENANT_API_SERVER", "value", n.apiServerUrl()));
        publisherEnv.add(obj("name", "KUBECONFIG_SECRET", "value", n.kubeconfigSecret()));
        if (token) {
            publisherEnv.add(obj("name", "TOKEN_SECRET", "value", n.tokenSecret()));
        }
        boolean dns = tc.mode() != Mode.PRIVATE;
        if (dns) {
            publisherEnv.add(obj("name", "DNS_SECRET", "value", n.dnsKubeconfigSecret()));
        }
        JsonObject publisher = obj(
                "name", "kubeconfig-publisher",
                "image", image,
                "imagePullPolicy", "IfNotPresent",
                "command", arr("/bin/sh", "-c", publisherScript(token, dns)),
                "env", publisherEnv,
                "resources", obj("requests", obj("cpu", "10m", "memory", "32Mi"),
                        "limits", obj("cpu", "100m", "memory", "128Mi")),
                "securityContext", containerSecurityContext(),
                "volumeMounts", publisherMounts);
        List<Object> volumes = new ArrayList<>(List.of(
                obj("name", "kubeconfig", "emptyDir", obj("medium", "Memory", "sizeLimit", "1Mi")),
                obj("name", "tmp", "emptyDir", obj()),
                obj("name", "run", "emptyDir", obj()),
                obj("name", "etc-rancher", "emptyDir", obj()),
                obj("name", "publisher-tmp", "emptyDir", obj("medium", "Memory", "sizeLimit", "1Mi")),
                obj("name", "host-api-token", "projected", obj("defaultMode", 0440, "sources", arr(
                        obj("serviceAccountToken", obj("path", "token", "expirationSeconds", 3607)),
                        obj("configMap", obj("name", "kube-root-ca.crt",
                                "items", arr(obj("key", "ca.crt", "path", "ca.crt")))),
                        obj("downwardAPI", obj("items", arr(obj("path", "namespace",
                                "fieldRef", obj("fieldPath", "metadata.namespace"))))))))));
        if (etcd) {
            volumes.add(obj("name", "token", "secret", obj("secretName", n.tokenSecret(), "optional", true,
                    "defaultMode", 0440)));
        }
        if (kubeletEndpoint) {
            volumes.add(obj("name", "kubelet-client", "secret", obj("secretName", n.kubeletClientSecret(),
                    "optional", true, "defaultMode", 0440, "items", arr(obj("key", "ca.crt", "path", "ca.crt"),
                            obj("key", "tls.crt", "path", "tls.crt"), obj("key", "tls.key", "path", "tls.key")))));
            volumes.add(obj("name", "kubelet-config", "secret", obj("secretName", n.kubeletClientSecret(),
                    "optional", true, "defaultMode", 0440, "items", arr(obj("key",
                            ControlPlaneNames.KUBELET_CONFIG_KEY, "path", "50-tenantplane-kubelet.yaml")))));
        }
        Map<String, String> podLabels = labels(n);
        JsonObject podSpec = obj(
                "serviceAccountName", n.serviceAccount(),
                "automountServiceAccountToken", false,
                "enableServiceLinks", false,
                "terminationGracePeriodSeconds", 30,
                "securityContext", obj("runAsNonRoot", true, "runAsUser", RUN_AS_USER, "runAsGroup", RUN_AS_USER,
                        "fsGroup", RUN_AS_USER, "fsGroupChangePolicy", "OnRootMismatch",
                        "seccompProfile", obj("type", "RuntimeDefault")),
                "affinity", etcd ? obj("podAntiAffinity", obj("preferredDuringSchedulingIgnoredDuringExecution",
                        arr(obj("weight", 100, "podAffinityTerm", obj(
                                "labelSelector", obj("matchLabels", selectorLabels(n.tenant())),
                                "topologyKey", "kubernetes.io/hostname"))))) : null,
                "containers", arr(k3s, publisher),
                "volumes", volumes);
        JsonObject storageRequest = obj("storage", cp.datastore().storage());
        JsonObject claim = obj(
                "metadata", obj("name", "data", "labels", podLabels, "annotations", Map.of(ReverseMapping.REASON,
                        "the " + cp.datastore().type().value() + " datastore of tenant " + n.tenant() + "'s API; kept "
                                + "when the StatefulSet is deleted or scaled down, and across mode changes")),
                "spec", obj("accessModes", arr("ReadWriteOnce"),
                        "storageClassName", cp.datastore().storageClassName(),
                        "resources", obj("requests", storageRequest)));
        String reason = "runs k3s " + cp.version() + " as tenant " + n.tenant() + "'s control plane (" + tc.mode().value()
                + " mode, " + cp.datastore().type().value() + " datastore, " + replicas + " replica"
                + (replicas == 1 ? "" : "s") + ")";
        return obj("apiVersion", "apps/v1", "kind", "StatefulSet",
                "metadata", metadata(n, n.statefulSet(), reason),
                "spec", obj(
                        "serviceName", n.headlessService(),
                        "replicas", replicas,
                        "podManagementPolicy", "OrderedReady",
                        "updateStrategy", obj("type", "RollingUpdate"),
                        "persistentVolumeClaimRetentionPolicy", obj("whenDeleted", "Retain", "whenScaled", "Retain"),
                        "selector", obj("matchLabels", selectorLabels(n.tenant())),
                        "template", obj("metadata", obj("labels", podLabels), "spec", podSpec),
                        "volumeClaimTemplates", arr(claim)));
    }

    private static JsonObject containerSecurityContext() {
        return obj("runAsNonRoot", true, "allowPrivilegeEscalation", false, "readOnlyRootFilesystem", true,
                "capabilities", obj("drop", arr("ALL")));
    }

    private static JsonObject resources(TenantCluster.Resources r) {
        if (r == null || (r.requests().isEmpty() && r.limits().isEmpty())) {
            return obj("requests", obj("cpu", "200m", "memory", "512Mi"), "limits", obj("cpu", "1", "memory", "1Gi"));
        }
        return obj("requests", r.requests().isEmpty() ? null : r.requests(),
                "limits", r.limits().isEmpty() ? null : r.limits());
    }
}
