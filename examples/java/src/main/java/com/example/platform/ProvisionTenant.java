package com.example.platform;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.ProvisionReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.ResourceKind;
import io.tenantplane.model.Condition;
import io.tenantplane.model.LoadedObject;
import io.tenantplane.model.Manifests;
import io.tenantplane.model.TenantCluster;
import io.tenantplane.observe.Outcome;
import io.tenantplane.observe.RecordedDecision;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.plan.Decision;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What an internal platform writes to hand a team its own tenant: create the tenant's IsolationProfile, SyncPolicy
 * and TenantCluster on the host cluster, wait until its control plane is ready, seed it with starter workloads, sync
 * them to the host, and show what was done and why.
 *
 * <pre>
 * java com.example.platform.ProvisionTenant --kubeconfig ~/.kube/config --manifests examples/yaml [--timeout 120]
 * </pre>
 *
 * {@code --manifests} is a directory with the three custom resources; its {@code workloads/} subdirectory holds the
 * starter workloads created inside the tenant.
 */
public final class ProvisionTenant {

    private final TenantPlane plane;
    private final ApiClient host;
    private final PrintStream out;

    ProvisionTenant(ApiClient host, PrintStream out) {
        this.host = host;
        this.out = out;
        this.plane = TenantPlane.builder()
                .hostClient(host)
                .reportingInstance("platform-example")
                .build();
    }

    public static void main(String[] args) throws Exception {
        Path kubeconfig = null;
        Path manifests = Path.of("examples/yaml");
        Duration timeout = Duration.ofMinutes(2);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--kubeconfig" -> kubeconfig = Path.of(args[++i]);
                case "--manifests" -> manifests = Path.of(args[++i]);
                case "--timeout" -> timeout = Duration.ofSeconds(Long.parseLong(args[++i]));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: --kubeconfig FILE [--manifests DIR] [--timeout SECONDS]");
            }
        }
        if (kubeconfig == null) {
            throw new IllegalArgumentException("--kubeconfig FILE is required: the host cluster's kubeconfig");
        }
        ApiClient host;
        try (Reader reader = Files.newBufferedReader(kubeconfig)) {
            host = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader)).build();
        }
        boolean converged = new ProvisionTenant(host, System.out).run(manifests, timeout);
        if (!converged) {
            System.exit(1);
        }
    }

    /** Provisions and syncs the tenant of {@code manifests}; true when the host ends up matching it. */
    boolean run(Path manifests, Duration timeout) throws ApiException, IOException, InterruptedException {
        TenantCluster tenantCluster = null;
        for (LoadedObject o : Manifests.read(manifests.resolve("isolationprofile.yaml"),
                manifests.resolve("syncpolicy.yaml"), manifests.resolve("tenantcluster.yaml"))) {
            if (TenantCluster.KIND.equals(o.kind())) {
                tenantCluster = TenantCluster.fromJson(o.object()).orElseThrow();
            } else {
                createIfAbsent(o);
            }
        }
        if (tenantCluster == null) {
            throw new IllegalArgumentException("no TenantCluster in " + manifests);
        }
        TenantKey tenant = new TenantKey(tenantCluster.namespace(), tenantCluster.tenant());

        ProvisionReport provisioned = plane.ensure(tenantCluster);
        out.printf("ensure %s: %d host objects written, phase %s%n", tenant, provisioned.writes(),
                provisioned.status() == null ? "-" : provisioned.status().phase().value());
        if (!waitUntilReady(tenant, timeout)) {
            out.printf("tenant %s is not ready after %s%n", tenant, timeout);
            return false;
        }

        ApiClient tenantApi = plane.tenantClient(plane.context(tenant).orElseThrow().cluster());
        int deployments = 0;
        for (LoadedObject o : Manifests.read(manifests.resolve("workloads"))) {
            seed(tenantApi, o);
            deployments += "Deployment".equals(o.kind()) ? 1 : 0;
        }
        if (deployments > 0 && !waitForPods(tenantApi, timeout)) {
            out.printf("the tenant's controllers made no Pods within %s%n", timeout);
            return false;
        }

        ConvergenceReport report = plane.converge(tenant);
        out.printf("converge %s: %s in %d ms%n", tenant, report.counts(), report.took().toMillis());
        for (Outcome o : report.outcomes()) {
            Decision d = o.decision();
            out.printf("  %-9s %-22s %-40s %-14s %s%n", d.action().display(), d.kind(),
                    d.host() == null ? "-" : d.host().name(), d.reason(), result(o));
        }
        out.println("recent decisions:");
        for (RecordedDecision r : plane.decisions(tenant, 5)) {
            out.printf("  %s %s %s: %s%n", r.at(), r.outcome().decision().action().display(),
                    r.outcome().decision().reason(), r.outcome().decision().message());
        }
        return report.converged();
    }

    /** Waits until the tenant's controllers have made Pods for the Deployments just applied. */
    private static boolean waitForPods(ApiClient tenantApi, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (!new io.kubernetes.client.openapi.apis.CoreV1Api(tenantApi).listPodForAllNamespaces().execute()
                        .getItems().isEmpty()) {
                    return true;
                }
            } catch (io.kubernetes.client.openapi.ApiException e) {
                // not reachable yet: try again
            }
            Thread.sleep(100);
        }
        return false;
    }

    private boolean waitUntilReady(TenantKey tenant, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            ProvisionReport r = plane.ensure(tenant);
            if (r.status() != null && r.status().conditions().stream()
                    .anyMatch(c -> Condition.READY.equals(c.type()) && c.isTrue())) {
                out.printf("tenant %s is ready%n", tenant);
                return true;
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** Creates an IsolationProfile or SyncPolicy unless it exists: the platform owns them. */
    private void createIfAbsent(LoadedObject o) throws ApiException {
        String plural = ResourceKind.wellKnown(o.apiVersion(), o.kind()).orElseThrow().plural();
        CustomObjectsApi api = new CustomObjectsApi(host);
        try {
            api.createNamespacedCustomObject("tenantplane.io", "v1alpha1", o.namespace(), plural, o.object())
                    .execute();
            out.printf("created %s %s/%s%n", o.kind(), o.namespace(), o.name());
        } catch (ApiException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    /** Creates a starter workload inside the tenant, as the team would with kubectl. */
    private void seed(ApiClient tenantApi, LoadedObject o) {
        ResourceKind kind = ResourceKind.wellKnown(o.apiVersion(), o.kind()).orElseThrow();
        JsonObject object = o.object().deepCopy();
        JsonObject meta = object.getAsJsonObject("metadata");
        List.of("uid", "resourceVersion", "creationTimestamp", "ownerReferences", "generateName").forEach(meta::remove);
        object.remove("status");
        var response = new DynamicKubernetesApi(kind.group(), kind.version(), kind.plural(), tenantApi)
                .create(new DynamicKubernetesObject(object));
        if (!response.isSuccess() && response.getHttpStatusCode() != 409) {
            throw new IllegalStateException("cannot create " + o.describe() + " in the tenant: "
                    + response.getStatus());
        }
    }

    private static String result(Outcome o) {
        return switch (o) {
            case Outcome.Applied a -> "written" + (a.attempts() > 1 ? " after " + a.attempts() + " attempts" : "");
            case Outcome.NotWritten n -> "";
            case Outcome.Failed f -> "FAILED " + f.code() + " " + f.reason();
        };
    }
}
