package io.tenantplane.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.tenantplane.ConvergenceReport;
import io.tenantplane.TenantPlane;
import io.tenantplane.apply.WriteRate;
import io.tenantplane.observe.Outcome;
import io.tenantplane.plan.Action;
import io.tenantplane.plan.Decision;
import io.tenantplane.plan.Planner;
import io.tenantplane.testkit.FaultRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A tenant's first sync with several writers: how many host writes are in flight (counted at the client, with every
 * create held 20 ms at the server so that writes overlap), the order Pods come in relative to what they use, and the
 * fairness of the shared client-side rate limit between a large and a small tenant.
 */
@Tag(Live.HOOKS)
class ConcurrentFirstSyncIT {

    private static final int CONFIGMAPS = 20;
    private static final int SECRETS = 20;
    private static final int SERVICES = 10;
    private static final int PODS = 40;

    private Live live;

    @BeforeEach
    void start() {
        live = Live.start(true);
        live.createTenant("dev");
        live.syncPrerequisites("dev");
        fill(live.tenant("dev"), "app", CONFIGMAPS, SECRETS, SERVICES, PODS);
        live.requireHostServer().faults().add(FaultRule.on("create", "*").delay(Duration.ofMillis(20)));
    }

    @AfterEach
    void stop() {
        live.close();
    }

    private static void fill(Kube tenant, String prefix, int configMaps, int secrets, int services, int pods) {
        for (int i = 0; i < configMaps; i++) {
            tenant.create(Kube.json("""
                    {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s-config-%d","namespace":"default"},
                     "data":{"k":"v"}}""".formatted(prefix, i)));
        }
        for (int i = 0; i < secrets; i++) {
            tenant.create(Kube.json("""
                    {"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s-secret-%d","namespace":"default"},
                     "stringData":{"k":"v"}}""".formatted(prefix, i)));
        }
        for (int i = 0; i < services; i++) {
            tenant.create(Kube.json("""
                    {"apiVersion":"v1","kind":"Service","metadata":{"name":"%s-svc-%d","namespace":"default"},
                     "spec":{"selector":{"app":"%s-%d"},"ports":[{"port":80}]}}""".formatted(prefix, i, prefix, i)));
        }
        for (int i = 0; i < pods; i++) {
            tenant.create(Kube.json("""
                    {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s-%d","namespace":"default",
                       "labels":{"app":"%s-%d"}},
                     "spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
                       "containers":[{"name":"app","image":"nginx:1.27",
                         "envFrom":[{"configMapRef":{"name":"%s-config-%d"}}],
                         "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}"""
                    .formatted(prefix, i, prefix, i, prefix, i % Math.max(1, configMaps))));
        }
    }

    /** A host client that records the order of creates and the most creates it ever had in flight. */
    private static final class Counting {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger max = new AtomicInteger();
        final List<String> creates = Collections.synchronizedList(new ArrayList<>());
        final ApiClient client;

