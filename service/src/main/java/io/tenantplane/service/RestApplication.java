package io.tenantplane.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The read-only REST API, at the root path; resources and providers are discovered. */
@ApplicationScoped
@ApplicationPath("/")
public class RestApplication extends Application {
}
