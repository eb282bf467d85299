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

    @Inject
    LeaderResource(Leadership leadership, ServiceSettings settings) {
        this.leadership = leadership;
        this.settings = settings;
    }

    /** For CDI proxies only. */
    protected LeaderResource() {
        this.leadership = null;
        this.settings = null;
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

    /** The election as this replica sees it. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public LeaderView get() {
        return new LeaderView(leadership.identity(), leadership.isLeader(), leadership.holder().orElse(null),
                settings.lease().namespace() + "/" + settings.lease().name());
    }
}
