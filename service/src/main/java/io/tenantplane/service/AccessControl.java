package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Who may read what through the REST API. With {@code tenantplane.auth.mode=kubernetes} every resource method asks
 * the host (SubjectAccessReview, see {@link KubernetesAccess}) whether the caller {@link AuthFilter} authenticated may
 * do the Kubernetes action the answer reveals, e.g. {@code get tenantclusters.tenantplane.io "dev"} in namespace
 * {@code team-dev} for that tenant's detail. With the other modes every authenticated request may read everything.
 */
@ApplicationScoped
public class AccessControl {

    private static final Logger LOG = Logger.getLogger(AccessControl.class.getName());
    /** Each review call gives up after this long; the request then fails closed. */
    static final Duration REVIEW_TIMEOUT = Duration.ofSeconds(5);

    private final ServiceSettings.Auth mode;
    private final HostClients hostClients;
    private final Clock clock;
    private final RequestCaller requestCaller;
    private volatile KubernetesAccess kubernetes;

    @Inject
    AccessControl(ServiceSettings settings, HostClients hostClients, Clock clock, RequestCaller requestCaller) {
        this.mode = settings.auth();
        this.hostClients = hostClients;
        this.clock = clock;
        this.requestCaller = requestCaller;
    }

    /** For CDI proxies only. */
    protected AccessControl() {
        this.mode = null;
        this.hostClients = null;
        this.clock = null;
        this.requestCaller = null;
    }

    private KubernetesAccess kubernetes() {
        KubernetesAccess k = kubernetes;
        if (k == null) {
            synchronized (this) {
                k = kubernetes;
                if (k == null) {
                    k = new KubernetesAccess(hostClients.newClient(REVIEW_TIMEOUT), clock);
                    kubernetes = k;
                }
            }
        }
        return k;
    }

    /** The user a token belongs to; see {@link KubernetesAccess#authenticate}. */
    Optional<Caller> authenticate(String token) {
        return kubernetes().authenticate(token);
    }

    /**
     * Whether the request's caller may do {@code what}; always true unless the mode is {@code kubernetes}.
     *
     * @throws ProblemException 503 when the host cannot be asked
     */
    boolean may(KubernetesAccess.Attributes what) {
        if (mode != ServiceSettings.Auth.KUBERNETES) {
            return true;
        }
        Optional<Caller> known = requestCaller.get();
        if (known.isEmpty()) {
            return false;
        }
        Caller caller = known.get();
        try {
            return kubernetes().allows(caller, what);
        } catch (KubernetesAccess.Unavailable e) {
            LOG.warning(() -> "Refusing a REST request: " + e.getMessage());
            throw ProblemException.unavailable("The service cannot check your access now: " + e.getMessage()
                    + ". Nothing is served unchecked; try again.");
        }
    }

    /**
     * Ends the request with 403 unless the caller may do {@code what}.
     *
     * @throws ProblemException 403 naming the user and the missing permission, or 503 when the host cannot be asked
     */
    void require(KubernetesAccess.Attributes what) {
        if (!may(what)) {
            String who = requestCaller.get().map(Caller::name).orElse("this caller");
            throw ProblemException.forbidden("User \"" + who + "\" may not " + what.describe() + " on the host,"
                    + " and this answer needs that; grant it with a Role and RoleBinding (docs/operations.md,"
                    + " \"Who may call the REST API\").");
        }
    }
}
