package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /leader}: which replica leads, as seen by this one. */
@ApplicationScoped
@Path("/leader")
public class LeaderResource {

    private final Leadership leadership;
    private final ServiceSettings settings;
    private final AccessControl access;

    @Inject
    LeaderResource(Leadership leadership, ServiceSettings settings, AccessControl access) {
        this.leadership = leadership;
        this.settings = settings;
        this.access = access;
    }

    /** For CDI proxies only. */
    protected LeaderResource() {
        this.leadership = null;
        this.settings = null;
        this.access = null;
    }

    /**
     * This replica's view of the election.
     *
     * @param identity this replica's identity
     * @param leader   whether this replica leads
     * @param holder   the Lease holder this replica saw last, or null
     * @param lease    namespace/name of the Lease
     */
    public record LeaderView(String identity, boolean leader, String holder, String lease) {
    }

    /**
     * The election as this replica sees it; with Kubernetes auth, for callers who may {@code get} the Lease (who can
     * read the Lease can see its holder anyway).
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public LeaderView get() {
        access.require(new KubernetesAccess.Attributes("get", "coordination.k8s.io", "leases",
                settings.lease().namespace(), settings.lease().name()));
        return new LeaderView(leadership.identity(), leadership.isLeader(), leadership.holder().orElse(null),
                settings.lease().namespace() + "/" + settings.lease().name());
    }
}
