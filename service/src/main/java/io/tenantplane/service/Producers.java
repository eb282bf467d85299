package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Clock;
import org.eclipse.microprofile.config.Config;

/** Makes the validated settings and the clock injectable. */
@ApplicationScoped
class Producers {

    private final Config config;
    private volatile ServiceSettings settings;

    @Inject
    Producers(Config config) {
        this.config = config;
    }

    /** For CDI proxies only. */
    protected Producers() {
        this.config = null;
    }

    /** Read once; a bad configuration throws here, and start-up observes it first (see {@link Lifecycle}). */
    @Produces
    ServiceSettings settings() {
        ServiceSettings s = settings;
        if (s == null) {
            synchronized (this) {
                s = settings;
                if (s == null) {
                    s = ServiceSettings.from(config);
                    settings = s;
                }
            }
        }
        return s;
    }

    @Produces
    Clock clock() {
        return Clock.systemUTC();
    }
}
