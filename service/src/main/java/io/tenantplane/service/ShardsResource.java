package io.tenantplane.service;

import io.tenantplane.observe.TenantKey;
import io.tenantplane.sync.ShardLeases;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;

/** {@code GET /shards}: which replica writes for which shard of tenants, as seen by this one. */
@ApplicationScoped
@Path("/shards")
public class ShardsResource {

    private final Sharding sharding;
    private final Reconciler reconciler;
    private final ServiceSettings settings;
    private final AccessControl access;

    @Inject
    ShardsResource(Sharding sharding, Reconciler reconciler, ServiceSettings settings, AccessControl access) {
        this.sharding = sharding;
        this.reconciler = reconciler;
        this.settings = settings;
        this.access = access;
    }

    /** For CDI proxies only. */
    protected ShardsResource() {
        this.sharding = null;
        this.reconciler = null;
        this.settings = null;
        this.access = null;
    }

    /**
     * One shard.
     *
     * @param shard   its index
     * @param lease   namespace/name of its Lease
     * @param holder  the holder this replica saw last, or null
     * @param state   this replica's state for it: FREE, HELD, DRAINING (handing over), DRAINED
     * @param owned   whether this replica writes for its tenants now
     * @param tenants how many TenantClusters in this replica's cache belong to it
     */
    public record Shard(int shard, String lease, String holder, String state, boolean owned, int tenants) {
    }

    /**
     * This replica's view of the shards.
     *
     * @param identity  this replica's identity
     * @param count     the number of shards
     * @param members   the live replicas this one sees, sorted
     * @param fairShare the most shards a replica takes
     * @param owned     how many shards this replica writes for
     * @param shards    every shard
     */
    public record ShardsView(String identity, int count, List<String> members, int fairShare, int owned,
                             List<Shard> shards) {
    }

    /**
     * The shards as this replica sees them; with Kubernetes auth, for callers who may {@code list} Leases in the
     * service's namespace (who can read the Leases can see their holders anyway).
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public ShardsView get() {
        access.require(new KubernetesAccess.Attributes("list", "coordination.k8s.io", "leases",
                settings.lease().namespace(), null));
        ShardLeases.View view = sharding.view();
        int count = settings.lease().shards();
        int[] tenants = new int[count];
        for (var tc : reconciler.tenantClusters()) {
            var meta = tc.getAsJsonObject("metadata");
            tenants[sharding.shardOf(new TenantKey(meta.get("namespace").getAsString(),
                    meta.get("name").getAsString()))]++;
        }
        List<Shard> shards = new ArrayList<>(count);
        for (ShardLeases.ShardView s : view.shards()) {
            shards.add(new Shard(s.shard(), settings.lease().namespace() + "/" + s.lease(), s.holder(),
                    s.state().name(), s.owned(), tenants[s.shard()]));
        }
        return new ShardsView(view.identity(), count, view.members(), view.fairShare(), view.owned(), shards);
    }
}