        Counting(String url) {
            ApiClient c = new ClientBuilder().setBasePath(url).build();
            c.setHttpClient(c.getHttpClient().newBuilder().addInterceptor(chain -> {
                if (!chain.request().method().equals("POST")) {
                    return chain.proceed(chain.request());
                }
                List<String> seg = chain.request().url().pathSegments();
                creates.add(seg.get(seg.size() - 1));
                max.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                    return chain.proceed(chain.request());
                } finally {
                    inFlight.decrementAndGet();
                }
            }).build());
            this.client = c;
        }
    }

    private TenantPlane plane(Counting host, int writers, WriteRate rate) {
        return TenantPlane.builder().hostClient(host.client).tenantConnector(live.connector())
                .retries(5, Duration.ofMillis(10), Duration.ofMillis(100)).recordEvents(false)
                .writeConcurrency(writers).hostWriteRate(rate).build();
    }

    @Test
    void eightWritersKeepAtMostEightCreatesInFlightAndCreatePodsAfterEverythingElse() {
        Counting host = new Counting(live.requireHostServer().url());
        ConvergenceReport report = plane(host, 8, WriteRate.unlimited()).converge(live.key("dev"));

        assertTrue(report.converged(), () -> report.failures().toString());
        // Each Pod also gets its token Secret: the tenant API's ServiceAccount admission mounted a token in it.
        assertEquals(CONFIGMAPS + SECRETS + SERVICES + 2 * PODS, report.count(Action.CREATE),
                report.counts().toString());
        assertTrue(host.max.get() > 1 && host.max.get() <= 8, "creates in flight at most: " + host.max.get());
        int lastOther = -1;
        int firstPod = Integer.MAX_VALUE;
        for (int i = 0; i < host.creates.size(); i++) {
            if (host.creates.get(i).equals("pods")) {
                firstPod = Math.min(firstPod, i);
            } else {
                lastOther = i;
            }
        }
        assertTrue(lastOther < firstPod, "every ConfigMap, Secret and Service before the first Pod: " + host.creates);

        List<Decision> applied = report.outcomes().stream().map(Outcome::decision)
                .filter(d -> d.action() == Action.CREATE).toList();
        // Token Secrets are the token planner's, issued after the sync plan's other writes and before the Pods.
        List<Decision> others = applied.stream().filter(d -> !d.kind().equals("Pod"))
                .filter(d -> !d.reason().equals(io.tenantplane.plan.internal.TenantTokens.ISSUED)).toList();
        List<Decision> pods = applied.stream().filter(d -> d.kind().equals("Pod")).toList();
        assertEquals(others.stream().sorted(Planner.ORDER).toList(), others, "reported in plan order");
        assertEquals(pods.stream().sorted(Planner.ORDER).toList(), pods, "reported in plan order");

        ConvergenceReport second = plane(host, 8, WriteRate.unlimited()).converge(live.key("dev"));
        assertEquals(0, second.count(Action.CREATE) + second.count(Action.UPDATE), second.counts().toString());
    }

    @Test
    void oneWriterKeepsOneCreateInFlight() {
        Counting host = new Counting(live.requireHostServer().url());
        ConvergenceReport report = plane(host, 1, WriteRate.unlimited()).converge(live.key("dev"));

        assertTrue(report.converged(), () -> report.failures().toString());
        assertEquals(1, host.max.get());
    }

    @Test
    void aSmallTenantIsNotHeldBehindALargeOneUnderTheSharedRateLimit() throws Exception {
        live.createTenant("small");
        live.syncPrerequisites("small");
        fill(live.tenant("small"), "s", 2, 0, 0, 1);
        live.requireHostServer().faults().clear();
        Counting host = new Counting(live.requireHostServer().url());
        // 130 writes of the large tenant, 32 waiting at a time, take about 4 s at 30 per second; the small tenant's 4
        // writes (2 ConfigMaps, a Pod and its token Secret) get every other token, where a first-come limiter would
        // put each behind up to 32 of the large one's.
        TenantPlane plane = plane(host, 32, WriteRate.of(30, 1));
        Thread large = Thread.ofVirtual().start(() -> plane.converge(live.key("dev")));
        assertTrue(Live.eventually(Duration.ofSeconds(10), () -> host.creates.size() >= 5), "the large tenant writes");

        int before = host.creates.size();
        ConvergenceReport small = plane.converge(live.key("small"));
        int largeMeanwhile = host.creates.size() - before - 4;
        boolean largeStillRunning = large.isAlive();
        large.join();

        assertTrue(small.converged() && small.count(Action.CREATE) == 4, small.counts().toString());
        assertTrue(largeStillRunning, "the small tenant finished while the large one was still writing");
        assertTrue(largeMeanwhile <= 8, "the large tenant wrote " + largeMeanwhile + " times during the small one's"
                + " 4 writes");
    }
}
