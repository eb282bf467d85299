package io.tenantplane.transform;

import com.google.gson.JsonObject;
import io.tenantplane.json.Json;
import io.tenantplane.naming.HostNames;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the transform takes from the tenant's IsolationProfile and mode.
 *
 * @param hostServiceAccount  the host ServiceAccount tenant pods run as when the SyncPolicy does not sync
 *                            ServiceAccounts (token automount is then always off)
 * @param allowedServiceTypes the Service types a tenant may create, e.g. {@code ClusterIP}
 * @param podSecurity         the Pod Security level tenant pods must meet before they reach the host
 * @param nodeSelector        node labels every tenant pod gets (dedicated mode); they win over the pod's own
 * @param tolerations         tolerations every tenant pod gets (dedicated mode); each one a Kubernetes toleration object
 * @param tenantApi           where tenant pods reach their own API on the host (the tenant API Service), or null:
 *                            pods then get no tenant token and no tenant API address
 * @param endpointAddresses   the addresses a tenant's own Endpoints and EndpointSlices may name on the host
 * @param hostFacts           which custom kinds the installation allows and the host serves, and which classes are
 *                            mirrored into the tenant
 * @param containerLimits     the host LimitRange's per-container defaults and maximums, from the profile's limits
 */
public record TransformOptions(String hostServiceAccount, Set<String> allowedServiceTypes,
                               PodSecurityLevel podSecurity, Map<String, String> nodeSelector,
                               List<JsonObject> tolerations, TenantApi tenantApi,
                               EndpointAddresses endpointAddresses, HostFacts hostFacts,
                               ContainerLimits containerLimits) {

    /**
     * The per-container defaults and maximums of the host namespace's LimitRange, as the API server stores it from
     * an IsolationProfile's {@code spec.limits} ({@code SetDefaults_LimitRangeItem}: a default limit from the maximum,
     * a default request from the default limit), by resource name. The transform refuses a Pod whose containers, with
     * these defaults filled in as the host's LimitRanger fills them, ask for more than a maximum: the host would
     * refuse it (403).
     *
     * @param defaultRequest the request a container gets for a resource it names no request or limit for
     * @param defaultLimit   the limit a container gets for a resource it names no limit for
     * @param max            the most a container's request or limit may be
     */
    public record ContainerLimits(Map<String, String> defaultRequest, Map<String, String> defaultLimit,
                                  Map<String, String> max, Set<String> quotaRequires) {
        /** No LimitRange and no quota: nothing filled in, nothing refused. */
        public static final ContainerLimits NONE = new ContainerLimits(Map.of(), Map.of(), Map.of(), Set.of());
        /**
         * The quota resources every container must name when a ResourceQuota counts them ({@code validationSet} of
         * the quota's pod evaluator).
         */
        public static final Set<String> COMPUTE = Set.of("cpu", "memory", "requests.cpu", "requests.memory",
                "limits.cpu", "limits.memory");

        /**
         * @param quotaRequires the compute resources among {@link #COMPUTE} the host namespace's ResourceQuota
         *                      counts: every container must have them, named or filled in from the defaults
         */
        public ContainerLimits {
            defaultRequest = Map.copyOf(defaultRequest == null ? Map.of() : defaultRequest);
            defaultLimit = Map.copyOf(defaultLimit == null ? Map.of() : defaultLimit);
            max = Map.copyOf(max == null ? Map.of() : max);
            quotaRequires = Collections.unmodifiableSortedSet(new TreeSet<>(quotaRequires == null ? Set.of()
                    : quotaRequires));
        }

        /**
         * What the host's LimitRanger and quota admission would refuse of a pod (or a pod template: an object with a
         * pod {@code spec}) under these limits, each at the container's field ({@code
         * spec.containers[0].resources.limits.cpu}) with why and the fix.
         */
        public java.util.List<io.tenantplane.model.Problem> refusals(com.google.gson.JsonObject pod) {
            java.util.List<io.tenantplane.model.Problem> out = new java.util.ArrayList<>();
            for (PodSecurity.Violation v : ContainerLimitCheck.check(pod, this)) {
                out.add(io.tenantplane.model.Problem.of(v.fieldPath(), v.message()));
            }
            for (PodSecurity.Violation v : ContainerLimitCheck.required(pod, this)) {
                out.add(io.tenantplane.model.Problem.of(v.fieldPath(), v.message()));
            }
            return out;
        }

        /**
         * A container's cpu and memory as the host admits it under these limits, by quota resource name
         * ({@code requests.cpu}, {@code cpu}, {@code limits.memory}, ...): named values, else a request from the
         * container's limit, else the defaults.
         */
        public Map<String, String> admitted(com.google.gson.JsonObject container) {
            return ContainerLimitCheck.admitted(Json.object(container, "resources", "requests"),
                    Json.object(container, "resources", "limits"), this);
        }

        /** Without a quota. */
        public ContainerLimits(Map<String, String> defaultRequest, Map<String, String> defaultLimit,
                               Map<String, String> max) {
            this(defaultRequest, defaultLimit, max, Set.of());
        }

        /**
         * The limits a profile's {@code spec.limits} make, defaulted as the API server defaults the LimitRange, and
         * the compute resources its {@code spec.quota} counts.
         */
        public static ContainerLimits of(io.tenantplane.model.IsolationProfile.Limits limits,
                                         io.tenantplane.model.IsolationProfile.Quota quota) {
            Set<String> requires = new TreeSet<>(quota == null ? Set.of() : quota.hard().keySet());
            requires.retainAll(COMPUTE);
            if (limits == null) {
                return new ContainerLimits(Map.of(), Map.of(), Map.of(), requires);
            }
            Map<String, String> def = new TreeMap<>(limits.max());
            def.putAll(limits.defaultLimit());
            Map<String, String> req = new TreeMap<>(def);
            req.putAll(limits.defaultRequest());
            return new ContainerLimits(req, def, limits.max(), requires);
        }
    }

    /**
     * The addresses a tenant may put in the Endpoints and EndpointSlices it writes itself (those of Services without
     * a selector): the IPs of its own host pods, and addresses inside the CIDRs its IsolationProfile lets it reach
     * ({@code spec.network.egressToCIDRs}). Anything else could point a tenant Service at another tenant's pod, a
     * node, the host API or a cloud metadata service (the class of CVE-2021-25740).
     *
     * @param podIps       the IPs ({@code status.podIPs}) of this tenant's pods on the host, as the host reports them
     *                     (never as the tenant reports them: a tenant can write its own pods' status)
     * @param allowedCidrs CIDRs whose addresses are allowed, e.g. {@code 10.20.0.0/16}
     */
    public record EndpointAddresses(Set<String> podIps, List<String> allowedCidrs) {
        /** No pod IPs and no CIDRs: every address is refused. */
        public static final EndpointAddresses NONE = new EndpointAddresses(Set.of(), List.of());

        public EndpointAddresses {
            podIps = Set.copyOf(podIps == null ? Set.of() : podIps);
            allowedCidrs = List.copyOf(allowedCidrs == null ? List.of() : allowedCidrs);
        }

        /** These addresses with other pod IPs. */
        public EndpointAddresses withPodIps(Set<String> ips) {
            return new EndpointAddresses(ips, allowedCidrs);
        }
    }

    /**
     * The tenant API and DNS as a tenant pod reaches them: {@code host} is the ClusterIP of the tenant API Service on
     * the host (then {@code kubernetes.default} and its longer names resolve to it through {@code hostAliases});
     * {@code port} its port; {@code dns} the ClusterIP of the tenant's DNS Service ({@code <tenant>-dns}), or null
     * when it is not known: pods then keep the host's DNS; {@code dnsPending} true when the tenant has a DNS Service
     * by its mode but the host has not given it an IP yet (or it is not there yet): pods that resolve through the
     * cluster DNS then wait, as a Pod's DNS settings cannot change once it runs; {@code addressPending} true when the
     * tenant has an API Service by its mode but the host has not given it an IP yet (or it is not there yet):
     * {@code host} is then the Service's DNS name, and every pod that would run as a tenant ServiceAccount waits, as
     * a Pod's environment, token volume and host aliases cannot change once it runs.
     */
    public record TenantApi(String host, int port, String dns, boolean dnsPending, boolean addressPending) {

        /** A tenant API with a known address. */
        public TenantApi(String host, int port, String dns, boolean dnsPending) {
            this(host, port, dns, dnsPending, false);
        }

        /**
         * A tenant API whose Service has no address on the host yet: pods wait for it.
         *
         * @param service the tenant API Service's DNS name, e.g. {@code dev-api.team-dev.svc}
         */
        public static TenantApi pending(String service) {
            return new TenantApi(service, 443, null, true, true);
        }

        /**
         * A tenant API whose Service is not on the host yet but will be created before any pod is synced (what an
         * offline plan predicts): its address is shown as the Service's DNS name.
         *
         * @param service the tenant API Service's DNS name, e.g. {@code dev-api.team-dev.svc}
         */
        public static TenantApi planned(String service) {
            return new TenantApi(service, 443, null, false, false);
        }

        /**
         * Where tenant pods reach their tenant API and DNS, from the tenant's API and DNS Services as the host holds
         * them (either may be null): the API Service's ClusterIP and first port, with the DNS Service's ClusterIP.
         * Without an API Service address it is {@link #pending pending} (pods wait), except that a plan made
         * {@code beforeProvisioning} (which predicts a pass where provisioning creates the Service first) names a
         * missing Service by {@code apiServiceDnsName}; without a DNS address pods wait for it ({@link #dnsPending}).
         *
         * @param apiServiceDnsName the API Service's DNS name, e.g. {@code dev-api.team-dev.svc}
         */
        public static TenantApi fromServices(String apiServiceDnsName, JsonObject apiService, JsonObject dnsService,
                                             boolean beforeProvisioning) {
            String ip = clusterIp(apiService);
            if (apiService == null && beforeProvisioning) {
                return planned(apiServiceDnsName);
            }
            if (ip == null) {
                // Shared and dedicated tenants always get an API Service with the control plane: without its IP yet,
                // a Pod would start with the host API's address and no token, and keep them for life.
                return pending(apiServiceDnsName);
            }
            int port = 443;
            JsonObject spec = Json.object(apiService, "spec");
            if (spec != null && spec.get("ports") instanceof com.google.gson.JsonArray ports && !ports.isEmpty()
                    && ports.get(0).isJsonObject() && ports.get(0).getAsJsonObject().has("port")) {
                port = ports.get(0).getAsJsonObject().get("port").getAsInt();
            }
            String dns = clusterIp(dnsService);
            // Shared and dedicated tenants always get a DNS Service with the control plane: without its IP yet, a Pod
            // would start with the host's DNS and keep it for life.
            return new TenantApi(ip, port, dns, dns == null);
        }

        private static String clusterIp(JsonObject service) {
            String ip = service == null ? null : Json.string(service, "spec", "clusterIP");
            return ip == null || ip.isEmpty() || ip.equals("None") ? null : ip;
        }

        /** The tenant API with its DNS (null: no tenant DNS). */
        public TenantApi(String host, int port, String dns) {
            this(host, port, dns, false);
        }

        /** @throws IllegalArgumentException naming the argument when the host is blank or the port out of range */
        public TenantApi {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("tenantApi host must not be blank");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("tenantApi port must be within 1..65535: " + port);
            }
            if (dns != null && dns.isBlank()) {
                dns = null;
            }
        }

        /** The tenant API without a known DNS address. */
        public TenantApi(String host, int port) {
            this(host, port, null);
        }

        /** True when {@link #host} is an IPv4 or IPv6 address (not a DNS name). */
        public boolean isAddress() {
            return HostNames.isIpAddress(host);
        }
    }

    /**
     * @throws IllegalArgumentException when {@code hostServiceAccount} is not a valid ServiceAccount name
     * @throws NullPointerException     when {@code allowedServiceTypes} or {@code podSecurity} is null
     */
    public TransformOptions {
        if (!HostNames.isDns1123Subdomain(hostServiceAccount)) {
            throw new IllegalArgumentException("hostServiceAccount '" + hostServiceAccount + "' is not a valid ServiceAccount name");
        }
        allowedServiceTypes = Collections.unmodifiableSortedSet(new TreeSet<>(
                Objects.requireNonNull(allowedServiceTypes, "allowedServiceTypes")));
        Objects.requireNonNull(podSecurity, "podSecurity");
        nodeSelector = Collections.unmodifiableMap(new TreeMap<>(nodeSelector == null ? Map.of() : nodeSelector));
        tolerations = tolerations == null ? List.of() : tolerations.stream().map(JsonObject::deepCopy).toList();
        endpointAddresses = endpointAddresses == null ? EndpointAddresses.NONE : endpointAddresses;
        hostFacts = hostFacts == null ? HostFacts.NONE : hostFacts;
        containerLimits = containerLimits == null ? ContainerLimits.NONE : containerLimits;
    }

    /**
     * Host ServiceAccount {@code default}, only {@code ClusterIP} Services, the {@code restricted} Pod Security level,
     * no node placement, host-scheduled pods.
     */
    public static TransformOptions defaults() {
        return new TransformOptions("default", Set.of("ClusterIP"), PodSecurityLevel.RESTRICTED, Map.of(), List.of(), null,
                null, null, null);
    }

    /**
     * What a tenant's IsolationProfile asks of its host copies: the host ServiceAccount it names (unless the policy
     * syncs ServiceAccounts), its Service types, Pod Security level and egress CIDRs (the addresses Endpoints may name
     * besides the tenant's pods), and, when the tenant runs {@code dedicated}, its node placement. Without a profile:
     * {@link #defaults()}. The pass, explain and a migration's copies all take their options from here.
     *
     * @param tenant    the tenant's name
     * @param dedicated whether the tenant runs (or, for a migration's copies, will run) in dedicated mode
     */
    public static TransformOptions forProfile(String tenant, boolean dedicated,
                                              io.tenantplane.model.IsolationProfile profile,
                                              io.tenantplane.model.SyncPolicy policy) {
        if (profile == null) {
            return defaults();
        }
        io.tenantplane.model.IsolationProfile p = profile.withDefaults();
        List<String> cidrs = p.spec().network() == null ? List.of() : p.spec().network().egressToCIDRs();
        TransformOptions o = defaults()
                .withEndpointAddresses(new EndpointAddresses(Set.of(), cidrs))
                .withPodSecurity(PodSecurityLevel.parse(p.podSecurityLevel().value()))
                .withContainerLimits(ContainerLimits.of(p.spec().limits(), p.spec().quota()))
                .withAllowedServiceTypes(p.spec().services().allowedTypes().stream()
                        .map(io.tenantplane.model.IsolationProfile.ServiceType::value)
                        .collect(java.util.stream.Collectors.toSet()));
        if (tenant != null && !SyncRules.of(policy).syncsToHost("ServiceAccount")) {
            o = o.withHostServiceAccount(p.workloadServiceAccountName(tenant));
        }
        io.tenantplane.model.IsolationProfile.NodePlacement placement = p.spec().nodePlacement();
        if (dedicated && placement != null) {
            List<JsonObject> tolerations = placement.tolerations().stream()
                    .map(t -> io.tenantplane.json.Json.gson().toJsonTree(t).getAsJsonObject()).toList();
            o = o.withPlacement(Map.copyOf(placement.nodeSelector()), tolerations);
        }
        return o;
    }

    /** Copies of the tolerations (the record keeps its own). */
    @Override
    public List<JsonObject> tolerations() {
        return tolerations.stream().map(JsonObject::deepCopy).toList();
    }

    /** These options with another host ServiceAccount. */
    public TransformOptions withHostServiceAccount(String name) {
        return new TransformOptions(name, allowedServiceTypes, podSecurity, nodeSelector, tolerations, tenantApi, endpointAddresses, hostFacts, containerLimits);
    }

    /** These options with other allowed Service types. */
    public TransformOptions withAllowedServiceTypes(Set<String> types) {
        return new TransformOptions(hostServiceAccount, types, podSecurity, nodeSelector, tolerations, tenantApi, endpointAddresses, hostFacts, containerLimits);
    }

    /** These options with another Pod Security level. */
    public TransformOptions withPodSecurity(PodSecurityLevel level) {
        return new TransformOptions(hostServiceAccount, allowedServiceTypes, level, nodeSelector, tolerations, tenantApi, endpointAddresses, hostFacts, containerLimits);
    }

    /** These options with node placement. */
    public TransformOptions withPlacement(Map<String, String> selector, List<JsonObject> podTolerations) {
        return new TransformOptions(hostServiceAccount, allowedServiceTypes, podSecurity, selector, podTolerations, tenantApi, endpointAddresses, hostFacts, containerLimits);
    }

    /** These options with the tenant API tenant pods reach (null: none). */
    public TransformOptions withTenantApi(TenantApi api) {
        return new TransformOptions(hostServiceAccount, allowedServiceTypes, podSecurity, nodeSelector, tolerations,
                api, endpointAddresses, hostFacts, containerLimits);
    }

    /** These options with other endpoint addresses. */
    public TransformOptions withEndpointAddresses(EndpointAddresses addresses) {
        return new TransformOptions(hostServiceAccount, allowedServiceTypes, podSecurity, nodeSelector, tolerations,
                tenantApi, addresses, hostFacts, containerLimits);
    }

    /** These options with other container limits. */
    public TransformOptions withContainerLimits(ContainerLimits limits) {
        return new TransformOptions(hostServiceAccount, allowedServiceTypes, podSecurity, nodeSelector, tolerations,
                tenantApi, endpointAddresses, hostFacts, limits);
    }

    /** These options with other host facts. */
    public TransformOptions withHostFacts(HostFacts facts) {
        return new TransformOptions(hostServiceAccount, allowedServiceTypes, podSecurity, nodeSelector, tolerations,
                tenantApi, endpointAddresses, facts, containerLimits);
    }
}
