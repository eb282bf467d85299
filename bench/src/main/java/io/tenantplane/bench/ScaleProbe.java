package io.tenantplane.bench;

import com.google.gson.JsonObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.tenantplane.TenantPlane;
import io.tenantplane.json.Json;
import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.ShardLeases;
import io.tenantplane.sync.Syncer;
import io.tenantplane.sync.SyncerOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One replica of a sharded installation in a process of its own: an SDK {@link Syncer} that writes only for the
 * tenants of the shards its {@link ShardLeases} own, wired as the service wires them. Reads the servers' JSON line on
 * standard input, then commands, one per line: {@code baseline} and {@code measure} print one JSON line (heap after
 * full GCs, platform threads, shards and tenants owned); end of input stops it, handing its shards over.
 *
 * <p>Usage: {@code ScaleProbe IDENTITY SHARDS TENANTS}
 */
public final class ScaleProbe {

    /** Namespace of the shard Leases on the bench host. */
    static final String LEASE_NAMESPACE = "default";
    /** Name of the bench installation's Leases. */
    static final String LEASE_NAME = "bench";

    private ScaleProbe() {
    }

    /** Entry point; see the class comment. */
    public static void main(String[] args) throws Exception {
        String identity = args[0];
        int shards = Integer.parseInt(args[1]);
        int tenants = Integer.parseInt(args[2]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        JsonObject servers = Cluster.parse(in.readLine());
        ApiClient hostClient = Cluster.client(Json.string(servers, "host"));
        TenantPlane plane = TenantPlane.builder().hostClient(hostClient).reportingInstance(identity).build();
        Syncer[] syncer = new Syncer[1];
        ShardLeases[] leases = new ShardLeases[1];
        leases[0] = ShardLeases.builder()
                .api(new CoordinationV1Api(Cluster.client(Json.string(servers, "host"))))
                .namespace(LEASE_NAMESPACE).name(LEASE_NAME).identity(identity).count(shards)
                .listener(new ShardLeases.Listener() {
                    @Override
                    public void acquired(int shard) {
                        syncer[0].adopt(t -> leases[0].shardOf(t) == shard);
                    }

                    @Override
                    public boolean released(int shard, boolean lost) throws InterruptedException {
                        return syncer[0].release(t -> leases[0].shardOf(t) == shard, Duration.ofSeconds(10));
                    }
                })
                .build();
        syncer[0] = Syncer.create(plane, SyncerOptions.defaults().withProvision(false).withOwnership(leases[0]::owns)).start();
        if (!syncer[0].awaitStarted(Duration.ofSeconds(60))) {
            throw new IllegalStateException("the Syncer did not start");
        }
        leases[0].start();
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                JsonObject o = new JsonObject();
                o.addProperty("command", line.trim());
                o.addProperty("heap", FootprintProbe.heapAfterGc());
                o.addProperty("threads", Thread.getAllStackTraces().size());
                o.addProperty("jvmThreads", ManagementFactory.getThreadMXBean().getThreadCount());
                o.addProperty("shards", leases[0].view().owned());
                int owned = 0;
                for (int i = 0; i < tenants; i++) {
                    if (leases[0].owns(new TenantKey(FootprintServers.hostNamespace(i), FootprintServers.tenant(i)))) {
                        owned++;
                    }
                }
                o.addProperty("ownedTenants", owned);
                System.out.println(Json.gson().toJson(o));
                System.out.flush();
            }
        } finally {
            syncer[0].close();
            leases[0].close();
        }
    }
}
